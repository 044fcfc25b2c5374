"""truebleu.nltk against NLTK 3.10 itself: identical floats, types and exceptions.

Generated inputs cover every smoothing method (with default and changed
parameters), single and several weight tuples, ``auto_reweigh``, empty
hypotheses and references, segments shorter than n, and strings passed where
token lists belong (NLTK then counts characters). A sample of WMT21 lines
checks real data at the corpus and the sentence level.
"""

from __future__ import annotations

import random
import warnings

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import truebleu.nltk as ours

nltk_bleu = pytest.importorskip("nltk.translate.bleu_score")
from conftest import shared_dir  # noqa: E402

SHARED = shared_dir()
WMT21 = SHARED / "data" / "wmt21"

METHODS = [f"method{i}" for i in range(8)]
WEIGHTS = [
    (0.25, 0.25, 0.25, 0.25), (0.5, 0.5), (1,), (0.2, 0.2, 0.2, 0.2, 0.2), (0.1, 0.2, 0.3, 0.4),
    [(0.5, 0.5), (0.333, 0.333, 0.334), (0.25, 0.25, 0.25, 0.25), (0.2, 0.2, 0.2, 0.2, 0.2)],
    [(1.0, 0.0, 0.0, 0.0), (0.25, 0.25, 0.25, 0.25)],
]
SMOOTHING_PARAMS = [{}, {"epsilon": 0.3, "alpha": 2, "k": 3},
                    {"epsilon": 1, "alpha": 0.5, "k": 1.5}]

VOCAB = ["a", "b", "c", "the", "cat", "mat", "on", "sat", "x"]
tokens = st.lists(st.sampled_from(VOCAB), max_size=9)
segment_refs = st.lists(tokens, min_size=1, max_size=3)


