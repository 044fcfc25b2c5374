"""Perl's text semantics, where the Perl tools' numbers depend on them.

* ``\\s`` on decoded (UTF-8 flagged) strings is Perl's whitespace set, which is
  not Python's: U+001C..U+001F and U+180E are not whitespace to Perl.
  On undecoded bytes (multi-bleu.perl reads bytes) only ASCII whitespace counts.
* ``lc`` maps each character on its own (no Greek final-sigma rule, unlike
  Python's ``str.lower``); ``tr/[A-Z]/[a-z]/`` touches ASCII letters only.
* The mteval-v13a punctuation rules and the v12/v14 "international" rules,
  applied with Perl's left-to-right, non-overlapping ``s///g``.
"""

from __future__ import annotations

import re
from collections import Counter
from functools import lru_cache
from itertools import chain
from typing import Any, Iterable, Sequence

# Perl \s under Unicode rules (Perl >= 5.18: includes \x0b)
PERL_SPACE = "\t\n\x0b\x0c\r \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000"
PERL_SPACE_RUN = re.compile(f"[{PERL_SPACE}]+")
# Perl \s on byte strings (no Unicode rules): ASCII whitespace only
BYTE_SPACE_RUN = re.compile("[\t\n\x0b\x0c\r ]+")

# mteval-v13a's four rules (the same as sacreBLEU's 13a; written out here so the
# Perl whitespace set, not Python's, decides where tokens end). The first rule
# pads single ASCII symbols, which str.translate does exactly and much faster.
_SYMBOLS = "{|}~[\\]^_` !\"#$%&()*+:;<=>?@/"
_PAD_SYMBOLS = str.maketrans({char: f" {char} " for char in _SYMBOLS})
_RULES_13A = (
    (re.compile(r"([^0-9])([\.,])"), r"\1 \2 "),
    (re.compile(r"([\.,])([^0-9])"), r" \1 \2"),
    (re.compile(r"([0-9])(-)"), r"\1 \2 "),
)


@lru_cache(maxsize=None)
def _intl_rules() -> tuple[tuple[tuple[Any, str], ...], Any]:
    """The international rules and the split after them, compiled on first use: the
    ``regex`` module is imported only by those who tokenize that way (its import and these
    patterns were about 50 M instructions of the mteval command's start-up, callgrind)."""
    import regex

    rules = (
        (regex.compile(r"(\P{N})(\p{P})"), r"\1 \2 "),
        (regex.compile(r"(\p{P})(\P{N})"), r" \1 \2"),
        (regex.compile(r"(\p{S})"), r" \1 "),
    )
    # after the international rules mteval squeezes \p{Z}+, then splits on \s+
    return rules, regex.compile(r"[\p{Z}\t\n\x0b\x0c\r\x85]+")


def split_perl(text: str) -> list[str]:
    """Perl's ``split /\\s+/`` on a decoded string, leading empty field dropped."""
    return [tok for tok in PERL_SPACE_RUN.split(text) if tok]


# the characters Python's str.split() and str.isspace() take for whitespace that Perl
# does not: otherwise the two sets are the same (the tests check every code point)
PYTHON_ONLY_SPACES = ("\x1c", "\x1d", "\x1e", "\x1f")


def squeeze_perl_spaces(text: str) -> str:
    """Perl's ``s/\\s+/ /g`` on a decoded string: ``PERL_SPACE_RUN.sub(" ", text)``.

    On text without :data:`PYTHON_ONLY_SPACES`, ``str.split()`` splits on exactly Perl's
    whitespace, so joining its words with one space is the substitution but for the
    ends (a run there becomes one space too); several times faster than the regular
    expression on long text.
    """
    if any(char in text for char in PYTHON_ONLY_SPACES):
        return PERL_SPACE_RUN.sub(" ", text)
    words = text.split()
    if not words:
        return " " if text else ""
    return ((" " if text[0].isspace() else "") + " ".join(words)
            + (" " if text[-1].isspace() else ""))


def split_bytes_awk(text: str) -> list[str]:
    """Perl's ``split`` (awk mode) on an undecoded line: ASCII whitespace only.

    UTF-8 never puts an ASCII byte inside a multi-byte character, so splitting
    the decoded text on ASCII whitespace gives the same tokens as the bytes.
    """
    return [tok for tok in BYTE_SPACE_RUN.split(text) if tok]


def ascii_lower(text: str) -> str:
    """``tr/[A-Z]/[a-z]/``; also Perl's ``lc`` on an undecoded byte string."""
    if text.isascii():  # str.lower changes A-Z alone there, and faster than translate
        return text.lower()
    # bytes.lower changes the bytes A-Z alone, and UTF-8 puts no ASCII byte inside a
    # longer character ("surrogatepass": lone surrogates go there and back unchanged);
    # much faster than str.translate
    return text.encode("utf-8", "surrogatepass").lower().decode("utf-8", "surrogatepass")


def perl_lc(text: str) -> str:
    """Perl's ``lc`` on a decoded string: per-character full lowercase mapping."""
    if text.isascii():
        return text.lower()
    if "\u03a3" not in text:  # only capital sigma is context-dependent in Python
        return text.lower()
    return "".join(char.lower() for char in text)


def unescape_mteval(text: str, apos: bool = False) -> str:
    """mteval's entity replacement, in its order (``&apos;`` in the v12+ rules only)."""
    if "&" in text:
        text = (text.replace("&quot;", '"').replace("&amp;", "&")
                .replace("&lt;", "<").replace("&gt;", ">"))
        if apos:
            text = text.replace("&apos;", "'")
    return text


def rules_13a(text: str) -> str:
    """The four v13a punctuation rules on a padded line (no whitespace squeeze)."""
    text = text.translate(_PAD_SYMBOLS)
    for pattern, replacement in _RULES_13A:
        text = pattern.sub(replacement, text)
    return text


def before_rules_13a(text: str, lowercase: bool) -> str:
    """mteval-v13a's ``tokenization`` up to its punctuation rules: ``<skipped>`` and
    line breaks out, entities un-escaped, ASCII letters lowercased if asked."""
    text = text.replace("<skipped>", "").replace("-\n", "").replace("\n", " ")
    text = f" {unescape_mteval(text)} "
    return ascii_lower(text) if lowercase else text


@lru_cache(maxsize=2**17)
def tokenize_13a_perl(text: str, lowercase: bool) -> tuple[str, ...]:
    """mteval-v13a's ``tokenization`` (also multi-bleu-detok's, without lowercasing), split."""
    return tuple(split_perl(rules_13a(before_rules_13a(text, lowercase))))


@lru_cache(maxsize=2**17)
def tokenize_intl_perl(text: str, lowercase: bool) -> tuple[str, ...]:
    """mteval's ``tokenization_international`` (v13a and v14), split."""
    text = text.replace("<skipped>", "").replace("\u2028", " ")
    text = unescape_mteval(text, apos=True)
    if lowercase:
        text = perl_lc(text)
    rules, split = _intl_rules()
    for pattern, replacement in rules:
        text = pattern.sub(replacement, text)
    return tuple(tok for tok in split.split(text) if tok)


def ngram_counts_many(token_lists: Iterable[Sequence[str]], max_order: int) -> Counter:
    """n-gram counts summed over many token lists."""
    return Counter(chain.from_iterable(
        zip(*(tokens[i:] for i in range(n)))
        for tokens in token_lists for n in range(1, max_order + 1)))
