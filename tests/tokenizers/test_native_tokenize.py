"""The native tokenizers give exactly the tokens of the Python tokenizers."""

from __future__ import annotations

import warnings

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

core = pytest.importorskip("truebleu._native_core", reason="compiled core not built")

from native_strategies import PIECES, SPACES, lines  # noqa: E402
from truebleu.metrics.bleu.native import MODES  # noqa: E402
from truebleu.metrics.bleu.spec import segment_tokens  # noqa: E402
from truebleu.tokenizers import get_tokenizer  # noqa: E402
from truebleu.tokenizers.tokenizer_zh import CHINESE_RANGES, is_chinese_char  # noqa: E402

NATIVE = sorted(MODES)
TOKENIZERS = {name: get_tokenizer(name) for name in NATIVE}


def check(line: str, name: str, lowercase: bool) -> None:
    want = segment_tokens(line, TOKENIZERS[name], lowercase)
    assert core.tokenize(line, MODES[name], lowercase) == want, (line, name, lowercase)


@pytest.fixture
def fresh_intl_check():
    from truebleu.metrics.bleu import native as _native_backend

    _native_backend._intl_table_matches.cache_clear()
    yield _native_backend
    _native_backend._intl_table_matches.cache_clear()


def test_native_intl_is_used_under_the_installed_regex(fresh_intl_check):
    """Issue 13 item 4: with the regex installed here, intl runs in C, without a warning."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert fresh_intl_check.core_mode(TOKENIZERS["intl"]) == core.MODE_INTL


def test_another_regex_release_with_the_same_classes_keeps_native_intl(fresh_intl_check,
                                                                        monkeypatch):
    # what matters is the classification, not the release the table came from
    monkeypatch.setattr(core, "REGEX_VERSION", "0.0")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert fresh_intl_check.core_mode(TOKENIZERS["intl"]) == core.MODE_INTL


def test_a_stale_table_is_not_used_by_any_entry_point(fresh_intl_check, monkeypatch):
    from _stale_intl import make_stale
    from truebleu.metrics.bleu.config import BLEUConfig
    from truebleu.metrics.bleu.kernels import kernels

    intl_calls = make_stale(monkeypatch, core, fresh_intl_check)
    native, python = kernels.load("native"), kernels.load("python")
    tok = TOKENIZERS["intl"]
    hyps, refs = ["x\u20c2y z w", "a\u20c2 b.c"], [["x \u20c2 y z w"], ["a \u20c2 b . c", "b"]]
    config = BLEUConfig(tok, effective_order=True)
    with pytest.warns(RuntimeWarning, match="differ from those of the installed regex"):
        assert fresh_intl_check.core_mode(tok) is None
    assert fresh_intl_check.core_mode(TOKENIZERS["13a"]) == core.MODE_13A
    for backend in (native, python):
        prepared = backend.prepare_references(refs, tok, False, 4)
        streams = backend.prepare_reference_streams([[r[0] for r in refs]], tok, False, 4)[0]
        assert backend.statistics(hyps, prepared, tok, False, 4) == python.statistics(
            hyps, python.prepare_references(refs, tok, False, 4), tok, False, 4)
        assert backend.statistics(hyps, streams, tok, False, 4).data.tolist() == \
            python.statistics(hyps, python.prepare_references([[r[0]] for r in refs], tok, False, 4),
                              tok, False, 4).data.tolist()
        assert backend.tokens(hyps, tok, False) == [segment_tokens(h, tok, False) for h in hyps]
        assert backend.sentence_statistics(hyps, refs, tok, False, 4) == \
            python.sentence_statistics(hyps, refs, tok, False, 4)
        assert backend.pairwise_scores(hyps, hyps, config) == python.pairwise_scores(hyps, hyps,
                                                                                      config)
    assert intl_calls == []


def test_intl_classes_match_regex_for_every_code_point():
    """The core's table is that of the installed regex (else native intl is off: see above)."""
    regex = pytest.importorskip("regex")
    everything = "".join(chr(c) for c in range(0x110000))
    table = core.class_table()
    for name, bit in (("P", 1), ("S", 2), ("N", 4)):
        want = {m.start() for m in regex.finditer(r"\p{%s}" % name, everything)}
        got = {c for c in range(0x110000) if table[c] & bit}
        assert got == want, (name, sorted(got ^ want)[:20])


