"""How far metrics agree: with each other over systems, and with a gold metric over segments.

The statistics of WMT's metrics shared task (mt-metrics-eval, the code the task uses,
is this module's test oracle; nothing here is taken from it but the definitions).
Every score is *oriented* first (negated when lower is better: TER, MQM error points),
so that for every metric a larger number means a better translation.

Everything is counted over **pairs**: two systems, or two outputs of one segment. For a
pair, the gold (or a first metric) and a metric each prefer one side or tie; the pair
is then *concordant* (same preference), *discordant*, tied by the metric only, by the
gold only, or by both. Kendall's sufficient statistics (:class:`PairCounts`) give:

- **pairwise accuracy**: the share of pairs ordered the same way, ties included
  (concordant + tied by both) / pairs: WMT's system-level accuracy (Kocmi et al., 2021);
- **Kendall's tau-b** (what ``scipy.stats.kendalltau`` computes):
  (concordant - discordant) / sqrt((pairs - metric ties) (pairs - gold ties));
- **acc23**, WMT23's *tie-calibrated* pairwise accuracy (Deutsch et al., 2023, "Ties
  Matter"): the pairwise accuracy when the metric calls a pair tied if its two scores
  are within epsilon, with epsilon chosen to maximise it (:func:`calibrated_acc23`).

At segment level the outputs of one segment are compared across systems (grouping
``item``, WMT23's choice), or each system's segments with each other (``sys``), or
every output with every other (``none``); a statistic is the mean over the groups
(groups where tau is undefined, every score tied, left out).

Whether one metric agrees with the gold significantly better than another is a
permutation test over pairs (:func:`permutation_test`): each pair's outcome under the
two metrics is swapped with probability 1/2, with each metric's own epsilon fixed, and
the p-value is the share of permutations whose difference is at least the observed one
(counted as truebleu counts every Monte Carlo p-value, ``(k + 1) / (n + 1)``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Mapping, Optional, Sequence

from ..core.lazy_numpy import numpy
from .resampling import RandomSeed, make_rng

if TYPE_CHECKING:
    from numpy.typing import ArrayLike, NDArray

__all__ = ["AgreementTest", "GoldAgreement", "GROUPINGS", "MetricAgreement", "PairCounts",
           "SystemAgreement", "calibrated_acc23", "kendall_tau", "metric_agreement",
           "pair_counts", "pairwise_accuracy", "permutation_test", "segment_pairs"]

#: how outputs are grouped into comparable pairs at segment level
GROUPINGS = ("item", "sys", "none")
#: the most pairs a segment-level statistic materialises (about 10 bytes each)
MAX_PAIRS = 20_000_000
#: the most pair-permutations (pairs x permutations) one test may run
MAX_PAIR_PERMUTATIONS = 4_000_000_000
#: working memory of one batch of permutations
BATCH_BYTES = 64 * 2 ** 20

# the outcome of one pair
CONCORDANT, DISCORDANT, TIE_METRIC, TIE_GOLD, TIE_BOTH = range(5)
N_OUTCOMES = 5


@dataclass(frozen=True)
class PairCounts:
    """Kendall's sufficient statistics of a comparison: pairs by outcome."""

    concordant: int
    discordant: int
    ties_metric: int  # tied by the metric only
    ties_gold: int  # tied by the gold (or the first metric) only
    ties_both: int

    @property
    def pairs(self) -> int:
        return (self.concordant + self.discordant + self.ties_metric + self.ties_gold
                + self.ties_both)

    @property
    def accuracy(self) -> float:
        """(concordant + tied by both) / pairs: the share ordered the same way."""
        return (self.concordant + self.ties_both) / self.pairs if self.pairs else math.nan

    @property
    def tau_b(self) -> float:
        """Kendall's tau-b; NaN when either side ties every pair."""
        pairs = self.pairs
        metric_ties = self.ties_metric + self.ties_both
        gold_ties = self.ties_gold + self.ties_both
        if not pairs or metric_ties == pairs or gold_ties == pairs:
            return math.nan
        tau = ((self.concordant - self.discordant) / math.sqrt(pairs - metric_ties)
               / math.sqrt(pairs - gold_ties))
        return min(1.0, max(-1.0, tau))


# -- pairs ------------------------------------------------------------------------------


def _grouped(scores: NDArray[Any], grouping: str) -> NDArray[Any]:
    """``(systems, segments)`` scores as ``(groups, members)``: the rows compared within."""
    if grouping == "item":
        transposed: NDArray[Any] = scores.T
        return transposed
    if grouping == "sys":
        return scores
    if grouping == "none":
        return scores.reshape(1, -1)
    raise ValueError(f"grouping must be one of {', '.join(GROUPINGS)}, got {grouping!r}")


