"""chrF and chrF++ against sacreBLEU 2.6.0: statistics, scores, texts and signatures.

Generated inputs (tests/strategies.py: Unicode, whitespace of every kind,
punctuation, empty segments, several and missing references) under every
option, on both backends.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import truebleu
from strategies import corpus, segments
from truebleu.metrics.chrf import CHRF

sacrebleu = pytest.importorskip("sacrebleu")

OPTIONS = st.fixed_dictionaries({
    "char_order": st.sampled_from([6, 6, 1, 3, 8]),
    "word_order": st.sampled_from([0, 2, 0, 1, 3]),
    "beta": st.sampled_from([2, 2, 1, 3, 0.5]),
    "lowercase": st.booleans(),
    "whitespace": st.booleans(),
    "eps_smoothing": st.booleans(),
})


def sacre_signature(metric) -> str:
    return str(metric.get_signature()).replace(
        f"version:{sacrebleu.__version__}", f"version:truebleu-{truebleu.__version__}")


@settings(max_examples=80, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=corpus(max_refs=3, allow_none=True), options=OPTIONS)
def test_corpus_statistics_and_score(backend, data, options):
    hyps, refs = data
    ours = CHRF(**options, backend=backend)
    theirs = sacrebleu.CHRF(**options)
    stats = ours.corpus_statistics(hyps, refs)
    assert [list(row) for row in stats.rows()] == theirs._extract_corpus_statistics(hyps, refs)
    score, expected = ours.corpus_score(hyps, refs), theirs.corpus_score(hyps, refs)
    assert score.score == expected.score  # to the last bit
    assert str(score) == str(expected)
    assert score.format(width=4, signature="x:1", is_json=True) == \
        expected.format(width=4, signature="x:1", is_json=True)
    assert str(ours.get_signature()) == sacre_signature(theirs)
    assert ours.get_signature().format(short=True) == \
        theirs.get_signature().format(short=True).replace(
            f"v:{sacrebleu.__version__}", f"v:truebleu-{truebleu.__version__}")


@settings(max_examples=50, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(hyp=segments(), refs=st.lists(segments(), min_size=1, max_size=3), options=OPTIONS)
def test_sentence_score(backend, hyp, refs, options):
    ours = CHRF(**options, backend=backend).sentence_score(hyp, refs)
    expected = sacrebleu.CHRF(**options).sentence_score(hyp, refs)
    assert ours.score == expected.score
    assert (ours.name, ours.char_order, ours.word_order, ours.beta) == \
        (expected.name, expected.char_order, expected.word_order, expected.beta)


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=corpus(max_refs=2), word_order=st.sampled_from([0, 2]),
       remove_whitespace=st.booleans(), eps=st.booleans())
def test_function_api(backend, data, word_order, remove_whitespace, eps):
    hyps, refs = data
    kwargs = dict(word_order=word_order, remove_whitespace=remove_whitespace, eps_smoothing=eps)
    assert truebleu.corpus_chrf(hyps, refs, backend=backend, **kwargs).score == \
        sacrebleu.corpus_chrf(hyps, refs, **kwargs).score
    assert truebleu.sentence_chrf(hyps[0], [r[0] for r in refs], backend=backend,
                                  **kwargs).score == \
        sacrebleu.sentence_chrf(hyps[0], [r[0] for r in refs], **kwargs).score


def test_tie_keeps_the_first_reference(backend):
    # both references give the same f-score with different statistics rows
    hyp, refs = "ab", [["abxx"], ["xxab"]]
    refs = [["ab cd"], ["ab"]]
    hyp = ["ab"]
    ours = CHRF(backend=backend).corpus_statistics(hyp, refs)
    assert list(ours.row(0)) == sacrebleu.CHRF()._extract_corpus_statistics(hyp, refs)[0]
    refs = [["abx"], ["xab"]]
    ours = CHRF(backend=backend).corpus_statistics(hyp, refs)
    assert list(ours.row(0)) == sacrebleu.CHRF()._extract_corpus_statistics(hyp, refs)[0]


def test_reference_cache_is_reused(backend):
    hyps = ["a cat sat", "the dog"]
    refs = [["the cat sat", "a dog"], ["cats sat", None]]
    metric = CHRF(word_order=2, references=refs, backend=backend)
    expected = sacrebleu.CHRF(word_order=2, references=refs)
    for system in (hyps, ["the cat sat", "a dog"], ["", ""]):
        assert metric.corpus_score(system).score == expected.corpus_score(system, None).score
    assert str(metric.get_signature()) == sacre_signature(expected)  # nrefs:var


def test_unicode_whitespace_is_str_split():
    # every character str.split() treats as whitespace is removed, no other
    import sys

    spaces = "".join(chr(c) for c in range(sys.maxunicode + 1) if chr(c).isspace())
    line = "a" + spaces + "b\u200bc"
    for backend in ("python", "native"):
        stats = CHRF(char_order=2, backend=backend).corpus_statistics([line], [[line]])
        assert list(stats.row(0)) == sacrebleu.CHRF(char_order=2)._extract_corpus_statistics(
            [line], [[line]])[0]


def test_bad_input_is_a_clear_error(backend):
    with pytest.raises(ValueError, match="2 hypotheses but 1"):
        CHRF(backend=backend).corpus_score(["a", "b"], [["a"]])
    with pytest.raises(TypeError, match=r"hypotheses\[1\]"):
        CHRF(backend=backend).corpus_score(["a", 3], [["a", "b"]])
    with pytest.raises(ValueError, match="no references"):
        CHRF(backend=backend).corpus_score(["a"])
    with pytest.raises(ValueError, match="char_order"):
        CHRF(char_order=-1)
    with pytest.raises(ValueError, match="Number of references unknown"):
        CHRF().get_signature()


def test_inputs_are_not_modified(backend):
    hyps, refs = ["The Cat"], [["the cat"]]
    CHRF(lowercase=True, backend=backend).corpus_score(hyps, refs)
    assert hyps == ["The Cat"] and refs == [["the cat"]]
