"""The bootstrap draws its samples in blocks: bounded memory, the same random stream.

Issue 11 item 10: the bootstrap used to materialise an ``(n_samples, n_segments)``
index matrix (1.6 GB at 200k segments and 1000 samples). The draws now come
block by block; these tests check that every result is bit-identical to the
all-at-once draw and that the peak memory stays within the stated bound.
(sacreBLEU's own numbers for ``-ci``/``-pbs`` are checked in
tests/significance/test_significance_sacrebleu.py and stay identical.)
"""

from __future__ import annotations

import tracemalloc

import pytest

np = pytest.importorskip("numpy")

from _significance_data import bleu_stats  # noqa: E402
from truebleu.metrics.bleu import BLEUBatchScorer  # noqa: E402
from truebleu.significance import bootstrap_ci, compare_sentences  # noqa: E402
from truebleu.significance.paired import bootstrap_scores  # noqa: E402
from truebleu.significance.resampling import (  # noqa: E402
    BLOCK_BYTES,
    BootstrapDraws,
    block_rows,
    bootstrap_indices,
    sample_counts,
)


@pytest.mark.parametrize("n_segments", [1, 2, 7, 1002])
@pytest.mark.parametrize("rows_per_block", [1, 7, 1000])
def test_blocked_draws_give_the_all_at_once_scores(n_segments, rows_per_block):
    systems = [bleu_stats(n_segments, seed) for seed in range(3)]
    scorer = BLEUBatchScorer()
    full = bootstrap_scores(bootstrap_indices(np.random.default_rng(99), n_segments, 301),
                            systems, scorer)
    draws = BootstrapDraws(np.random.default_rng(99), n_segments, 301, rows_per_block)
    blocked = bootstrap_scores(draws, systems, scorer)
    assert blocked.dtype == full.dtype
    assert blocked.tobytes() == full.tobytes()


def test_draws_can_be_iterated_once_only():
    draws = BootstrapDraws(np.random.default_rng(1), 10, 5)
    list(draws.blocks())
    with pytest.raises(RuntimeError, match="already consumed"):
        list(draws.blocks())


def test_the_generator_is_left_where_one_call_leaves_it():
    """Later draws from the same generator (AR, then the CIs) stay identical too."""
    one, blocked = np.random.default_rng(5), np.random.default_rng(5)
    one.choice(1003, size=(40, 1003), replace=True)
    list(BootstrapDraws(blocked, 1003, 40, rows_per_block=3).blocks())
    assert one.integers(2**62, size=4).tolist() == blocked.integers(2**62, size=4).tolist()


def test_block_size_follows_the_memory_budget():
    assert block_rows(1002) == 1000  # small corpora: one matrix product per 1000 samples
    assert block_rows(200_000) * 200_000 * 32 <= BLOCK_BYTES
    assert block_rows(10**9) == 1


def test_sentence_comparison_as_before():
    """The segment-level intervals equal the former all-at-once computation.

    (Their means are float dot products, so blocks of another size could change
    the last bit; the block size depends only on the number of segments, and up
    to 2,097 segments it is the former 1,000-sample chunk.)
    """
    from truebleu.significance.sentence import _percentile_interval

    a, b = bleu_stats(500, 1), bleu_stats(500, 2)
    scorer = BLEUBatchScorer(effective_order=True)
    result = compare_sentences(a, b, scorer, n_samples=2500, seed=3)
    delta = scorer.score_rows(b) - scorer.score_rows(a)
    indices = bootstrap_indices(np.random.default_rng(3), 500, 2500)
    means = np.concatenate([sample_counts(indices[k:k + 1000], 500).astype(np.float64) @ delta / 500
                            for k in range(0, 2500, 1000)])
    assert (result.delta_low, result.delta_high) == _percentile_interval(means)


def test_bootstrap_memory_is_bounded():
    """100k segments, 200 samples: the old index matrix alone was 160 MB (peak 469 MB)."""
    stats = bleu_stats(100_000, 0)
    bound = BLOCK_BYTES + 16 * 2**20  # the block's working memory + copies of the statistics
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        result = bootstrap_ci(stats, BLEUBatchScorer(), n_samples=200, seed=1)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < bound, f"bootstrap peaked at {peak / 2**20:.0f} MB (bound {bound / 2**20:.0f} MB)"
    assert result.n_samples == 200 and result.low <= result.score <= result.high