def test_zh_ranges_match_tok_zh_for_every_code_point():
    table = core.class_table()
    got = {c for c in range(0x110000) if table[c] & 8}
    want = {c for first, last in CHINESE_RANGES for c in range(first, last + 1)}
    assert got == want
    for c in list(want)[:2000:7] + [0x2000, 0x20000, 0x2A6D6, 0x2F800, 0xFFF0]:
        assert is_chinese_char(chr(c)) == (c in got)


def test_whitespace_is_str_split_whitespace_for_every_code_point():
    # "x<c>" for every code point c: c separates tokens iff str.split() says so
    line = "".join("x" + chr(c) for c in range(0x110000))
    assert core.tokenize(line, MODES["none"], False) == line.split()
    assert core.tokenize(line, MODES["char"], False) == " ".join(line).split()


@pytest.mark.parametrize("name", NATIVE)
@pytest.mark.parametrize("lowercase", [False, True])
@pytest.mark.parametrize("line", [
    "", " ", "\u3000", "a", "Hello, World.", " .leading and trailing. ", "3.5 1,000 12-3 a-b",
    "&quot;x&quot; &amp;lt; &amp;amp; &lt;&gt; &", "a<skipped>b <skip<skipped>ped>", "end-\nnext\nline",
    "İstanbul ΣΟΦΟΣ ΌΣΟΣ ẞ ǅ", "你好，世界。abc def", "\u2001\u2a6d\u2a6e\u2f81\U00020000",
    "e\u0301 \u0301x 😀 👍🏽", "x" * 5000 + " y", ". , - . , -", "$5.00 (a) [b] {c} \\d ^e_ `f` |g| ~h~",
    "3.\n", "a.\u00a0", "-\n-\n", "1-\n2",
])
def test_examples(line, name, lowercase):
    check(line, name, lowercase)


@pytest.mark.parametrize("name", NATIVE)
@pytest.mark.parametrize("piece", PIECES + SPACES)
def test_each_piece_in_context(name, piece):
    for line in (piece, f"a{piece}b", f"1{piece}2", f" {piece} {piece}. ", f"{piece}-{piece},{piece}"):
        check(line, name, False)
        check(line, name, True)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(line=lines(), name=st.sampled_from(NATIVE), lowercase=st.booleans())
def test_generated_lines(line, name, lowercase):
    check(line, name, lowercase)


@settings(max_examples=100, deadline=None)
@given(line=st.text(), name=st.sampled_from(NATIVE), lowercase=st.booleans())
def test_any_text(line, name, lowercase):
    check(line, name, lowercase)


def test_long_line():
    line = " ".join(["Word.", "x,y", "3-4", "&amp;", "İ", "你"] * 20000)
    for name in NATIVE:
        check(line, name, True)


def test_bad_arguments():
    with pytest.raises(TypeError):  # (bytes are a line given as UTF-8: test_native_utf8.py)
        core.tokenize(bytearray(b"bytes"), 0, False)
    with pytest.raises(TypeError):
        core.tokenize(12, 0, False)
    with pytest.raises(ValueError):
        core.tokenize("x", 99, False)


@pytest.mark.parametrize("name", ["13a", "intl", "none"])
def test_long_tokens_are_told_apart_by_every_byte(name):
    """A hypothesis token is found in the reference's vocabulary only when every byte is
    equal: tokens of 1 to 40 bytes against variants with one byte changed, at every
    position (the core compares a token's first 8 bytes in the slot, and the rest
    word by word, the last 8 bytes read whole), and cut one byte short or long."""
    from truebleu.metrics.bleu.kernels import kernels

    native, python = kernels.load("native"), kernels.load("python")
    tok = TOKENIZERS[name]
    base = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMN"
    refs, hyps = [], []
    for n in range(1, len(base) + 1):
        word = base[:n]
        refs.append([f"{word} {base[:n - 1]}x é{word}"])
        variants = [word[:k] + "Z" + word[k + 1:] for k in range(n)]
        variants += [word[:-1], word + "x", "é" + word, word[:-1] + "x"]
        hyps.append(" ".join(variants))
    for backend in (native, python):
        assert backend.sentence_statistics(hyps, refs, tok, False, 1) == \
            python.sentence_statistics(hyps, refs, tok, False, 1)
        prepared = backend.prepare_references(refs, tok, False, 2)
        assert backend.statistics(hyps, prepared, tok, False, 2) == python.statistics(
            hyps, python.prepare_references(refs, tok, False, 2), tok, False, 2)


