"""Segment-level comparison: on how many segments does B beat A?

Corpus BLEU can move because of a few segments; the distribution of
sentence-level scores shows whether an improvement is broad. For two systems
on the same segments this module reports wins, losses and ties of B against
A (better means a higher score, or for TER a lower one), a two-sided exact
sign test on the non-tied segments (H0: a segment is as likely to improve as
to worsen), and a bootstrap 95% interval of both the
mean sentence-score difference and B's share of wins.

Sentence scores come from the same scorer applied to single segment rows;
for BLEU use effective order (``compare_sentences`` builds such a scorer
from a ``truebleu.BLEU``), as sacreBLEU's ``sentence_bleu`` does.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..core.lazy_numpy import numpy
from .paired import StatisticsMatrix, as_matrix, check_same_shape, check_samples
from .preconditions import bootstrap_cost, check_test, require_segments
from .resampling import RandomSeed, bootstrap_draws, make_rng, sample_counts

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: as the rest of this package's entry path
if TYPE_CHECKING:
    from typing import Any

    from numpy.typing import ArrayLike, NDArray

    from .scoring import BatchScorer


@dataclass(frozen=True)
class SentenceComparison:
    name_a: str
    name_b: str
    n_segments: int
    wins_b: int  # segments where B's sentence score is better (higher; for TER, lower)
    wins_a: int
    ties: int
    share_b: float  # wins_b / n_segments
    sign_test_p: float  # two-sided exact sign test on wins_b vs wins_a
    mean_delta: float  # mean of (B - A) sentence scores
    delta_low: float  # bootstrap 95% interval of mean_delta
    delta_high: float
    share_low: float  # bootstrap 95% interval of share_b
    share_high: float
    n_samples: int


def sign_test(successes: int, failures: int) -> float:
    """Two-sided exact binomial (p = 1/2) test; ties must be removed beforehand."""
    n = successes + failures
    if n == 0:
        return 1.0
    k = min(successes, failures)
    log_half = n * math.log(2.0)
    terms = [math.exp(math.lgamma(n + 1) - math.lgamma(i + 1) - math.lgamma(n - i + 1) - log_half)
             for i in range(k + 1)]
    return min(1.0, 2.0 * math.fsum(terms))


def _percentile_interval(values: ArrayLike) -> tuple[float, float]:
    np = numpy()
    ordered = np.sort(values)
    lower = len(ordered) // 40
    return float(ordered[lower]), float(ordered[len(ordered) - lower - 1])


def sentence_scores(stats: StatisticsMatrix, scorer: BatchScorer) -> NDArray[Any]:
    """One score per segment (each row scored on its own)."""
    return scorer.score_rows(as_matrix(stats))


def compare_sentences(stats_a: StatisticsMatrix, stats_b: StatisticsMatrix, scorer: BatchScorer,
                      n_samples: int = 1000, seed: RandomSeed = 12345,
                      names: tuple[str, str] = ("A", "B")) -> SentenceComparison:
    """Segment-level comparison of B against A (see the module docstring).

    ``scorer`` scores single segments; with a ``truebleu.BLEU`` pass
    ``metric.batch_scorer(effective_order=True)``.
    """
    np = numpy()
    n_samples = check_samples(n_samples)
    a, b = as_matrix(stats_a, names[0]), as_matrix(stats_b, names[1])
    check_same_shape([a, b], names)
    require_segments(a.shape[0], "the segment-level comparison")
    check_test(bootstrap_cost(n_samples, a.shape[0], 2), "n_samples", n_samples, "sentence",
               a.shape[0], 2)
    delta = scorer.score_rows(b) - scorer.score_rows(a)
    # a segment is won by the better score: the higher one, or the lower one for TER
    gain = delta if getattr(scorer, "higher_is_better", True) else -delta
    wins_b = int(np.count_nonzero(gain > 0))
    wins_a = int(np.count_nonzero(gain < 0))
    n = len(delta)
    means = np.empty(n_samples)
    shares = np.empty(n_samples)
    won = (gain > 0).astype(np.float64)
    for part, block in bootstrap_draws(make_rng(seed), n, n_samples).blocks():
        counts = sample_counts(block, n).astype(np.float64)
        means[part] = counts @ delta / n
        shares[part] = counts @ won / n
    d_low, d_high = _percentile_interval(means)
    s_low, s_high = _percentile_interval(shares)
    return SentenceComparison(names[0], names[1], n, wins_b, wins_a, n - wins_a - wins_b,
                              wins_b / n, sign_test(wins_b, wins_a), float(delta.mean()),
                              d_low, d_high, s_low, s_high, n_samples)
