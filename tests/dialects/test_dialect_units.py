"""The dialects' rules and quirks, one by one, on inputs small enough to check by hand."""

from __future__ import annotations

import math

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from truebleu._version import __version__
from truebleu.dialects import DIALECTS, DialectScore, ToolError, get_dialect
from truebleu.dialects._perl import (
    PERL_SPACE_RUN,
    PYTHON_ONLY_SPACES,
    ascii_lower,
    perl_lc,
    rules_13a,
    split_bytes_awk,
    split_perl,
    squeeze_perl_spaces,
)
from truebleu.dialects.mteval import nist, nist_length_penalty, sgml_text
from truebleu.tokenizers import get_tokenizer

TOOLS = [name for name in DIALECTS if name != "sacrebleu"]


# --- Perl text semantics -------------------------------------------------------------

def check_rules_13a_against_sacrebleu(text: str) -> None:
    """v13a's four rules, whitespace squeezed, are sacreBLEU's 13a tokenizer (the oracle)
    on text without what only one of them handles (entities, <skipped>, newlines)."""
    from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a

    assert " ".join(rules_13a(f" {text} ").split()) == Tokenizer13a()(text), text


def test_symbol_padding_equals_sacrebleu_13a():
    check_rules_13a_against_sacrebleu("".join(chr(c) for c in range(32, 127)) + "x.y,z 1-2 a.,b")


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.sampled_from("aB3.,-'\" ;:/()[]{}~`9-xé猫"), max_size=40))
def test_rules_13a_equal_sacrebleu_13a(text):
    check_rules_13a_against_sacrebleu(text)


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.sampled_from("aB3.,-'\" &;<>xé猫"), max_size=30))
def test_mteval_tokens_equal_sacrebleu_13a_where_the_tools_agree(text):
    """Without entities, '<' or special whitespace, v13a (-c) and sacreBLEU's 13a agree."""
    assume("&" not in text and "<" not in text)
    ours = get_dialect("mteval-v13a", lowercase=False).tokenize(text)
    assert list(ours) == get_tokenizer("13a")(text).split()


def test_perl_whitespace_is_not_python_whitespace():
    assert split_perl("a\x1cb\x85c\xa0d\u2028e\u180ef") == ["a\x1cb", "c", "d", "e\u180ef"]
    assert split_bytes_awk("a\xa0b c\td\x1ce") == ["a\xa0b", "c", "d\x1ce"]


def test_python_whitespace_is_perls_and_four_more():
    """squeeze_perl_spaces relies on it: every code point Python takes for whitespace is
    Perl's but PYTHON_ONLY_SPACES, and Perl's are all Python's (a new Unicode database,
    as when U+180E stopped being a space, would break this)."""
    for code in range(0x110000):
        char = chr(code)
        perl = PERL_SPACE_RUN.fullmatch(char) is not None
        assert perl == (char.isspace() and char not in PYTHON_ONLY_SPACES), hex(code)
        assert perl == (not char.split() and char not in PYTHON_ONLY_SPACES), hex(code)


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from(["a", "bc", "\x00", " ", "  ", "\t", "\n", "\x1c", "\x1f",
                                  "\x85", "\xa0", "\u180e", "\u2009", "\u3000", "\ue000"]),
                max_size=12).map("".join))
def test_squeezing_perl_spaces_is_the_substitution(text):
    assert squeeze_perl_spaces(text) == PERL_SPACE_RUN.sub(" ", text)


def test_perl_case_mapping():
    assert perl_lc("ΟΔΟΣ ΑΣ") == "οδοσ ασ"  # no Greek final sigma, unlike str.lower
    assert ascii_lower("ÄBC[]") == "Äbc[]"   # tr/[A-Z]/[a-z]/ and byte-level lc


# --- mteval ---------------------------------------------------------------------------

def test_mteval_sgml_round_trip_and_entities():
    mteval = get_dialect("mteval-v13a")
    assert sgml_text("a\tb  &<>") == "a b &amp;&lt;&gt;"
    assert list(mteval.tokenize("x &lt; y")) == ["x", "<", "y"]  # un-escaped twice
    assert list(mteval.tokenize("A <skipped> B")) == ["a", "<", "skipped", ">", "b"]
    assert get_tokenizer("13a")("A <skipped> B").split() == ["A", "B"]  # sacreBLEU strips it


def test_mteval_case_rules():
    assert list(get_dialect("mteval-v13a").tokenize("ÄBC")) == ["Äbc"]
    assert list(get_dialect("mteval-v13a", international_tokenization=True).tokenize("ÄBC")) \
        == ["äbc"]
    assert list(get_dialect("mteval-v13a", lowercase=False).tokenize("ÄBC")) == ["ÄBC"]


def test_mteval_order_without_ngrams_counts_as_precision_one():
    score = get_dialect("mteval-v13a").corpus_score(["a b"], [["a b"]])
    assert score.totals == [2, 1, 0, 0]
    assert score.score == 1.0


