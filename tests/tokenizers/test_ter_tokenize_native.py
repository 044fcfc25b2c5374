"""tercom's tokenizer in C (the core's ``ter_tokenize``, ``_native/ter/tokenize.c``) against
its specification (``tokenizers/tokenizer_ter.py``) and sacreBLEU 2.6.0's, for every
option combination: generated text (hostile Unicode: lone surrogates, combining marks,
CJK, every punctuation class, line breaks, entities), every code point, and WMT21.

The core tokenizes hypotheses once and references twice (sacreBLEU's TER does), after
``str.rstrip()``; ``expected`` is that, written with the specification.
"""

from __future__ import annotations

import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import needs_wmt21, wmt21_dir
from strategies import PIECES, SEPARATORS
from truebleu.tokenizers.tokenizer_ter import TercomTokenizer

core = pytest.importorskip("truebleu._native_core")
sacrebleu = pytest.importorskip("sacrebleu")
from sacrebleu.tokenizers.tokenizer_ter import TercomTokenizer as SacreTercom  # noqa: E402

OPTIONS = ("normalized", "no_punct", "asian_support", "case_sensitive")
ALL_OPTIONS = [dict(zip(OPTIONS, (bits >> k & 1 == 1 for k in range(4)))) for bits in range(16)]

# what each rule of tercom looks at, with its near misses
RULE_PIECES = [
    "'s", "'S", "'s ", "x's", "it's,", "'s'", "''s", "3-4", "3--4", "-3", "a-b", "1.5", "1,5",
    "1.", ".1", "a.", ".a", "..", ",,", ".,", "a..b", "1..2", "9,.x", "é.", ".é", "中.", ".中",
    ",", "?", ":", ";", "!", '"', "(", ")", "{", "|", "}", "~", "[", "\\", "]", "^", "_", "`",
    "#", "$", "%", "&", "*", "+", "<", "=", ">", "@", "/", "'", "-",
    "&quot;", "&amp;", "&lt;", "&gt;", "&amp;quot;", "&amp;lt;", "&amp;amp;gt;", "&quot",
    "\n-", "-\n", "\n", "\n\n-", "\n-\n-", "\r\n", "\r", "\x0b", "\x0c", "\x1c", "\x1f", "\x85",
    "\u00a0", "\u1680", "\u2000", "\u200a", "\u200b", "\u2028", "\u2029", "\u202f", "\u205f",
    "\u3000", "\ufeff", "\x00", "\ud800", "\udfff", "\ud83d", "e\u0301", "\u0301", "\u0345",
    "İ", "ΣΑΣ", "ΑΣ.", "ß", "ﬁ", "Ω", "K", "中文", "漢字", "\u3400", "\u4dbf", "\u31c0",
    "\u2e80", "\u2eff", "\u3300", "\uf900", "\ufe30", "\ufe4f", "\u3200", "\u3f22", "\u3f23",
    "ひらがな", "カタカナ", "\u31f0", "、", "。", "〈", "】", "〔", "〟", "｡", "･", "・", "．",
    "，", "？", "：", "；", "！", "＂", "（", "）", "ｶﾀ", "😀", "𠀀", "٣", "١٢",
]
piece = st.one_of(st.sampled_from(PIECES), st.sampled_from(RULE_PIECES), st.text(max_size=4))
separators = st.sampled_from(SEPARATORS + ["", "", "\n", "'", "."])


@st.composite
def lines(draw, max_pieces: int = 16) -> str:
    parts = draw(st.lists(piece, max_size=max_pieces))
    seps = draw(st.lists(separators, min_size=len(parts), max_size=len(parts)))
    return "".join(p + s for p, s in zip(parts, seps))


def expected(line: str, options: dict, reference: bool) -> str:
    """The specification's tokens, as sacreBLEU's TER preprocesses a line."""
    tokenizer = TercomTokenizer(**options)
    tokens = tokenizer(line.rstrip())
    return tokenizer(tokens.rstrip()) if reference else tokens


# one of each code path of the C tokenizer (the four options all on, too)
SOME_OPTIONS = [dict(zip(OPTIONS, bits)) for bits in (
    (False, False, False, False), (True, False, False, False), (True, False, True, False),
    (False, True, True, False), (True, True, True, True))]


def check(texts: list[str], options: dict) -> None:
    for reference in (False, True):
        got = core.ter_tokenize(texts, **options, reference=reference)
        want = [expected(text, options, reference) for text in texts]
        for text, ours, theirs in zip(texts, got, want):
            assert ours == theirs, (text, options, reference)


@settings(max_examples=100, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(texts=st.lists(lines(), min_size=1, max_size=8))
def test_core_equals_specification_and_sacrebleu_on_generated_text(texts):
    for options in ALL_OPTIONS:
        check(texts, options)
        sacre = SacreTercom(**options)
        # sacreBLEU's own tokenizer (the specification is tested against it in test_ter.py)
        assert core.ter_tokenize([t.rstrip() for t in texts], **options) == \
            [sacre(t.rstrip()) for t in texts], options


def test_every_code_point_in_every_rule_context():
    """Each code point of the BMP (lone surrogates included) and every 61st beyond it,
    beside digits, periods, commas, dashes, quotes, spaces and CJK, in lines of 128
    code points, under each code path's options."""
    code_points = [*range(0x10000), *range(0x10000, sys.maxunicode + 1, 61)]
    texts = []
    for start in range(0, len(code_points), 128):
        chars = [chr(c) for c in code_points[start:start + 128]]
        texts.append("".join(f"{c}.1{c},a{c}-{c}'s {c}" for c in chars))
        texts.append("".join(f"1{c}.{c}x 中{c}。" for c in chars))
    for options in SOME_OPTIONS:
        check(texts, options)


def test_empty_and_whitespace_only_lines():
    texts = ["", " ", "\t\n", "\u3000\u2028", "\n-", "-\n", "&amp;", "'s", "\ud800 "]
    for options in ALL_OPTIONS:
        check(texts, options)


def test_errors_name_the_line():
    with pytest.raises(TypeError, match=r"lines\[1\] must be a string, got int"):
        core.ter_tokenize(["a", 1])
    with pytest.raises(TypeError, match="sequence"):
        core.ter_tokenize(3)


@needs_wmt21
@pytest.mark.parametrize("name", ["newstest2021.en-de.ref.A.de", "newstest2021.en-zh.ref.A.zh",
                                  "newstest2021.en-ja.ref.A.ja", "newstest2021.zh-en.ref.A.en",
                                  "newstest2021.en-ru.ref.A.ru"])
def test_wmt21_references_every_option(name):
    texts = (wmt21_dir() / "references" / name).read_text(encoding="utf-8").split("\n")
    for options in ALL_OPTIONS:
        check(texts, options)
