"""truebleu.torchmetrics.BLEU, CHRF and TER give sacreBLEU 2.6's numbers, bit for bit."""

from __future__ import annotations

import math

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

torch = pytest.importorskip("torch")
pytest.importorskip("torchmetrics")
sacrebleu = pytest.importorskip("sacrebleu")

from tm_cases import per_prediction, streams_of  # noqa: E402

import truebleu.torchmetrics as tb  # noqa: E402

SETTINGS = settings(max_examples=40, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

CASES = [
    ("BLEU", {}), ("BLEU", {"tokenize": "intl", "lowercase": True}),
    ("BLEU", {"smooth_method": "floor", "smooth_value": 0.2, "max_ngram_order": 3}),
    ("BLEU", {"tokenize": "char", "effective_order": True}),
    ("CHRF", {}), ("CHRF", {"word_order": 2}), ("CHRF", {"lowercase": True, "whitespace": True}),
    ("CHRF", {"eps_smoothing": True, "beta": 1}),
    ("TER", {}), ("TER", {"normalized": True, "asian_support": True}),
    ("TER", {"case_sensitive": True, "no_punct": True}),
]


def sacre_scores(name, options, preds, target):
    metric = getattr(sacrebleu, name)(**options)
    corpus = metric.corpus_score(preds, streams_of(target)).score
    sentences = [getattr(sacrebleu, name)(**options).corpus_score([p], [[r] for r in refs]).score
                 for p, refs in zip(preds, target)]
    return corpus, sentences


@SETTINGS
@given(per_prediction(), st.sampled_from(CASES))
@example((["", "", "", "", ""],  # ragged references whose averages round apart between splits
          [[""], ["the the the the the ", "the the the the the the "],
           ["the the the the the the the the the "], ["", "", "the the the the the "], [""]]),
         ("TER", {}))
@example((["", "", "", "", ""],  # one update: a torch sum of its rows rounded 8 + 1/3 apart
          [[""], [""], ["the the the the the the "], ["the the "], ["", "", "the "]]),
         ("TER", {}))
def test_generated(data, case):
    preds, target = data
    name, options = case
    metric = getattr(tb, name)(return_sentence_level_score=True, **options)
    split = len(preds) // 2
    metric.update(preds[:split], target[:split])
    metric.update(preds[split:], target[split:])
    corpus, sentences = metric.compute()
    expected_corpus, expected_sentences = sacre_scores(name, options, preds, target)
    assert corpus.dtype == torch.float64
    if name == "TER":
        # TER's reference length is the average of a segment's references: averages that are
        # not integers add with float64 rounding, so two updates may differ from sacreBLEU's
        # one sum in the last bits (the module's docstring says so); one update is exact
        whole = getattr(tb, name)(**options)
        whole.update(preds, target)
        assert whole.compute().item() == expected_corpus
        assert math.isclose(corpus.item(), expected_corpus, rel_tol=1e-13, abs_tol=1e-13)
    else:
        assert corpus.item() == expected_corpus
    assert sentences.reshape(-1).tolist() == expected_sentences  # one score: 0-dim, as torchmetrics


@pytest.mark.parametrize("name, higher", [("BLEU", True), ("CHRF", True), ("TER", False)])
def test_direction_and_empty_corpus(name, higher):
    metric = getattr(tb, name)()
    assert metric.higher_is_better is higher and metric.is_differentiable is False
    metric.update([], [])
    with pytest.warns(UserWarning):  # torchmetrics: compute before any update
        assert getattr(tb, name)().compute().item() == 0.0


def test_bad_options_are_truebleus_errors():
    with pytest.raises(ValueError, match="smooth_method"):
        tb.BLEU(smooth_method="nope")
    with pytest.raises(ValueError):
        tb.BLEU(tokenize="nope")
