"""chrF's explanation of one sentence against sacreBLEU 2.6.0: the score is
``sentence_chrf``'s, the table is the statistics row of the reference sacreBLEU
counts, and the n-grams listed add up to it and are the sentence's own."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import truebleu
from strategies import segments
from truebleu.metrics.chrf.explain import SPACE, explain

sacrebleu = pytest.importorskip("sacrebleu")
from sacrebleu.metrics import CHRF as SacreCHRF  # noqa: E402

SETTINGS = st.fixed_dictionaries({
    "char_order": st.sampled_from([6, 3, 1, 0]), "word_order": st.sampled_from([0, 2, 1]),
    "beta": st.sampled_from([2, 1, 3]), "lowercase": st.booleans(), "whitespace": st.booleans(),
    "eps_smoothing": st.booleans()}).filter(lambda o: o["char_order"] + o["word_order"] > 0)


def sacrebleu_row(hyp: str, ref: str, options: dict) -> list[int]:
    theirs = SacreCHRF(**options)
    return [int(x) for x in theirs._extract_corpus_statistics([hyp], [[ref]])[0]]


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(hyp=segments(), refs=st.lists(segments(), min_size=1, max_size=3), options=SETTINGS)
def test_explanation_matches_sacrebleu(hyp, refs, options):
    result = explain(hyp, refs, **options)
    theirs = SacreCHRF(**options)
    assert result.score == theirs.sentence_score(hyp, refs).score
    assert result.score == truebleu.CHRF(**options).sentence_score(hyp, refs).score
    alone = [theirs.sentence_score(hyp, [ref]).score for ref in refs]
    assert result.reference_scores == alone
    assert result.best_reference == alone.index(max(alone))  # the first of the best

    row = sacrebleu_row(hyp, refs[result.best_reference], options)
    assert [x for o in result.orders for x in (o.hypothesis_count, o.reference_count, o.matches)] == row
    for order in result.orders:
        assert sum(g.matched for g in order.ngrams) == order.matches
        assert sum(g.reference for g in order.ngrams) == order.reference_count
        if order.reference_count:  # the statistics count no hypothesis n-gram otherwise
            assert sum(g.hypothesis for g in order.ngrams) == order.hypothesis_count
        assert order.counted == (order.hypothesis_count > 0 and order.reference_count > 0)
        if order.counted:
            assert order.precision == order.matches / order.hypothesis_count
            assert order.recall == order.matches / order.reference_count
    assert f"= {result.score:.2f}" in result.to_text()
    assert json.loads(result.to_json())["score"] == result.score


def test_the_ngrams_are_those_of_the_sentence():
    """Character n-grams of the text without its spaces (with them, shown as ␣), word
    n-grams in brackets; the best of two references is the one tabled."""
    result = explain("the cat sat", ["a cat sat", "the cat is"], word_order=2)
    assert result.best_reference == 0
    characters = "thecatsat"
    for order in result.orders[:6]:
        n = order.n
        expected = {characters[i:i + n] for i in range(len(characters) - n + 1)}
        assert {g.ngram for g in order.ngrams if g.hypothesis} == expected
    words = result.orders[7]
    assert (words.kind, words.n) == ("word", 2)
    assert [(g.ngram, g.matched) for g in words.ngrams] == [
        ("[the cat]", 0), ("[cat sat]", 1), ("[a cat]", 0)]
    spaced = explain("a b", ["a c"], char_order=3, whitespace=True)
    assert {g.ngram for g in spaced.orders[2].ngrams} == {f"a{SPACE}b", f"a{SPACE}c"}


def test_text_reads_as_a_table():
    text = explain("the cat sat on a mat", ["the cat is on the mat"], word_order=2).to_text()
    assert "nrefs:1|case:mixed|eff:yes|nc:6|nw:2|space:no" in text
    assert "  character 1-grams    15    16     13      86.67   81.25" in text
    assert "  matched (1): [the cat]" in text
    assert "  reference only (4): [cat is]  [is on]  [on the]  [the mat]" in text
    expected = sacrebleu.metrics.CHRF(word_order=2).sentence_score(
        "the cat sat on a mat", ["the cat is on the mat"]).score
    assert text.endswith(f"chrF2++ = 100 * (1 + 2²) * P * R / (2² * P + R) = {expected:.2f}")
    assert all(len(line) <= 100 for line in explain("x" * 40 + " y", ["x" * 39]).to_text().splitlines()[4:])


def test_orders_without_ngrams_are_not_counted():
    result = explain("ab", ["abcdef"], char_order=4)
    assert [o.counted for o in result.orders] == [True, True, False, False]
    assert result.orders[2].hypothesis_count == 0 and result.orders[2].precision is None
    assert "(not counted: a side has none)" in result.to_text()
    assert result.score == sacrebleu.metrics.CHRF(char_order=4).sentence_score("ab", ["abcdef"]).score


def test_bad_arguments():
    with pytest.raises(ValueError, match="at least one reference"):
        explain("a", [])
    with pytest.raises(TypeError):
        explain("a", "a")
    with pytest.raises(ValueError, match="char_order \\+ word_order"):
        explain("a", ["a"], char_order=0)
