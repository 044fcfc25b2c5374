"""What stream_statistics returns beside the rows (bleu/bindings.c, bleu/segments.c): the
references per segment (sacreBLEU's nrefs, -1 when it varies) counted as the streams are
gathered, and the hypotheses that end in " ." read from the code units the gather took
(an exact str read in place) or asked of the str (a subclass, a lowercased copy)."""

from __future__ import annotations

import pytest

pytest.importorskip("truebleu._native_core", reason="compiled core not built")

from array import array  # noqa: E402

from truebleu._native_core import stream_statistics  # noqa: E402


def counts(hyps, streams, lowercase=False):
    """(nrefs, tokenized periods) of one call (its rows summed into a totals row)."""
    totals = array("q", [0] * 10)
    return stream_statistics(list(hyps), streams, 0, lowercase, 4, 1, None, totals)


def rule(hyps):
    return sum(1 for h in hyps if h.endswith(" ."))


class Always(str):
    def endswith(self, *args):  # a subclass is asked, as the Python expression asks it
        return True


EDGES = [" .", ".", "", " ", "a .", "a.", "\u00e9 .", "\u00e9.", "\u0100 .", "\u0100 ,", "\U0001F600 .",
         "\U0001F600.", " .\r", " . ", "x" * 1000 + " .", "\U0001F600" * 300 + " .", "ĀĀ .\n", "É .", "É ."]


@pytest.mark.parametrize("lowercase", [False, True])
def test_periods_of_every_string_width(lowercase):
    refs = ["a reference ."] * len(EDGES)
    assert counts(EDGES, [refs], lowercase) == (1, rule(EDGES))
    hyps = [Always(h) for h in EDGES[:5]] + EDGES[5:]
    assert counts(hyps, [refs], lowercase) == (1, 5 + rule(EDGES[5:]))


def test_references_per_segment():
    hyps = ["a b ."] * 4
    assert counts(hyps, [["x"] * 4]) == (1, 4)
    assert counts(hyps, [["x"] * 4, ["y"] * 4, ["z"] * 4]) == (3, 4)
    assert counts(hyps, [["x"] * 4, ["y", None, "y", "y"]]) == (-1, 4)
    assert counts(hyps, [["x", None, "x", "x"], ["y", "y", "y", None]]) == (-1, 4)
    assert counts(hyps, [[None, "x", "x", "x"], ["y"] * 4]) == (-1, 4)
    assert counts(hyps[:1], [["x"], [None]]) == (1, 1)
    assert counts([], [[]]) == (-1, 0)
    assert counts([], [[], []]) == (-1, 0)