def test_mteval_exp_smoothing_and_empty_hypothesis():
    score = get_dialect("mteval-v13a").corpus_score(["a b c d"], [["a b x y"]])
    # p = 2/4, 1/3, then 1/(2*2), 1/(4*1)
    expected = math.exp((math.log(2 / 4) + math.log(1 / 3) + math.log(1 / 4) + math.log(1 / 4)) / 4)
    assert score.score == pytest.approx(expected, rel=1e-15)
    empty = get_dialect("mteval-v13a").corpus_score([""], [["a b"]])
    assert empty.score == 0.0 and empty.nist == 0.0


def test_mteval_reference_length_rules():
    refs = [["a b c d"], ["a b"]]
    assert get_dialect("mteval-v13a").corpus_score(["a b c"], refs).ref_len == 2  # tie: shorter
    assert get_dialect("mteval-v13a").corpus_score(["a b c d e"], refs).ref_len == 4
    assert get_dialect("mteval-v13a", brevity_penalty="shortest").corpus_score(
        ["a b c d e"], refs).ref_len == 2


def test_nist_context_spelled_zero_counts_as_no_context():
    # info("0 x") uses the total word count (2) instead of count("0") = 1
    assert nist(["0 x"], [["0 x"]]) == 2.0
    assert nist(["1 x"], [["1 x"]]) == 1.0


def test_nist_length_penalty():
    assert nist_length_penalty(1.2) == 1
    assert nist_length_penalty(0) == 0
    assert nist_length_penalty(2 / 3) == pytest.approx(0.5, rel=1e-12)


def test_mteval_nist_without_reference_words_is_nan():
    assert math.isnan(get_dialect("mteval-v13a").corpus_score(["a"], [[""]]).nist)


# --- multi-bleu ------------------------------------------------------------------------

def test_multi_bleu_tokens_and_case():
    plain = get_dialect("multi-bleu", lowercase=True)
    assert plain.tokenize_hypothesis("ÄB c.") == ("Äb", "c.")
    detok = get_dialect("multi-bleu-detok", lowercase=True)
    assert detok.tokenize_hypothesis("&QUOT;") == ('"',)          # lc, then un-escape
    assert detok.tokenize_reference("&QUOT;") == ("&", "quot", ";")  # un-escape, then lc


def test_multi_bleu_corner_cases():
    assert get_dialect("multi-bleu").corpus_score(["a"], [[""]]).score == 0.0
    with pytest.raises(ToolError):
        get_dialect("multi-bleu").corpus_score([""], [["a b"]])
    zero = get_dialect("multi-bleu").corpus_score(["a b c d"], [["a b x y"]])
    assert zero.score == 0.0 and zero.precisions[0] == 50.0


def test_multi_bleu_percentage_scale():
    score = get_dialect("multi-bleu").corpus_score(["a b c d e"], [["a b c d e"]])
    assert score.score == 100.0 and score.bleu == 100.0


# --- tf-nmt, torchmetrics --------------------------------------------------------------

def test_tfnmt_shortest_reference_and_smoothing():
    refs = [["a b c d e f"], ["a b c"]]
    score = get_dialect("tf-nmt").corpus_score(["a b c d"], refs)
    assert score.ref_len == 3 and score.bp == 1.0
    smoothed = get_dialect("tf-nmt", smooth=True).corpus_score(["a b c d"], [["a b x y"]])
    assert smoothed.precisions[0] == 3 / 5  # (2 + 1) / (4 + 1): unigrams smoothed too
    assert get_dialect("tf-nmt", smooth=False).corpus_score(["a b c d"], [["a b x y"]]).score == 0


def test_tfnmt_raises_where_the_tool_divides_by_zero():
    with pytest.raises(ToolError):
        get_dialect("tf-nmt").corpus_score([""], [["a b"]])
    with pytest.raises(ToolError):
        get_dialect("tf-nmt").corpus_score(["a"], [[""]])


def test_hf_evaluate_is_tf_nmt():
    hyps, refs = ["The cat, sat."], [["The cat sat."]]
    assert get_dialect("hf-evaluate").corpus_score(hyps, refs) == \
        get_dialect("tf-nmt").corpus_score(hyps, refs)


def test_torchmetrics_float32_accumulation():
    from truebleu.dialects.torchmetrics_bleu import _add32

    assert _add32(16777216.0, 1) == 16777216.0  # 2**24 + 1 is not a float32
    assert _add32(10.0, 1) == 11.0


# --- registry, API, signatures ---------------------------------------------------------

def test_registry():
    assert set(DIALECTS) >= {"sacrebleu", "nltk", "mteval-v13a", "mteval-v14", "multi-bleu",
                             "multi-bleu-detok", "tf-nmt", "hf-evaluate", "torchmetrics"}
    with pytest.raises(ValueError):
        get_dialect("bleu.pl")
    with pytest.raises(ValueError):
        get_dialect("mteval-v13a", brevity_penalty="average")
    with pytest.raises(TypeError):
        get_dialect("multi-bleu", lowercase="yes")
    with pytest.raises(ValueError):
        get_dialect("nltk", smoothing="method9")
    with pytest.raises(ValueError):
        get_dialect("tf-nmt", max_order=0)