@pytest.mark.parametrize("name", ["13a", "intl"])
def test_lines_of_every_length_up_to_four_words_of_bits(name):
    """13a and intl read a line and mark its plain bytes (letters, digits) in one pass of
    16-byte blocks, the last 16 bytes read over some read already, and a short line
    from a padded copy: every length from 0 to 200 bytes, an item ending at every
    place, trailing whitespace rstripped, lowercased or not, as a str of each kind (a
    Latin-1 or wider line takes the other path) and as UTF-8 bytes."""
    pattern = "Ab1'c, D.e-9 f(g) 2.5 "
    for n in range(201):
        body = (pattern * 10)[:n]
        for tail in ("", " ", "  \t ", "\u00a0", "x"):
            for extra in ("", "\u00e9", "\u20ac", "\U0001f600"):
                line = body + extra + tail
                for lowercase in (False, True):
                    check(line, name, lowercase)
                    assert core.tokenize(line.encode(), MODES[name], False) == \
                        segment_tokens(line, TOKENIZERS[name], False), (line, name)


JOINED = ["well-known", "-", "--", "a--b", "-5", "5-", "12-3", "a-1", "1-a", "3.5", "1,000", "1,000.5",
          "3.5.", "1,000,", ".5", "5.", "x.5", "5.x", "1.2.3", "1..2", "1,,2", "2.-3", "é-à", "é3.5",
          "state-of-the-art", "e-mail-address-x", "10-11-2021"]
SEPARATORS = [" ", " ", ", ", ". ", "(", ") ", "\u2014", "\u00a0", "'", "é "]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(hyp=st.lists(st.tuples(st.sampled_from(JOINED), st.sampled_from(SEPARATORS)), max_size=12),
       ref=st.lists(st.tuples(st.sampled_from(JOINED), st.sampled_from(SEPARATORS)), max_size=12))
def test_13a_words_holding_dashes_periods_and_commas(hyp, ref):
    """13a's hot loops keep in one word the '-' not after a digit and the '.' and ','
    between two digits (no rule splits them off) and leave any other to the general
    scan: a hypothesis's tokens, looked up in the references' vocabulary, and the
    references' own give the Python kernel's statistics."""
    from truebleu.metrics.bleu.kernels import kernels

    native, python = kernels.load("native"), kernels.load("python")
    tok = TOKENIZERS["13a"]
    hyp_line, ref_line = ("".join(w + s for w, s in pairs) for pairs in (hyp, ref))
    hyps, refs = [hyp_line, ref_line], [[ref_line], [hyp_line]]
    check(hyp_line, "13a", False)
    assert native.sentence_statistics(hyps, refs, tok, False, 1) == \
        python.sentence_statistics(hyps, refs, tok, False, 1)
    assert native.statistics(hyps, native.prepare_references(refs, tok, False, 1), tok, False, 1) == \
        python.statistics(hyps, python.prepare_references(refs, tok, False, 1), tok, False, 1)


@pytest.mark.parametrize("lowercase", [False, True])
@pytest.mark.parametrize("name", ["13a", "intl"])
def test_hypotheses_ending_at_every_offset_and_near_a_page(name, lowercase):
    """An ASCII hypothesis (a str of kind 1) is copied in 16-byte blocks, its last 16
    bytes read over some copied already, and its plain bytes are marked only up to the
    16 bytes that hold its end: hypotheses whose end falls at every offset modulo 32
    (16 to 112 bytes) and about a page long (4,064 to 4,128 bytes: under the sanitizers
    each str is its own allocation, so a read past its end is caught), some ending in
    whitespace, looked up in the references' vocabulary, give the Python kernel's
    statistics."""
    from truebleu.metrics.bleu.kernels import kernels

    native, python = kernels.load("native"), kernels.load("python")
    tok = TOKENIZERS[name]
    pattern = "Ab1'c, D.e-9 f(g) 2.5 words "
    hyps = [(pattern * 160)[:n] for n in [*range(16, 113), *range(4064, 4129)]]
    refs = [[pattern * 3, hyp[-40:]] for hyp in hyps]
    want = python.statistics(hyps, python.prepare_references(refs, tok, lowercase, 4), tok, lowercase, 4)
    prepared = native.prepare_references(refs, tok, lowercase, 4)
    assert native.statistics(hyps, prepared, tok, lowercase, 4) == want
    assert native.sentence_statistics(hyps, refs, tok, lowercase, 4) == \
        python.sentence_statistics(hyps, refs, tok, lowercase, 4)
