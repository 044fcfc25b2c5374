"""Every public scoring function gives the same result on both backends (issue 11 item 17).

Each call goes through the backend interface of :mod:`truebleu.core.backends`, so
the compiled core is never reached around the checks of the native backend:
with a stale ``intl`` table (simulated) no call may tokenize ``intl`` in C,
and the numbers stay those of the Python backend.
"""

from __future__ import annotations

import warnings

import pytest

import truebleu
from truebleu.metrics.bleu import batch
from truebleu.metrics.bleu.kernels import kernels
from truebleu.metrics.chrf import batch as batch_chrf
from truebleu.tokenizers import get_tokenizer

core = pytest.importorskip("truebleu._native_core", reason="compiled core not built")

from _stale_intl import make_stale  # noqa: E402
from truebleu.metrics.bleu import native as _native_backend  # noqa: E402

HYPS = ["The cat sat on the mat.", "x\u20c2y z w", "Dogs, 3.5 km-long; \u201cquoted\u201d \u2014 text!",
        "", "\u732b\u5750\u5728\u57ab\u5b50\u4e0a\u3002", "A a a A b"]
REFS_A = ["The cat is on the mat.", "x \u20c2 y z w", "Dogs 3.5 km long; quoted text!",
          "nothing", "\u732b\u5728\u57ab\u5b50\u4e0a\u3002", "a A b a"]
REFS_B = ["A cat sat on a mat.", None, "Dogs, 3.5 km-long!", "", "\u732b\u5750\u7740\u3002", None]
STREAMS = [REFS_A, REFS_B]
PER_HYP = [[a] if b is None else [a, b] for a, b in zip(REFS_A, REFS_B)]


def bleu_calls(tok: str, backend: str) -> dict:
    """name -> a thunk giving a comparable result (str/list/float/tuple)."""
    opts = dict(tokenize=tok, backend=backend)
    return {
        "corpus_bleu": lambda: str(truebleu.corpus_bleu(HYPS, STREAMS, **opts)),
        "corpus_bleu options": lambda: str(truebleu.corpus_bleu(
            HYPS, STREAMS, smooth_method="add-k", smooth_value=0.5, lowercase=True,
            use_effective_order=True, max_ngram_order=3, **opts)),
        "sentence_bleu": lambda: [truebleu.sentence_bleu(h, refs, **opts).score
                                  for h, refs in zip(HYPS, PER_HYP)],
        "sentence_bleu batched": lambda: [s.score for s in truebleu.sentence_bleu(
            HYPS, PER_HYP, smooth_method="floor", **opts)],
        "BLEU.corpus_statistics": lambda: truebleu.BLEU(**opts).corpus_statistics(
            HYPS, STREAMS).data.tolist(),
        "BLEU(references=).corpus_score": lambda: str(truebleu.BLEU(
            references=STREAMS, max_ngram_order=5, **opts).corpus_score(HYPS)),
        "BLEU.sentence_score": lambda: str(truebleu.BLEU(effective_order=True, **opts)
                                           .sentence_score(HYPS[1], PER_HYP[1])),
        "accumulator": lambda: str(truebleu.BLEU(**opts).accumulator()
                                   .update(HYPS[:3], [s[:3] for s in STREAMS])
                                   .update(HYPS[3:], [s[3:] for s in STREAMS]).score()),
        "sentence_scores": lambda: batch.sentence_scores(HYPS, PER_HYP, **opts),
        "sentence_scores none": lambda: batch.sentence_scores(
            HYPS, PER_HYP, smooth_method="none", use_effective_order=False, **opts),
        "pairwise_matrix": lambda: batch.pairwise_matrix(HYPS, REFS_A, **opts),
        "pairwise_matrix numpy": lambda: batch.pairwise_matrix(
            HYPS, REFS_A + REFS_A[:2], as_numpy=True, smooth_method="add-k", **opts).tolist(),
        "mbr_select": lambda: batch.mbr_select(HYPS + REFS_A, **opts),
        "tokens": lambda: kernels.load(backend).tokens(HYPS, get_tokenizer(tok), True),
    }


