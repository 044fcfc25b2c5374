"""chrF's matches of one sentence (``CHRF.sentence_matches``) against sacreBLEU 2.6.0: per
order, the matched n-grams' counts add up to the statistics row sacreBLEU counts for the
sentence (its best reference), and each span is where that n-gram stands in the text."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import truebleu
from conftest import needs_wmt21, wmt21_dir
from strategies import segments
from truebleu.metrics.chrf.config import ChrfConfig

sacrebleu = pytest.importorskip("sacrebleu")
from sacrebleu.metrics import CHRF as SacreCHRF  # noqa: E402

SETTINGS = st.fixed_dictionaries({
    "char_order": st.sampled_from([6, 3, 1, 0]), "word_order": st.sampled_from([0, 2, 1]),
    "beta": st.sampled_from([2, 1, 3]), "lowercase": st.booleans(), "whitespace": st.booleans(),
    "eps_smoothing": st.booleans()}).filter(lambda o: o["char_order"] + o["word_order"] > 0)


def squeeze(text: str) -> str:
    return "".join(text.split())


def check_against_sacrebleu(hyp: str, refs: list[str], options: dict) -> None:
    result = truebleu.CHRF(**options).sentence_matches(hyp, refs)
    theirs = SacreCHRF(**options)
    row = [int(x) for x in theirs._extract_corpus_statistics([hyp], [[r] for r in refs])[0]]
    assert result.statistics == row
    alone = [theirs.sentence_score(hyp, [ref]).score for ref in refs]
    assert result.best_reference == alone.index(max(alone))
    config = ChrfConfig(**options)
    ref = refs[result.best_reference]
    for order in result.orders:
        assert sum(g.count for g in order.ngrams) == order.matches
        for g in order.ngrams:
            assert len(g.hypothesis_spans) == len(g.reference_spans) == g.count > 0
            for text, spans in ((hyp, g.hypothesis_spans), (ref, g.reference_spans)):
                assert len(set(spans)) == len(spans)
                for start, end in spans:
                    read = config.preprocess(text)  # in context: a final sigma lowers to ς
                    if len(read) != len(text):  # "İ" lowers to two: a span may hold more
                        shown = config.preprocess(text[start:end])
                        assert squeeze(g.ngram).casefold() in squeeze(shown).casefold()
                        continue
                    shown = read[start:end]
                    if order.kind == "word" or not config.whitespace:  # spaces never start one
                        assert not shown[0].isspace() and not shown[-1].isspace()
                    if order.kind == "word":
                        assert squeeze(shown) == squeeze(g.ngram)
                    elif config.whitespace:
                        assert shown == g.ngram
                    else:
                        assert squeeze(shown) == g.ngram


LOWER = {"char_order": 6, "word_order": 2, "beta": 2, "lowercase": True, "whitespace": False,
         "eps_smoothing": False}


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(hyp=segments(), refs=st.lists(segments(), min_size=1, max_size=3), options=SETTINGS)
@example(hyp="the ΣΟΦΟΣ ", refs=["the ΣΟΦΟΣ σοφος"], options=LOWER)
@example(hyp="İstanbul ΣΟΦΟΣ", refs=["istanbul σοφος"], options=LOWER)
def test_matches_add_up_to_sacrebleus_statistics(hyp, refs, options):
    check_against_sacrebleu(hyp, refs, options)


@needs_wmt21
@pytest.mark.parametrize("word_order", [0, 2])
def test_matches_of_wmt21_lines(word_order):
    data = wmt21_dir()
    refs = [(data / "references" / f"newstest2021.en-de.ref.{k}.de").read_text(
        encoding="utf-8").split("\n")[:300] for k in "ACD"]
    hyps = sorted((data / "system-outputs").glob("newstest2021.en-de.hyp.*.de"))[0].read_text(
        encoding="utf-8").split("\n")[:300]
    for i, hyp in enumerate(hyps):
        check_against_sacrebleu(hyp, [r[i] for r in refs], {"word_order": word_order})


def test_the_spans_of_a_sentence():
    """Characters are read without the spaces (a 2-gram may span one); words split off
    punctuation; a repeated n-gram matched once marks its first occurrence; the best of two
    references is the one matched against."""
    result = truebleu.CHRF(char_order=2, word_order=1).sentence_matches(
        "The cat, the cat", ["a dog", "the cat."])
    assert result.best_reference == 1
    chars1, chars2, words = result.orders
    assert (chars1.kind, chars1.n, words.kind, words.n) == ("character", 1, "word", 1)
    by_gram = {g.ngram: g for g in chars2.ngrams}
    assert by_gram["ec"].hypothesis_spans == ((2, 5),)   # "e c" across the space
    assert by_gram["ec"].reference_spans == ((2, 5),)
    assert by_gram["at"].count == 1 and by_gram["at"].hypothesis_spans == ((5, 7),)
    assert "Th" not in by_gram                            # case counts
    assert {g.ngram: g.hypothesis_spans for g in words.ngrams} == {
        "cat": ((4, 7),), "the": ((9, 12),)}
    lowered = truebleu.CHRF(char_order=1, word_order=1, lowercase=True).sentence_matches(
        "The cat, the cat", ["the cat."])
    assert {g.ngram: g.hypothesis_spans for g in lowered.orders[1].ngrams} == {
        "the": ((0, 3),), "cat": ((4, 7),)}


def test_one_sentence_is_checked():
    with pytest.raises(ValueError, match="at least one reference"):
        truebleu.CHRF().sentence_matches("a", [])
