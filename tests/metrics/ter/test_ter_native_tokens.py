"""The native TER kernel tokenizes in the core: hypotheses inside the job
(``ter_statistics(..., tokenize=True)``), references once when prepared (``ter_tokenize``).

The rows and alignments must be those of the same call on strings tokenized by the
specification (``tokenizers/tokenizer_ter.py``), for every option, any thread count,
and text whose lowercasing is not ASCII's (the core lowercases through ``str.lower``).
"""

from __future__ import annotations

from array import array

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from strategies import segments
from truebleu.metrics.ter import TER
from truebleu.metrics.ter.kernels import ter_reference, ter_tokens

core = pytest.importorskip("truebleu._native_core")

OPTIONS = ("normalized", "no_punct", "asian_support", "case_sensitive")
ALL_OPTIONS = [dict(zip(OPTIONS, (bits >> k & 1 == 1 for k in range(4)))) for bits in range(16)]
HOSTILE = ["İstanbul's ΣΟΦΟΣ. 3-4", "ΑΣ, x&amp;lt;y\n-z", "\ud800 a.\udfff,b", "中文，測試。Ab\u3000",
           "e\u0301.é \u0301'S", "  ", "", "A. B. C.", "c. b a"]


def rows_and_alignments(hyps, refs, options, tokenized_by_core, threads):
    tokenizer = TER(**options).tokenizer
    if tokenized_by_core:
        prepared = [core.ter_tokenize(r, **options, reference=True) for r in refs]
        extra = dict(tokenize=True, **options)
        given_hyps = hyps
    else:
        prepared = [[ter_reference(x, tokenizer) for x in r] for r in refs]
        extra = {}
        given_hyps = [" ".join(ter_tokens(h, tokenizer)) for h in hyps]
    out = array("d", bytes(16 * len(hyps)))
    core.ter_statistics(given_hyps, prepared, threads, out, **extra)
    return list(out), core.ter_alignment(given_hyps, prepared, threads, **extra)


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(hyps=st.lists(st.one_of(segments(), st.sampled_from(HOSTILE)), min_size=1, max_size=6),
       data=st.data())
def test_core_tokens_give_the_rows_and_alignments_of_the_specifications(hyps, data):
    refs = [data.draw(st.lists(st.one_of(segments(), st.sampled_from(HOSTILE)), min_size=1,
                               max_size=3)) for _ in hyps]
    for options in ALL_OPTIONS:
        want = rows_and_alignments(hyps, refs, options, False, 1)
        for threads in (1, 3):
            assert rows_and_alignments(hyps, refs, options, True, threads) == want, options


def test_metric_rows_equal_the_python_kernel_on_hostile_text():
    hyps = HOSTILE * 3
    refs = [HOSTILE[::-1] * 3, (HOSTILE[1:] + HOSTILE[:1]) * 3]
    for options in ALL_OPTIONS:
        native = TER(**options, backend="native", threads=2)
        python = TER(**options, backend="python")
        assert native.corpus_statistics(hyps, refs) == python.corpus_statistics(hyps, refs)
        pairs = [[a, b] for a, b in zip(*refs)]
        assert native.alignments(hyps, pairs) == python.alignments(hyps, pairs)


def test_a_hypothesis_that_is_not_a_string_is_named():
    with pytest.raises(TypeError, match=r"hypotheses\[1\] must be a string"):
        core.ter_statistics(["a", b"b"], [["a"], ["b"]], 1, array("d", bytes(32)), tokenize=True)
