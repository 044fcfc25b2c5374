"""torchmetrics ``CHRFScore`` / ``chrf_score`` (torchmetrics 1.9): the specification.

The same n-grams as sacreBLEU's chrF (character n-grams, then chrF++'s word
n-grams with one punctuation mark split off a word), but another arithmetic
and other edge rules, all found by comparing the two on generated text:

* characters: ``sentence.strip()`` then only the ASCII space is removed
  (sacreBLEU removes every whitespace character: a tab or a no-break space
  inside a line is a character here); with ``whitespace=True`` the line is
  taken as it is, not even stripped;
* the hypothesis n-gram count is always its own count (sacreBLEU counts 0
  hypothesis n-grams of an order the reference has none of);
* the f-score of an order is ``(1 + beta^2) p r / max(beta^2 p + r, 1e-16)``
  with ``p = 0`` when the hypothesis has no n-gram (``r`` likewise), and the
  score is the *mean of the per-order f-scores* over all ``n_char_order +
  n_word_order`` orders (sacreBLEU's default averages precision and recall
  over the orders that have n-grams and takes one f-score of the averages);
* several references: the first one with the highest segment f-score wins, but
  only if that f-score is above 0; when no reference scores above 0, the
  segment adds its hypothesis n-grams and *no* reference or matched n-gram
  (sacreBLEU keeps the first reference's counts) -- an empty hypothesis, or
  one without a single matching character, does not count its reference
  toward the corpus recall;
* every number is a float32 tensor: counts are added in float32 (exact below
  2**24) and every operation of the f-score rounds to float32 (``beta**2`` is
  rounded to float32 before it multiplies); the score is a fraction in [0, 1].

The float32 arithmetic is emulated here by rounding every operation to float32
(:func:`f32`): for ``+ - * /`` on float32 values, computing in double and
rounding once is exactly float32 arithmetic, so this module gives torchmetrics'
bits without torch. ``truebleu.torchmetrics.CHRFScore`` computes the same rows
with the compiled core and the same f-score with torch.
"""

from __future__ import annotations

import struct
from collections import Counter
from typing import Optional, Sequence

from ..metrics.chrf.spec import chrf_words, word_ngrams
from ._base import Dialect, DialectScore, check_bool

EPS = 1e-16


def f32(value: float) -> float:
    """The nearest float32 of a double (ties to even), as a Python float."""
    return float(struct.unpack("f", struct.pack("f", value))[0])


def characters(sentence: str, whitespace: bool) -> str:
    """The characters torchmetrics counts: stripped, ASCII spaces removed (unless kept)."""
    return sentence if whitespace else sentence.strip().replace(" ", "")


def profile(sentence: str, n_char_order: int, n_word_order: int, lowercase: bool,
            whitespace: bool) -> list[Counter]:
    """The n-gram counters of a sentence: character orders 1..C, then word orders 1..W."""
    if lowercase:
        sentence = sentence.lower()
    chars = characters(sentence, whitespace)
    counters = [Counter(chars[i:i + n] for i in range(len(chars) - n + 1))
                for n in range(1, n_char_order + 1)]
    words = chrf_words(sentence)
    counters += [word_ngrams(words, n) for n in range(1, n_word_order + 1)]
    return counters


def pair_row(hyp: list[Counter], ref: list[Counter]) -> list[int]:
    """``[hyp n-grams, ref n-grams, matched n-grams]`` per order (the hypothesis's own count)."""
    row: list[int] = []
    for h, r in zip(hyp, ref):
        row += [sum(h.values()), sum(r.values()), sum(min(c, r[g]) for g, c in h.items() if g in r)]
    return row


def order_f_score(matches: float, hyp: float, ref: float, beta: float) -> float:
    """torchmetrics' f-score of one order, in float32."""
    precision = f32(matches / hyp) if hyp > 0 else 0.0
    recall = f32(matches / ref) if ref > 0 else 0.0
    factor = f32(beta ** 2)
    denominator = max(f32(f32(factor * precision) + recall), f32(EPS))
    return f32(f32(f32(f32(1 + beta ** 2) * precision) * recall) / denominator)


