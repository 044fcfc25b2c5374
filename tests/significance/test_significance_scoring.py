"""The vectorised BLEU gives the scalar scorers' floats bit for bit."""

from __future__ import annotations

import pytest

np = pytest.importorskip("numpy")
sacrebleu_bleu = pytest.importorskip("sacrebleu.metrics.bleu")

from truebleu.metrics.bleu import BLEUBatchScorer  # noqa: E402
from truebleu.metrics.bleu.score import score_from_row  # noqa: E402
from truebleu.significance.scoring import RowScorer  # noqa: E402

CONFIGS = [
    dict(smooth_method="exp"),
    dict(smooth_method="none"),
    dict(smooth_method="floor"),
    dict(smooth_method="floor", smooth_value=0.3),
    dict(smooth_method="add-k"),
    dict(smooth_method="add-k", smooth_value=0.5),
    dict(smooth_method="exp", effective_order=True),
    dict(smooth_method="none", effective_order=True),
    dict(smooth_method="exp", max_ngram_order=2),
    dict(smooth_method="floor", max_ngram_order=6, effective_order=True),
]


def random_rows(order: int, n: int, seed: int, scale: int):
    """Summed statistics rows with many edge cases: zero matches, zero totals, empty output."""
    rng = np.random.default_rng(seed)
    totals = rng.integers(0, scale, size=(n, order))
    totals = np.sort(totals, axis=1)[:, ::-1]  # higher orders have fewer n-grams
    totals[rng.random(n) < 0.1, -1] = 0
    matches = (totals * rng.random((n, order)) ** 2).astype(np.int64)
    matches[rng.random((n, order)) < 0.2] = 0
    matches[rng.random(n) < 0.05] = 0
    hyp_len = totals[:, 0]
    ref_len = np.maximum(hyp_len + rng.integers(-scale // 4 - 1, scale // 4 + 2, size=n), 0)
    rows = np.concatenate([hyp_len[:, None], ref_len[:, None], matches, totals], axis=1)
    rows[:3] = 0  # the empty corpus
    return rows.astype(np.int64)


def sacrebleu_metric(config):
    return sacrebleu_bleu.BLEU(**config)


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: ",".join(f"{k}={v}" for k, v in c.items()))
@pytest.mark.parametrize("dtype", ["float32", "int64"])
def test_batch_equals_sacrebleu_on_resampled_dtypes(config, dtype):
    """float32 rows: sacreBLEU's bootstrap arithmetic; int64 rows: its AR arithmetic."""
    order = config.get("max_ngram_order", 4)
    scale = 40 if "effective_order" in config else 30000
    rows = random_rows(order, 400, seed=len(str(config)), scale=scale).astype(dtype)
    before = rows.copy()
    oracle = sacrebleu_metric(config)
    expected = np.array([oracle._compute_score_from_stats(row.copy()).score for row in rows])
    scorer = BLEUBatchScorer(order, config["smooth_method"], config.get("smooth_value"),
                             config.get("effective_order", False), in_place=True)
    got = scorer.score_rows(rows)
    assert got.tobytes() == expected.astype(np.float64).tobytes()
    assert rows.dtype == np.dtype(dtype)
    assert rows.tobytes() == before.tobytes()  # input untouched (add-k works on copies)


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: ",".join(f"{k}={v}" for k, v in c.items()))
def test_batch_equals_truebleu_scalar_on_integers(config):
    order = config.get("max_ngram_order", 4)
    rows = random_rows(order, 400, seed=7, scale=50)
    before = rows.copy()
    scorer = BLEUBatchScorer(order, config["smooth_method"], config.get("smooth_value"),
                             config.get("effective_order", False))
    expected = [score_from_row(row, order, config["smooth_method"], config.get("smooth_value"),
                               config.get("effective_order", False)).score
                for row in rows.tolist()]
    assert scorer.score_rows(rows).tolist() == expected
    assert np.array_equal(rows, before)


def test_row_scorer_adapts_a_scalar_function():
    rows = random_rows(4, 50, seed=3, scale=100)
    scalar = RowScorer(lambda hyps: None, lambda row: score_from_row(row.tolist(), 4).score)
    assert scalar.score_rows(rows).tolist() == BLEUBatchScorer().score_rows(rows).tolist()


def test_bad_shape_is_an_error():
    with pytest.raises(ValueError, match="shape"):
        BLEUBatchScorer().score_rows(np.zeros((3, 7), dtype=np.int64))
