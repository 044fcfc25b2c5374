"""The native tokenizers give exactly the tokens of the Python tokenizers."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

core = pytest.importorskip("truebleu._native_core", reason="compiled core not built")

from truebleu._native_backend import MODES  # noqa: E402
from truebleu.backends import segment_tokens  # noqa: E402
from truebleu.tokenizers import get_tokenizer  # noqa: E402
from truebleu.tokenizers.tok_zh import CHINESE_RANGES, is_chinese_char  # noqa: E402

from test_native_strategies import PIECES, SPACES, lines  # noqa: E402

NATIVE = sorted(MODES)
TOKENIZERS = {name: get_tokenizer(name) for name in NATIVE}


def check(line: str, name: str, lowercase: bool) -> None:
    want = segment_tokens(line, TOKENIZERS[name], lowercase)
    assert core.tokenize(line, MODES[name], lowercase) == want, (line, name, lowercase)


def test_intl_falls_back_to_python_under_another_regex(monkeypatch):
    from truebleu import _native_backend

    assert _native_backend.core_mode(TOKENIZERS["intl"]) == core.MODE_INTL
    monkeypatch.setattr(core, "REGEX_VERSION", "0.0")  # as if the table were stale
    assert _native_backend.core_mode(TOKENIZERS["intl"]) is None
    assert _native_backend.core_mode(TOKENIZERS["13a"]) == core.MODE_13A


def test_intl_classes_match_regex_for_every_code_point():
    regex = pytest.importorskip("regex")
    if regex.__version__ != core.REGEX_VERSION:
        pytest.skip(f"table generated from regex {core.REGEX_VERSION}, installed "
                    f"{regex.__version__}: the native intl path is off (see the test above)")
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
    with pytest.raises(TypeError):
        core.tokenize(b"bytes", 0, False)
    with pytest.raises(ValueError):
        core.tokenize("x", 99, False)
