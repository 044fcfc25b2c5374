"""`zh`: every Chinese character is a token; the rest follows the 13a rules.

Which characters count as "Chinese" is a table of code-point ranges inherited
from sacreBLEU. Two of its entries are bugs kept here for exactness: the
intended ranges U+20000-U+2A6D6 (CJK Extension B) and U+2F800-U+2FA1D (CJK
Compatibility Supplement) were written as BMP escapes followed by a digit or
letter (``'\\u20000'`` is U+2000 then ``0``), and compare as strings, so what
they really select is U+2001-U+2A6D (general punctuation, arrows, mathematical
operators, technical symbols, box drawing, dingbats ...) and U+2F81-U+2FA1
(Kangxi radicals). No astral character is ever split off. ``tests/`` checks
this table against sacreBLEU for every code point.
"""

from __future__ import annotations

from functools import lru_cache

from .tokenizer_base import CACHED_LINES, Tokenizer
from .tokenizer_re import split_punctuation

# (first, last) code points, inclusive, in sacreBLEU's order.
CHINESE_RANGES = (
    (0x3400, 0x4DB5),  # CJK Unified Ideographs Extension A
    (0x4E00, 0x9FA5),  # CJK Unified Ideographs
    (0x9FA6, 0x9FBB),  # CJK Unified Ideographs, Unicode 4.1
    (0xF900, 0xFA2D),  # CJK Compatibility Ideographs
    (0xFA30, 0xFA6A),  # CJK Compatibility Ideographs, Unicode 3.2
    (0xFA70, 0xFAD9),  # CJK Compatibility Ideographs, Unicode 4.1
    (0x2001, 0x2A6D),  # meant: U+20000-U+2A6D6 (see the module docstring)
    (0x2F81, 0x2FA1),  # meant: U+2F800-U+2FA1D (see the module docstring)
    (0xFF00, 0xFFEF),  # full-width ASCII and punctuation, half-width kana, Hangul
    (0x2E80, 0x2EFF),  # CJK Radicals Supplement
    (0x3000, 0x303F),  # CJK symbols and punctuation
    (0x31C0, 0x31EF),  # CJK strokes
    (0x2F00, 0x2FDF),  # Kangxi Radicals
    (0x2FF0, 0x2FFF),  # Ideographic description characters
    (0x3100, 0x312F),  # Bopomofo
    (0x31A0, 0x31BF),  # Bopomofo extended
    (0xFE10, 0xFE1F),  # vertical forms
    (0xFE30, 0xFE4F),  # CJK compatibility forms
    (0x2600, 0x26FF),  # miscellaneous symbols
    (0x2700, 0x27BF),  # dingbats
    (0x3200, 0x32FF),  # enclosed CJK letters and months
    (0x3300, 0x33FF),  # CJK compatibility
)


@lru_cache(maxsize=CACHED_LINES)
def is_chinese_char(char: str) -> bool:
    code = ord(char)
    return any(first <= code <= last for first, last in CHINESE_RANGES)


@lru_cache(maxsize=CACHED_LINES)
def tokenize_zh(line: str) -> str:
    spaced = "".join(f" {c} " if is_chinese_char(c) else c for c in line.strip())
    return split_punctuation(spaced)


class TokenizerZh(Tokenizer):
    name = "zh"
    native_mode = "zh"

    def __call__(self, line: str) -> str:
        return tokenize_zh(line)
