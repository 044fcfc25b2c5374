"""Which characters (and, for chrF++, which words) of one hypothesis chrF counted as matches.

:meth:`CHRF.sentence_matches <truebleu.metrics.chrf.metric.CHRF.sentence_matches>`
returns, for each order of the statistics row (character n-grams 1..``char_order``,
then word n-grams 1..``word_order``), the n-grams the hypothesis shares with its best
reference (the one chrF counts: the highest sentence f-score, the first on ties), each
with its clipped count and where it stands in the hypothesis and in that reference.

The n-grams and counts are those of :mod:`.spec` (the statistics themselves), so per
order the counts add up to the row's matched count, and the hypothesis and reference
n-gram counts are the row's. Where they stand is this module's addition: spans
``(start, end)`` of code points in the text *as given* (before lowercasing, with its
whitespace). A character n-gram read with the whitespace removed (chrF's default) may
run across words; its span then covers the whitespace between, which did not count.
An n-gram matched ``k`` times marks its first ``k`` occurrences on each side, as a
reader scanning from the left would pair them.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Sequence, Union

from . import spec
from .config import ChrfConfig

__all__ = ["ChrfMatches", "MatchedNgram", "OrderMatches", "sentence_matches"]

Span = tuple[int, int]


@dataclass(frozen=True)
class MatchedNgram:
    """One n-gram of the hypothesis that the best reference also has."""

    ngram: str    # characters as read (lowercased if the metric lowercases); words space-joined
    count: int    # clipped: min(occurrences in the hypothesis, in the reference)
    hypothesis_spans: tuple[Span, ...]  # the first ``count`` occurrences
    reference_spans: tuple[Span, ...]


@dataclass(frozen=True)
class OrderMatches:
    """One order of the statistics row, with its matched n-grams."""

    kind: str              # "character" or "word"
    n: int
    hypothesis_count: int  # the row's numbers: 0 when the reference has no n-gram of the order
    reference_count: int
    matches: int           # the sum of the n-grams' counts
    ngrams: tuple[MatchedNgram, ...] = field(default=())  # in order of first use in the hypothesis


@dataclass(frozen=True)
class ChrfMatches:
    """The matches of one hypothesis against its best reference, order by order."""

    hypothesis: str
    references: tuple[str, ...]
    best_reference: int
    orders: tuple[OrderMatches, ...]

    @property
    def statistics(self) -> list[int]:
        """The statistics row the matches add up to: ``[hyp, ref, matched]`` per order."""
        return [value for order in self.orders
                for value in (order.hypothesis_count, order.reference_count, order.matches)]


def _read(text: str, config: ChrfConfig) -> tuple[str, list[int]]:
    """The preprocessed ``text`` chrF reads, and the position in ``text`` each of its
    characters comes from (lowercasing may turn one code point into several)."""
    origin = [position for position, char in enumerate(text)
              for _ in config.preprocess(char)]
    line = config.preprocess(text)
    if len(line) != len(origin):  # never seen: a case mapping that depends on context
        raise ValueError(f"cannot place the characters of {text!r} after preprocessing")
    return line, origin


def _characters(line: str, origin: list[int], config: ChrfConfig) -> tuple[str, list[int]]:
    """The characters of character n-grams (whitespace removed unless kept: what
    ``"".join(line.split())`` keeps, str.split's whitespace) and their positions."""
    if config.whitespace:
        return line, origin
    kept = [k for k, char in enumerate(line) if not char.isspace()]
    return "".join(line[k] for k in kept), [origin[k] for k in kept]


def _words(line: str, origin: list[int]) -> list[tuple[str, Span]]:
    """:func:`.spec.chrf_words` of the preprocessed ``line``, each word with its span in
    the text as given."""
    words: list[tuple[str, Span]] = []
    position, end = 0, len(line)

    def piece(word: str, start: int, stop: int) -> tuple[str, Span]:
        return word, (origin[start], origin[stop - 1] + 1)

    while position < end:
        if line[position].isspace():
            position += 1
            continue
        start = position
        while position < end and not line[position].isspace():
            position += 1
        word = line[start:position]
        if len(word) > 1 and word[-1] in spec.PUNCTUATION:
            words += [piece(word[:-1], start, position - 1),
                      piece(word[-1], position - 1, position)]
        elif len(word) > 1 and word[0] in spec.PUNCTUATION:
            words += [piece(word[0], start, start + 1), piece(word[1:], start + 1, position)]
        else:
            words.append(piece(word, start, position))
    return words


def _occurrences(text: str, config: ChrfConfig) -> list[dict[Any, list[Span]]]:
    """Per order, each n-gram (as :func:`.spec.ngram_profile` keys it) with its spans in
    ``text``, in order of occurrence."""
    line, origin = _read(text, config)
    chars, positions = _characters(line, origin, config)
    orders: list[dict[Any, list[Span]]] = []
    for n in range(1, config.char_order + 1):
        spans: dict[Any, list[Span]] = {}
        for k in range(len(chars) - n + 1):
            spans.setdefault(chars[k:k + n], []).append((positions[k], positions[k + n - 1] + 1))
        orders.append(spans)
    if config.word_order:
        words = _words(line, origin)
        for n in range(1, config.word_order + 1):
            spans = {}
            for k in range(len(words) - n + 1):
                gram = tuple(word for word, _ in words[k:k + n])
                spans.setdefault(gram, []).append((words[k][1][0], words[k + n - 1][1][1]))
            orders.append(spans)
    return orders


def _shown(ngram: Union[str, tuple[str, ...]]) -> str:
    return " ".join(ngram) if isinstance(ngram, tuple) else ngram


def sentence_matches(hypothesis: str, references: Sequence[str],
                     config: ChrfConfig) -> ChrfMatches:
    """The matched n-grams of ``hypothesis`` against its best reference (of one or more
    ``references``), per order."""
    hyp_profile = spec.ngram_profile(config.preprocess(hypothesis), config.char_order,
                                     config.word_order, config.whitespace)
    ref_profiles = [spec.ngram_profile(config.preprocess(ref), config.char_order,
                                       config.word_order, config.whitespace)
                    for ref in references]
    best, row = spec.best_reference(hyp_profile, ref_profiles, config.beta,
                                    config.eps_smoothing)
    hyp_spans = _occurrences(hypothesis, config)
    ref_spans = _occurrences(references[best], config)
    orders = []
    for k, hyp_ngrams in enumerate(hyp_profile):
        ref_ngrams: Counter[Any] = ref_profiles[best][k]
        matched = tuple(
            MatchedNgram(_shown(gram), count, tuple(hyp_spans[k][gram][:count]),
                         tuple(ref_spans[k][gram][:count]))
            for gram, count in ((g, min(c, ref_ngrams[g])) for g, c in hyp_ngrams.items())
            if count > 0)
        kind, n = (("character", k + 1) if k < config.char_order
                   else ("word", k + 1 - config.char_order))
        n_hyp, n_ref, n_match = row[3 * k:3 * k + 3]
        orders.append(OrderMatches(kind, n, n_hyp, n_ref, n_match, matched))
    return ChrfMatches(hypothesis, tuple(references), best, tuple(orders))