def other_calls(backend: str) -> dict:
    opts = dict(backend=backend)
    return {
        "corpus_chrf": lambda: str(truebleu.corpus_chrf(HYPS, STREAMS, **opts)),
        "corpus_chrf++": lambda: str(truebleu.corpus_chrf(HYPS, STREAMS, word_order=2, **opts)),
        "sentence_chrf_scores": lambda: batch_chrf.sentence_chrf_scores(HYPS, PER_HYP, **opts),
        "chrf_matrix": lambda: batch_chrf.chrf_matrix(HYPS, REFS_A, **opts),
        "corpus_ter": lambda: str(truebleu.corpus_ter(HYPS, STREAMS, **opts)),
        "sentence_ter batched": lambda: truebleu.sentence_ter(HYPS, PER_HYP, **opts),
    }


TOKENIZERS = ["13a", "intl", "zh", "char", "none"]
BLEU_NAMES = list(bleu_calls("13a", "python"))
OTHER_NAMES = list(other_calls("python"))


@pytest.mark.parametrize("tok", TOKENIZERS)
@pytest.mark.parametrize("name", BLEU_NAMES)
def test_bleu_functions_agree(name, tok):
    assert bleu_calls(tok, "native")[name]() == bleu_calls(tok, "python")[name]()


@pytest.mark.parametrize("name", OTHER_NAMES)
def test_chrf_ter_functions_agree(name):
    assert other_calls("native")[name]() == other_calls("python")[name]()


@pytest.fixture
def stale_intl(monkeypatch):
    calls = make_stale(monkeypatch, core, _native_backend)
    yield calls
    _native_backend._intl_table_matches.cache_clear()


@pytest.mark.parametrize("name", BLEU_NAMES)
def test_stale_intl_table_is_never_used(name, stale_intl):
    want = bleu_calls("intl", "python")[name]()
    with pytest.warns(RuntimeWarning, match="tokenized in Python"):
        got = bleu_calls("intl", "native")[name]()
    assert stale_intl == [], f"{name} tokenized intl in C with a stale table"
    assert got == want


def test_stale_intl_warns_once(stale_intl):
    with pytest.warns(RuntimeWarning):
        batch.sentence_scores(HYPS, PER_HYP, tokenize="intl", backend="native")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        batch.sentence_scores(HYPS, PER_HYP, tokenize="intl", backend="native")


def test_the_issue_example_on_both_backends():
    """sentence_scores, sentence_bleu and pairwise_matrix agree on U+20C2 (issue 11 item 17)."""
    hyp, ref = "x\u20c2y z w", "x \u20c2 y z w"
    want = truebleu.sentence_bleu(hyp, [ref], tokenize="intl", backend="python").score
    for backend in ("native", "python"):
        assert batch.sentence_scores([hyp], [[ref]], tokenize="intl", backend=backend) == [want]
        assert batch.pairwise_matrix([hyp], [ref], tokenize="intl", backend=backend) == [[want]]
        assert truebleu.sentence_bleu(hyp, [ref], tokenize="intl", backend=backend).score == want


@pytest.mark.parametrize("cached", [False, True])
def test_an_empty_corpus_signs_nrefs_var_on_both_backends(cached):
    """No segment, so no common number of references: sacreBLEU's own count is -1 ("var")."""
    import sacrebleu

    assert sacrebleu.BLEU(references=[[]]).num_refs == -1  # the oracle (scoring it would crash)
    signatures = []
    for backend in ("python", "native"):
        metric = truebleu.BLEU(references=[[]] if cached else None, backend=backend)
        score = metric.corpus_score([]) if cached else metric.corpus_score([], [[]])
        assert score.score == 0.0
        signatures.append(str(metric.get_signature()))
    assert signatures[0] == signatures[1] and "nrefs:var" in signatures[0]
