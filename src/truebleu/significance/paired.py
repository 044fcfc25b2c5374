"""Paired tests and bootstrap intervals on statistics matrices.

Each function takes integer statistics matrices (one row per segment), a
:class:`~truebleu.significance.scoring.BatchScorer` and an explicit seed or
NumPy ``Generator``; inputs are never modified. The numbers follow sacreBLEU
2.6.0's definitions:

- *paired bootstrap* (Koehn, 2004, as in Moses' script and sacreBLEU): both
  systems are scored on the same resampled segment sets; with
  ``d_i = |B_i - A_i|`` the statistic is ``d_i - mean(d)`` and
  ``p = (#{d_i - mean(d) > |B - A|} + 1) / (n + 1)``;
- *approximate randomization* (Riezler & Maxwell, 2005; Clark et al.'s
  MultEval): each trial swaps the two systems' outputs on a random half of the
  segments; ``p = (#{|A'_i - B'_i| > |B - A|} + 1) / (n + 1)``;
- *bootstrap confidence interval*: the mean of the resampled scores and half
  the distance between the 2.5% and 97.5% order statistics
  (indices ``n // 40`` and ``n - n // 40 - 1`` of the sorted scores).

Two deliberate differences, in truebleu's own API only (the functions in
:mod:`.compat` keep sacreBLEU's behaviour, bit for bit):

1. *Ties.* sacreBLEU counts resampled statistics *strictly* above the
   observed one, so a system compared with itself (every statistic equals the
   observed 0) gets p = 1/(n+1) and is reported as significant. A Monte Carlo
   p-value counts ties too (``>=``; Davison & Hinkley 1997; Phipson & Smyth
   2010, whose exactness argument holds for permutation tests such as
   approximate randomization and only approximately for the bootstrap);
   truebleu's API does so for every test and both bootstrap statistics, so a
   system against itself gets p = 1. Otherwise both agree unless a resampled
   statistic ties the observed one exactly (none did in 950 tests of pairs of
   the 20 WMT21 en-de systems, 1000 samples each).
2. *Bootstrap statistic.* sacreBLEU's p-value is
   ``#{|d_i| - mean|d| > |B - A|}``: it compares the *upper tail* of the
   centred resampled differences with ``|B - A|``, i.e. it runs a one-tailed
   test at level alpha on a two-sided question. With infinitely many samples
   and normal differences it rejects when ``|B - A|`` exceeds about 1.6
   standard errors instead of 1.96, a type-I error near 10% (11% in the
   limit; folding at zero only moves the cut from 1.645 to 1.60). Measured
   with ``tools/null_rejection.py`` (199 samples, reject when p < 0.05): 9.7%
   of 9,000 Gaussian null replications; on WMT21 en-de, two systems' outputs
   swapped per segment by a fair coin (H0 true), 83 of 800 splits (10.4%).
   truebleu's default, ``statistic="centered"``, compares *both* tails of the
   signed centred differences (the shift method of Efron & Tibshirani 1993,
   section 16.4): ``p = (#{|d_i - mean(d)| >= |B - A|} + 1) / (n + 1)``;
   it rejected 4.6% of the Gaussian replications and 39 of 800 WMT21 splits
   (4.9%), against 4.5% (9/200) for a valid test with 199 samples.
   ``statistic="sacrebleu"`` gives sacreBLEU's statistic (with ties counted,
   as in 1; :func:`.compat.paired_cells` gives sacreBLEU's exact numbers).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Optional, Sequence, TypeAlias, Union, cast

from ..core.lazy_numpy import numpy
from ..core.progress import Progress
from . import native

# DEFAULT_SAMPLES and check_samples live in preconditions (which -pbs imports without
# this module); re-exported here, their old home
from .preconditions import DEFAULT_SAMPLES as DEFAULT_SAMPLES
from .preconditions import (
    bootstrap_cost,
    check_test,
    randomization_cost,
    require_segments,
)
from .preconditions import check_samples as check_samples
from .resampling import (
    BootstrapDraws,
    RandomSeed,
    bootstrap_draws,
    chunks,
    float64_column_sums,
    index_blocks,
    make_rng,
    resampled_sums,
    swap_masks,
    swapped_sums,
)

if TYPE_CHECKING:
    from numpy.random import Generator
    from numpy.typing import ArrayLike, NDArray

    from ..core.statistics import RowTable
    from .extra_columns import ExtraColumns
    from .scoring import ApproximateScorer, BatchScorer, CoreScorer

#: one system's statistics: a :class:`~truebleu.core.statistics.RowTable` (or anything
#: with ``to_numpy()``) or a ``(segments, width)`` matrix of numbers
StatisticsMatrix: TypeAlias = "Union[RowTable, ArrayLike]"  # (a string: no compile at import)

TEST_NAMES = {"bs": "paired bootstrap resampling", "ar": "paired approximate randomization"}


@dataclass(frozen=True)
class ConfidenceInterval:
    """A score with its bootstrap mean and 95% half-width (``score ± ci`` style)."""

    score: float
    mean: float
    ci: float
    n_samples: int

    @property
    def low(self) -> float:
        return self.mean - self.ci

    @property
    def high(self) -> float:
        return self.mean + self.ci


@dataclass(frozen=True)
class PairedComparison:
    """System B compared with system A by one paired test."""

    name_a: str
    name_b: str
    score_a: float
    score_b: float
    p_value: float
    test: str  # "bs" or "ar"
    n_samples: int
    mean_b: Optional[float] = None  # bootstrap only: B's estimated mean ...
    ci_b: Optional[float] = None  # ... and 95% half-width

    @property
    def delta(self) -> float:
        return self.score_b - self.score_a

    def significant(self, alpha: float = 0.05) -> bool:
        return self.p_value < alpha


# -- validation ---------------------------------------------------------------

def as_matrix(stats: StatisticsMatrix, what: str = "statistics") -> NDArray[Any]:
    """An int64 (or, for float statistics such as TER's, float64) view of ``stats``, checked."""
    np = numpy()
    if hasattr(stats, "to_numpy"):
        stats = stats.to_numpy()
    matrix = np.asarray(stats)
    if matrix.ndim != 2:
        raise ValueError(f"{what}: expected a (segments, width) matrix, got shape {matrix.shape}")
    if matrix.shape[0] == 0:
        raise ValueError(f"{what}: no segments")
    checked: NDArray[Any]
    if np.issubdtype(matrix.dtype, np.floating):
        checked = matrix.astype(np.float64, copy=False)
        return checked
    if not np.issubdtype(matrix.dtype, np.integer):
        raise ValueError(f"{what}: statistics must be numbers, got {matrix.dtype}")
    checked = matrix.astype(np.int64, copy=False)
    return checked


def check_same_shape(matrices: Sequence[NDArray[Any]], names: Sequence[str]) -> None:
    first = matrices[0]
    for matrix, name in zip(matrices[1:], names[1:]):
        if matrix.shape[0] != first.shape[0]:
            raise ValueError(
                f"systems differ in length: {names[0]!r} has {first.shape[0]} segments "
                f"but {name!r} has {matrix.shape[0]}")
        if matrix.shape[1] != first.shape[1]:
            raise ValueError(f"{name!r}: statistics width {matrix.shape[1]} differs "
                             f"from {first.shape[1]} (another n-gram order?)")


# -- shared pieces ------------------------------------------------------------

def float32_sums(scorer: BatchScorer) -> bool:
    """Whether resampled float statistics are summed in float32, as sacreBLEU sums TER's
    (the default), or in float64 as NumPy sums a vector: a scorer that says
    ``float32_sums = False`` (external scores, :mod:`.external`)."""
    return bool(getattr(scorer, "float32_sums", True))


def score_of(matrix: NDArray[Any], scorer: BatchScorer) -> float:
    """The corpus score of one statistics matrix (exact integer sums)."""
    np = numpy()
    if np.issubdtype(matrix.dtype, np.floating) and not float32_sums(scorer):
        return float(scorer.score_rows(float64_column_sums(matrix)[None, :])[0])
    return float(scorer.score_rows(matrix.sum(axis=0)[None, :])[0])


def interval(scores: ArrayLike) -> tuple[float, float]:
    """(mean, half-width of the central 95%) of resampled scores, NumPy arithmetic."""
    np = numpy()
    ordered = np.sort(np.asarray(scores, dtype=np.float64))
    lower = len(ordered) // 40
    upper = len(ordered) - lower - 1
    return ordered.mean(), 0.5 * (ordered[upper] - ordered[lower])


def exceeding(null_stats: ArrayLike, observed: float, strict: bool) -> int:
    """How many null statistics are above (``strict``) or at least ``observed``."""
    np = numpy()
    values = np.asarray(null_stats)
    return int(np.count_nonzero(values > observed if strict else values >= observed))


def p_value_from(null_stats: NDArray[Any], observed: float, strict: bool = False) -> float:
    """(number of null statistics beyond ``observed`` + 1) / (n + 1)."""
    exceed = exceeding(null_stats, observed, strict)
    return (exceed + 1) / (len(null_stats) + 1)


def score_blocks(scorer: BatchScorer, sums: NDArray[Any], n_blocks: int,
                 exact: bool = True) -> NDArray[Any]:
    """Scores of ``n_blocks`` systems laid side by side in ``sums``: ``(rows, n_blocks)``.

    One scorer call for all systems keeps the per-call overhead negligible.
    ``exact=False`` only for a scorer with ``supports_approx`` (an
    :class:`~.scoring.ApproximateScorer`).
    """
    rows, width = sums.shape[0], sums.shape[1] // n_blocks
    flat = sums.reshape(rows * n_blocks, width)  # row r, system j -> r * n_blocks + j
    scores = (scorer.score_rows(flat) if exact
              else cast("ApproximateScorer", scorer).score_rows(flat, exact=False))
    return scores.reshape(rows, n_blocks)


# An approximate score (NumPy log/exp) is within a few ulps (~1e-14 on the 0-100
# scale) of the exact one; a margin 10^8 times larger decides which trials are
# rescored exactly, so counts (hence p-values) are those of exact scores.
APPROX_MARGIN = 1e-6


def randomization_gaps(scorer: BatchScorer, a: NDArray[Any], b: NDArray[Any], n_blocks: int,
                       observed: Sequence[float], exact: bool) -> NDArray[Any]:
    """``|score(a) - score(b)|`` per trial and system, exact near ``observed``."""
    np = numpy()
    gaps: NDArray[Any]
    if exact or not getattr(scorer, "supports_approx", False):
        both = score_blocks(scorer, np.concatenate([a, b]), n_blocks)
        gaps = np.abs(both[:len(a)] - both[len(a):])
        return gaps
    both = score_blocks(scorer, np.concatenate([a, b]), n_blocks, exact=False)
    gaps = np.abs(both[:len(a)] - both[len(a):])
    close = np.abs(gaps - np.asarray(observed)[None, :]) <= APPROX_MARGIN * (1 + gaps)
    close |= ~np.isfinite(gaps)
    if close.any():
        rows, systems = np.nonzero(close)
        width = a.shape[1] // n_blocks
        pick_a = a.reshape(len(a), n_blocks, width)[rows, systems]
        pick_b = b.reshape(len(b), n_blocks, width)[rows, systems]
        gaps[rows, systems] = np.abs(scorer.score_rows(pick_a) - scorer.score_rows(pick_b))
    return gaps


def bootstrap_scores(indices: Union[BootstrapDraws, NDArray[Any]],
                     matrices: Sequence[NDArray[Any]], scorer: BatchScorer,
                     progress: Optional[Progress] = None) -> NDArray[Any]:
    """``(n_samples, n_systems)`` scores of every system on every bootstrap sample.

    ``indices`` is a :class:`~.resampling.BootstrapDraws` (drawn block by
    block, bounded memory) or an index matrix already drawn. Sums follow
    sacreBLEU's float32 arithmetic, so scores match its bit for bit.
    """
    np = numpy()
    stacked = np.concatenate(matrices, axis=1)
    parts = []
    for part, block in index_blocks(indices):
        sums = resampled_sums(block, stacked, as_float32=float32_sums(scorer))
        parts.append(score_blocks(scorer, sums, len(matrices)))
        if progress is not None:
            progress.update(part.stop - part.start)
    # the scores keep the scorer's dtype: float64 for BLEU, float32 for a metric
    # (chrF) whose scalar score of float32 sums is a float32, as in sacreBLEU
    scores: NDArray[Any] = (np.concatenate(parts, axis=0) if parts
                            else np.empty((0, len(matrices)), dtype=np.float64))
    return scores


def drawn_bootstrap_scores(rng: Generator, matrices: Sequence[NDArray[Any]],
                           scorer: BatchScorer, n_samples: int,
                           progress: Optional[Progress] = None, *,
                           extra: Optional[ExtraColumns] = None) -> NDArray[Any]:
    """``bootstrap_scores(bootstrap_draws(rng, n, n_samples), matrices, scorer, progress)``,
    in the compiled core wherever that gives the same bits, else with NumPy.

    The core (:mod:`.native`) draws what ``rng`` (PCG64, as every ``default_rng``)
    would draw, sums the int64 rows exactly (the NumPy path's float32 sums of
    integers are exact below 2**24, which the core checks), and moves ``rng`` on
    past the draws; the sums are scored by the scorer's own ``score_rows`` in the
    NumPy path's dtype, or by its ``core_scores`` (BLEU's) where that gives the same
    floats. Float rows (TER's, external scores) and anything the core refuses take
    the NumPy path. About nine times faster on 200,000 segments.

    ``extra`` (the report's frequency counts) is summed on the same draws in the same
    core pass where the core runs (:mod:`.extra_columns`); its ``sums`` stay None otherwise.
    """
    scores = _core_bootstrap_scores(rng, matrices, scorer, n_samples, progress, extra)
    if scores is not None:
        return scores
    return bootstrap_scores(bootstrap_draws(rng, matrices[0].shape[0], n_samples), matrices,
                            scorer, progress)


def _core_bootstrap_scores(rng: Generator, matrices: Sequence[NDArray[Any]],
                           scorer: BatchScorer, n_samples: int, progress: Optional[Progress],
                           extra: Optional[ExtraColumns] = None) -> Optional[NDArray[Any]]:
    """:func:`drawn_bootstrap_scores` in the core; None (``rng`` untouched) where it does not
    apply. With ``extra``, one pass over the statistics followed by its columns; where that
    pass is refused, the statistics' own pass, as without it."""
    np = numpy()
    if not all(m.dtype == np.int64 and m.ndim == 2 and m.shape[0] > 0 for m in matrices):
        return None
    if native.generator_state(rng) is None or native._core() is None:
        return None
    k = len(matrices)
    stacked = np.concatenate([*matrices, *([] if extra is None else [extra.table])], axis=1)
    if stacked.min(initial=0) < 0:  # (extra's counts are never negative)
        return None
    # native.applies' checks that the ones above have not made (no table to copy for them)
    core_scores = callable(getattr(scorer, "core_scores", None)) and native.numpy_promotes_weakly()
    as_float32 = float32_sums(scorer)
    state = native.start_state(rng)  # a copy: rng moves on only if every chunk succeeds
    parts = []
    sum_chunks = (native.exact_sum_chunks(stacked, n_samples, state) if extra is None
                  else extra.sum_chunks(stacked, n_samples, state))
    try:
        for part, sums in sum_chunks:
            rows = part.stop - part.start
            if core_scores:  # BLEU's scores of the sums, in the core (bootstrap_columns' floats)
                floats = cast("CoreScorer", scorer).core_scores(sums.tobytes(), float32=True)
                parts.append(np.frombuffer(floats, dtype=np.float64).reshape(rows, k).copy())
            else:
                parts.append(score_blocks(scorer, sums.astype(np.float32) if as_float32
                                          else sums, k))
    except OverflowError:
        if extra is not None:  # (rng untouched: the statistics' pass alone decides)
            return _core_bootstrap_scores(rng, matrices, scorer, n_samples, progress)
        return None
    native.store_state(rng, state)
    if progress is not None:
        progress.update(n_samples)
    table: NDArray[Any] = np.concatenate(parts, axis=0)
    return table


BOOTSTRAP_STATISTICS = ("centered", "sacrebleu")


def check_statistic(statistic: str) -> str:
    if statistic not in BOOTSTRAP_STATISTICS:
        raise ValueError(f"bootstrap statistic must be one of {BOOTSTRAP_STATISTICS}, "
                         f"got {statistic!r}")
    return statistic


def bootstrap_p_value(scores_a: NDArray[Any], scores_b: NDArray[Any], observed_delta: float,
                      statistic: str = "centered", strict: bool = False) -> float:
    """The paired-bootstrap p-value from the two systems' resampled scores.

    ``centered``: ``|d_i - mean(d)| >= |delta|`` with signed ``d = B - A``;
    ``sacrebleu``: ``|d_i| - mean(|d|) >= |delta|``. ``strict=True`` counts
    only statistics strictly above ``|delta|``, as sacreBLEU 2.6.0 does (the
    compatible path); the default counts ties (see the module docstring).
    """
    np = numpy()
    observed = abs(observed_delta)
    if check_statistic(statistic) == "sacrebleu":
        diffs = np.abs(scores_b - scores_a)
        return p_value_from(diffs - diffs.mean(), observed, strict=strict)
    diffs = scores_b - scores_a
    return p_value_from(np.abs(diffs - diffs.mean()), observed, strict=strict)


def randomization_p_values(masks: NDArray[Any], first: NDArray[Any],
                           others: Sequence[NDArray[Any]], scorer: BatchScorer,
                           observed: Sequence[float],
                           progress: Optional[Progress] = None,
                           strict: bool = False, exact: bool = False) -> list[float]:
    """AR p-values of each matrix in ``others`` against ``first`` on the same trials.

    Only the p-values leave this function, so trials are scored with the fast
    approximate scorer and those within :data:`APPROX_MARGIN` of the observed
    difference are rescored exactly: the counts equal the exact ones
    (``exact=True`` scores everything exactly, for testing).
    """
    np = numpy()
    k = len(others)
    if np.issubdtype(np.asarray(first).dtype, np.floating):
        return [_float_randomization_p_value(masks, first, other, scorer, obs, progress, strict)
                for other, obs in zip(others, observed)]
    exceed = np.zeros(k, dtype=np.int64)
    tiled = np.tile(first, (1, k))
    second = np.concatenate(list(others), axis=1)
    for part in chunks(masks.shape[0]):
        a, b = swapped_sums(masks[part], tiled, second)
        gaps = randomization_gaps(scorer, a, b, k, observed, exact)
        for j in range(k):
            exceed[j] += exceeding(gaps[:, j], observed[j], strict)
        if progress is not None:
            progress.update(part.stop - part.start)
    return [(int(c) + 1) / (masks.shape[0] + 1) for c in exceed]


def _float_randomization_p_value(masks: NDArray[Any], first: NDArray[Any],
                                 second: NDArray[Any], scorer: BatchScorer, observed: float,
                                 progress: Optional[Progress], strict: bool) -> float:
    """AR for float statistics (TER's): sacreBLEU's own expressions, all trials at once.

    Float sums depend on the order of additions, so the pseudo-systems are
    summed exactly as sacreBLEU sums them (``mask @ stats``, one product over
    every trial), and scored one row at a time.
    """
    np = numpy()
    keep = ~masks
    a = masks @ first + keep @ second
    b = keep @ first + masks @ second
    gaps = np.abs(scorer.score_rows(a) - scorer.score_rows(b))
    n_trials: int = masks.shape[0]
    if progress is not None:
        progress.update(n_trials)
    return (exceeding(gaps, observed, strict) + 1) / (n_trials + 1)


# -- public tests -------------------------------------------------------------

def bootstrap_ci(stats: StatisticsMatrix, scorer: BatchScorer, n_samples: int = 1000,
                 seed: RandomSeed = 12345) -> ConfidenceInterval:
    """Bootstrap mean and 95% half-width of one system's score."""
    n_samples = check_samples(n_samples)
    matrix = as_matrix(stats)
    n = matrix.shape[0]
    require_segments(n, "a bootstrap confidence interval")
    check_test(bootstrap_cost(n_samples, n, 1), "n_samples", n_samples, "ci", n, 1)
    with Progress(n_samples, "bootstrap interval", "samples") as bar:
        scores = drawn_bootstrap_scores(make_rng(seed), [matrix], scorer, n_samples, bar)[:, 0]
    mean, ci = interval(scores)
    return ConfidenceInterval(score_of(matrix, scorer), float(mean), float(ci), n_samples)


def paired_bootstrap(stats_a: StatisticsMatrix, stats_b: StatisticsMatrix, scorer: BatchScorer,
                     n_samples: int = 1000, seed: RandomSeed = 12345,
                     names: tuple[str, str] = ("A", "B"),
                     statistic: str = "centered") -> PairedComparison:
    """Paired bootstrap resampling test of B against A.

    ``statistic="sacrebleu"`` uses sacreBLEU's ``-pbs`` statistic (ties
    counted, so a system against itself gets p = 1); the default
    ``"centered"`` keeps the type-I error at its nominal level (see the
    module docstring).
    """
    n_samples = check_samples(n_samples)
    check_statistic(statistic)
    a, b = as_matrix(stats_a, names[0]), as_matrix(stats_b, names[1])
    check_same_shape([a, b], names)
    n = a.shape[0]
    require_segments(n, "the paired bootstrap")
    check_test(bootstrap_cost(n_samples, n, 2), "n_samples", n_samples, "bs", n, 2)
    with Progress(n_samples, "paired bootstrap", "samples") as bar:
        scores = drawn_bootstrap_scores(make_rng(seed), [a, b], scorer, n_samples, bar)
    score_a, score_b = score_of(a, scorer), score_of(b, scorer)
    p = bootstrap_p_value(scores[:, 0], scores[:, 1], score_b - score_a, statistic)
    mean, ci = interval(scores[:, 1])
    return PairedComparison(names[0], names[1], score_a, score_b, p, "bs", n_samples,
                            float(mean), float(ci))


def paired_randomization(stats_a: StatisticsMatrix, stats_b: StatisticsMatrix,
                         scorer: BatchScorer, n_trials: int = 10000, seed: RandomSeed = 12345,
                         names: tuple[str, str] = ("A", "B")) -> PairedComparison:
    """Paired approximate randomization test of B against A (sacreBLEU's ``-par``)."""
    n_trials = check_samples(n_trials, "n_trials")
    a, b = as_matrix(stats_a, names[0]), as_matrix(stats_b, names[1])
    check_same_shape([a, b], names)
    n = a.shape[0]
    require_segments(n, "approximate randomization")
    check_test(randomization_cost(n_trials, n, 2, 1), "n_trials", n_trials, "ar", n, 2)
    masks = swap_masks(make_rng(seed), n, n_trials)
    score_a, score_b = score_of(a, scorer), score_of(b, scorer)
    with Progress(n_trials, "approximate randomization", "trials") as bar:
        (p,) = randomization_p_values(masks, a, [b], scorer, [abs(score_a - score_b)], bar)
    return PairedComparison(names[0], names[1], score_a, score_b, p, "ar", n_trials)