def segment_pairs(scores: ArrayLike, grouping: str = "item") -> NDArray[Any]:
    """The score differences of every pair within each group: ``(groups, pairs per group)``.

    ``scores`` is ``(systems, segments)``, oriented (larger is better).
    """
    np = numpy()
    matrix = np.asarray(scores, dtype=np.float64)
    if matrix.ndim != 2:
        raise ValueError(f"segment scores must be a (systems, segments) matrix, got shape "
                         f"{matrix.shape}")
    grouped = _grouped(matrix, grouping)
    members = grouped.shape[1]
    pairs = grouped.shape[0] * members * (members - 1) // 2
    if pairs > MAX_PAIRS:
        raise ValueError(f"segment-level agreement with grouping {grouping!r} compares "
                         f"{pairs:,} pairs, more than {MAX_PAIRS:,}; group by 'item' (the "
                         "outputs of each segment)")
    first, second = np.triu_indices(members, 1)
    differences: NDArray[Any] = grouped[:, first] - grouped[:, second]
    return differences


def outcomes(gold: NDArray[Any], metric: NDArray[Any], epsilon: float = 0.0) -> NDArray[Any]:
    """Each pair's outcome (``CONCORDANT`` ... ``TIE_BOTH``) from the gold's and the
    metric's differences; the metric ties a pair within ``epsilon``, the gold only
    when equal."""
    np = numpy()
    gold_tie = gold == 0
    metric_tie = np.abs(metric) <= epsilon
    agree = np.sign(gold) == np.sign(metric)
    result: NDArray[Any] = np.where(
        gold_tie, np.where(metric_tie, TIE_BOTH, TIE_GOLD),
        np.where(metric_tie, TIE_METRIC, np.where(agree, CONCORDANT, DISCORDANT))
    ).astype(np.int8)
    return result


def _group_counts(kinds: NDArray[Any]) -> NDArray[Any]:
    """``(groups, 5)`` counts of each outcome per group (the last axis holds the pairs)."""
    np = numpy()
    counts: NDArray[Any] = np.stack([(kinds == k).sum(axis=-1) for k in range(N_OUTCOMES)],
                                    axis=-1)
    return counts


def _counts(row: NDArray[Any]) -> PairCounts:
    return PairCounts(*(int(value) for value in row.tolist()))


def pair_counts(gold: ArrayLike, metric: ArrayLike, epsilon: float = 0.0) -> PairCounts:
    """The outcomes of every pair of two score vectors (systems' scores, oriented)."""
    np = numpy()
    g, m = np.asarray(gold, dtype=np.float64), np.asarray(metric, dtype=np.float64)
    if g.shape != m.shape or g.ndim != 1:
        raise ValueError(f"two score vectors of one length are compared, got shapes {g.shape} "
                         f"and {m.shape}")
    first, second = np.triu_indices(len(g), 1)
    return _counts(_group_counts(outcomes(g[first] - g[second], m[first] - m[second], epsilon)))


def pairwise_accuracy(gold: ArrayLike, metric: ArrayLike) -> float:
    """The share of pairs the two vectors order the same way (ties: tied by both)."""
    return pair_counts(gold, metric).accuracy


def kendall_tau(gold: ArrayLike, metric: ArrayLike) -> float:
    """Kendall's tau-b of two vectors (NaN when either is constant)."""
    return pair_counts(gold, metric).tau_b


def _channels(kinds: NDArray[Any], statistic: str) -> NDArray[Any]:
    """What each pair adds to a statistic, ``(groups, pairs, channels)``: for ``"acc23"``
    whether it is right (concordant or tied by both); for ``"tau"`` its
    concordant-minus-discordant (+1, -1, 0) and whether the metric ties it. A
    permutation moves a pair's channels from one metric to the other, so the sums per
    group are all a permutation needs."""
    np = numpy()
    if statistic == "acc23":
        right: NDArray[Any] = ((kinds == CONCORDANT) | (kinds == TIE_BOTH))[..., None]
        return right.astype(np.float32)
    if statistic != "tau":
        raise ValueError(f"statistic must be 'tau' or 'acc23', got {statistic!r}")
    sign = (kinds == CONCORDANT).astype(np.int8) - (kinds == DISCORDANT).astype(np.int8)
    metric_tie = (kinds == TIE_METRIC) | (kinds == TIE_BOTH)
    channels: NDArray[Any] = np.stack([sign, metric_tie.astype(np.int8)], axis=-1).astype(
        np.float32)
    return channels