def outcome(function, *args):
    """``("ok", repr(result))`` or ``("error", exception)``, warnings silenced."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return "ok", repr(function(*args))
        except Exception as error:  # noqa: BLE001 - the oracle's exceptions are compared
            return "error", error


def assert_same(expected, got):
    assert expected[0] == got[0], (expected, got)
    if expected[0] == "ok":
        assert expected[1] == got[1]
    else:
        assert isinstance(got[1], type(expected[1])), (expected, got)


def smoother(module, params, method):
    return getattr(module.SmoothingFunction(**params), method)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(hyps_refs=st.lists(st.tuples(tokens, segment_refs), min_size=1, max_size=4),
       method=st.sampled_from(METHODS), weights=st.sampled_from(WEIGHTS),
       params=st.sampled_from(SMOOTHING_PARAMS), auto_reweigh=st.booleans())
def test_corpus_bleu_matches_nltk(hyps_refs, method, weights, params, auto_reweigh):
    hyps = [h for h, _ in hyps_refs]
    refs = [r for _, r in hyps_refs]
    expected = outcome(nltk_bleu.corpus_bleu, refs, hyps, weights,
                       smoother(nltk_bleu, params, method), auto_reweigh)
    got = outcome(ours.corpus_bleu, refs, hyps, weights,
                  smoother(ours, params, method), auto_reweigh)
    assert_same(expected, got)


@settings(max_examples=300, deadline=None)
@given(hyp=tokens, refs=st.lists(tokens, max_size=3), method=st.sampled_from(METHODS),
       weights=st.sampled_from(WEIGHTS), auto_reweigh=st.booleans())
def test_sentence_bleu_matches_nltk(hyp, refs, method, weights, auto_reweigh):
    """Includes no references at all (NLTK raises) and empty hypotheses."""
    expected = outcome(nltk_bleu.sentence_bleu, refs, hyp, weights,
                       smoother(nltk_bleu, {}, method), auto_reweigh)
    got = outcome(ours.sentence_bleu, refs, hyp, weights, smoother(ours, {}, method), auto_reweigh)
    assert_same(expected, got)


@settings(max_examples=100, deadline=None)
@given(hyp=st.text(alphabet="abc ", max_size=12),
       refs=st.lists(st.text(alphabet="abc ", max_size=12), min_size=1, max_size=2))
def test_strings_instead_of_tokens_count_characters_as_nltk(hyp, refs):
    for method in ("method0", "method1", "method3"):
        assert_same(outcome(nltk_bleu.sentence_bleu, refs, hyp, (0.25,) * 4,
                            smoother(nltk_bleu, {}, method)),
                    outcome(ours.sentence_bleu, refs, hyp, (0.25,) * 4, smoother(ours, {}, method)))


@settings(max_examples=200, deadline=None)
@given(hyp=tokens, refs=st.lists(tokens, max_size=3), n=st.integers(1, 5))
def test_helpers_match_nltk(hyp, refs, n):
    expected = outcome(nltk_bleu.modified_precision, refs, hyp, n)
    got = outcome(ours.modified_precision, refs, hyp, n)
    assert_same(expected, got)
    if expected[0] == "ok":
        e = nltk_bleu.modified_precision(refs, hyp, n)
        g = ours.modified_precision(refs, hyp, n)
        assert (e.numerator, e.denominator) == (g.numerator, g.denominator)
        assert (e == 0) == (g == 0)  # unreduced 0/k compares unequal to 0 before Python 3.12
    assert_same(outcome(nltk_bleu.closest_ref_length, refs, len(hyp)),
                outcome(ours.closest_ref_length, refs, len(hyp)))
    for ref_len in range(0, 12, 3):
        assert_same(outcome(nltk_bleu.brevity_penalty, ref_len, len(hyp)),
                    outcome(ours.brevity_penalty, ref_len, len(hyp)))


def test_smoothing_methods_on_given_precisions():
    """The methods called directly, as users do, on NLTK-style unreduced fractions."""
    hyp = "the cat sat on the mat".split()
    refs = ["the cat is on the mat".split()]
    for method in METHODS:
        for params in SMOOTHING_PARAMS:
            p_ours = [ours.Fraction(4, 6, _normalize=False), ours.Fraction(0, 5, _normalize=False),
                      ours.Fraction(0, 4, _normalize=False), ours.Fraction(0, 3, _normalize=False)]
            p_nltk = [nltk_bleu.Fraction(f.numerator, f.denominator, _normalize=False)
                      for f in p_ours]
            expected = outcome(smoother(nltk_bleu, params, method), p_nltk, refs, hyp, 6)
            got = outcome(smoother(ours, params, method), p_ours, refs, hyp, 6)
            assert_same(expected, got)


def test_corner_cases():
    cases = [
        ([], []),                                   # empty corpus: ZeroDivisionError
        ([[[]]], [[]]),                             # empty hypothesis and reference
        ([[["a"]]], [["a"]]),                       # shorter than every order
        ([[["a", "b"]]], [["b", "a"]]),             # unigrams only
        ([[["a", "b", "c", "d"]]], [["a", "b", "c", "d"]]),
        ([[["a"]], [["b"]]], [["a"]]),              # length mismatch
    ]
    for refs, hyps in cases:
        for method in METHODS:
            assert_same(outcome(nltk_bleu.corpus_bleu, refs, hyps, (0.25,) * 4,
                                smoother(nltk_bleu, {}, method)),
                        outcome(ours.corpus_bleu, refs, hyps, (0.25,) * 4,
                                smoother(ours, {}, method)))
    no_match = ours.corpus_bleu([[["x"]]], [["y"]])
    assert no_match == 0 and type(no_match) is int


def test_method0_warns_like_nltk():
    with pytest.warns(UserWarning):
        ours.sentence_bleu([["a", "b", "c"]], ["a", "b", "d"])


def _wmt_sample(pair: str, count: int, seed: int):
    target = pair.split("-")[1]
    refs = sorted((WMT21 / "references").glob(f"newstest2021.{pair}.ref.*.{target}"))
    systems = sorted((WMT21 / "system-outputs").glob(f"newstest2021.{pair}.hyp.*.{target}"))
    rng = random.Random(seed)
    system = rng.choice(systems)
    read = lambda p: p.read_text(encoding="utf-8").split("\n")  # noqa: E731
    hyp_lines, ref_lines = read(system), [read(p) for p in refs]
    rows = rng.sample(range(len(ref_lines[0]) - 1), count)
    hyps = [hyp_lines[i].split() for i in rows]
    list_of_refs = [[lines[i].split() for lines in ref_lines] for i in rows]
    return hyps, list_of_refs


@pytest.mark.skipif(not (WMT21 / "system-outputs").is_dir(),
                    reason=f"WMT21 data not found at {WMT21} (set TRUEBLEU_SHARED)")
@pytest.mark.parametrize("pair", ["de-en", "en-de", "cs-en", "en-zh", "ha-en"])
def test_wmt21_sample_matches_nltk(pair):
    hyps, list_of_refs = _wmt_sample(pair, 120, seed=len(pair) + ord(pair[0]))
    for method in METHODS:
        for weights in (WEIGHTS[0], WEIGHTS[5]):
            assert_same(
                outcome(nltk_bleu.corpus_bleu, list_of_refs, hyps, weights,
                        smoother(nltk_bleu, {}, method)),
                outcome(ours.corpus_bleu, list_of_refs, hyps, weights, smoother(ours, {}, method)))
        for hyp, refs in list(zip(hyps, list_of_refs))[:40]:
            assert_same(outcome(nltk_bleu.sentence_bleu, refs, hyp, WEIGHTS[0],
                                smoother(nltk_bleu, {}, method)),
                        outcome(ours.sentence_bleu, refs, hyp, WEIGHTS[0],
                                smoother(ours, {}, method)))


@pytest.mark.skipif(not (WMT21 / "system-outputs").is_dir(),
                    reason=f"WMT21 data not found at {WMT21} (set TRUEBLEU_SHARED)")
def test_wmt21_whole_corpus_matches_nltk():
    """A whole system output with two references; method5/7 show the last-sentence quirk."""
    read = lambda p: p.read_text(encoding="utf-8").split("\n")[:-1]  # noqa: E731
    system = WMT21 / "system-outputs" / "newstest2021.de-en.hyp.Online-B.en"
    hyps = [line.split() for line in read(system)]
    refs = [read(WMT21 / "references" / f"newstest2021.de-en.ref.{r}.en") for r in "AB"]
    list_of_refs = [[a.split(), b.split()] for a, b in zip(*refs)]
    for method in ("method0", "method1", "method5", "method7"):
        assert_same(outcome(nltk_bleu.corpus_bleu, list_of_refs, hyps, (0.25,) * 4,
                            smoother(nltk_bleu, {}, method)),
                    outcome(ours.corpus_bleu, list_of_refs, hyps, (0.25,) * 4,
                            smoother(ours, {}, method)))