def f_score(row: Sequence[float], n_char_order: int, beta: float,
            present: Optional[Sequence[bool]] = None) -> float:
    """The chrF fraction of a row (or of summed rows), in float32, as torchmetrics computes it.

    ``present[k]`` says whether order ``k`` takes part; a sentence's f-score leaves out the
    orders its reference has no n-gram of (torchmetrics iterates over the reference's orders),
    the corpus score takes them all. The sum is over all orders either way.
    """
    orders = len(row) // 3
    sums = [0.0, 0.0]  # character orders, word orders: summed apart, then added
    for k in range(orders):
        if present is not None and not present[k]:
            continue
        hyp, ref, matches = row[3 * k:3 * k + 3]
        group = 0 if k < n_char_order else 1
        sums[group] = f32(sums[group] + order_f_score(matches, hyp, ref, beta))
    return f32(f32(sums[0] + sums[1]) / f32(float(orders)))


def segment(hypothesis: str, references: Sequence[str], n_char_order: int, n_word_order: int,
            beta: float, lowercase: bool, whitespace: bool) -> tuple[list[int], float]:
    """One segment's row and sentence score; reference and matched counts are 0 when no
    reference scores above 0."""
    hyp = profile(hypothesis, n_char_order, n_word_order, lowercase, whitespace)
    best, best_row = 0.0, None
    for reference in references:
        row = pair_row(hyp, profile(reference, n_char_order, n_word_order, lowercase, whitespace))
        score = f_score(row, n_char_order, beta, present=[r > 0 for r in row[1::3]])
        if score > best:  # NaN never wins
            best, best_row = score, row
    if best_row is None:
        best_row = [0] * (3 * len(hyp))
        best_row[0::3] = [sum(counter.values()) for counter in hyp]
    return best_row, best


class TorchmetricsChrfDialect(Dialect):
    """torchmetrics' chrF/chrF++ (``CHRFScore``); ``score`` is the fraction, ``bleu`` the
    percentage (``100 * score``); ``precisions`` holds the sentence scores."""

    name = "torchmetrics-chrf"

    def __init__(self, n_char_order: int = 6, n_word_order: int = 2, beta: float = 2.0,
                 lowercase: bool = False, whitespace: bool = False) -> None:
        super().__init__()
        if isinstance(n_char_order, bool) or not isinstance(n_char_order, int) or n_char_order < 1:
            raise ValueError("n_char_order must be an integer >= 1")
        if isinstance(n_word_order, bool) or not isinstance(n_word_order, int) or n_word_order < 0:
            raise ValueError("n_word_order must be an integer >= 0")
        if beta < 0:
            raise ValueError("beta must be >= 0")
        self.n_char_order, self.n_word_order, self.beta = n_char_order, n_word_order, beta
        self.lowercase = check_bool(lowercase, "lowercase")
        self.whitespace = check_bool(whitespace, "whitespace")

    def statistics(self, hypotheses: Sequence[str], references: Sequence[Sequence[str]]
                   ) -> tuple[list[int], list[float]]:
        """Summed rows and sentence scores (``references[i]``: the references of segment i)."""
        totals = [0] * (3 * (self.n_char_order + self.n_word_order))
        scores = []
        for hyp, refs in zip(hypotheses, references):
            row, score = segment(hyp, refs, self.n_char_order, self.n_word_order, self.beta,
                                 self.lowercase, self.whitespace)
            totals = [a + b for a, b in zip(totals, row)]
            scores.append(score)
        return totals, scores

    def _options(self) -> list[tuple[str, str]]:
        return [("nc", str(self.n_char_order)), ("nw", str(self.n_word_order)),
                ("beta", repr(self.beta)), ("case", "lc" if self.lowercase else "mixed"),
                ("space", "yes" if self.whitespace else "no"), ("float", "float32")]

    def _corpus(self, hypotheses: list[str], refs: list[list[str]]) -> DialectScore:
        totals, scores = self.statistics(hypotheses, refs)
        score = f_score([f32(v) for v in totals], self.n_char_order, self.beta)
        return DialectScore(dialect=self.name, score=score, bleu=100 * score, precisions=scores,
                            bp=1.0, sys_len=int(totals[0]), ref_len=int(totals[1]),
                            counts=totals[2::3], totals=totals[0::3])
