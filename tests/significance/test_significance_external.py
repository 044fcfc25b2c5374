"""External segment scores in the significance tests, against a plain NumPy computation.

A metric computed elsewhere is rows ``[score, 1]`` scored as their mean
(:class:`truebleu.significance.MeanScorer`). Its corpus score, bootstrap interval,
paired bootstrap and approximate randomization must be what a few lines of NumPy give
for the same scores and seed: the mean is ``x.mean()``; a bootstrap sample is
``x[rng.choice(n, (samples, n))].mean(axis=1)``; a randomization trial swaps the two
systems' scores where ``rng.integers(2, size=(trials, n), dtype=bool)`` says.
"""

from __future__ import annotations

import pytest

np = pytest.importorskip("numpy")

from truebleu.core.segment_scores import SegmentScores  # noqa: E402
from truebleu.significance import (  # noqa: E402
    MeanScorer,
    bootstrap_ci,
    compare_all,
    compare_sentences,
    paired_bootstrap,
    paired_randomization,
)

N = 1002  # WMT21 en-de's segments


def comet_like(seed: int, shift: float = 0.0):
    """Scores on COMET's scale, with seven digits that float32 sums would lose."""
    rng = np.random.default_rng(seed)
    return np.clip(rng.normal(0.83 + shift, 0.11, N), -1.5, 1.2) + rng.uniform(0, 1e-7, N)


@pytest.fixture(scope="module")
def scores():
    return SegmentScores("COMET", {"A": comet_like(1), "B": comet_like(2, 0.004),
                                   "C": comet_like(3, -0.02)})


def numpy_bootstrap(x, samples, seed):
    """The interval as sacreBLEU defines it: mean and half the central 95% of sorted means."""
    idx = np.random.default_rng(seed).choice(len(x), size=(samples, len(x)))
    means = np.sort(x[idx].mean(axis=1))
    cut = samples // 40
    return means.mean(), 0.5 * (means[samples - cut - 1] - means[cut])


@pytest.mark.parametrize("samples,seed", [(1000, 12345), (333, 7), (2, 1)])
def test_bootstrap_interval_is_numpys(scores, samples, seed):
    x = np.asarray(scores.segments["A"])
    ci = bootstrap_ci(scores.rows("A"), MeanScorer("COMET"), n_samples=samples, seed=seed)
    assert ci.score == x.mean()
    assert (ci.mean, ci.ci) == numpy_bootstrap(x, samples, seed)


def test_float32_sums_would_not_be_numpys(scores):
    """The test above can fail: sacreBLEU's float32 sums (TER's) give other numbers."""
    class Float32Mean(MeanScorer):
        float32_sums = True

    x = np.asarray(scores.segments["A"])
    ci = bootstrap_ci(scores.rows("A"), Float32Mean("COMET"), n_samples=1000, seed=12345)
    assert (ci.mean, ci.ci) != numpy_bootstrap(x, 1000, 12345)


def test_paired_bootstrap_is_numpys(scores):
    a, b = (np.asarray(scores.segments[s]) for s in "AB")
    result = paired_bootstrap(scores.rows("A"), scores.rows("B"), MeanScorer("COMET"),
                              n_samples=1000, seed=11)
    idx = np.random.default_rng(11).choice(N, size=(1000, N))
    d = b[idx].mean(axis=1) - a[idx].mean(axis=1)
    observed = abs(b.mean() - a.mean())
    expected = (np.count_nonzero(np.abs(d - d.mean()) >= observed) + 1) / 1001
    assert (result.score_a, result.score_b) == (a.mean(), b.mean())
    assert result.p_value == expected
    assert 0.01 < result.p_value < 0.99  # a case where the p-value says something


def test_approximate_randomization_is_numpys(scores):
    a, c = (np.asarray(scores.segments[s]) for s in "AC")
    result = paired_randomization(scores.rows("A"), scores.rows("C"), MeanScorer("COMET"),
                                  n_trials=2000, seed=5)
    keep = np.random.default_rng(5).integers(2, size=(2000, N), dtype=bool)
    first, second = np.where(keep, a, c), np.where(keep, c, a)
    gaps = np.abs(first.mean(axis=1) - second.mean(axis=1))
    expected = (np.count_nonzero(gaps >= abs(a.mean() - c.mean())) + 1) / 2001
    assert result.p_value == expected
    same = paired_randomization(scores.rows("A"), scores.rows("A"), MeanScorer("COMET"),
                                n_trials=200, seed=5)
    assert same.p_value == 1.0


def test_all_pairs_rank_by_the_direction_given(scores):
    rows = {s: scores.rows(s) for s in scores.systems}
    means = {s: np.asarray(scores.segments[s]).mean() for s in scores.systems}
    higher = compare_all(rows, MeanScorer("COMET"), n_samples=500, seed=3)
    assert higher.metric == "COMET"
    assert [s.name for s in higher.systems] == sorted(means, key=means.get, reverse=True)
    assert {s.name: s.score for s in higher.systems} == means
    for system in higher.systems:
        x = np.asarray(scores.segments[system.name])
        assert (system.mean, system.ci) == numpy_bootstrap(x, 500, 3)  # shared draws
    lower = compare_all(rows, MeanScorer("MQM", higher_is_better=False), n_samples=500, seed=3)
    assert [s.name for s in lower.systems] == sorted(means, key=means.get)
    ar = compare_all(rows, MeanScorer("COMET"), test="ar", n_samples=500, seed=3)
    assert [s.name for s in ar.systems] == [s.name for s in higher.systems]


def test_segment_level_comparison_uses_the_scores_themselves(scores):
    a, b = (np.asarray(scores.segments[s]) for s in "AB")
    result = compare_sentences(scores.rows("A"), scores.rows("B"), MeanScorer("COMET"),
                               n_samples=100)
    assert (result.wins_b, result.wins_a) == (np.count_nonzero(b > a), np.count_nonzero(b < a))
    assert result.mean_delta == (b - a).mean()


def test_scores_are_not_computed_from_text():
    with pytest.raises(TypeError, match="COMET scores are read from elsewhere"):
        MeanScorer("COMET").statistics(["a hypothesis"])
