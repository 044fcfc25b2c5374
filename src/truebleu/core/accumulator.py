"""A mergeable accumulator of corpus statistics, for training and evaluation loops.

A metric's per-segment statistics are integer rows that *add*, so a corpus
score can be gathered anywhere, in any number of pieces, and merged exactly:
each :class:`Accumulator` keeps the column sums of the rows it has seen (and,
only when asked, the rows themselves); :meth:`Accumulator.merge` adds two of
them. Integer addition is associative and commutative, so every split of the
data and every merge order gives the same sums, hence the same score, as one
pass over the whole corpus.

The accumulator is generic over the metric: it needs only
``metric.corpus_statistics(hypotheses, references)`` (a
:class:`~truebleu.core.statistics.RowTable` of integer rows) and
``metric.score_from_statistics(sums)``. Metrics with float rows (TER) are
refused: their sums depend on the order of additions, so merging could not be
exact.

It pickles to a few hundred bytes (the metric's configuration and the sums),
so it can travel between processes (``multiprocessing``, Spark's
``mapPartitions``, ``torch.distributed`` object collectives).
"""

from __future__ import annotations

import copy
from typing import Any, Generic, Optional, Protocol, Sequence, TypeVar

from .signature import Signature
from .statistics import RowTable

__all__ = ["Accumulator", "configuration_of"]


S = TypeVar("S")
S_co = TypeVar("S_co", covariant=True)


class AccumulatedMetric(Protocol[S_co]):
    """What the accumulator needs of a metric (every :class:`truebleu.metrics.base.Metric`
    has it): rows of a batch, the score of their sums (an ``S_co``), the configuration
    that two accumulators must share, and the signature."""

    def corpus_statistics(self, hypotheses: Sequence[str],
                          references: Sequence[Sequence[Optional[str]]]) -> RowTable: ...

    def score_from_statistics(self, totals: Sequence[float]) -> S_co: ...

    def configuration(self) -> tuple[object, ...]: ...

    def get_signature(self) -> Signature: ...


def configuration_of(metric: object) -> tuple[object, ...]:
    """Everything about ``metric`` that changes its statistics or its score.

    Two accumulators merge only when these are equal: the metric's class name and
    its ``configuration()`` (a tuple of plain values; every truebleu metric has
    one, the key of its frozen configuration).
    """
    own = getattr(metric, "configuration", None)
    if callable(own):
        return (type(metric).__name__, *own())
    raise TypeError(f"{type(metric).__name__} does not describe its configuration: give it a "
                    "configuration() method returning a tuple of the settings that change its score")


def _merge_reference_counts(a: Optional[int], b: Optional[int]) -> Optional[int]:
    """References per segment of two parts: None = nothing seen, -1 = it varies."""
    if a is None:
        return b
    if b is None or a == b:
        return a
    return -1


class Accumulator(Generic[S]):
    """Running corpus statistics of one metric configuration.

    Create it with ``metric.accumulator()`` (``BLEU(...)``, ``CHRF(...)``, any metric
    with integer rows). ``update(hypotheses,
    references)`` adds a batch (``references`` are reference streams, as for
    ``corpus_bleu``); ``merge(other)`` adds another accumulator of the same
    configuration; ``score()`` is the corpus score of everything seen.

    :param keep_segments: also keep every segment's row (memory grows with the
        corpus then); merged rows follow ours, then ``other``'s.
    """

    __slots__ = ("metric", "configuration", "sums", "segments", "num_refs", "rows")

    def __init__(self, metric: AccumulatedMetric[S], keep_segments: bool = False) -> None:
        self.metric = metric
        self.configuration = configuration_of(metric)
        empty = metric.corpus_statistics([], [[]])
        if not isinstance(empty, RowTable) or empty.data.typecode not in "bhilqBHILQ":
            raise TypeError(f"{type(metric).__name__}'s statistics are not integer rows: "
                            "their sums would depend on the merge order")
        self.sums: list[float] = [0] * empty.width
        self.segments = 0
        self.num_refs: Optional[int] = None
        self.rows: Optional[RowTable] = empty if keep_segments else None

    # -- adding -------------------------------------------------------------

    def update(self, hypotheses: Sequence[str],
               references: Sequence[Sequence[Optional[str]]]) -> "Accumulator[S]":
        """Add the statistics of a batch of segments; returns ``self``."""
        stats = self.metric.corpus_statistics(hypotheses, references)
        self.sums = [a + b for a, b in zip(self.sums, stats.sum())]
        self.segments += len(stats)
        if len(stats):  # metrics without references per segment (num_refs) keep None
            self.num_refs = _merge_reference_counts(self.num_refs,
                                                    getattr(self.metric, "num_refs", None))
        if self.rows is not None:
            self.rows.extend(stats)
        return self

    def merge(self, other: "Accumulator[S]") -> "Accumulator[S]":
        """Add ``other``'s sums into ``self`` (same configuration only); returns ``self``."""
        if not isinstance(other, Accumulator):
            raise TypeError(f"can only merge another Accumulator, got {type(other).__name__}")
        if other.configuration != self.configuration:
            raise ValueError("cannot merge accumulators of different configurations: "
                             f"{self.configuration} and {other.configuration}")
        if (self.rows is None) != (other.rows is None):
            raise ValueError("cannot merge an accumulator that keeps segment rows with one that "
                             "does not (keep_segments must be the same)")
        self.sums = [a + b for a, b in zip(self.sums, other.sums)]
        self.segments += other.segments
        self.num_refs = _merge_reference_counts(self.num_refs, other.num_refs)
        if self.rows is not None and other.rows is not None:  # both or neither (checked above)
            self.rows.extend(other.rows)
        return self

    def __add__(self, other: "Accumulator[S]") -> "Accumulator[S]":
        """A new accumulator holding both (neither operand changes)."""
        return copy.deepcopy(self).merge(other)

    # -- results ------------------------------------------------------------

    def score(self) -> S:
        """The corpus score of every segment added so far (as ``corpus_score`` gives it)."""
        return self.metric.score_from_statistics(list(self.sums))

    def signature(self) -> Signature:
        """The metric's signature (``nrefs`` as seen by the updates: ``var`` when it varied)."""
        metric = copy.copy(self.metric)
        if hasattr(metric, "num_refs"):
            if self.num_refs is None:
                raise ValueError("nothing accumulated yet: the number of references is unknown")
            metric.num_refs = self.num_refs
        return metric.get_signature()

    def statistics(self) -> RowTable:
        """The per-segment rows (only with ``keep_segments=True``)."""
        if self.rows is None:
            raise ValueError("segment rows were not kept: create the accumulator with "
                             "keep_segments=True")
        return self.rows

    # -- pickling -----------------------------------------------------------

    def __getstate__(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in self.__slots__}

    def __setstate__(self, state: dict[str, Any]) -> None:
        for name, value in state.items():
            setattr(self, name, value)

    def __repr__(self) -> str:
        return (f"Accumulator({self.configuration[0]}, segments={self.segments}, "
                f"sums={self.sums})")
