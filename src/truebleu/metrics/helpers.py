"""``sacrebleu.metrics.helpers`` for truebleu: n-gram extraction with sacreBLEU's semantics.

Convenience functions for code written against sacreBLEU; truebleu's own
metrics count n-grams in :mod:`truebleu._reference_chrf` and the compiled core.
"""

from __future__ import annotations

from collections import Counter

from .chrf.spec import char_ngrams

__all__ = ["extract_all_char_ngrams", "extract_all_word_ngrams", "extract_char_ngrams",
           "extract_word_ngrams"]


def extract_all_word_ngrams(line: str, min_order: int, max_order: int
                            ) -> tuple[Counter[tuple[str, ...]], int]:
    """Counter of all word n-grams (tuples) with ``min_order <= n <= max_order``, and the word count."""
    tokens = line.split()
    ngrams: Counter[tuple[str, ...]] = Counter()
    for n in range(min_order, max_order + 1):
        ngrams.update(tuple(tokens[i:i + n]) for i in range(len(tokens) - n + 1))
    return ngrams, len(tokens)


def extract_word_ngrams(tokens: list[str], n: int) -> Counter:
    """Counter of the word n-grams of order ``n`` of ``tokens``, as space-joined strings."""
    return Counter(" ".join(tokens[i:i + n]) for i in range(len(tokens) - n + 1))


def extract_char_ngrams(line: str, n: int, include_whitespace: bool = False) -> Counter:
    """Counter of the character n-grams of order ``n`` (whitespace removed unless included)."""
    if not include_whitespace:
        line = "".join(line.split())
    return Counter(line[i:i + n] for i in range(len(line) - n + 1))


def extract_all_char_ngrams(line: str, max_order: int,
                            include_whitespace: bool = False) -> list[Counter]:
    """Counters of the character n-grams of orders 1..``max_order``."""
    return char_ngrams(line, max_order, include_whitespace)
