"""All-pairs comparison of N systems, Holm-Bonferroni, and significance clusters.

Procedure (what the clusters mean, and why this one)
----------------------------------------------------
1. Every pair of systems is tested with a paired test (bootstrap or
   approximate randomization). All pairs share one set of bootstrap samples /
   randomization trials drawn from the given seed, so one matrix product
   serves all systems, and the comparison of the first system with any other
   is sacreBLEU's ``-par`` result, or ``-pbs`` with
   ``statistic="sacrebleu"``, for that seed, except that ties with the
   observed statistic count (so an identical copy of a system gets p = 1 and
   stays in its cluster; see :mod:`.paired`), and the default bootstrap
   statistic is corrected.
2. Optionally the ``N(N-1)/2`` p-values are adjusted with Holm's step-down
   procedure, which controls the family-wise error rate at ``alpha`` under any
   dependence between the tests (the tests share data, so independence-based
   corrections such as Šidák's would not be justified). Holm is uniformly
   more powerful than plain Bonferroni.
3. Systems are sorted by score (best first) and cut into clusters greedily: a
   system joins the current cluster when it is *not* significantly different
   from *every* member already in it, otherwise it opens the next cluster.
   Hence (a) no two systems in one cluster differ significantly, (b) clusters
   are contiguous in the score ranking, so a cluster never skips a system
   that scores in between, and (c) the result is deterministic. Because
   significance is not transitive, other partitions can satisfy (a) too; the
   greedy top-down cut is the usual, easily explained choice (as in WMT's
   ranking clusters) and is reported together with the full p-value matrix.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Mapping, Optional, Sequence, TypeVar, Union

from ..core.progress import Progress
from .paired import (
    DEFAULT_SAMPLES,
    StatisticsMatrix,
    as_matrix,
    bootstrap_p_value,
    check_same_shape,
    check_samples,
    check_statistic,
    drawn_bootstrap_scores,
    interval,
    randomization_p_values,
    score_of,
)
from .preconditions import (
    TEST_NAMES,
    bootstrap_cost,
    check_test,
    comparison_cost,
    require_segments,
)
from .resampling import RandomSeed, make_rng, swap_masks

if TYPE_CHECKING:
    from numpy.random import Generator
    from numpy.typing import NDArray
    from typing_extensions import TypedDict, Unpack

    from .extra_columns import ExtraColumns
    from .scoring import BatchScorer

    class CompareOptions(TypedDict, total=False):
        """:func:`compare_all`'s keyword options."""

        test: str
        n_samples: Optional[int]
        seed: RandomSeed
        alpha: float
        holm_correction: bool
        ci_samples: int
        statistic: str

T = TypeVar("T")
#: p-values of the pairs ``(i, j)``, ``i < j``, of systems by position
PairValues = dict[tuple[int, int], float]

TEST_LABEL = {"bs": "paired bootstrap", "ar": "approximate randomization"}


@dataclass(frozen=True)
class SystemSummary:
    name: str
    score: float
    mean: float  # bootstrap mean of the score
    ci: float  # bootstrap 95% half-width
    rank: int  # 1 = best score
    cluster: int  # 1 = best cluster


@dataclass(frozen=True)
class PairResult:
    """One pair of the all-pairs comparison (``b`` scores no higher than ``a``)."""

    a: str
    b: str
    score_a: float
    score_b: float
    p_value: float
    p_adjusted: float  # Holm-adjusted when requested, else equal to p_value
    significant: bool
    #: bootstrap mean and 95% half-width of ``score_a - score_b`` over the resamples that
    #: give the systems' intervals (the same draws for both: a paired interval)
    delta_interval: Optional[tuple[float, float]] = None

    @property
    def delta(self) -> float:
        return self.score_a - self.score_b


@dataclass(frozen=True)
class Cluster:
    index: int
    members: tuple[str, ...]


