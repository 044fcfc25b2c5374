"""Every reward is sacreBLEU's sentence score, scaled: on generated text and on WMT21.

The oracle is ``sacrebleu.sentence_bleu`` / ``sentence_chrf`` / ``sentence_ter``
called once per completion with the same settings, through the documented
transform (``score / 100 * scale``; TER: ``max(0, 1 - score / 100) * scale``).
"""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import needs_wmt21, wmt21_dir
from strategies import segments
from truebleu.rewards import (
    bleu_reward,
    chrf_reward,
    make_bleu_reward,
    make_chrf_reward,
    make_ter_reward,
    ter_reward,
)

sacrebleu = pytest.importorskip("sacrebleu")


@st.composite
def batches(draw, max_items: int = 6):
    n = draw(st.integers(1, max_items))
    completions = [draw(segments()) for _ in range(n)]
    references = [[draw(segments()) for _ in range(draw(st.integers(1, 3)))] for _ in range(n)]
    return completions, references


def up(score: float, scale: float = 1.0) -> float:
    return score / 100 * scale


def ter_up(score: float, scale: float = 1.0, clip: bool = True) -> float:
    return (max(0.0, 1.0 - score / 100) if clip else 1.0 - score / 100) * scale


BLEU_SETTINGS = st.fixed_dictionaries({
    "smooth_method": st.sampled_from(["exp", "floor", "add-k", "none"]),
    "effective_order": st.booleans(),
    "tokenize": st.sampled_from(["13a", "intl", "char", "none", "zh"]),
    "lowercase": st.booleans(),
    "max_ngram_order": st.integers(1, 4),
})


@settings(max_examples=120, deadline=None)
@given(batches(), BLEU_SETTINGS, st.sampled_from([1.0, 2.5, 0.1]))
def test_bleu_rewards_are_sacrebleus_sentence_bleu(batch, options, scale):
    completions, references = batch
    reward = make_bleu_reward(scale=scale, **options)
    got = reward(prompts=["p"] * len(completions), completions=completions,
                 references=references)
    metric = sacrebleu.BLEU(**options)
    for value, completion, refs in zip(got, completions, references):
        assert value == up(metric.sentence_score(completion, refs).score, scale)


@settings(max_examples=120, deadline=None)
@given(batches(), st.integers(1, 6), st.integers(0, 2), st.integers(1, 3), st.booleans(),
       st.booleans(), st.booleans())
def test_chrf_rewards_are_sacrebleus_sentence_chrf(batch, char_order, word_order, beta, lowercase,
                                                   remove_whitespace, eps_smoothing):
    completions, references = batch
    options = dict(char_order=char_order, word_order=word_order, beta=beta, lowercase=lowercase,
                   eps_smoothing=eps_smoothing)
    reward = make_chrf_reward(remove_whitespace=remove_whitespace, **options)
    got = reward(completions=completions, references=references)
    metric = sacrebleu.CHRF(whitespace=not remove_whitespace, **options)
    for value, completion, refs in zip(got, completions, references):
        assert value == up(metric.sentence_score(completion, refs).score)


@settings(max_examples=80, deadline=None)
@given(batches(max_items=4), st.booleans(), st.booleans(), st.booleans(), st.booleans(),
       st.booleans())
def test_ter_rewards_are_one_minus_sacrebleus_sentence_ter(batch, normalized, no_punct,
                                                          asian_support, case_sensitive, clip):
    completions, references = batch
    options = dict(normalized=normalized, no_punct=no_punct, asian_support=asian_support,
                   case_sensitive=case_sensitive)
    reward = make_ter_reward(clip=clip, scale=2.0, **options)
    got = reward(completions=completions, references=references)
    metric = sacrebleu.TER(**options)
    for value, completion, refs in zip(got, completions, references):
        expected = ter_up(metric.sentence_score(completion, refs).score, 2.0, clip)
        assert value == expected
        if clip:
            assert 0.0 <= value <= 2.0


def test_python_backend_gives_the_same_rewards():
    completions = ["the cat sat on the mat", "a dog", ""]
    references = [["the cat is on the mat"], ["a dog .", "the dog"], ["x"]]
    for make in (make_bleu_reward, make_chrf_reward, make_ter_reward):
        native = make()(completions=completions, references=references)
        assert make(backend="python")(completions=completions, references=references) == native
        assert make(threads=1)(completions=completions, references=references) == native


def _wmt21_sample(limit: int = 1000):
    """One system of a language pair and its two references (when it has two), first lines."""
    root = wmt21_dir()
    hyp = root / "system-outputs" / "newstest2021.en-de.hyp.Online-B.de"
    refs = sorted((root / "references").glob("newstest2021.en-de.ref.*.de"))[:2]
    read = lambda path: path.read_text(encoding="utf-8").splitlines()[:limit]  # noqa: E731
    return read(hyp), [list(r) for r in zip(*[read(path) for path in refs])]


@needs_wmt21
def test_wmt21_rewards_are_sacrebleus():
    completions, references = _wmt21_sample()
    assert completions and all(references)
    checks = [(bleu_reward, lambda h, r: up(sacrebleu.sentence_bleu(h, r).score)),
              (chrf_reward, lambda h, r: up(sacrebleu.sentence_chrf(h, r).score)),
              (ter_reward, lambda h, r: ter_up(sacrebleu.sentence_ter(h, r).score))]
    for reward, oracle in checks:
        got = reward(completions=completions, references=references)
        sample = itertools.islice(zip(got, completions, references), 0, None,
                                  1 if reward is not ter_reward else 5)  # TER's oracle is slow
        for value, completion, refs in sample:
            assert value == oracle(completion, refs), (reward.__name__, completion)
