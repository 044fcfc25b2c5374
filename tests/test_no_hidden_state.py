"""No hidden process-wide state (issue 11 item 19).

``corpus_bleu`` used to keep the last call's references (a copy of every
stream and their prepared form) in a module global, and the mteval, tf-nmt
and multi-bleu dialects kept prepared references and corpus sums in module
caches. Now a call keeps nothing once it returns; reuse is explicit
(``BLEU(references=...)``) or owned by a dialect object.
"""

from __future__ import annotations

import gc
import tracemalloc

import pytest

import truebleu
from conftest import available_backends
from truebleu.dialects import get_dialect

N = 1000
REFS = [f"reference number {i} , with some words and {i % 97} more ." for i in range(N)]
HYPS = [f"hypothesis number {i} with some words and {i % 89} more" for i in range(N)]


def clear_line_caches() -> None:
    """Empty the tokenizers' bounded per-line caches (2**16 lines each, as sacreBLEU's
    ``lru_cache`` on its tokenizers): they are not what this test is about."""
    from truebleu.dialects import _perl, mteval
    from truebleu.tokenizers import tokenizer_13a, tokenizer_intl, tokenizer_re

    for cached in (tokenizer_13a.tokenize_13a, tokenizer_intl.tokenize_intl,
                   tokenizer_re.split_punctuation, _perl.tokenize_13a_perl, _perl.tokenize_intl_perl,
                   mteval.sgml_text):
        cached.cache_clear()


def retained_bytes(call) -> int:
    """Traced bytes still allocated after ``call(HYPS, REFS)`` returned."""
    call(HYPS[:2], REFS[:2])  # imports and first-use setup
    clear_line_caches()
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        call(HYPS, REFS)
        clear_line_caches()
        gc.collect()
        return tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("backend", available_backends())
def test_corpus_bleu_keeps_nothing(backend):
    # 1000 segments: a kept copy with its prepared form was 4 MB (Python backend)
    assert retained_bytes(lambda h, r: truebleu.corpus_bleu(h, [r], backend=backend)) < 100_000


@pytest.mark.parametrize("name", ["mteval-v13a", "mteval-v14", "tf-nmt", "multi-bleu",
                                  "multi-bleu-detok"])
def test_dialect_calls_keep_nothing(name):
    def call(hyps, refs):
        return truebleu.corpus_bleu(hyps, [refs], dialect=name).score

    assert retained_bytes(call) < 100_000


def test_a_dialect_object_owns_its_reuse():
    first, second = get_dialect("mteval-v13a"), get_dialect("mteval-v13a")
    score = first.corpus_score(HYPS[:50], [REFS[:50]])
    assert first.corpus_score(HYPS[:50], [REFS[:50]]) == score  # reused, same number
    assert second.corpus_score(HYPS[:50], [REFS[:50]]) == score
    assert first._prepared is not second._prepared