@dataclass(frozen=True)
class MultiComparison:
    metric: str
    test: str
    n_samples: int
    seed: Optional[int]
    alpha: float
    holm: bool
    systems: tuple[SystemSummary, ...]  # best first
    pairs: tuple[PairResult, ...]
    clusters: tuple[Cluster, ...]
    statistic: Optional[str] = None  # bootstrap p-value statistic (bs only)

    def p_value(self, a: str, b: str, adjusted: bool = True) -> float:
        for pair in self.pairs:
            if {pair.a, pair.b} == {a, b}:
                return pair.p_adjusted if adjusted else pair.p_value
        raise KeyError(f"no comparison between {a!r} and {b!r}")


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm-Bonferroni adjusted p-values, in the input order.

    The i-th smallest p is multiplied by (m - i + 1); a running maximum keeps
    the adjusted values monotone; values are capped at 1.
    """
    m = len(p_values)
    order = sorted(range(m), key=lambda i: p_values[i])
    adjusted = [0.0] * m
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p_values[i]))
        adjusted[i] = running
    return adjusted


def clusters_from(ordered: Sequence[T], different: Callable[[T, T], bool]) -> list[list[T]]:
    """Greedy top-down clusters of ``ordered`` (best first); see the module docstring."""
    clusters: list[list[T]] = []
    for name in ordered:
        if clusters and not any(different(member, name) for member in clusters[-1]):
            clusters[-1].append(name)
        else:
            clusters.append([name])
    return clusters


def _pairwise_bootstrap(matrices: list[NDArray[Any]], scores: list[float], scorer: BatchScorer,
                        n_samples: int, rng: Generator, bar: Progress, statistic: str,
                        extra: Optional[ExtraColumns] = None) -> tuple[PairValues, NDArray[Any]]:
    table = drawn_bootstrap_scores(rng, matrices, scorer, n_samples, bar, extra=extra)
    p: PairValues = {}
    for i in range(len(matrices)):
        for j in range(i + 1, len(matrices)):
            p[i, j] = bootstrap_p_value(table[:, i], table[:, j], scores[j] - scores[i],
                                        statistic)
    return p, table


def _pairwise_randomization(matrices: list[NDArray[Any]], scores: list[float],
                            scorer: BatchScorer, n_samples: int, rng: Generator, bar: Progress,
                            ci_samples: int) -> tuple[PairValues, NDArray[Any]]:
    masks = swap_masks(rng, matrices[0].shape[0], n_samples)
    p: PairValues = {}
    for i in range(len(matrices) - 1):
        others = matrices[i + 1:]
        observed = [abs(scores[i] - s) for s in scores[i + 1:]]
        values = randomization_p_values(masks, matrices[i], others, scorer, observed)
        for j, value in enumerate(values, start=i + 1):
            p[i, j] = value
        bar.update(n_samples)
    table = drawn_bootstrap_scores(rng, matrices, scorer, ci_samples)
    return p, table


def check_comparison(test: str, n_samples: int, n_segments: int, n_systems: int,
                     option: str = "n_samples", ci_samples: int = 1000) -> int:
    """:func:`compare_all`'s checks on sizes alone (a command runs them before scoring):
    two segments or more, and the cost of the test and, for AR, of its bootstrap
    intervals. Returns ``ci_samples`` as an int."""
    require_segments(n_segments, f"comparing systems by {TEST_NAMES.get(test, test)}")
    check_test(comparison_cost(test, n_samples, n_segments, n_systems), option, n_samples, test,
               n_segments, n_systems)
    if test == "ar":
        ci_samples = check_samples(ci_samples, "ci_samples")
        check_test(bootstrap_cost(ci_samples, n_segments, n_systems), "ci_samples", ci_samples,
                   "ci", n_segments, n_systems)
    return ci_samples


def compare_all(named_stats: Union[Mapping[str, StatisticsMatrix],
                                  Sequence[tuple[str, StatisticsMatrix]]],
                scorer: BatchScorer, test: str = "bs", n_samples: Optional[int] = None,
                seed: RandomSeed = 12345,
                alpha: float = 0.05, holm_correction: bool = False,
                ci_samples: int = 1000, statistic: str = "centered",
                system_scores: Optional[Sequence[float]] = None) -> MultiComparison:
    """Test every pair of systems and rank them into significance clusters.

    :param named_stats: system name -> statistics matrix (or ``Statistics``).
    :param scorer: a :class:`~truebleu.significance.scoring.BatchScorer`.
    :param test: ``"bs"`` (paired bootstrap) or ``"ar"`` (approximate randomization).
    :param n_samples: resamples / trials (default 1000 / 10000, as sacreBLEU).
    :param seed: int, ``None`` (OS entropy) or a NumPy ``Generator``.
    :param holm_correction: adjust the p-values with Holm-Bonferroni.
    :param ci_samples: bootstrap samples for the AR test's confidence intervals.
    :param statistic: bootstrap p-value statistic, ``"centered"`` (default, nominal
        type-I error) or ``"sacrebleu"`` (sacreBLEU's ``-pbs`` statistic, ties
        counted); see
        :mod:`truebleu.significance.paired`.
    :param system_scores: the scores to report and rank by, one per system, where
        they are not the score of the summed rows (an external metric's official
        system scores); the tests and intervals stay those of the rows.
    """
    return _compare_all(named_stats, scorer, test, n_samples, seed, alpha, holm_correction,
                        ci_samples, statistic, system_scores, None)


def compare_all_with_columns(extra: ExtraColumns,
                             named_stats: Sequence[tuple[str, StatisticsMatrix]],
                             scorer: BatchScorer, test: str, n_samples: int,
                             seed: RandomSeed) -> MultiComparison:
    """:func:`compare_all` (its other options at their defaults), whose paired bootstrap
    also sums ``extra``'s columns on its own draws where it runs in the core: one pass
    instead of two (:mod:`.extra_columns`; the report's frequency buckets). The result
    is :func:`compare_all`'s; ``extra.sums`` is None where the shared pass did not run."""
    return _compare_all(named_stats, scorer, test, n_samples, seed, 0.05, False, 1000,
                        "centered", None, extra)


def _compare_all(named_stats: Union[Mapping[str, StatisticsMatrix],
                                    Sequence[tuple[str, StatisticsMatrix]]],
                 scorer: BatchScorer, test: str, n_samples: Optional[int], seed: RandomSeed,
                 alpha: float, holm_correction: bool, ci_samples: int, statistic: str,
                 system_scores: Optional[Sequence[float]],
                 extra: Optional[ExtraColumns]) -> MultiComparison:
    check_statistic(statistic)
    if test not in DEFAULT_SAMPLES:
        raise ValueError(f"test must be 'bs' or 'ar', got {test!r}")
    n_samples = DEFAULT_SAMPLES[test] if n_samples is None else check_samples(n_samples)
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be between 0 and 1, got {alpha}")
    items = list(named_stats.items()) if isinstance(named_stats, Mapping) else list(named_stats)
    names = [name for name, _ in items]
    if len(items) < 2:
        raise ValueError("comparing systems needs at least two of them")
    if len(set(names)) != len(names):
        raise ValueError("system names must be unique")
    matrices = [as_matrix(stats, name) for name, stats in items]
    check_same_shape(matrices, names)
    ci_samples = check_comparison(test, n_samples, matrices[0].shape[0], len(matrices),
                                  ci_samples=ci_samples)
    scores = [score_of(m, scorer) for m in matrices]
    shown = scores if system_scores is None else [float(value) for value in system_scores]
    if len(shown) != len(scores):
        raise ValueError(f"{len(shown)} system scores given for {len(scores)} systems")
    rng = make_rng(seed)
    with Progress(n_samples * (1 if test == "bs" else len(items) - 1), TEST_LABEL[test],
                  "samples" if test == "bs" else "trials") as bar:
        if test == "bs":
            p, table = _pairwise_bootstrap(matrices, scores, scorer, n_samples, rng, bar,
                                           statistic, extra)
        else:
            p, table = _pairwise_randomization(matrices, scores, scorer, n_samples, rng,
                                               bar, ci_samples)
    # (samples, systems) bootstrap scores: each system's interval, and each pair's paired one
    intervals = [interval(table[:, k]) for k in range(len(matrices))]
    keys = sorted(p)
    raw = [p[k] for k in keys]
    adjusted = dict(zip(keys, holm(raw) if holm_correction else raw))

    def different(x: int, y: int) -> bool:
        return adjusted[min(x, y), max(x, y)] < alpha

    # best first (for TER, lower is better); stable: ties keep input order
    better = 1 if getattr(scorer, "higher_is_better", True) else -1
    order = sorted(range(len(items)), key=lambda k: -better * shown[k])
    cluster_lists = clusters_from(order, different)
    cluster_of = {k: c + 1 for c, members in enumerate(cluster_lists) for k in members}
    systems = tuple(
        SystemSummary(names[k], shown[k], float(intervals[k][0]), float(intervals[k][1]),
                      rank, cluster_of[k])
        for rank, k in enumerate(order, start=1))
    pairs = []
    for i, j in keys:
        hi, lo = (i, j) if better * shown[i] >= better * shown[j] else (j, i)
        mean, half = interval(table[:, hi] - table[:, lo])
        pairs.append(PairResult(names[hi], names[lo], shown[hi], shown[lo], p[i, j],
                                adjusted[i, j], adjusted[i, j] < alpha,
                                (float(mean), float(half))))
    clusters = tuple(Cluster(c + 1, tuple(names[k] for k in members))
                     for c, members in enumerate(cluster_lists))
    seed_value = seed if isinstance(seed, int) else None
    return MultiComparison(getattr(scorer, "name", "metric"), test, n_samples, seed_value,
                           alpha, holm_correction, systems, tuple(pairs), clusters,
                           statistic if test == "bs" else None)


def compare_systems(named_systems: Sequence[tuple[str, Sequence[str]]], metric: Any,
                    **options: Unpack[CompareOptions]) -> MultiComparison:
    """:func:`compare_all` on hypotheses: ``metric`` is a ``truebleu.BLEU`` holding
    the references (or another metric object: ``CHRF``, ``TER``), or any
    :class:`~truebleu.significance.scoring.BatchScorer`."""
    from .scoring import scorer_for

    scorer: BatchScorer = scorer_for(metric) if hasattr(metric, "corpus_statistics") else metric
    lengths = {name: len(hyps) for name, hyps in named_systems}
    if len(set(lengths.values())) > 1:
        raise ValueError("systems differ in length: "
                         + ", ".join(f"{n!r} has {k}" for n, k in lengths.items()))
    if named_systems:  # the checks on sizes, before any statistic is computed
        test = options.get("test", "bs")
        n_samples = options.get("n_samples")
        n_samples = DEFAULT_SAMPLES.get(test, 1) if n_samples is None else check_samples(n_samples)
        check_comparison(test, n_samples, len(named_systems[0][1]),
                         len(named_systems), ci_samples=options.get("ci_samples", 1000))
    stats = [(name, scorer.statistics(hyps)) for name, hyps in named_systems]
    return compare_all(stats, scorer, **options)
