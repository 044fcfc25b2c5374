"""A corpus score without a table of rows: the backends' ``stream_totals`` and
``totals`` (the core adds each row to its thread's sum) against the rows they
replace (``stream_statistics`` / ``statistics`` summed) and the Python
backend, on generated corpora, every core tokenizer and the Python-tokenized
path, 1-8 threads; and ``corpus_score`` against ``corpus_statistics``."""

from __future__ import annotations

from array import array

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import truebleu
from strategies import corpus
from truebleu.metrics.bleu.kernels import PythonKernel
from truebleu.tokenizers import get_tokenizer

core = pytest.importorskip("truebleu._native_core", reason="compiled core not built")
from truebleu.metrics.bleu import native as _native_backend  # noqa: E402
from truebleu.metrics.bleu.native import NativeKernel  # noqa: E402

NATIVE, PYTHON = NativeKernel(), PythonKernel()


def rule(hypotheses):
    return sum(1 for hyp in hypotheses if hyp.endswith(" ."))


@settings(max_examples=60, deadline=None)
@given(corpus(allow_none=True), st.sampled_from(["13a", "intl", "zh", "char", "none"]),
       st.booleans(), st.sampled_from([1, 2, 8]), st.sampled_from([1, 4]))
def test_totals_are_the_rows_summed(data, tok_name, lowercase, threads, order):
    hyps, streams = data
    hyps = [h + " ." if i % 2 else h for i, h in enumerate(hyps)]
    tok = get_tokenizer(tok_name)
    rows, num_refs = NATIVE.stream_statistics(hyps, streams, tok, lowercase, order, threads)
    want = (rows.sum(), num_refs, rule(hyps))
    assert NATIVE.stream_totals(hyps, streams, tok, lowercase, order, threads) == want
    assert PYTHON.stream_totals(hyps, streams, tok, lowercase, order) == want
    segments = [[r[i] for r in streams if r[i] is not None] for i in range(len(hyps))]
    prepared = NATIVE.prepare_references(segments, tok, lowercase, order)
    assert NATIVE.totals(hyps, prepared, tok, lowercase, order, threads) == want[::2]
    assert PYTHON.totals(hyps, PYTHON.prepare_references(segments, tok, lowercase, order), tok,
                         lowercase, order) == want[::2]


def test_python_tokenized_lines_count_periods_as_given(monkeypatch):
    # a tokenizer the core does not run: Python tokenizes, and the periods are
    # counted on the lines as given, not on their tokens ("a.\r" tokenizes to "a .")
    monkeypatch.setattr(_native_backend, "core_mode", lambda tokenizer: None)
    tok = get_tokenizer("13a")
    hyps, refs = ["a .", "a.", "b c .\r", "d ."], [["a .", "a", "b c", "d"]]
    got = NATIVE.stream_totals(hyps, refs, tok, False, 4)
    assert got == PYTHON.stream_totals(hyps, refs, tok, False, 4)
    assert got[2] == 2
    prepared = NATIVE.prepare_references([[r] for r in refs[0]], tok, False, 4)
    assert NATIVE.totals(hyps, prepared, tok, False, 4)[1] == 2


def test_many_segments_on_many_threads():
    hyps = [f"w{i % 97} x{i % 13} y ." if i % 3 else f"w{i % 89} z" for i in range(20000)]
    refs = [[f"w{i % 97} x{i % 11} y ." for i in range(20000)]]
    tok = get_tokenizer("13a")
    want = NATIVE.stream_statistics(hyps, refs, tok, False, 4, 1)[0].sum()
    for threads in (1, 2, 4, 8):
        assert NATIVE.stream_totals(hyps, refs, tok, False, 4, threads)[0] == want


def test_the_core_adds_to_totals_and_checks_its_buffers():
    streams = [["a b c", "d e"]]
    totals = array("q", [0]) * 10
    assert core.stream_statistics(["a b c .", "d"], streams, core.MODE_13A, False, 4, 1, None,
                                  totals) == (1, 1)
    once = totals.tolist()
    core.stream_statistics(["a b c .", "d"], streams, core.MODE_13A, False, 4, 2, None, totals)
    assert totals.tolist() == [2 * x for x in once]
    with pytest.raises(TypeError, match="totals"):
        core.stream_statistics(["a"], [["a"]], core.MODE_13A, False, 4, 1, None)
    with pytest.raises(ValueError):
        core.stream_statistics(["a"], [["a"]], core.MODE_13A, False, 4, 1, None, array("q", [0]) * 9)
    prepared = core.prepare([["a b c"], ["d e"]], core.MODE_13A, False, 1)
    totals = array("q", [0]) * 10
    assert core.statistics(["a b c .", "d"], prepared, core.MODE_13A, False, 4, 1, None, totals) == 1
    assert totals.tolist() == once
    with pytest.raises(TypeError, match="totals"):
        core.statistics(["a", "b"], prepared, core.MODE_13A, False, 4, 1, None, None)


@pytest.mark.parametrize("backend", ["native", "python"])
def test_corpus_score_is_its_statistics_summed(backend):
    hyps = ["The cat sat on the mat .", "Dogs, 3.5 km-long; quoted - text!", "", "a a a ."]
    refs = [["The cat is on the mat.", "Dogs 3.5 km long!", "x", "a a ."],
            ["A cat sat on a mat .", None, "", "a"]]
    for metric in (truebleu.BLEU(backend=backend), truebleu.BLEU(backend=backend, lowercase=True,
                                                                  smooth_method="floor")):
        got = metric.corpus_score(hyps, refs)
        want = metric.score_from_statistics(metric.corpus_statistics(hyps, refs).sum())
        assert (got.score.hex(), str(got)) == (want.score.hex(), str(want))
        assert "nrefs:var" in str(metric.get_signature())
    cached = truebleu.BLEU(references=refs, backend=backend)
    assert str(cached.corpus_score(hyps)) == str(truebleu.BLEU(backend=backend).corpus_score(hyps, refs))


@pytest.mark.parametrize("backend", ["native", "python"])
def test_errors_are_those_of_the_rows_path(backend):
    metric = truebleu.BLEU(backend=backend)
    cached = truebleu.BLEU(references=[["a", "b"]], backend=backend)
    for call in (lambda m: m.corpus_score(["a", 3], [["a", "b"]]),
                 lambda m: m.corpus_statistics(["a", 3], [["a", "b"]])):
        with pytest.raises(TypeError, match=r"hypotheses\[1\]"):
            call(metric)
    for call in (lambda m: m.corpus_score(["a", 3]), lambda m: m.corpus_statistics(["a", 3])):
        with pytest.raises(TypeError, match=r"hypotheses\[1\]"):
            call(cached)
    with pytest.raises(ValueError, match="reference"):
        metric.corpus_score(["a"], [["a", "b"]])
    with pytest.raises(ValueError, match="no reference"):
        metric.corpus_score(["a", "b"], [["a", None]])
