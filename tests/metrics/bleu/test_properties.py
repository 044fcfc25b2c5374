"""Properties BLEU must have, whatever the input."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import truebleu
from strategies import corpus, segments
from truebleu.metrics.bleu.statistics import Statistics

quick = settings(max_examples=80, deadline=None,
                 suppress_health_check=[HealthCheck.function_scoped_fixture])


@quick
@given(text=segments())
def test_identical_hypothesis_and_reference_score_100(backend, text):
    score = truebleu.corpus_bleu([text], [[text]], backend=backend)
    if score.sys_len >= 4:
        # exp(log(100)) is 100.00000000000004 in binary floating point, in sacreBLEU too
        assert score.score == pytest.approx(100.0, rel=1e-14, abs=0)
        assert score.precisions == [100.0] * 4
    assert score.bp == 1.0


@quick
@given(data=corpus(max_refs=3))
def test_statistics_add_up(backend, data):
    hyps, refs = data
    metric = truebleu.BLEU(backend=backend)
    whole = metric.corpus_statistics(hyps, refs)
    assert len(whole) == len(hyps)  # one row per segment: nothing dropped
    for cut in range(len(hyps) + 1):
        head = metric.corpus_statistics(hyps[:cut], [r[:cut] for r in refs]) if cut else Statistics(4)
        tail = (metric.corpus_statistics(hyps[cut:], [r[cut:] for r in refs]) if cut < len(hyps)
                else Statistics(4))
        head.extend(tail)
        assert head == whole
    assert whole.sum() == [sum(col) for col in zip(*whole.rows())]


@quick
@given(data=corpus(max_refs=2), seed=st.randoms())
def test_rows_follow_input_order(backend, data, seed):
    hyps, refs = data
    order = list(range(len(hyps)))
    seed.shuffle(order)
    metric = truebleu.BLEU(backend=backend)
    rows = list(metric.corpus_statistics(hyps, refs).rows())
    shuffled = list(metric.corpus_statistics([hyps[i] for i in order],
                                             [[r[i] for i in order] for r in refs]).rows())
    assert shuffled == [rows[i] for i in order]


@quick
@given(data=corpus(max_refs=3))
def test_brevity_penalty_in_range(backend, data):
    hyps, refs = data
    score = truebleu.corpus_bleu(hyps, refs, backend=backend)
    assert 0.0 <= score.bp <= 1.0
    if score.sys_len > 0:
        assert score.bp > 0.0
    assert 0.0 <= score.score <= 100.0 * (1 + 1e-14)
