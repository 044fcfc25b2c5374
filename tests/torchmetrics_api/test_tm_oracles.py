"""truebleu.torchmetrics' drop-ins against torchmetrics 1.9's classes, on generated text.

Exact comparisons: ``torch.equal`` on the corpus score and on the sentence scores, and the
same dtype and shape. The inputs mix Unicode, empty segments and several references, and
arrive in two ``update`` calls.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

torch = pytest.importorskip("torch")
tm_text = pytest.importorskip("torchmetrics.text")

from tm_cases import per_prediction  # noqa: E402

import truebleu.torchmetrics as tb  # noqa: E402

SETTINGS = settings(max_examples=40, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def results(metric, preds, target):
    if isinstance(preds, str) or any(isinstance(refs, str) for refs in target):
        metric.update(preds, target)  # a layout that one update must read whole
        return metric.compute()
    split = len(preds) // 2
    metric.update(preds[:split], target[:split])
    metric.update(preds[split:], target[split:])
    return metric.compute()


def assert_same(expected, actual):
    if isinstance(expected, tuple):
        assert isinstance(actual, tuple) and len(actual) == len(expected)
        for e, a in zip(expected, actual):
            assert_same(e, a)
        return
    assert actual.dtype == expected.dtype and actual.shape == expected.shape
    assert torch.equal(actual, expected), (expected.tolist(), actual.tolist())


def check(name, preds, target, **options):
    expected = results(getattr(tm_text, name)(**options), preds, target)
    actual = results(getattr(tb, name)(**options), preds, target)
    assert_same(expected, actual)


@SETTINGS
@given(per_prediction(), st.sampled_from([
    {}, {"smooth": True}, {"n_gram": 2}, {"n_gram": 3, "weights": [0.5, 0.3, 0.2], "smooth": True}]))
def test_bleu_score(data, options):
    check("BLEUScore", *data, **options)


@SETTINGS
@given(per_prediction(), st.sampled_from(["none", "13a", "zh", "intl", "char"]), st.booleans(),
       st.booleans())
def test_sacre_bleu_score(data, tokenize, lowercase, smooth):
    check("SacreBLEUScore", *data, tokenize=tokenize, lowercase=lowercase, smooth=smooth)


@SETTINGS
@given(per_prediction(min_refs=0), st.sampled_from([
    {}, {"n_word_order": 0}, {"lowercase": True}, {"whitespace": True},
    {"n_char_order": 3, "n_word_order": 3, "beta": 1.0}, {"beta": 0.0}, {"beta": 0.3}]))
def test_chrf_score(data, options):
    check("CHRFScore", *data, return_sentence_level_score=True, **options)
    check("CHRFScore", *data, **options)


@SETTINGS
@given(per_prediction(), st.sampled_from([
    {}, {"normalize": True}, {"no_punctuation": True}, {"lowercase": False},
    {"normalize": True, "asian_support": True, "no_punctuation": True}]))
def test_translation_edit_rate(data, options):
    check("TranslationEditRate", *data, return_sentence_level_score=True, **options)
    check("TranslationEditRate", *data, **options)


@pytest.mark.parametrize("name", ["CHRFScore", "TranslationEditRate"])
@pytest.mark.parametrize("preds, target", [
    ("the cat sat", ["the cat sat", "a cat"]),      # one prediction as a str, a flat list
    (["the cat", "a dog"], ["the cat", "the dog"]),  # a flat list: one reference each
    (["the cat"], ["a cat", "the cat"]),            # one prediction, a flat list of two
    (["", "x"], [[""], ["x y"]]),                   # empty sides
])
def test_input_layouts(name, preds, target):
    check(name, preds, target)


@pytest.mark.parametrize("name", ["BLEUScore", "SacreBLEUScore"])
def test_ties_in_reference_length_go_to_the_first_reference(name):
    # 3 words; references of 2 and 4 words: torchmetrics takes the first (sacreBLEU the shorter)
    check(name, ["a b c"], [["a b c d", "a b"]])
    check(name, ["a b c"], [["a b", "a b c d"]])


@pytest.mark.parametrize("name", ["BLEUScore", "SacreBLEUScore", "CHRFScore", "TranslationEditRate"])
def test_no_update_scores_as_torchmetrics(name):
    with pytest.warns(UserWarning):
        expected = getattr(tm_text, name)().compute()
    with pytest.warns(UserWarning):
        actual = getattr(tb, name)().compute()
    assert_same(expected, actual)


@pytest.mark.parametrize("tokenize, module, preds, target", [
    ("ja-mecab", "MeCab", ["猫がマットの上に座った。", " 今日は 晴れ \n"],
     [["猫はマットの上にいる。"], ["今日は晴れです"]]),
    ("ko-mecab", "mecab_ko", ["고양이가 매트 위에 앉았다.", "오늘은 맑음 "],
     [["고양이는 매트 위에 있다."], ["오늘은 맑습니다"]]),
])
@pytest.mark.parametrize("lowercase", [False, True])
def test_sacre_bleu_score_mecab(tokenize, module, preds, target, lowercase):
    pytest.importorskip(module)
    check("SacreBLEUScore", preds, target, tokenize=tokenize, lowercase=lowercase, n_gram=2)


def block_moves(count: int, seed: int):
    """Sentences of a few repeated words and a copy with a block of 8..12 words moved: where
    torchmetrics' 9-word shift limit (sacreBLEU: 10) changes the edits."""
    import random

    rng = random.Random(seed)
    preds, target = [], []
    for _ in range(count):
        words = [rng.choice("abcdefgh") for _ in range(rng.randint(10, 30))]
        moved = words[:]
        start, size = rng.randrange(len(moved)), rng.randint(8, 12)
        block = moved[start:start + size]
        del moved[start:start + size]
        at = rng.randrange(len(moved) + 1)
        moved[at:at] = block
        preds.append(" ".join(words))
        target.append([" ".join(moved)])
    return preds, target


def test_ter_block_moves():
    """The pairs where the shift limit changes the edits (chosen with the core, scored by
    torchmetrics): truebleu must give torchmetrics' numbers there."""
    from array import array

    from truebleu.core.kernels import native_core

    core = native_core()
    preds, target = block_moves(300, seed=7)
    limits = []
    for size in (9, 10):
        out = array("d", bytes(16 * len(preds)))  # torchmetrics' roles: the reference is edited
        core.ter_statistics([refs[0] for refs in target], [[pred] for pred in preds], 1, out,
                            max_shift_size=size)
        limits.append(out[0::2])
    differ = [i for i, (a, b) in enumerate(zip(*limits)) if a != b]
    assert len(differ) >= 3
    check("TranslationEditRate", [preds[i] for i in differ], [target[i] for i in differ],
          return_sentence_level_score=True)
