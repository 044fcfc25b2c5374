"""tensorflow/nmt ``compute_bleu``, which HuggingFace ``evaluate``'s ``bleu`` runs.

* tokens: ``evaluate`` applies sacreBLEU's 13a tokenizer (no lowercasing); the
  original tf/nmt scripts split on whitespace -- option ``tokenize``;
* the reference length is the *shortest* reference of each segment;
* n-gram counts are clipped by the maximum over the references;
* ``smooth=True`` adds one to the matches and the totals of *every* order,
  unigrams included; without smoothing any order with no match gives 0;
* the geometric mean is ``exp(sum(w * log p))`` with Python's built-in ``sum``
  (whose rounding changed in Python 3.12: the result follows the interpreter);
* BP is 1 when the length ratio exceeds 1, else ``exp(1 - 1/ratio)``;
* an empty hypothesis corpus or an empty reference corpus raises (division by
  zero in the tool).
"""

from __future__ import annotations

import math
from collections import Counter
from typing import Sequence

from ..metrics.bleu.spec import max_reference_counts, ngram_counts
from ..tokenizers import get_tokenizer
from ._base import Dialect, DialectScore, ToolError, check_bool, references_key
from .core_counts import (
    CORE_TOKENIZERS,
    flat_lines,
    rstrip_is_harmless,
    shortest_length_counts,
    within_core_order,
)


def compute_bleu(reference_corpus: Sequence[Sequence[Sequence[str]]],
                 translation_corpus: Sequence[Sequence[str]], max_order: int = 4,
                 smooth: bool = False) -> tuple:
    """tf/nmt's function on token lists: ``(bleu, precisions, bp, ratio, hyp_len, ref_len)``.

    ``reference_corpus[i]`` holds the tokenized references of segment ``i``.
    """
    if not isinstance(max_order, int) or max_order < 1:
        raise ValueError(f"max_order must be a positive integer, got {max_order!r}")
    prepared = [_clip_counts([tuple(r) for r in refs], max_order) for refs in reference_corpus]
    return score_counts(_count(translation_corpus, prepared, max_order), max_order, smooth)


def _clip_counts(token_lists: list, max_order: int) -> tuple[int, Counter]:
    if not token_lists:
        raise ToolError("tf/nmt compute_bleu needs at least one reference per segment")
    merged = max_reference_counts(token_lists, max_order)
    return min(len(tokens) for tokens in token_lists), merged


def _count(translations, prepared, max_order: int) -> tuple:
    matches = [0] * max_order
    possible = [0] * max_order
    ref_len = hyp_len = 0
    for tokens, (shortest, merged) in zip(translations, prepared):
        tokens = tuple(tokens)
        ref_len += shortest
        hyp_len += len(tokens)
        counts = ngram_counts(tokens, max_order)
        for ngram in counts.keys() & merged.keys():
            matches[len(ngram) - 1] += min(counts[ngram], merged[ngram])
        for order in range(1, max_order + 1):
            if len(tokens) - order + 1 > 0:
                possible[order - 1] += len(tokens) - order + 1
    return matches, possible, hyp_len, ref_len


def score_counts(counts: tuple, max_order: int, smooth: bool) -> tuple:
    """tf/nmt's score of corpus counts ``(matches, possible, hyp_len, ref_len)``
    (per-order lists, then the two lengths): ``compute_bleu``'s tuple, in its arithmetic.

    Any counts with the same sums give the same score, wherever they were
    counted (here, or in the compiled core: :mod:`truebleu.hf`).
    """
    matches, possible, hyp_len, ref_len = counts
    precisions = [0.0] * max_order
    for i in range(max_order):
        if smooth:
            precisions[i] = (matches[i] + 1.) / (possible[i] + 1.)
        elif possible[i] > 0:
            precisions[i] = float(matches[i]) / possible[i]
    if min(precisions) > 0:
        geo_mean = math.exp(sum((1. / max_order) * math.log(p) for p in precisions))
    else:
        geo_mean = 0
    if ref_len == 0 or hyp_len == 0:
        raise ToolError("tf/nmt compute_bleu divides by zero: empty "
                        + ("references" if ref_len == 0 else "hypotheses"))
    ratio = float(hyp_len) / ref_len
    bp = 1. if ratio > 1.0 else math.exp(1 - 1. / ratio)
    return geo_mean * bp, precisions, bp, ratio, hyp_len, ref_len


class TfNmtDialect(Dialect):
    """tensorflow/nmt ``compute_bleu`` (and ``evaluate``'s ``bleu``) on text lines."""

    name = "tf-nmt"

    def __init__(self, max_order: int = 4, smooth: bool = False, tokenize: str = "13a") -> None:
        super().__init__()
        if not isinstance(max_order, int) or isinstance(max_order, bool) or max_order < 1:
            raise ValueError(f"max_order must be a positive integer, got {max_order!r}")
        self.max_order = max_order
        self.smooth = check_bool(smooth, "smooth")
        if tokenize == "whitespace":
            self._tokenizer = None
        else:
            self._tokenizer = get_tokenizer(tokenize)
        self.tokenize_name = tokenize

    def _options(self):
        return [("tok", self.tokenize_name), ("order", str(self.max_order)),
                ("smooth", "add-one" if self.smooth else "none"), ("reflen", "shortest")]

    def tokenize(self, line: str) -> tuple[str, ...]:
        if self._tokenizer is None:
            return tuple(line.split())
        return tuple(self._tokenizer(line).split())

    def _prepare(self, refs):
        key = ("tf-nmt", self.tokenize_name, self.max_order, references_key(refs))
        return self._prepared.get(key, lambda: [
            _clip_counts([self.tokenize(ref) for ref in seg_refs], self.max_order)
            for seg_refs in refs])

    def _corpus(self, hypotheses, refs):
        key = ("tf-nmt-stats", self.tokenize_name, self.max_order, tuple(hypotheses),
               references_key(refs))
        counts = self._sums.get(key, lambda: self.counts(hypotheses, refs))
        bleu, precisions, bp, ratio, hyp_len, ref_len = score_counts(counts, self.max_order,
                                                                     self.smooth)
        return DialectScore(
            dialect=self.name, score=bleu, bleu=100 * bleu, precisions=precisions, bp=bp,
            sys_len=hyp_len, ref_len=ref_len, counts=list(counts[0]), totals=list(counts[1]))

    def counts(self, hypotheses: list[str], refs: list[list[str]]) -> tuple:
        """``(matches, possible, hyp_len, ref_len)``: from the core where its tokens are
        this dialect's, else :meth:`python_counts`."""
        mode = "none" if self.tokenize_name == "whitespace" else self.tokenize_name
        if not (hypotheses and mode in CORE_TOKENIZERS and within_core_order(self.max_order)
                and rstrip_is_harmless(mode, hypotheses)
                and rstrip_is_harmless(mode, flat_lines(refs))):
            return self.python_counts(hypotheses, refs)
        return shortest_length_counts(self._prepared, hypotheses, refs, mode, self.max_order)

    def python_counts(self, hypotheses: list[str], refs: list[list[str]]) -> tuple:
        """The counts as tf/nmt makes them, on this dialect's tokens (the specification)."""
        return _count((self.tokenize(hyp) for hyp in hypotheses), self._prepare(refs),
                      self.max_order)
