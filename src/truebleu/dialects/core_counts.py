"""The compiled core's clipped n-gram counts, for the dialects that count as sacreBLEU does.

Most tools clip each hypothesis n-gram by its largest count in any reference and
count ``max(0, len - n + 1)`` n-grams of order n: sacreBLEU's statistics, which
the core computes (through :class:`truebleu.BLEU`, so with the Python kernel when
the core is not built). Where a dialect's tokens are provably those of one of the
core's tokenizers on its input, it takes the per-segment rows from here and keeps
only its own arithmetic (length rule, smoothing, rounding); otherwise it counts in
Python, its specification (the modules' ``*_python`` paths, which the tests
compare with this one).

A row is ``[hyp_len, ref_len, matches_1 .. matches_N, totals_1 .. totals_N]``
with ``ref_len`` the closest reference length, ties to the shorter.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from itertools import accumulate, chain
from typing import Optional, Sequence

from ..core.kernels import native_core
from ..metrics.bleu.config import MAX_ORDER_LIMIT
from ..metrics.bleu.metric import BLEU
from ..metrics.bleu.statistics import Statistics
from ._base import PreparedCache, references_key
from ._perl import before_rules_13a, tokenize_13a_perl

#: the core's tokenizers (the names its BLEU takes) that a dialect may hand lines to
CORE_TOKENIZERS = ("none", "13a", "intl", "zh", "char")

# characters str.split() takes for whitespace (and so the core's "none") that are
# not ASCII whitespace, which is all byte-reading Perl splits on
UNICODE_ONLY_SPACES = ("\x1c\x1d\x1e\x1f\x85\xa0\u1680" + "".join(map(chr, range(0x2000, 0x200b)))
                       + "\u2028\u2029\u202f\u205f\u3000")
_ESCAPE = "\ue000"  # private use: not whitespace to anyone


class SpaceHider:
    """Makes chosen whitespace characters ordinary letters, keeping tokens apart.

    Each hidden character becomes ``_ESCAPE`` + a private-use character of its own
    and ``_ESCAPE`` itself becomes two of it: a prefix code, so distinct tokens stay
    distinct and equal ones equal, and the counts of a whitespace split that should
    not have split on these characters are those of the original tokens.
    """

    def __init__(self, characters: str) -> None:
        # (the escape first: replaced in this order, no replacement touches another's output)
        mapping = {_ESCAPE: _ESCAPE * 2}
        mapping.update({char: _ESCAPE + chr(0xE001 + i) for i, char in enumerate(characters)})
        self._mapping = mapping
        self._table = str.maketrans(mapping)
        self._characters = tuple(mapping)
        self._ascii_characters = tuple(char for char in mapping if char.isascii())
        self._any = re.compile("[" + "".join(map(re.escape, mapping)) + "]")

    def __call__(self, lines: Sequence[str]) -> list[str]:
        text = "".join(lines)
        # one substring scan per character (much faster than a character class)
        present = [char for char in (self._ascii_characters if text.isascii() else self._characters)
                   if char in text]
        if not present:
            return list(lines)
        if "\n" in text:  # (lines that cannot be joined by "\n" and split again: one by one)
            return [line.translate(self._table) if self._any.search(line) else line
                    for line in lines]
        # the lines joined, each character present replaced in the whole text at once (a
        # str.replace each, the escape first), split again: str.translate per line looks
        # every character up in the table, several times slower
        joined = "\n".join(lines)
        for char in present:
            joined = joined.replace(char, self._mapping[char])
        return joined.split("\n")


#: multi-bleu.perl splits bytes on ASCII whitespace: the other spaces of str.split are letters
hide_unicode_only_spaces = SpaceHider(UNICODE_ONLY_SPACES)


def flat_lines(refs: Sequence[Sequence[str]]) -> list[str]:
    """Every reference line, segment after segment."""
    return list(chain.from_iterable(refs))


def rstrip_is_harmless(tokenize: str, lines: Sequence[str]) -> bool:
    """Whether ``tokenize``'s tokens of each line are those of the line without its
    trailing whitespace (the core, as sacreBLEU, strips it first; a dialect that
    tokenizes the line as given may not).

    ``none`` splits on whitespace anyway; 13a's only use of trailing whitespace is
    dropping ``"-\\n"``, so a newline there is what counts; for the others any
    trailing whitespace sends the corpus to the Python path.
    """
    if tokenize == "none":
        return True
    if tokenize == "13a":
        if "\n" not in "".join(lines):  # the usual case, in one scan
            return True
        return not any("\n" in line[len(line.rstrip()):] for line in lines)
    return not any(line[-1:].isspace() for line in lines)


def within_core_order(max_order: int) -> bool:
    return 1 <= max_order <= MAX_ORDER_LIMIT


def core_rows(cache: PreparedCache, hypotheses: Sequence[str], refs: Sequence[Sequence[str]],
              tokenize: str, max_order: int) -> Statistics:
    """Per-segment rows of ``hypotheses`` against ``refs`` (``refs[i]``: the references
    of segment ``i``, at least one; their number may vary), lines taken as they are
    (no lowercasing). The references are prepared once per ``cache`` (the dialect
    object's): scoring several systems against them reuses the preparation.
    """
    if tokenize not in CORE_TOKENIZERS:
        raise ValueError(f"not a core tokenizer: {tokenize!r}")
    key = ("core", tokenize, max_order, references_key(refs))

    def prepare() -> BLEU:
        return BLEU(tokenize=tokenize, max_ngram_order=max_order, force=True,
                    references=reference_streams(refs))
    metric: BLEU = cache.get(key, prepare)
    table = metric.corpus_statistics(list(hypotheses), check_inputs=False)
    assert isinstance(table, Statistics)
    return table


def reference_streams(refs: Sequence[Sequence[str]]) -> list[list[Optional[str]]]:
    """Per-segment references as reference streams, ``None`` where a segment has fewer
    than the most (as truebleu's metrics and sacreBLEU read them)."""
    width = max(map(len, refs), default=1)
    return [[seg[k] if k < len(seg) else None for seg in refs] for k in range(width)]


def shortest_length_counts(cache: Optional[PreparedCache], hypotheses: Sequence[str],
                           refs: Sequence[Sequence[str]], tokenize: str, max_order: int
                           ) -> tuple[list[int], list[int], int, int]:
    """tensorflow/nmt's corpus counts ``(matches, possible, hyp_len, ref_len)``: sacreBLEU's
    clipped sums, with each segment's *shortest* reference length (the closest to an
    empty hypothesis, so a second pass of the core when some segment has several).
    Used by the ``tf-nmt`` dialect and by :mod:`truebleu.hf`'s ``bleu`` module."""
    cache = PreparedCache(2) if cache is None else cache
    sums = [int(x) for x in core_rows(cache, hypotheses, refs, tokenize, max_order).sum()]
    one_reference = set(map(len, refs)) == {1}  # then the closest is the shortest
    ref_len = sums[1] if one_reference else shortest_reference_lengths(
        cache, refs, tokenize, max_order)
    return sums[2:2 + max_order], sums[2 + max_order:], sums[0], ref_len


def shortest_reference_lengths(cache: PreparedCache, refs: Sequence[Sequence[str]],
                               tokenize: str, max_order: int) -> int:
    """The summed length of each segment's shortest reference: the closest to an empty
    hypothesis (ties to the shorter), so one more pass of the core gives it."""
    empty = [""] * len(refs)
    return int(core_rows(cache, empty, refs, tokenize, max_order).sum()[1])


def reference_lengths(cache: PreparedCache, refs: Sequence[Sequence[str]],
                      tokenize: str) -> list[list[int]]:
    """Each reference's length in tokens, per segment (one core pass per reference
    stream, kept in ``cache``): for the length rules sacreBLEU's statistics do not give."""
    def count() -> list[list[int]]:
        empty = [""] * len(refs)
        per_stream = [[int(row[1]) for row in
                       core_rows(cache, empty, [[ref] for ref in stream], tokenize, 1).rows()]
                      for stream in zip(*refs)]
        return [list(lengths) for lengths in zip(*per_stream)]
    lengths: list[list[int]] = cache.get(("lengths", tokenize, references_key(refs)), count)
    return lengths


# after mteval's own steps, what the core's 13a would still change (it un-escapes
# the four entities, in sacreBLEU's order, and drops "<skipped>" again: nothing else
# of a line with none of them) or split where Perl does not (U+001C..U+001F are
# whitespace to Python, not to Perl). Every alternative starts with a literal character:
# the regular expression engine then skips ahead on its first characters, several
# times faster than with a character class ([\x1c-\x1f]) among the alternatives.
_NOT_FOR_CORE_13A = re.compile("&(?:quot|amp|lt|gt);|<skipped>|\x1c|\x1d|\x1e|\x1f")
# what every match of _NOT_FOR_CORE_13A holds: a substring scan for each is much faster
# than the regular expression, and on most corpora finds none of them
_NOT_FOR_CORE_13A_MARKS = ("&", "<skipped>", "\x1c", "\x1d", "\x1e", "\x1f")


def core_13a_may_differ(prepared: str) -> bool:
    """False when ``_NOT_FOR_CORE_13A`` surely finds nothing in ``prepared`` (a line
    after :func:`~._perl.before_rules_13a`): none of the characters its matches hold."""
    return any(mark in prepared for mark in _NOT_FOR_CORE_13A_MARKS)


def tokenize_13a_perl_core(text: str, lowercase: bool) -> tuple[str, ...]:
    """:func:`~._perl.tokenize_13a_perl` with the punctuation rules and the split in the core.

    mteval-v13a's rules are sacreBLEU's 13a rules; what differs comes before them
    (:func:`~._perl.before_rules_13a`, applied here in Python) and in the whitespace
    of the split. A line on which the core's 13a would do more than the rules and
    Perl's split goes through the Python tokenizer, the specification.
    """
    prepared = before_rules_13a(text, lowercase)
    if core_13a_may_differ(prepared) and _NOT_FOR_CORE_13A.search(prepared):
        return tokenize_13a_perl(text, lowercase)
    try:
        core = native_core()
    except ImportError:
        return tokenize_13a_perl(text, lowercase)
    return tuple(core.tokenize(prepared, core.MODE_13A, False))


#: the token that ends each line in :func:`tokenize_13a_perl_lines` (never in a line it reads)
LINE_END = "\x00"


def tokenize_13a_perl_lines(texts: list[str], lowercase: bool) -> list[str]:
    """:func:`tokenize_13a_perl_core` of many lines, each line's tokens followed by a
    :data:`LINE_END` token (which no line may hold).

    The lines are prepared at once, joined by ``LINE_END``, and tokenized by one call
    of the core: each line is padded with spaces as mteval pads it, so ``LINE_END``
    stands alone between spaces, where no 13a rule reaches across it. A line on which
    the core would do more than Perl is tokenized alone, by the specification.
    """
    try:
        core = native_core()
    except ImportError:
        core = None
    if core is None or not texts:
        return [token for text in texts
                for token in (*tokenize_13a_perl(text, lowercase), LINE_END)]
    separator = f" {LINE_END} "

    def core_tokens(run: list[str]) -> list[str]:
        tokens: list[str] = core.tokenize(f" {separator.join(run)}{separator}", core.MODE_13A,
                                          False)
        return tokens
    prepared = before_rules_13a(LINE_END.join(texts), lowercase)  # padded once, at the ends
    pieces = prepared[1:-1].split(LINE_END)  # each line's before_rules_13a, unpadded
    # the lines the core would change: those of the matches (one scan of the text)
    starts = ([match.start() for match in _NOT_FOR_CORE_13A.finditer(prepared)]
              if core_13a_may_differ(prepared) else [])
    if not starts:
        return core_tokens(pieces)
    ends = list(accumulate(len(piece) + 1 for piece in pieces))  # after each line's LINE_END
    for_python = {bisect_right(ends, start - 1)  # (prepared has one pad space first)
                  for start in starts}
    found: list[str] = []
    run: list[str] = []
    for i, (text, piece) in enumerate(zip(texts, pieces)):
        if i in for_python:
            if run:
                found += core_tokens(run)
                run = []
            found += tokenize_13a_perl(text, lowercase)
            found.append(LINE_END)
        else:
            run.append(piece)
    if run:
        found += core_tokens(run)
    return found
