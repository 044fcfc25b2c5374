"""BLEU's sufficient statistics in plain Python: the specification.

This module is written to be read beside Papineni et al. (2002), section 2:

* a candidate's n-grams are counted (``ngram_counts``);
* each n-gram's count is *clipped* to the largest number of times it occurs
  in any single reference (``ReferenceInfo.max_counts``);
* the clipped counts (``matches``) and the candidate's n-gram counts
  (``totals``) are summed over the corpus, as are the candidate length ``c``
  and the *best match length* ``r``: the reference length closest to the
  candidate's, ties going to the shorter reference (sacreBLEU's rule).

The compiled core must produce exactly these numbers; tests run both.
Tokenization happens first (:func:`segment_tokens`, sacreBLEU's preprocessing);
the other functions take lists of tokens.
"""

from __future__ import annotations

from collections import Counter, namedtuple
from collections.abc import Hashable
from itertools import chain

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: importing typing costs about 16 M instructions
if TYPE_CHECKING:
    from typing import NamedTuple, Sequence

    from ...tokenizers import Tokenizer


def segment_tokens(line: str, tokenizer: "Tokenizer", lowercase: bool) -> list[str]:
    """sacreBLEU's preprocessing: lowercase, strip trailing whitespace, tokenize, split."""
    if lowercase:
        line = line.lower()
    return tokenizer(line.rstrip()).split()


#: a token: a string from a tokenizer, or a model's token id (equal ids, equal tokens)
Token = Hashable


def ngram_counts(tokens: Sequence[Token], max_order: int) -> Counter:
    """Counts of every n-gram (as a tuple of tokens), 1 <= n <= max_order.

    ``zip(tokens, tokens[1:], ...)`` walks the n-grams of one order; Counter
    counts them all (in C: this is the hot loop of the pure-Python path).
    """
    return Counter(chain.from_iterable(
        zip(*(tokens[start:] for start in range(n))) for n in range(1, max_order + 1)))


def max_reference_counts(references: Sequence[Sequence[Token]], max_order: int) -> Counter:
    """Each n-gram's largest count in any single reference: the clip counts."""
    if len(references) == 1:
        return ngram_counts(references[0], max_order)
    clip: Counter = Counter()
    for tokens in references:
        clip |= ngram_counts(tokens, max_order)  # | keeps the larger count
    return clip


def closest_ref_len(hyp_len: int, ref_lens: Sequence[int]) -> int:
    """The reference length closest to ``hyp_len``; ties go to the shorter one.

    With no references at all (every reference of the segment missing) the
    length is -1, as in sacreBLEU.
    """
    best = -1
    for ref_len in ref_lens:
        if best == -1:
            best = ref_len
            continue
        diff, best_diff = abs(hyp_len - ref_len), abs(hyp_len - best)
        if diff < best_diff or (diff == best_diff and ref_len < best):
            best = ref_len
    return best


#: What a segment's references contribute: clip counts and lengths (for the type checker,
#: typing's NamedTuple; at run time the same tuple without importing typing).
if TYPE_CHECKING:
    class ReferenceInfo(NamedTuple):
        max_counts: dict
        lengths: list[int]
else:
    ReferenceInfo = namedtuple("ReferenceInfo", ["max_counts", "lengths"])


def reference_info(references: Sequence[Sequence[Token]], max_order: int) -> ReferenceInfo:
    """Clip counts (max over references of each n-gram's count) and lengths."""
    return ReferenceInfo(max_reference_counts(references, max_order),
                         [len(tokens) for tokens in references])


def segment_row(hypothesis: Sequence[Token], refs: ReferenceInfo, max_order: int) -> list[int]:
    """One statistics row: [c, r, matches_1..N, totals_1..N]."""
    matches = [0] * max_order
    totals = [0] * max_order
    max_counts = refs.max_counts
    for ngram, count in ngram_counts(hypothesis, max_order).items():
        n = len(ngram) - 1
        totals[n] += count
        clip = max_counts.get(ngram)
        if clip:
            matches[n] += min(count, clip)
    hyp_len = len(hypothesis)
    return [hyp_len, closest_ref_len(hyp_len, refs.lengths), *matches, *totals]
