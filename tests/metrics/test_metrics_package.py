"""``truebleu.metrics``: sacreBLEU's module paths, thin re-exports that behave as sacreBLEU's."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import truebleu
from strategies import segments
from truebleu import metrics
from truebleu.metrics import base, helpers
from truebleu.metrics.bleu import BLEU, MAX_NGRAM_ORDER, BLEUScore, BLEUSignature
from truebleu.metrics.chrf import CHRF, CHRFScore, CHRFSignature

sacrebleu = pytest.importorskip("sacrebleu")
from sacrebleu.metrics import helpers as sacre_helpers  # noqa: E402


def test_paths_are_the_same_objects():
    assert metrics.BLEU is truebleu.BLEU is BLEU
    assert metrics.CHRF is truebleu.CHRF is CHRF
    assert truebleu.CHRFScore is CHRFScore
    assert MAX_NGRAM_ORDER == 4 and BLEUScore is truebleu.BLEUScore
    assert sorted(metrics.__all__) == ["BLEU", "CHRF", "TER"]


def test_base_classes():
    assert isinstance(CHRF(), base.Metric) and isinstance(BLEU(), base.Metric)
    chrf = CHRF().sentence_score("a b", ["a c"])
    assert isinstance(chrf, base.Score) and isinstance(chrf, CHRFScore)
    assert isinstance(BLEU().corpus_score(["a"], [["a"]]), base.Score)
    assert issubclass(CHRFSignature, base.Signature) and base.Signature is BLEUSignature


def test_compute_bleu_is_sacrebleus_static_method():
    args = ([5, 3, 2, 1], [6, 5, 4, 3], 6, 7)
    for kwargs in ({}, {"smooth_method": "exp"}, {"smooth_method": "floor", "smooth_value": 0.2},
                   {"effective_order": True}):
        ours = BLEU.compute_bleu(*args, **kwargs)
        theirs = sacrebleu.BLEU.compute_bleu(*args, **kwargs)
        assert (ours.score, ours.bp, ours.precisions) == (theirs.score, theirs.bp,
                                                          theirs.precisions)


def test_ter_is_lazy():
    try:
        import truebleu.metrics.ter  # noqa: F401
    except ImportError:
        with pytest.raises(ImportError):
            metrics.TER  # noqa: B018
    else:
        assert metrics.TER is truebleu.metrics.ter.TER


@settings(max_examples=80, deadline=None)
@given(line=segments(), n=st.integers(1, 7), low=st.integers(1, 3),
       whitespace=st.booleans())
def test_helpers_as_sacrebleu(line, n, low, whitespace):
    assert helpers.extract_all_char_ngrams(line, n, whitespace) == \
        sacre_helpers.extract_all_char_ngrams(line, n, whitespace)
    assert helpers.extract_char_ngrams(line, n, whitespace) == \
        sacre_helpers.extract_char_ngrams(line, n, whitespace)
    assert helpers.extract_all_word_ngrams(line, low, low + n) == \
        sacre_helpers.extract_all_word_ngrams(line, low, low + n)
    tokens = line.split()
    assert helpers.extract_word_ngrams(tokens, n) == sacre_helpers.extract_word_ngrams(tokens, n)
