"""The protocols a scorer follows to take part in the significance tests.

Apart from :mod:`.scoring`, whose helpers are on the scoring command's path: a ``Protocol``
class needs :mod:`typing` at run time, and the command imports typing nowhere else
(about 16 M instructions per process). :mod:`.scoring` still gives these names.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol, Sequence

if TYPE_CHECKING:
    from numpy.typing import NDArray
    from typing_extensions import Buffer


class BatchScorer(Protocol):
    """What a metric must offer to be tested: the minimal interface.

    ``statistics(hypotheses)`` gives an integer matrix, one additive row per
    segment; ``score_rows(sums)`` maps a ``(k, width)`` array of summed rows to
    ``k`` float scores. ``name`` labels the metric in reports.
    """

    name: str

    def statistics(self, hypotheses: Sequence[str]) -> NDArray[Any]: ...

    def score_rows(self, sums: NDArray[Any]) -> NDArray[Any]: ...


class ApproximateScorer(BatchScorer, Protocol):
    """A scorer that says ``supports_approx = True``: its ``score_rows`` also takes
    ``exact=False`` (NumPy's log and exp: faster, maybe a few ulps off), which the
    randomization test uses only to find the trials it must rescore exactly."""

    supports_approx: bool

    def score_rows(self, sums: NDArray[Any], exact: bool = True) -> NDArray[Any]: ...


class CoreScorer(BatchScorer, Protocol):
    """A scorer that scores int64 sums in the compiled core (BLEU's): ``core_scores``
    gives the floats :meth:`~BatchScorer.score_rows` gives (see :mod:`.native`)."""

    def core_scores(self, sums: Buffer, float32: bool) -> memoryview[float]: ...
