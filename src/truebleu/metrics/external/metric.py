"""The external-scores metric: segment scores computed elsewhere, on the metric template.

Its statistics are the scores themselves, one float64 row ``[score, 1.0]`` per segment
(:meth:`SegmentScores.rows <truebleu.core.segment_scores.SegmentScores.rows>`): the
column sums of any segments are their total and count, and
:meth:`ExternalScores.score_from_statistics` scores them as total / count, the mean. A
system's corpus score is that mean over all its segments, or the official system score
when one was given (mt-metrics-eval's ``NAME.sys.score``: MQM's, or a metric whose
system score is not a mean). The direction is the user's (``higher_is_better``).

What it cannot do is score text: it knows systems by name, not by their hypotheses, so
:meth:`ExternalScores.system_statistics` takes the place of ``corpus_statistics`` (which
refuses, saying so). Everything that works on rows and a scorer (significance,
clusters, agreement, the viewer's subsets) takes it as any additive metric; its batch
scorer is :class:`~truebleu.significance.external.MeanScorer`.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Mapping, Optional, Sequence

from ...core.config import MetricConfig
from ...core.kernels import KernelLoader
from ...core.segment_scores import SegmentScores
from ...core.signature import ABBREVIATIONS, Signature
from ...core.statistics import RowTable
from ..base import Metric, Score

if TYPE_CHECKING:
    from ...significance.external import MeanScorer

__all__ = ["ExternalScore", "ExternalScores", "ExternalSignature"]


class ExternalScore(Score):
    """An external metric's score (a mean of segment scores, or an official system score)."""


class ExternalSignature(Signature):
    """``higher:yes|sys:mean|version:...``: the direction, and what a system's score is
    (``mean`` of its segments, or the ``given`` official score)."""

    ABBREVIATIONS = {"bs": ABBREVIATIONS["bs"], "seed": ABBREVIATIONS["seed"],
                     "higher": "hb", "sys": "sys", "version": ABBREVIATIONS["version"]}


class ExternalConfig(MetricConfig):
    """The metric's name and direction (the scores are data, not settings)."""

    __match_args__ = ("name", "higher_is_better")

    name: str
    higher_is_better: bool

    def __init__(self, name: str, higher_is_better: bool) -> None:
        if not isinstance(higher_is_better, bool):
            raise TypeError(f"higher_is_better must be True or False, got {higher_is_better!r}")
        self._set(name=name, higher_is_better=higher_is_better)


class ScoreRows:
    """The kernel of both backends: a system's scores as rows (there is nothing to compile)."""

    name = "python"

    def rows(self, scores: SegmentScores, system: str) -> RowTable:
        return scores.rows(system)


_KERNEL = ScoreRows()


class ExternalScores(Metric[ExternalScore]):
    """Segment scores computed elsewhere, as a metric: rows, a mean, a direction.

    :param name: the metric's name in reports (``COMET``, ``MQM``).
    :param segments: system name -> one score per segment (every system as many).
    :param system_scores: optional official system scores, for exactly those systems.
    :param higher_is_better: the direction (``False`` for error counts such as MQM's
        points, or an error rate).
    """

    row_typecode = "d"
    best_score = math.nan  # no "perfect hypothesis": the scale is the other tool's
    score_type = ExternalScore
    signature_type = ExternalSignature
    empty_corpus_is_error = True
    kernels = KernelLoader(python=lambda: _KERNEL, native=lambda: _KERNEL)

    config: ExternalConfig

    def __init__(self, name: str, segments: Mapping[str, Sequence[float]],
                 system_scores: Optional[Mapping[str, float]] = None, *,
                 higher_is_better: bool = True) -> None:
        self.scores = SegmentScores(name, segments, system_scores)
        super().__init__(ExternalConfig(name, higher_is_better), backend="python")
        self.higher_is_better = higher_is_better

    @classmethod
    def from_scores(cls, scores: SegmentScores, *, higher_is_better: bool = True
                    ) -> ExternalScores:
        """The metric of scores already read (:func:`truebleu.io.scores.read_segment_scores`)."""
        return cls(scores.name, scores.segments, scores.system_scores,
                   higher_is_better=higher_is_better)

    @property
    def name(self) -> str:
        return self.config.name

    @property
    def systems(self) -> tuple[str, ...]:
        return self.scores.systems

    def system_statistics(self, system: str) -> RowTable:
        """``system``'s rows, ``[score, 1.0]`` per segment: what ``corpus_statistics``
        gives for a metric that scores text."""
        if system not in self.scores.segments:
            raise KeyError(f"no {self.name} scores for system {system!r}; scores are given "
                           f"for {', '.join(map(repr, self.systems))}")
        rows: RowTable = self._kernel.rows(self.scores, system)
        return rows

    def system_score(self, system: str) -> ExternalScore:
        """``system``'s corpus score: the official system score if given, else the mean
        of its segment scores, summed as NumPy sums a vector (``x.mean()``: the mean the
        significance tests report)."""
        if self.scores.system_scores is not None:
            if system not in self.scores.system_scores:
                self.system_statistics(system)  # the KeyError naming the systems
            return ExternalScore(self.name, self.scores.system_scores[system])
        from ...significance.paired import score_of

        return ExternalScore(self.name,
                             score_of(self.system_statistics(system).to_numpy(),
                                      self.batch_scorer()))

    def score_from_statistics(self, totals: Sequence[float]) -> ExternalScore:
        """The mean of the segments whose rows were summed (NaN for none)."""
        total, count = totals[0], totals[1]
        return ExternalScore(self.name, total / count if count else math.nan)

    def batch_scorer(self, **options: Any) -> MeanScorer:
        """:class:`~truebleu.significance.external.MeanScorer`: the mean of many summed
        rows at once, in float64."""
        from ...significance.external import MeanScorer

        return MeanScorer(self.name, self.higher_is_better)

    def score_name(self) -> str:
        return self.name

    def row_width(self) -> int:
        return 2

    def empty_statistics(self) -> RowTable:
        return RowTable(2, typecode="d")

    def get_signature(self) -> Signature:
        return self.signature_type(
            bs=self.n_bootstrap, seed=self.seed, higher=self.higher_is_better,
            sys="mean" if self.scores.system_scores is None else "given")

    def _signature_settings(self) -> dict[str, object]:
        return {"higher": self.higher_is_better}

    def _prepare(self, segments: list[list[str]]) -> Any:
        raise self._no_text()

    def _statistics(self, hypotheses: Sequence[str], prepared: Any) -> RowTable:
        raise self._no_text()

    def _compute(self, hypotheses: Sequence[str], references: Any, totals_only: bool) -> Any:
        raise self._no_text()

    def _no_text(self) -> TypeError:
        return TypeError(f"{self.name} scores are read from elsewhere, not computed from "
                         "hypotheses: use system_statistics(system) / system_score(system)")

    def __repr__(self) -> str:
        direction = "higher" if self.higher_is_better else "lower"
        return f"ExternalScores({self.name!r}, {len(self.systems)} systems, {direction} is better)"
