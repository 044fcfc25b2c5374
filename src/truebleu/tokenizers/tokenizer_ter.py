"""`tercom`: the tokenizer of TER, as sacreBLEU 2.6.0 re-implements tercom's Normalizer.

The steps, in order (each one optional except the last):

1. lowercase (unless ``case_sensitive``);
2. ``normalized``: join lines (``-\\n`` is end-of-line hyphenation and
   disappears, ``\\n`` becomes a space), unescape four XML entities, pad the
   line with a space on each side, then the :data:`WESTERN_RULES` below;
   with ``asian_support`` also :data:`ASIAN_CHARS` become tokens of their own;
3. ``no_punct``: delete :data:`PUNCTUATION` (and, with ``asian_support``,
   :data:`ASIAN_PUNCTUATION`);
4. collapse whitespace (Python's ``str.split``).

The compiled core computes the same string in C (``_native/ter/tokenize.c``,
``ter_tokenize``), and the native TER kernel tokenizes there; this module is the
specification it is tested against.

sacreBLEU also has three rules for runs of kana anchored at the start of the
string; they run after the padding, when the string starts with a space, so
they never match and are left out here (``tests/test_ter.py`` checks kana
against sacreBLEU).
"""

from __future__ import annotations

import re
from functools import lru_cache

from .tokenizer_base import CACHED_LINES, Tokenizer

# Entities in the order they are unescaped ("&amp;quot;" becomes "&quot;", not '"').
_ENTITIES = (("&quot;", '"'), ("&amp;", "&"), ("&lt;", "<"), ("&gt;", ">"))

# Applied one after the other to the padded line.
WESTERN_RULES = (
    # ASCII symbols {|}~ [\]^_` space!"#$%& ()*+ :;<=>?@ / become tokens
    (re.compile(r"([\{-\~\[-\` -\&\(-\+\:-\@\/])"), r" \1 "),
    # possessive 's is split off (the line ends in a space, so "'s" is never last)
    (re.compile(r"'s "), r" 's "),
    (re.compile(r"'s$"), r" 's"),
    # . and , split off unless between digits
    (re.compile(r"([^0-9])([\.,])"), r"\1 \2 "),
    (re.compile(r"([\.,])([^0-9])"), r" \1 \2"),
    # a dash after a digit
    (re.compile(r"([0-9])(-)"), r"\1 \2 "),
)

# CJK punctuation and full-width punctuation (tokens with normalized, removed with no_punct).
ASIAN_PUNCTUATION = "\u3001\u3002\u3008-\u3011\u3014-\u301f\uff61-\uff65\u30fb" \
                    "\uff0e\uff0c\uff1f\uff1a\uff1b\uff01\uff02\uff08\uff09"
# Characters that become tokens of their own with normalized + asian_support:
# CJK ideographs (and extension A), strokes, radicals, compatibility blocks and
# forms, U+3200-U+3F22 (enclosed CJK letters ... as sacreBLEU writes the range),
# and the punctuation above.
ASIAN_CHARS = re.compile(
    "([\u4e00-\u9fff\u3400-\u4dbf\u31c0-\u31ef\u2e80-\u2eff\u3300-\u33ff\uf900-\ufaff"
    "\ufe30-\ufe4f\u3200-\u3f22" + ASIAN_PUNCTUATION + "])")

PUNCTUATION = '.,?:;!"()'
_DELETE_PUNCTUATION = str.maketrans("", "", PUNCTUATION)
_ASIAN_PUNCTUATION_SET = re.compile("[" + ASIAN_PUNCTUATION + "]")


def normalize_general_and_western(line: str) -> str:
    """Join lines, unescape entities, pad, and split Western punctuation."""
    line = line.replace("\n-", "").replace("\n", " ")
    for entity, char in _ENTITIES:
        line = line.replace(entity, char)
    line = f" {line} "
    for pattern, replacement in WESTERN_RULES:
        line = pattern.sub(replacement, line)
    return line


def normalize_asian(line: str) -> str:
    """Surround every character of :data:`ASIAN_CHARS` by spaces."""
    return ASIAN_CHARS.sub(r" \1 ", line)


def remove_punctuation(line: str, asian_support: bool) -> str:
    line = line.translate(_DELETE_PUNCTUATION)
    if asian_support:
        line = _ASIAN_PUNCTUATION_SET.sub("", line)
    return line


@lru_cache(maxsize=CACHED_LINES)
def tokenize_tercom(line: str, normalized: bool, no_punct: bool, asian_support: bool,
                    case_sensitive: bool) -> str:
    """The tercom tokens of ``line`` under these options (the steps of the module docstring)."""
    if not line:
        return ""
    if not case_sensitive:
        line = line.lower()
    if normalized:
        line = normalize_general_and_western(line)
        if asian_support:
            line = normalize_asian(line)
    if no_punct:
        line = remove_punctuation(line, asian_support)
    return " ".join(line.split())


class TercomTokenizer(Tokenizer):
    """TER's tokenizer; its signature is ``tercom`` whatever the options.

    The options change the number: TER's signature names them separately
    (``case``, ``norm``, ``punct``, ``asian``).
    """

    name = "tercom"
    native_mode = None

    def __init__(self, normalized: bool = False, no_punct: bool = False,
                 asian_support: bool = False, case_sensitive: bool = False) -> None:
        self._normalized = bool(normalized)
        self._no_punct = bool(no_punct)
        self._asian_support = bool(asian_support)
        self._case_sensitive = bool(case_sensitive)

    def signature(self) -> str:
        return "tercom"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, TercomTokenizer) and self._options() == other._options()

    def __hash__(self) -> int:
        return hash(self._options())

    def _options(self) -> tuple[bool, bool, bool, bool]:
        return (self._normalized, self._no_punct, self._asian_support, self._case_sensitive)

    def options(self) -> dict[str, bool]:
        """The options by name (the keywords of ``__init__``, and of the compiled twin
        of this tokenizer, the core's ``ter_tokenize``)."""
        return dict(zip(("normalized", "no_punct", "asian_support", "case_sensitive"),
                        self._options()))

    def __call__(self, line: str) -> str:
        return tokenize_tercom(line, self._normalized, self._no_punct, self._asian_support,
                               self._case_sensitive)

    def __repr__(self) -> str:
        return (f"TercomTokenizer(normalized={self._normalized}, no_punct={self._no_punct}, "
                f"asian_support={self._asian_support}, case_sensitive={self._case_sensitive})")
