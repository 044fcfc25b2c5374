"""External segment scores in the tests: rows ``[score, 1]``, scored as their mean.

A metric computed elsewhere (COMET, MetricX, a human's DA or MQM) gives one number per
segment. As additive rows ``[score, 1.0]`` (:meth:`SegmentScores.rows
<truebleu.core.segment_scores.SegmentScores.rows>`) the column sums of any set of
segments are their total and their count, and :class:`MeanScorer` scores such sums as
total / count: their mean. The paired bootstrap, approximate randomization, confidence
intervals, clusters and segment-level comparisons then run on external scores exactly
as on any additive metric.

The sums are float64, added as NumPy adds a vector (``float32_sums = False``; see
:func:`truebleu.significance.resampling.float64_column_sums`), not in sacreBLEU's float32
(which is right for TER, whose numbers must be sacreBLEU's, and would cost COMET scores
their fourth digit): a system's mean is ``x.mean()`` and a bootstrap interval is what
``x[rng.choice(n, (samples, n))].mean(axis=1)`` gives for the same seed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence

from ..core.lazy_numpy import numpy

if TYPE_CHECKING:
    from numpy.typing import ArrayLike, NDArray

__all__ = ["MeanScorer"]


class MeanScorer:
    """The :class:`~truebleu.significance.scoring.BatchScorer` of external scores.

    :param name: the metric's name in reports (``COMET``).
    :param higher_is_better: the direction of the scores (MQM error points: False).
    """

    #: resampled sums in float64, as NumPy sums a vector (see the module docstring)
    float32_sums = False

    def __init__(self, name: str, higher_is_better: bool = True) -> None:
        self.name = name
        self.higher_is_better = bool(higher_is_better)

    def statistics(self, hypotheses: Sequence[str]) -> NDArray[Any]:
        """External scores are read, not computed from text: their rows are
        :meth:`SegmentScores.rows <truebleu.core.segment_scores.SegmentScores.rows>`."""
        raise TypeError(f"{self.name} scores are read from elsewhere, not computed from "
                        "hypotheses: give each system's rows (SegmentScores.rows)")

    def score_rows(self, sums: ArrayLike) -> NDArray[Any]:
        """Each summed row ``[total, count]`` scored as ``total / count`` (NaN for no segment)."""
        np = numpy()
        rows = np.asarray(sums, dtype=np.float64).reshape(-1, 2)
        with np.errstate(invalid="ignore", divide="ignore"):
            means: NDArray[Any] = rows[:, 0] / rows[:, 1]
        return means

    def __repr__(self) -> str:
        direction = "higher" if self.higher_is_better else "lower"
        return f"MeanScorer({self.name!r}, {direction} is better)"