@pytest.mark.parametrize("name", TOOLS)
def test_input_checks(name):
    dialect = get_dialect(name)
    with pytest.raises(ValueError):
        dialect.corpus_score(["a", "b"], [["a"]])
    with pytest.raises(TypeError):
        dialect.corpus_score(["a"], ["a"])
    with pytest.raises(TypeError):
        dialect.corpus_score("a", [["a"]])


@pytest.mark.parametrize("name", TOOLS)
def test_signature_names_dialect_options_and_version(name):
    dialect = get_dialect(name)
    score = dialect.corpus_score(["the cat sat on the mat"], [["the cat sat on the mat"]])
    assert isinstance(score, DialectScore)
    fields = dict(part.split(":", 1) for part in score.signature.split("|"))
    assert fields["dialect"] == ("tf-nmt" if name == "hf-evaluate" else name)
    assert fields["version"] == f"truebleu-{__version__}" and fields["nrefs"] == "1"


def test_signatures_change_with_the_number():
    pairs = [("mteval-v13a", {"lowercase": False}),
             ("mteval-v13a", {"brevity_penalty": "shortest"}),
             ("mteval-v13a", {"international_tokenization": True}),
             ("multi-bleu", {"lowercase": True}),
             ("nltk", {"smoothing": "method1"}), ("nltk", {"weights": (0.5, 0.5)}),
             ("nltk", {"auto_reweigh": True}), ("nltk", {"smoothing": "method1", "epsilon": 0.2}),
             ("tf-nmt", {"smooth": True}), ("tf-nmt", {"max_order": 3}),
             ("tf-nmt", {"tokenize": "whitespace"}), ("torchmetrics", {"smooth": True})]
    for name, options in pairs:
        assert get_dialect(name, **options).signature() != get_dialect(name).signature(), options


@settings(max_examples=30, deadline=None)
@given(st.lists(st.lists(st.sampled_from(["the", "cat", "sat", "on", "mat", "a"]),
                         min_size=4, max_size=12).map(" ".join), min_size=1, max_size=4))
def test_identical_hypothesis_and_reference_score_100(lines):
    for name in TOOLS:
        score = get_dialect(name).corpus_score(lines, [lines])
        assert score.bleu == pytest.approx(100.0, rel=1e-6), name
        assert 0 < score.bp <= 1


@pytest.mark.parametrize("name", TOOLS)
def test_sentence_score_is_a_one_line_corpus(name):
    dialect = get_dialect(name)
    one = dialect.sentence_score("the cat sat on a mat", ["the cat sat on the mat", "a cat sat"])
    corpus = dialect.corpus_score(["the cat sat on a mat"],
                                  [["the cat sat on the mat"], ["a cat sat"]])
    assert one.score == corpus.score


def test_sacrebleu_adapter_matches_the_engine():
    from truebleu.metrics.bleu.metric import BLEU

    hyps, refs = ["The cat sat on the mat."], [["The cat is on the mat."]]
    assert get_dialect("sacrebleu").corpus_score(hyps, refs).score == \
        BLEU().corpus_score(hyps, refs).score


def test_tfnmt_compute_bleu_on_tokens():
    from truebleu.dialects.tfnmt import compute_bleu

    result = compute_bleu([[["a", "b", "c", "d"], ["a", "b"]]], [["a", "b", "c", "d"]], smooth=True)
    assert result[0] == get_dialect("tf-nmt", smooth=True, tokenize="whitespace").corpus_score(
        ["a b c d"], [["a b c d"], ["a b"]]).score
    assert result[4:] == (4, 2)  # shortest reference


@settings(max_examples=500, deadline=None)
@given(st.lists(st.text(alphabet=st.sampled_from(
    ["a", " ", "\n", "\x1c", "\x1f", "\x85", "\xa0", "\u2009", "\u3000", "\ue000", "\ue001",
     "\ue002", "é"]), max_size=8), max_size=6))
def test_space_hider_is_each_lines_translation(lines):
    """The hider replaces the characters present in the lines joined (or line by line when
    a line holds a newline): each line's result is str.translate of it with the hider's
    table, a prefix code (the escape doubled, each hidden character the escape and a
    private-use character of its own), the same number of lines."""
    from truebleu.dialects.core_counts import UNICODE_ONLY_SPACES, SpaceHider

    hider = SpaceHider(UNICODE_ONLY_SPACES)
    table = {ord("\ue000"): "\ue000\ue000"}
    table.update({ord(char): "\ue000" + chr(0xE001 + i) for i, char in enumerate(UNICODE_ONLY_SPACES)})
    assert hider(lines) == [line.translate(table) for line in lines]
