"""Several metrics over the same systems: a ranking per metric, and how the metrics agree.

:func:`compare_metrics` is :func:`~.multi.compare_all` for each metric, the lexical ones
(BLEU, chrF, TER: metric objects holding the references) and scores computed elsewhere
(``scores={"COMET": {"sysA": [...], ...}}``), followed by :func:`~.agreement.metric_agreement`
over their system scores and segment scores. Every metric's tests share the seed, so each
draws the same bootstrap samples or randomization trials.

A system's score is the metric's corpus score; for external scores the mean of its
segment scores, or the official system score where one is given (``system_scores=``,
mt-metrics-eval's ``NAME.sys.score``), which then ranks the systems while the tests and
intervals stay those of the segment scores. Segment-level agreement compares sentence
scores: each segment's row scored on its own (BLEU with effective order, as
``sacrebleu.sentence_bleu``), or the external score itself.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Mapping, Optional, Sequence, Union

from ..core.lazy_numpy import numpy
from ..core.progress import Progress
from ..core.segment_scores import SegmentScores
from .agreement import MetricAgreement, metric_agreement
from .external import MeanScorer
from .multi import MultiComparison, compare_all
from .paired import as_matrix
from .resampling import RandomSeed
from .sentence import SentenceComparison, compare_sentences

if TYPE_CHECKING:
    from numpy.typing import NDArray

    from .scoring import BatchScorer

__all__ = ["MetricRows", "MetricsComparison", "compare_metrics", "metric_rows", "sentence_matrix"]

#: external scores as the API takes them: a name's scores per system, or read already
ExternalScoresArgument = Mapping[str, Union[SegmentScores, Mapping[str, Sequence[float]]]]


@dataclass(frozen=True)
class MetricsComparison:
    """Every metric's ranking of the systems, and the metrics' agreement."""

    metrics: tuple[str, ...]  # names, in the order given (lexical metrics first)
    higher_is_better: tuple[bool, ...]
    external: tuple[str, ...]  # the metrics whose scores were computed elsewhere
    official: tuple[str, ...]  # the external metrics ranked by official system scores
    rankings: tuple[MultiComparison, ...]  # one per metric, in ``metrics`` order
    sentences: tuple[tuple[SentenceComparison, ...], ...] = ()  # per metric, if asked for
    agreement: Optional[MetricAgreement] = None  # with two or more metrics
    #: per metric, ``(systems, segments)`` sentence scores as the metric gives them (not
    #: oriented): what a reader sees per segment, and what segment-level agreement compares;
    #: left out of ``==`` (arrays have no truth value; they follow from the rows compared)
    segment_scores: tuple[NDArray[Any], ...] = field(default=(), compare=False)
    #: per metric, its rows (one matrix per system) and batch scorer: what any paired
    #: test of a subset of segments resamples (the viewer's ``serve``)
    rows: tuple[MetricRows, ...] = field(default=(), compare=False)

    def ranking(self, metric: str) -> MultiComparison:
        """The ranking of ``metric`` (by name)."""
        return self.rankings[self.metrics.index(metric)]


@dataclass
class MetricRows:
    """One metric being compared: its name, direction, rows per system, scorers."""

    name: str
    higher_is_better: bool
    rows: list[NDArray[Any]]
    scorer: BatchScorer
    sentence_scorer: BatchScorer
    official: Optional[list[float]] = None
    external: bool = False


def _of_object(metric: Any, systems: Mapping[str, Sequence[str]]) -> MetricRows:
    """A metric object's rows for every system: those of its hypotheses (BLEU, chrF, TER,
    any scorer), or for an :class:`~truebleu.metrics.external.ExternalScores` its scores."""
    from .scoring import scorer_for

    if hasattr(metric, "system_statistics"):  # an ExternalScores metric object
        return _external(metric.scores, metric.higher_is_better, list(systems))
    scorer: BatchScorer = scorer_for(metric) if hasattr(metric, "corpus_statistics") else metric
    sentence = (scorer_for(metric, effective_order=True) if hasattr(metric, "corpus_statistics")
                else scorer)
    lengths = {name: len(hyps) for name, hyps in systems.items()}
    if len(set(lengths.values())) > 1:
        raise ValueError("systems differ in length: "
                         + ", ".join(f"{n!r} has {k}" for n, k in lengths.items()))
    rows = []
    with Progress(len(systems), f"scoring systems ({scorer.name})", "systems") as bar:
        for name, hyps in systems.items():
            rows.append(as_matrix(scorer.statistics(hyps), name))
            bar.update()
    return MetricRows(scorer.name, bool(getattr(scorer, "higher_is_better", True)), rows, scorer,
                   sentence)


def _external(scores: SegmentScores, higher_is_better: bool, systems: Sequence[str]) -> MetricRows:
    chosen = scores.select(systems, f"scores[{scores.name!r}]")
    scorer = MeanScorer(scores.name, higher_is_better)
    official = (None if chosen.system_scores is None
                else [chosen.system_scores[system] for system in systems])
    return MetricRows(scores.name, higher_is_better,
                   [chosen.rows(system).to_numpy() for system in systems], scorer, scorer,
                   official, external=True)


def sentence_matrix(metric: MetricRows) -> NDArray[Any]:
    """``(systems, segments)`` sentence scores, as the metric gives them."""
    np = numpy()
    matrix: NDArray[Any] = np.stack([
        np.asarray(metric.sentence_scorer.score_rows(rows), dtype=np.float64)
        for rows in metric.rows])
    return matrix


def _oriented(metric: MetricRows, matrix: NDArray[Any]) -> NDArray[Any]:
    """``matrix`` with larger always better."""
    oriented: NDArray[Any] = matrix if metric.higher_is_better else -matrix
    return oriented


def compare_metrics(systems: Union[Mapping[str, Sequence[str]], Sequence[str]],
                    metrics: Sequence[Any] = (), *,
                    scores: Optional[ExternalScoresArgument] = None,
                    higher_is_better: Optional[Mapping[str, bool]] = None,
                    system_scores: Optional[Mapping[str, Mapping[str, float]]] = None,
                    gold: Optional[str] = None, test: str = "bs",
                    n_samples: Optional[int] = None, seed: RandomSeed = 12345,
                    alpha: float = 0.05, holm_correction: bool = False,
                    ci_samples: int = 1000, statistic: str = "centered",
                    sentences: bool = False, grouping: str = "item",
                    n_permutations: int = 1000) -> MetricsComparison:
    """Rank ``systems`` by every metric and measure how the metrics agree.

    :param systems: system name -> hypotheses (or, with external scores only, the names).
    :param metrics: metric objects holding the references (``BLEU(references=refs)``,
        ``CHRF(...)``, ``TER(...)``), an :class:`~truebleu.metrics.external.ExternalScores`,
        or any :class:`~.scoring.BatchScorer`.
    :param scores: external metric name -> its scores per system (every system of
        ``systems``, one number per segment), or a
        :class:`~truebleu.core.segment_scores.SegmentScores` read from a file.
    :param higher_is_better: external metric name -> its direction (default True).
    :param system_scores: external metric name -> official system scores (they rank the
        systems; the tests stay those of the segment scores).
    :param gold: the metric the others are measured against (human scores): adds WMT's
        accuracy over the pairs the gold separates, segment-level tau and acc23, and the
        permutation tests between metrics.
    :param sentences: add segment-level comparisons of each system with the first.
    :param grouping: segment-level grouping (:data:`.agreement.GROUPINGS`).
    :param n_permutations: permutations of each agreement test (0: no tests).

    ``test``, ``n_samples``, ``seed``, ``alpha``, ``holm_correction``, ``ci_samples`` and
    ``statistic`` are :func:`~.multi.compare_all`'s, for every metric.
    """
    names = list(systems) if isinstance(systems, Mapping) else [str(name) for name in systems]
    if len(names) < 2:
        raise ValueError("comparing systems needs at least two of them")
    compared = metric_rows(systems, metrics, scores=scores, higher_is_better=higher_is_better,
                           system_scores=system_scores, gold=gold)
    metric_names = [metric.name for metric in compared]
    rankings = []
    for metric in compared:
        rankings.append(compare_all(list(zip(names, metric.rows)), metric.scorer, test=test,
                                    n_samples=n_samples, seed=seed, alpha=alpha,
                                    holm_correction=holm_correction, ci_samples=ci_samples,
                                    statistic=statistic, system_scores=metric.official))
    sentence_results: tuple[tuple[SentenceComparison, ...], ...] = ()
    if sentences:
        sentence_results = tuple(
            tuple(compare_sentences(metric.rows[0], rows, metric.sentence_scorer, seed=seed,
                                    names=(names[0], name))
                  for name, rows in zip(names[1:], metric.rows[1:]))
            for metric in compared)
    segment_scores = tuple(sentence_matrix(metric) for metric in compared)
    agreement = None
    if len(compared) > 1:
        agreement = _agreement(compared, rankings, segment_scores, names, gold, grouping,
                               n_permutations, seed, alpha)
    return MetricsComparison(
        tuple(metric_names), tuple(metric.higher_is_better for metric in compared),
        tuple(metric.name for metric in compared if metric.external),
        tuple(metric.name for metric in compared if metric.official is not None),
        tuple(rankings), sentence_results, agreement, segment_scores, tuple(compared))


def metric_rows(systems: Union[Mapping[str, Sequence[str]], Sequence[str]],
                metrics: Sequence[Any] = (), *,
                scores: Optional[ExternalScoresArgument] = None,
                higher_is_better: Optional[Mapping[str, bool]] = None,
                system_scores: Optional[Mapping[str, Mapping[str, float]]] = None,
                gold: Optional[str] = None) -> list[MetricRows]:
    """Every metric's rows for every system, checked: what :func:`compare_metrics` tests
    (its arguments, which see), also for a single system (a one-system report's intervals)."""
    named = (dict(systems) if isinstance(systems, Mapping)
             else {str(name): [] for name in systems})
    names = list(named)
    if metrics and not isinstance(systems, Mapping):
        raise ValueError("metrics that score text need each system's hypotheses: give "
                         "systems as a mapping of names to hypotheses")
    compared = [_of_object(metric, named) for metric in metrics]
    external = dict(scores or {})
    directions = dict(higher_is_better or {})
    official = dict(system_scores or {})
    lexical_names = {metric.name for metric in compared if not metric.external}
    for name in list(directions) + list(official):
        if name in lexical_names:
            raise ValueError(f"{name} is a metric truebleu computes: its direction and its "
                             "system scores are its own")
        if name not in external:
            raise ValueError(f"{name!r} names no external scores (scores given: "
                             f"{', '.join(map(repr, external)) or 'none'})")
    for name, given in external.items():
        segment = given if isinstance(given, SegmentScores) else SegmentScores(name, given)
        if name in official or segment.name != name:  # named as the key, official if given
            segment = SegmentScores(name, segment.segments,
                                    official.get(name, segment.system_scores))
        compared.append(_external(segment, directions.get(name, True), names))
    if not compared:
        raise ValueError("no metric to compare the systems by")
    metric_names = [metric.name for metric in compared]
    clashes = sorted({name for name in metric_names if metric_names.count(name) > 1})
    if clashes:
        raise ValueError(f"metric name(s) given twice: {', '.join(map(repr, clashes))}")
    if gold is not None and gold not in metric_names:
        raise ValueError(f"the gold metric {gold!r} is not among the metrics compared: "
                         f"{', '.join(map(repr, metric_names))}")
    if gold is not None and len(metric_names) < 2:
        raise ValueError(f"the gold metric {gold!r} needs another metric to measure against it")
    segment_counts = {metric.name: metric.rows[0].shape[0] for metric in compared}
    if len(set(segment_counts.values())) > 1:
        raise ValueError("the metrics score different numbers of segments: " + ", ".join(
            f"{name} {count}" for name, count in segment_counts.items()))
    return compared


def _agreement(compared: list[MetricRows], rankings: list[MultiComparison],
               sentence_scores: tuple[NDArray[Any], ...], names: list[str],
               gold: Optional[str], grouping: str, n_permutations: int, seed: RandomSeed,
               alpha: float) -> MetricAgreement:
    """The agreement of the metrics, from their rankings' system scores (official ones
    where given) and their segment scores, all oriented."""
    np = numpy()
    system_scores = {}
    for metric, ranking in zip(compared, rankings):
        by_name = {summary.name: summary.score for summary in ranking.systems}
        values = np.array([by_name[name] for name in names], dtype=np.float64)
        system_scores[metric.name] = values if metric.higher_is_better else -values
    segment_scores = None
    separated: list[tuple[int, int]] = []
    if gold is not None:
        segment_scores = {metric.name: _oriented(metric, matrix)
                          for metric, matrix in zip(compared, sentence_scores)}
        position = {name: k for k, name in enumerate(names)}
        gold_ranking = rankings[[metric.name for metric in compared].index(gold)]
        separated = [(position[pair.a], position[pair.b]) for pair in gold_ranking.pairs
                     if pair.significant]
    return metric_agreement(system_scores, segment_scores, gold, separated, grouping,
                            n_permutations, seed, alpha)
