"""The drop-ins on WMT21 en-de (three references per segment): torchmetrics' numbers on a
sample (torchmetrics' own chrF and TER take seconds per hundred segments), sacreBLEU's on
the whole test set (TER: 300 segments); batches of 64, as a training loop would send them."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")
tm_text = pytest.importorskip("torchmetrics.text")
sacrebleu = pytest.importorskip("sacrebleu")

from tm_cases import batches, streams_of, wmt21_en_de  # noqa: E402

import truebleu.torchmetrics as tb  # noqa: E402
from conftest import needs_wmt21  # noqa: E402

pytestmark = needs_wmt21


def accumulated(metric, preds, target):
    for batch in batches(preds, target, 64):
        metric.update(*batch)
    return metric.compute()


@pytest.mark.parametrize("name, options, size", [
    ("BLEUScore", {}, 500), ("SacreBLEUScore", {}, 300),
    ("SacreBLEUScore", {"tokenize": "intl", "lowercase": True, "smooth": True}, 300),
    ("CHRFScore", {"return_sentence_level_score": True}, 50),
    ("TranslationEditRate", {"return_sentence_level_score": True}, 60),
])
def test_torchmetrics_numbers(name, options, size):
    preds, target = wmt21_en_de()
    preds, target = preds[:size], target[:size]
    expected = accumulated(getattr(tm_text, name)(**options), preds, target)
    actual = accumulated(getattr(tb, name)(**options), preds, target)
    for e, a in zip(*((expected, actual) if isinstance(expected, tuple) else ([expected], [actual]))):
        assert a.dtype == e.dtype and a.shape == e.shape and torch.equal(a, e)


@pytest.mark.parametrize("name, options, nrefs", [
    ("BLEU", {}, 3), ("CHRF", {"word_order": 2}, 3), ("TER", {}, 1)])
def test_sacrebleu_numbers(name, options, nrefs):
    preds, target = wmt21_en_de("Online-W")
    size = 300 if name == "TER" else len(preds)  # sacreBLEU's TER is slow
    preds, target = preds[:size], [refs[:nrefs] for refs in target[:size]]
    expected = getattr(sacrebleu, name)(**options).corpus_score(preds, streams_of(target)).score
    assert accumulated(getattr(tb, name)(**options), preds, target).item() == expected


def test_ter_shifts_at_most_nine_words_as_torchmetrics():
    """WMT21 en-de, WeChat-AI line 749: the two sides share runs of 10 words; torchmetrics'
    search (blocks of 1..9 words) ends at 15 edits, sacreBLEU's (1..10) at 14."""
    preds, target = wmt21_en_de("WeChat-AI")
    preds, target = preds[748:749], [target[748][:1]]
    expected = tm_text.TranslationEditRate()(preds, target)
    assert torch.equal(tb.TranslationEditRate()(preds, target), expected)
    sacre = sacrebleu.TER().corpus_score(preds, streams_of(target)).score / 100
    assert sacre != pytest.approx(expected.item(), abs=1e-6)
