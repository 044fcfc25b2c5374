"""p-values as text that never contradicts the significance mark beside it.

Four decimals are the custom (sacreBLEU prints ``p = 0.0500``), but rounding can
cross the threshold: p = 0.04995 (500 / 10,001, an AR test's value) rounds to
``0.0500``, which reads "not below 0.05", while the test rejects and marks it
``*``; p = 0.012345 rounds to ``0.0123``, below ``--alpha 0.01234``, while the
test does not reject. :func:`format_p_value` prints four decimals when the
rounded number is on the same side of alpha as p itself, and otherwise as many
more as it takes (at most 30: a decimal that long parses back to p exactly).

The viewer's page formats its p-values with the twin of this function,
``formatPValue`` in ``viewer/static/js/00-util.js``; a test holds the two equal
on a grid of values around each usual alpha.
"""

from __future__ import annotations

__all__ = ["format_p_value", "MAX_DIGITS"]

#: the most decimals shown: a double in [1e-13, 1] written with 30 decimals has at
#: least 17 significant digits and parses back to itself, so the text then agrees
MAX_DIGITS = 30


def format_p_value(p: float, alpha: float = 0.05, digits: int = 4, label: str = "p") -> str:
    """``"p = 0.0012"``: ``p`` with ``digits`` decimals, more when rounding would cross ``alpha``.

    The decision it must agree with is ``p < alpha`` (a test rejects below alpha).
    """
    significant = p < alpha
    shown = digits
    while shown < MAX_DIGITS and (float(f"{p:.{shown}f}") < alpha) != significant:
        shown += 1
    return f"{label} = {p:.{shown}f}"
