"""13a's UTF-8 byte path (issue 13): every line is tokenized as its UTF-8 bytes.

A non-ASCII character is "other" to every 13a rule, except the Unicode
whitespace that str.split() splits on, which the byte path must recognise from
its UTF-8. The oracles: str.isspace() for every code point, the Python
specification (segment_tokens) and sacreBLEU's Tokenizer13a. Lines given as
UTF-8 bytes (TB_KIND_UTF8, as a native reader passes them) must give the tokens
of the same text given as a str.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings

core = pytest.importorskip("truebleu._native_core", reason="compiled core not built")

from conftest import needs_wmt21, wmt21_dir  # noqa: E402
from native_strategies import lines  # noqa: E402
from truebleu.metrics.bleu.spec import segment_tokens  # noqa: E402
from truebleu.tokenizers import get_tokenizer  # noqa: E402

TOK13A = get_tokenizer("13a")
ALL_CODE_POINTS = range(0x110000)  # lone surrogates included: a str can hold them


def spec(line: str, lowercase: bool = False) -> list[str]:
    return segment_tokens(line, TOK13A, lowercase)


def test_every_code_point_splits_exactly_when_it_is_whitespace():
    """Leading, inner and trailing (line.rstrip()) place, on lines of every PyUnicode kind."""
    wrong = []
    for cp in ALL_CODE_POINTS:
        c = chr(cp)
        if cp < 0x80:  # ASCII: the 13a symbols and [.,-] have rules of their own
            continue
        got = core.tokenize(f"{c}a{c}b{c}", core.MODE_13A, False)
        want = ["a", "b"] if c.isspace() else [f"{c}a{c}b{c}"]
        if got != want:
            wrong.append(hex(cp))
    assert not wrong, wrong[:20]


def test_every_ascii_character_between_non_ascii_ones():
    for cp in range(0x80):
        for other in ("é", "\u2019", "\u3000", "\xa0", "\U0001f600", "\ud800"):
            for line in (f"{other}{chr(cp)}{other}", f"a{chr(cp)}{other}1{chr(cp)}2{other}{chr(cp)}",
                         f"{other}{chr(cp)}", f"1{chr(cp)}{other}.{other},3"):
                assert core.tokenize(line, core.MODE_13A, False) == spec(line), line


RULE_CASES = [
    "é.", ".é", "é,", ",é", "3.é", "é.3", "é-3", "3-é", "é-é", "é.é", "1,é,2", "a\u2019s.",
    "\xa0.", ".\xa0", "\u2003-\u2003", "3\u2009-4", "\u2019\u201c.\u201d", "é.\n", "é-\né",
    "&amp;é", "é&quot;é", "&lt;\u00e9&gt;", "é<skipped>é", "<skip\u00e9ped>", "\u0085x\u0085",
    "x\u2028y\u2029z", "\u00e9" * 40 + "." + "\u00e9" * 40, "\U0001f600.\U0001f600", "\ud800.\udfff",
    "\ud83d\ude00", "Ünïcödé, wörds.", "„Zitat“ – ein Wort", "\u3000\u3000a\u3000", "a\u200bb",
    "\ufeffa", "\u180ea", "\x1c\x1d\x1e\x1fa\x1f", "a\x85", "\x85", "\u2000" * 3,
]


@pytest.mark.parametrize("line", RULE_CASES)
def test_rules_next_to_non_ascii_characters_match_sacrebleu(line):
    from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a

    assert core.tokenize(line, core.MODE_13A, False) == spec(line)
    assert core.tokenize(line, core.MODE_13A, False) == Tokenizer13a()(line.rstrip()).split()
    assert core.tokenize(line, core.MODE_13A, True) == spec(line, True)


def valid_utf8(line: str) -> bool:
    try:
        line.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate
        return False
    return True


@settings(max_examples=400, deadline=None)
@given(lines())
def test_utf8_bytes_give_the_tokens_of_the_str(line):
    want = spec(line)
    assert core.tokenize(line, core.MODE_13A, False) == want
    if valid_utf8(line):
        assert core.tokenize(line.encode("utf-8"), core.MODE_13A, False) == want


NON_ASCII_LINES = ["\u201cQuoted,\u201d caf\u00e9 \u2014 3.5\u20ac!",
                   "\u732b\u5750\u5728\u57ab\u5b50\u4e0a\u3002 x",
                   "a\u00a0b\u3000c\u2028d", "\U0001f600 smile, \u00bfs\u00ed?",
                   "\u0928\u092e\u0938\u094d\u0924\u0947 \u0964"]


@pytest.mark.parametrize("name", ["13a", "intl", "zh", "char", "none"])
def test_non_ascii_utf8_bytes_in_every_mode(name):
    """13a scans the bytes; the other tokenizers decode them: the tokens of the str either way."""
    from truebleu.metrics.bleu.native import MODES

    tok = get_tokenizer(name)
    for line in NON_ASCII_LINES:
        assert core.tokenize(line.encode(), MODES[name], False) == core.tokenize(line, MODES[name], False) \
            == segment_tokens(line, tok, False), (name, line)


@pytest.mark.parametrize("name", ["13a", "intl", "zh", "char", "none"])
def test_ascii_utf8_bytes_in_every_mode(name):
    from truebleu.metrics.bleu.native import MODES

    tok = get_tokenizer(name)
    for line in ["Hello, World. 3.5-4 &amp; <skipped> x", "  a-\nb  ", "", " ", "A\tB\x0bC"]:
        for lowercase in (False, True):
            assert core.tokenize(line.encode(), MODES[name], lowercase) == \
                segment_tokens(line, tok, lowercase), (name, line, lowercase)


def test_utf8_bytes_are_refused_where_the_core_cannot_read_them():
    for mode in (core.MODE_13A, core.MODE_INTL, core.MODE_CHAR):
        with pytest.raises(ValueError):  # lowercasing non-ASCII is str.lower()'s, before the core
            core.tokenize("É".encode(), mode, True)
    with pytest.raises(UnicodeDecodeError):
        core.tokenize(b"\xe2\x80", core.MODE_13A, False)


@needs_wmt21
def test_non_ascii_wmt21_lines():
    """Every non-ASCII line of the into-English references and a sample of system
    outputs (curly quotes, accents), as str and as UTF-8 bytes."""
    data = wmt21_dir()
    paths = sorted((data / "references").glob("*-en.ref.A.en"))
    paths += sorted((data / "system-outputs").glob("*-en.hyp.*"))[::15]
    checked = 0
    for path in paths:
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.isascii():
                continue
            want = spec(line)
            assert core.tokenize(line, core.MODE_13A, False) == want, line
            assert core.tokenize(line.encode(), core.MODE_13A, False) == want, line
            checked += 1
    assert checked > 1000


def test_long_non_ascii_lines_and_every_kind():
    rng = random.Random(13)
    alphabet = ["a", "Z", "9", " ", ".", ",", "-", "&amp;", "<skipped>", "\n", "é", "ß", "\xa0",
                "\u2019", "\u201c", "\u2009", "\u3000", "中", "\U0001f600", "\ud800", "'", "(", "$"]
    for size in (1, 7, 15, 16, 17, 63, 64, 65, 200, 5000):
        for _ in range(20):
            line = "".join(rng.choice(alphabet) for _ in range(size))
            for lowercase in (False, True):
                assert core.tokenize(line, core.MODE_13A, lowercase) == spec(line, lowercase), line
