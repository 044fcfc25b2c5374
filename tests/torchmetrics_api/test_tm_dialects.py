"""The torchmetrics-chrf and torchmetrics-ter dialects (plain-Python specifications) against
torchmetrics' functions, and the differences from sacreBLEU that make them dialects.

Every difference the dialects' docstrings list is shown here by the two tools themselves:
torchmetrics and sacreBLEU give different numbers on these inputs, the dialect gives
torchmetrics' (``test_generated_*``), and truebleu's ``CHRF``/``TER`` give sacreBLEU's.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

torch = pytest.importorskip("torch")
functional = pytest.importorskip("torchmetrics.functional.text")
sacrebleu = pytest.importorskip("sacrebleu")

from tm_cases import per_prediction, streams_of  # noqa: E402

from truebleu.dialects import DIALECTS, METRIC_DIALECTS, get_dialect  # noqa: E402
from truebleu.dialects.torchmetrics_chrf import f32  # noqa: E402

SETTINGS = settings(max_examples=40, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def test_registered_apart_from_bleus_dialects():
    assert set(METRIC_DIALECTS) == {"torchmetrics-chrf", "torchmetrics-ter"}
    assert not set(METRIC_DIALECTS) & set(DIALECTS)  # the `dialect` command scores BLEU


@SETTINGS
@given(per_prediction(min_refs=0), st.sampled_from([
    {}, {"n_word_order": 0}, {"lowercase": True, "whitespace": True}, {"beta": 0.3}]))
def test_generated_chrf(data, options):
    preds, target = data
    corpus, sentences = functional.chrf_score(preds, target, return_sentence_level_score=True,
                                              **options)
    dialect = get_dialect("torchmetrics-chrf", **options)
    totals, scores = dialect.statistics(preds, target)
    from truebleu.dialects.torchmetrics_chrf import f_score

    assert f_score([f32(v) for v in totals], dialect.n_char_order, dialect.beta) == corpus.item()
    assert scores == sentences.tolist()


@SETTINGS
@given(per_prediction(), st.sampled_from([{}, {"normalize": True}, {"lowercase": False},
                                          {"normalize": True, "asian_support": True}]))
def test_generated_ter(data, options):
    preds, target = data
    corpus, sentences = functional.translation_edit_rate(
        preds, target, return_sentence_level_score=True, **options)
    score = get_dialect("torchmetrics-ter", **options).corpus_score(preds, streams_of(target)) \
        if all(len(refs) == len(target[0]) for refs in target) else None
    _, _, scores = get_dialect("torchmetrics-ter", **options).statistics(preds, target)
    assert scores == [s.item() for s in sentences]
    if score is not None:
        assert score.score == corpus.item()


def tm_chrf(preds, target):
    return functional.chrf_score(preds, target).item()


def sb_chrf(preds, target):
    return sacrebleu.CHRF(word_order=2).corpus_score(preds, streams_of(target)).score / 100


@pytest.mark.parametrize("preds, target", [
    (["the cat sat on the mat"], [["the cat is on the mat"]]),  # mean of f-scores, float32
    (["a\tb c"], [["a b c"]]),                      # a tab is a character
    (["the cat", ""], [["the cat"], ["a long reference"]]),  # no reference kept at f = 0
    (["cat"], [["dog", "cat"]]),                    # sacreBLEU keeps ref 1's counts at f = 0
])
def test_chrf_differs_from_sacrebleu(preds, target):
    expected = tm_chrf(preds, target)
    assert expected != pytest.approx(sb_chrf(preds, target), abs=1e-6)
    assert get_dialect("torchmetrics-chrf").corpus_score(preds, streams_of(target)).score == expected


@pytest.mark.parametrize("preds, target", [
    (["d b d c a b e"], [["a c d b c d c"]]),  # the reference is shifted, not the prediction
    ([""], [["a reference"]]),                # an empty prediction costs nothing
])
def test_ter_differs_from_sacrebleu(preds, target):
    expected = functional.translation_edit_rate(preds, target).item()
    sacre = sacrebleu.TER().corpus_score(preds, streams_of(target)).score / 100
    assert expected != pytest.approx(sacre, abs=1e-6)
    assert get_dialect("torchmetrics-ter").corpus_score(preds, streams_of(target)).score == expected


def test_ter_references_are_tokenized_once():
    preds, target = ["it 's , fine"], [["it's, fine"]]
    expected = functional.translation_edit_rate(preds, target, normalize=True).item()
    sacre = sacrebleu.TER(normalized=True).corpus_score(preds, streams_of(target)).score / 100
    assert expected != pytest.approx(sacre, abs=1e-6)
    dialect = get_dialect("torchmetrics-ter", normalize=True)
    assert dialect.corpus_score(preds, streams_of(target)).score == expected


@SETTINGS
@given(per_prediction(), st.sampled_from(["13a", "intl", "zh", "char", "none"]), st.booleans())
def test_generated_sacre_bleu_score(data, tokenize, lowercase):
    preds, target = data
    expected = functional.sacre_bleu_score(preds, target, tokenize=tokenize, lowercase=lowercase)
    dialect = get_dialect("torchmetrics", tokenize=tokenize, lowercase=lowercase, backend="torch")
    nrefs = {len(refs) for refs in target}
    if len(nrefs) == 1:  # the dialect takes sacreBLEU's streams: as many references each
        assert dialect.corpus_score(preds, streams_of(target)).score == expected.item()


@pytest.mark.parametrize("preds, target, options", [
    (["x &QUOT; y"], [["x \" y"]], {"lowercase": True}),  # lowercased after tokenizing
    (["year 2021.\n"], [["year 2021 ."]], {"tokenize": "intl"}),  # the line is not stripped
    (["a co-\n"], [["a co"]], {}),                      # 13a drops a final "-\n"
])
def test_sacre_bleu_score_differs_from_sacrebleu(preds, target, options):
    expected = functional.sacre_bleu_score(preds, target, n_gram=1, **options).item()
    sacre = sacrebleu.BLEU(max_ngram_order=1, **options).corpus_score(preds, streams_of(target))
    assert expected != pytest.approx(sacre.score / 100, abs=1e-6)
    dialect = get_dialect("torchmetrics", n_gram=1, **{"tokenize": "13a", **options})
    assert dialect.corpus_score(preds, streams_of(target)).score == expected
