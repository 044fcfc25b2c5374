"""sacreBLEU's warning about tokenized output (100 or more hypotheses ending in
" ."): the compiled core's count against the Python backend's rule
(``hyp.endswith(" .")`` on the unstripped str) on generated lines, and the
warning itself against sacreBLEU's."""

from __future__ import annotations

import logging
from collections.abc import Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from strategies import segments
from truebleu.metrics.bleu.kernels import PythonKernel
from truebleu.metrics.bleu.metric import count_tokenized_periods

pytest.importorskip("truebleu._native_core", reason="compiled core not built")
from truebleu.metrics.bleu.native import NativeKernel  # noqa: E402

NATIVE, PYTHON = NativeKernel(), PythonKernel()

ENDINGS = ["", " .", " .\r", " .\n", " . ", ".", "  .", "\t.", "\u00a0.", " ..", " .\u200b", "é .",
           "😀 .", " 。", "\r .", " .\x85"]
lines = st.builds(lambda text, end: text + end, st.one_of(segments(), st.text(max_size=8)),
                  st.sampled_from(ENDINGS))


def rule(hypotheses):
    return sum(1 for hyp in hypotheses if hyp.endswith(" ."))


@settings(max_examples=300, deadline=None)
@given(st.lists(lines, max_size=40))
def test_the_core_counts_what_endswith_counts(hyps):
    want = rule(hyps)
    assert NATIVE.tokenized_periods(hyps) == want
    assert NATIVE.tokenized_periods(tuple(hyps)) == want
    assert PYTHON.tokenized_periods(hyps) == want


def test_every_string_width_and_edge():
    hyps = [" .", ".", "", " ", "a .", "a.", "\u00e9 .", "\u0100 .", "\U0001F600 .", " .\r", " . ",
            "x" * 1000 + " .", "\U0001F600" * 300 + " .", "ĀĀ .\n"]
    assert NATIVE.tokenized_periods(hyps) == rule(hyps) == 7
    assert count_tokenized_periods(hyps, backend="native") == 7
    assert count_tokenized_periods(hyps, backend="python") == 7


class Always(str):
    def endswith(self, *args):  # a subclass is asked, as the Python expression asks it
        return True


class Seq(Sequence):
    def __init__(self, items):
        self.items = items

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        return self.items[i]


def test_str_subclasses_and_other_sequences():
    hyps = [Always("no period"), "a .", Always("b .")]
    assert NATIVE.tokenized_periods(hyps) == rule(hyps) == 3
    assert NATIVE.tokenized_periods(Seq(["a .", "b", "c ."])) == 2
    with pytest.raises(AttributeError):
        NATIVE.tokenized_periods(["a .", 3])
    with pytest.raises(AttributeError):
        PYTHON.tokenized_periods(["a .", 3])
    with pytest.raises(TypeError):
        NATIVE.tokenized_periods(3)


def warnings_of(logger_name, caplog, call):
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger=logger_name):
        call()
    return [r.getMessage() for r in caplog.records
            if r.name == logger_name and "tokenized period" in r.getMessage()]


@pytest.mark.parametrize("backend", ["native", "python"])
@pytest.mark.parametrize("n_tokenized", [99, 100])
def test_the_warning_comes_where_sacrebleus_does(backend, n_tokenized, caplog):
    import sacrebleu

    import truebleu

    hyps = ["a b c ."] * n_tokenized + ["a b c.", "a b c .\r", "a b c . "] * 3
    refs = [["a b c."] * len(hyps)]
    ours = warnings_of("truebleu", caplog,
                       lambda: truebleu.corpus_bleu(hyps, refs, backend=backend))
    theirs = warnings_of("sacrebleu", caplog, lambda: sacrebleu.corpus_bleu(hyps, refs))
    assert len(ours) == len(theirs) == (n_tokenized >= 100)
    metric = truebleu.BLEU(references=refs, backend=backend)  # the cached-references path
    assert len(warnings_of("truebleu", caplog, lambda: metric.corpus_score(hyps))) == len(theirs)
    forced = truebleu.BLEU(force=True, backend=backend)
    assert warnings_of("truebleu", caplog, lambda: forced.corpus_score(hyps, refs)) == []


@pytest.mark.parametrize("backend", ["native", "python"])
def test_the_corpus_path_counts_the_periods_once(backend, caplog, monkeypatch):
    """corpus_score's kernel counts the " ." lines as it sums the columns; the warning
    takes that count and makes no second pass over the hypotheses (a pass that finds
    none here, so a warning proves the kernel's count was used), on the given- and the
    cached-references paths. Only the hypotheses just scored, and only once: another
    call counts with a pass of its own."""
    import truebleu

    hyps = ["a b c ."] * 100 + ["a b c."]
    refs = [["a b c."] * len(hyps)]
    metric = truebleu.BLEU(backend=backend)
    cached = truebleu.BLEU(references=refs, backend=backend)
    passes = []
    for m in (metric, cached):
        monkeypatch.setattr(m._kernel, "tokenized_periods", lambda h: passes.append(h) or 0)
    assert len(warnings_of("truebleu", caplog, lambda: metric.corpus_score(hyps, refs))) == 1
    assert len(warnings_of("truebleu", caplog, lambda: cached.corpus_score(hyps))) == 1
    assert passes == []
    assert metric.input_warnings(hyps) == 0 and passes == [hyps]  # the count was taken
    cached.corpus_score(hyps)
    assert cached.input_warnings(hyps[:50]) == 0 and passes == [hyps, hyps[:50]]
