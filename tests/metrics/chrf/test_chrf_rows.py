"""chrF's vectorised scorer (metrics/chrf/rows.py) against its specification, bit for bit.

Every float :class:`CHRFBatchScorer.score_rows` returns must be the float
:func:`truebleu.metrics.chrf.spec.f_score` (sacreBLEU's arithmetic) returns for that row:
rows with empty orders on either side, no matches, everything matched, chrF and chrF++
widths, betas 1-3, ``eps_smoothing`` on and off; and the rows of WMT21 systems.
"""

from __future__ import annotations

import pytest

np = pytest.importorskip("numpy")
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

import truebleu  # noqa: E402
from conftest import needs_wmt21, wmt21_dir  # noqa: E402
from truebleu.metrics import CHRF  # noqa: E402
from truebleu.metrics.chrf.rows import CHRFBatchScorer  # noqa: E402
from truebleu.metrics.chrf.spec import f_score  # noqa: E402


def order_counts(large: bool):
    """One order's [hyp, ref, match]: match never above either side, zeros likely."""
    top = 10**9 if large else 6
    return st.tuples(st.integers(0, top), st.integers(0, top)).flatmap(
        lambda hr: st.tuples(st.just(hr[0]), st.just(hr[1]), st.integers(0, min(hr))))


@st.composite
def row_sets(draw):
    orders = draw(st.integers(1, 8))
    large = draw(st.booleans())
    rows = draw(st.lists(st.lists(order_counts(large), min_size=orders, max_size=orders)
                         .map(lambda counts: [x for c in counts for x in c]), min_size=1, max_size=12))
    return rows, draw(st.sampled_from([1, 2, 3, 0.5])), draw(st.booleans())


def bits(values) -> list[str]:
    return [float(v).hex() for v in values]


@given(row_sets())
@settings(max_examples=400, deadline=None)
def test_every_row_is_the_specifications_float(case):
    rows, beta, eps = case
    scorer = CHRFBatchScorer(lambda hyps: [], beta, eps, "chrF")
    got = scorer.score_rows(np.asarray(rows, dtype=np.int64))
    assert got.dtype == np.float64 and got.shape == (len(rows),)
    assert bits(got) == bits(f_score(row, beta, eps) for row in rows)


def test_the_metric_scores_rows_with_it():
    metric = CHRF(word_order=2)
    scorer = metric.batch_scorer()
    assert isinstance(scorer, CHRFBatchScorer) and scorer.name == "chrF2++"
    rows = np.array([[0] * 24, [3, 4, 2] * 8, [5, 0, 0] * 8], dtype=np.int64)
    want = [metric.score_from_statistics(row).score for row in rows]
    assert bits(scorer.score_rows(rows)) == bits(want)
    # floats are scored one at a time by the specification (sacreBLEU's scalar arithmetic,
    # its result types: float32 sums give float32 scores, as in sacreBLEU's bootstrap)
    assert bits(scorer.score_rows(rows.astype(np.float64))) == bits(want)
    for sums in (rows[1:2].astype(np.float32), rows.astype(np.float32)):
        spec = np.array([metric.score_from_statistics(r).score for r in sums])
        got = scorer.score_rows(sums)
        assert got.dtype == spec.dtype and bits(got) == bits(spec)
    assert scorer.score_rows(rows[1:2].astype(np.float32)).dtype == np.float32
    with pytest.raises(ValueError, match="3 \\* orders"):
        scorer.score_rows(np.zeros((2, 4), dtype=np.int64))


@needs_wmt21
@pytest.mark.parametrize("word_order", [0, 2])
def test_wmt21_sentence_and_resampled_rows(word_order):
    data = wmt21_dir()
    refs = [open(data / "references" / "newstest2021.en-de.ref.A.de", encoding="utf-8")
            .read().split("\n")[:-1]]
    hyps = open(sorted((data / "system-outputs").glob("newstest2021.en-de.hyp.*.de"))[0],
                encoding="utf-8").read().split("\n")[:-1]
    metric = CHRF(word_order=word_order)
    rows = metric.corpus_statistics(hyps, refs).to_numpy()
    scorer = metric.batch_scorer()
    assert bits(scorer.score_rows(rows)) == bits(f_score(r, metric.beta, False) for r in rows)
    draws = np.random.default_rng(3).integers(0, len(rows), size=(200, len(rows)))
    sums = rows[draws].sum(axis=1)
    assert bits(scorer.score_rows(sums)) == bits(f_score(r, metric.beta, False) for r in sums)
    assert scorer.score_rows(rows.sum(axis=0)[None, :])[0] == truebleu.corpus_chrf(
        hyps, refs, word_order=word_order).score