def _value(sums: NDArray[Any], gold_ties: NDArray[Any], pairs: int, statistic: str
           ) -> NDArray[Any]:
    """The statistic from channel sums ``(..., groups, channels)``.

    ``"acc23"``: right pairs / pairs over all groups (every group has ``pairs`` pairs,
    so this is the mean over groups). ``"tau"``: tau-b per group,
    (C - D) / sqrt(pairs - metric ties) / sqrt(pairs - gold ties) clipped to [-1, 1]
    (:attr:`PairCounts.tau_b`, scipy's operations), averaged over the groups where it
    is defined. One function for every reported value and every permutation, so that an
    unchanged permutation gives the observed bits.
    """
    np = numpy()
    if statistic == "acc23":
        accuracy: NDArray[Any] = sums[..., 0].sum(axis=-1) / (pairs * sums.shape[-2])
        return accuracy
    difference, metric_ties = sums[..., 0], sums[..., 1]
    with np.errstate(invalid="ignore", divide="ignore"):
        tau = difference / np.sqrt(pairs - metric_ties) / np.sqrt(pairs - gold_ties)
    defined = (metric_ties < pairs) & (gold_ties < pairs)
    tau = np.where(defined, np.clip(tau, -1.0, 1.0), 0.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        means: NDArray[Any] = tau.sum(axis=-1) / defined.sum(axis=-1)
    return means


def _gold_ties(kinds: NDArray[Any]) -> NDArray[Any]:
    """Pairs the gold ties, per group (the same whichever metric is compared)."""
    np = numpy()
    ties: NDArray[Any] = ((kinds == TIE_GOLD) | (kinds == TIE_BOTH)).sum(axis=-1).astype(
        np.float64)
    return ties


def _segment_statistic(kinds: NDArray[Any], statistic: str) -> float:
    """The statistic of one metric's outcomes ``(groups, pairs)``."""
    np = numpy()
    sums = _channels(kinds, statistic).astype(np.float64).sum(axis=-2)
    return float(_value(sums, _gold_ties(kinds), kinds.shape[-1], statistic))


def _coin_flips(rng: Any, shape: tuple[int, ...]) -> NDArray[Any]:
    """Fair 0/1 draws as float32, one random bit each (eight per random byte)."""
    np = numpy()
    size = 1
    for length in shape:
        size *= length
    bits = np.unpackbits(np.frombuffer(rng.bytes((size + 7) // 8), dtype=np.uint8), count=size)
    flips: NDArray[Any] = bits.reshape(shape).astype(np.float32)
    return flips


def segment_tau(gold_pairs: NDArray[Any], metric_pairs: NDArray[Any]) -> float:
    """Kendall's tau-b per group (:func:`segment_pairs`), averaged over the groups where
    it is defined."""
    return _segment_statistic(outcomes(gold_pairs, metric_pairs), "tau")


def calibrated_acc23(gold_pairs: NDArray[Any], metric_pairs: NDArray[Any]
                     ) -> tuple[float, float]:
    """WMT23's tie-calibrated pairwise accuracy and its epsilon: ``(acc23, epsilon)``.

    For an epsilon, a pair is right when the gold ties it and the metric's difference
    is at most epsilon, or when the gold does not and the metric's difference is
    larger and of the same sign. Every group has as many pairs, so the mean over
    groups is the share of right pairs overall. The candidates are 0 and every
    pair's absolute difference; the smallest epsilon with the most right pairs wins.
    """
    np = numpy()
    gold = gold_pairs.ravel()
    size = np.abs(metric_pairs).ravel()
    tied = gold == 0
    agree = ~tied & (np.sign(gold) == np.sign(metric_pairs.ravel()))
    order = np.argsort(size, kind="stable")
    ordered = size[order]
    # a pair at or below epsilon becomes a metric tie: right if the gold ties it too,
    # no longer right if the metric had ordered it as the gold does
    change = np.where(tied[order], 1, np.where(agree[order], -1, 0))
    right = int(np.count_nonzero(agree)) + np.cumsum(change)
    last = np.r_[ordered[1:] != ordered[:-1], True]  # last pair of each distinct size
    thresholds, counts = ordered[last], right[last]
    if not len(thresholds) or thresholds[0] != 0.0:
        thresholds = np.r_[0.0, thresholds]
        counts = np.r_[np.count_nonzero(agree), counts]
    best = int(np.argmax(counts))
    return int(counts[best]) / len(gold), float(thresholds[best])


# -- the permutation test ------------------------------------------------------------------


@dataclass(frozen=True)
class AgreementTest:
    """Does ``better`` agree with the gold significantly more than ``worse``?"""

    better: str
    worse: str
    statistic: str  # "tau" or "acc23"
    better_value: float
    worse_value: float
    p_value: float  # one-sided: the share of permutations with a difference >= delta
    n_permutations: int
    significant: bool

    @property
    def delta(self) -> float:
        return self.better_value - self.worse_value


def permutation_test(kinds_a: NDArray[Any], kinds_b: NDArray[Any], statistic: str,
                     n_permutations: int = 1000, seed: RandomSeed = 12345,
                     names: tuple[str, str] = ("A", "B"), alpha: float = 0.05
                     ) -> AgreementTest:
    """The pairwise permutation test of two metrics' agreement with one gold.

    ``kinds_a`` and ``kinds_b`` are the outcomes (:func:`outcomes`) of the same pairs
    under two metrics, ``(groups, pairs per group)``, each with its own epsilon. In
    each permutation every pair's two outcomes swap sides with probability 1/2; the
    statistic (``"tau"``: tau-b, ``"acc23"``: accuracy) of both sides is computed and
    their difference compared with the observed one.
    """
    np = numpy()
    if statistic not in ("tau", "acc23"):
        raise ValueError(f"statistic must be 'tau' or 'acc23', got {statistic!r}")
    if kinds_a.shape != kinds_b.shape:
        raise ValueError("the two metrics' outcomes must be of the same pairs")
    groups, width = kinds_a.shape
    total = groups * width * n_permutations
    if total > MAX_PAIR_PERMUTATIONS:
        raise ValueError(f"a permutation test over {groups * width:,} pairs with "
                         f"{n_permutations:,} permutations ({total:,} pair-permutations) is "
                         f"more than {MAX_PAIR_PERMUTATIONS:,}; group segments by 'item' or "
                         "use fewer permutations")
    value_a = _segment_statistic(kinds_a, statistic)
    value_b = _segment_statistic(kinds_b, statistic)
    if value_b > value_a:
        return permutation_test(kinds_b, kinds_a, statistic, n_permutations, seed,
                                (names[1], names[0]), alpha)
    observed = value_a - value_b
    gold_ties = _gold_ties(kinds_a)
    channels_a, channels_b = _channels(kinds_a, statistic), _channels(kinds_b, statistic)
    sums_a = channels_a.astype(np.float64).sum(axis=1)  # (groups, channels)
    sums_b = channels_b.astype(np.float64).sum(axis=1)
    # a swapped pair moves its channels from one side to the other: per group, the
    # sums change by swaps @ (channels_b - channels_a), exact in float32 (small integers)
    change = channels_b - channels_a  # (groups, width, channels)
    if width >= 2 ** 24:  # float32 sums of up to `width` ones would round
        change = change.astype(np.float64)
    rng = make_rng(seed)
    batch = max(1, min(n_permutations, BATCH_BYTES // max(1, 8 * groups * width)))
    reached = 0
    done = 0
    while done < n_permutations:
        size = min(batch, n_permutations - done)
        swaps = _coin_flips(rng, (groups, size, width)).astype(change.dtype, copy=False)
        moved = np.matmul(swaps, change).astype(np.float64).transpose(1, 0, 2)
        a = _value(sums_a + moved, gold_ties, width, statistic)
        b = _value(sums_b - moved, gold_ties, width, statistic)
        reached += int(np.count_nonzero(a - b >= observed))
        done += size
    p_value = (reached + 1) / (n_permutations + 1)
    return AgreementTest(names[0], names[1], statistic, value_a, value_b, p_value,
                         n_permutations, p_value < alpha)


# -- everything, for a set of metrics ------------------------------------------------------


@dataclass(frozen=True)
class SystemAgreement:
    """Two metrics over the systems: pairs ordered alike, and Kendall's tau-b."""

    metric_a: str
    metric_b: str
    agreeing_pairs: int
    system_pairs: int
    accuracy: float
    kendall_tau: float


@dataclass(frozen=True)
class GoldAgreement:
    """One metric against the gold metric."""

    metric: str
    accuracy: float  # over all system pairs
    significant_pairs: int  # system pairs the gold's own test separates
    agreeing_significant: int
    accuracy_significant: float  # WMT's accuracy: over the pairs the gold separates
    kendall_tau: float  # over systems
    segment_tau: float  # Kendall's tau-b over segments, mean over groups
    segment_acc23: float  # tie-calibrated pairwise accuracy over segments
    acc23_epsilon: float  # its tie threshold (on the metric's scale)


@dataclass(frozen=True)
class MetricAgreement:
    """How every metric agrees with every other, and with the gold if one was named."""

    metrics: tuple[str, ...]
    systems: tuple[SystemAgreement, ...]  # every pair of metrics
    gold: Optional[str] = None
    against_gold: tuple[GoldAgreement, ...] = ()  # every metric but the gold
    tests: tuple[AgreementTest, ...] = ()  # every pair of metrics but the gold
    grouping: str = "item"
    n_permutations: int = 0
    seed: Optional[int] = None
    alpha: float = 0.05


def metric_agreement(system_scores: Mapping[str, ArrayLike],
                     segment_scores: Optional[Mapping[str, ArrayLike]] = None,
                     gold: Optional[str] = None,
                     gold_separated: Optional[Sequence[tuple[int, int]]] = None,
                     grouping: str = "item", n_permutations: int = 1000,
                     seed: RandomSeed = 12345, alpha: float = 0.05) -> MetricAgreement:
    """The agreement of every metric with every other, and with ``gold``.

    :param system_scores: metric name -> one oriented score per system (the same
        systems, in the same order, for every metric).
    :param segment_scores: metric name -> ``(systems, segments)`` oriented segment
        scores; needed with ``gold`` (segment-level statistics and tests).
    :param gold: the name of the gold metric (human scores), or None.
    :param gold_separated: the system pairs ``(i, j)`` (positions) that the gold's own
        significance test separates; WMT's accuracy counts only those.
    :param n_permutations: permutations of each test (0: no tests).
    """
    np = numpy()
    names = list(system_scores)
    vectors = {name: np.asarray(system_scores[name], dtype=np.float64) for name in names}
    pairs = []
    for k, a in enumerate(names):
        for b in names[k + 1:]:
            counts = pair_counts(vectors[a], vectors[b])
            pairs.append(SystemAgreement(a, b, counts.concordant + counts.ties_both,
                                         counts.pairs, counts.accuracy, counts.tau_b))
    seed_value = seed if isinstance(seed, int) else None
    if gold is None:
        return MetricAgreement(tuple(names), tuple(pairs), grouping=grouping, seed=seed_value,
                               alpha=alpha)
    if gold not in vectors:
        raise ValueError(f"the gold metric {gold!r} is not among the metrics: "
                         f"{', '.join(map(repr, names))}")
    if segment_scores is None:
        raise ValueError("agreement with a gold metric needs every metric's segment scores")
    gold_pairs = segment_pairs(segment_scores[gold], grouping)
    separated = list(gold_separated or ())
    against: list[GoldAgreement] = []
    kinds: dict[str, dict[str, Any]] = {}
    for name in names:
        if name == gold:
            continue
        counts = pair_counts(vectors[gold], vectors[name])
        gold_v, metric_v = vectors[gold], vectors[name]
        agreeing = sum(1 for i, j in separated
                       if np.sign(gold_v[i] - gold_v[j]) == np.sign(metric_v[i] - metric_v[j]))
        metric_pairs = segment_pairs(segment_scores[name], grouping)
        if metric_pairs.shape != gold_pairs.shape:
            raise ValueError(f"{name!r} and the gold {gold!r} score different segments")
        acc23, epsilon = calibrated_acc23(gold_pairs, metric_pairs)
        kinds[name] = {"tau": outcomes(gold_pairs, metric_pairs),
                       "acc23": outcomes(gold_pairs, metric_pairs, epsilon)}
        tau = _segment_statistic(kinds[name]["tau"], "tau")
        against.append(GoldAgreement(
            name, counts.accuracy, len(separated), agreeing,
            agreeing / len(separated) if separated else math.nan, counts.tau_b, tau, acc23,
            epsilon))
    tests: list[AgreementTest] = []
    if n_permutations:
        rng = make_rng(seed)
        others = [name for name in names if name != gold]
        for k, a in enumerate(others):
            for b in others[k + 1:]:
                for statistic in ("tau", "acc23"):
                    tests.append(permutation_test(kinds[a][statistic], kinds[b][statistic],
                                                  statistic, n_permutations, rng, (a, b), alpha))
    return MetricAgreement(tuple(names), tuple(pairs), gold, tuple(against), tuple(tests),
                           grouping, n_permutations, seed_value, alpha)
