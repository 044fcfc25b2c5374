"""A drop-in for ``nltk.translate.bleu_score`` (NLTK 3.10), without NLTK.

``from truebleu.nltk import sentence_bleu, corpus_bleu, SmoothingFunction``
gives the same floats as NLTK 3.10 under the running interpreter, quirks
included (they are listed in ``docs/dialects.md``). Inputs are token lists, as
in NLTK: ``corpus_bleu(list_of_references, hypotheses)`` with
``list_of_references[i]`` the tokenized references of hypothesis ``i``.

Precisions are exact fractions whose numerator and denominator stay as summed
(not reduced): NLTK's smoothing methods read them, so ``0/5`` smooths
differently from ``0/1``. Which comparisons see the unreduced form follows the
Python version, as in NLTK (reduced internally from Python 3.12 on).
"""

from __future__ import annotations

import fractions
import math
import sys
import warnings
from collections import Counter
from dataclasses import dataclass
from itertools import islice
from typing import Any, Callable, Optional, Sequence

__all__ = [
    "Fraction", "SmoothingFunction", "brevity_penalty", "closest_ref_length",
    "corpus_bleu", "modified_precision", "sentence_bleu",
]

_REDUCES_ALWAYS = sys.version_info >= (3, 12)  # Fraction lost `_normalize` in 3.12

DEFAULT_WEIGHTS = (0.25, 0.25, 0.25, 0.25)


class NLTKAssertionError(ValueError, AssertionError):
    """Raised where NLTK fails an ``assert``; also a ValueError, the proper type."""


class Fraction(fractions.Fraction):
    """A fraction that reports the numerator and denominator it was built from.

    With ``_normalize=False`` (what BLEU uses) ``numerator``/``denominator`` are
    the given integers, while the value, arithmetic and float conversion are
    those of the reduced fraction. Before Python 3.12 the stored form is the
    unreduced one too, so ``Fraction(0, 5, _normalize=False) == 0`` is False
    there, as in NLTK.
    """

    _as_given: Optional[tuple[Any, Any]]  # (numerator, denominator) as given; None: reduced

    def __new__(cls, numerator: Any = 0, denominator: Any = None, _normalize: bool = False):
        if _REDUCES_ALWAYS:
            self = super().__new__(cls, numerator, denominator)
        else:  # Fraction's private keyword before Python 3.12, which typeshed leaves out
            self = super().__new__(cls, numerator, denominator,  # type: ignore[call-overload]
                                   _normalize=_normalize)
        self._as_given = None if _normalize else (numerator, denominator)
        return self

    @property
    def numerator(self):
        if self._as_given is None:
            return super().numerator
        return self._as_given[0]

    @property
    def denominator(self):
        if self._as_given is None:
            return super().denominator
        return self._as_given[1]


def _ngrams(sequence: Sequence, n: int):
    """n-grams as tuples of items (``nltk.util.ngrams`` without padding)."""
    items = list(sequence)
    return zip(*(islice(items, start, None) for start in range(n)))


def modified_precision(references: Sequence[Sequence], hypothesis: Sequence, n: int) -> Fraction:
    """Clipped n-gram precision of one hypothesis, as an unreduced :class:`Fraction`.

    The denominator is at least 1: a hypothesis shorter than ``n`` gives 0/1.
    """
    counts = Counter(_ngrams(hypothesis, n)) if len(hypothesis) >= n else Counter()
    max_counts: dict = {}
    for reference in references:
        ref_counts = Counter(_ngrams(reference, n)) if len(reference) >= n else Counter()
        for ngram in counts:
            max_counts[ngram] = max(max_counts.get(ngram, 0), ref_counts[ngram])
    # no references and a non-empty hypothesis: KeyError, as in NLTK
    clipped = sum(min(count, max_counts[ngram]) for ngram, count in counts.items())
    return Fraction(clipped, max(1, sum(counts.values())), _normalize=False)


def closest_ref_length(references: Sequence[Sequence], hyp_len: int) -> int:
    """Length of the reference closest to ``hyp_len``; ties go to the shorter."""
    return min((len(reference) for reference in references),
               key=lambda length: (abs(length - hyp_len), length))


def brevity_penalty(closest_ref_len: int, hyp_len: int):
    """BP: the int 1 when the hypothesis is longer, the int 0 when it is empty."""
    if hyp_len > closest_ref_len:
        return 1
    if hyp_len == 0:
        return 0
    return math.exp(1 - closest_ref_len / hyp_len)


def sentence_bleu(references: Sequence[Sequence], hypothesis: Sequence,
                  weights=DEFAULT_WEIGHTS, smoothing_function: Optional[Callable] = None,
                  auto_reweigh: bool = False):
    """BLEU of one tokenized hypothesis: ``corpus_bleu`` on a corpus of one."""
    return corpus_bleu([references], [hypothesis], weights, smoothing_function, auto_reweigh)


def corpus_bleu(list_of_references: Sequence[Sequence[Sequence]], hypotheses: Sequence[Sequence],
                weights=DEFAULT_WEIGHTS, smoothing_function: Optional[Callable] = None,
                auto_reweigh: bool = False):
    """Corpus BLEU; a list of weight tuples gives a list of scores.

    Returns the int 0 (or a list of them) when no unigram matches.
    """
    if len(list_of_references) != len(hypotheses):
        raise NLTKAssertionError(
            f"{len(hypotheses)} hypotheses but {len(list_of_references)} lists of references")
    weights = weight_list(weights)
    counts = corpus_counts(list_of_references, hypotheses, max(len(weight) for weight in weights))
    return bleu_from_counts(counts, weights, smoothing_function, auto_reweigh)


@dataclass
class CorpusCounts:
    """What ``corpus_bleu`` sums over the corpus, and the last segment, which the
    smoothing methods read. ``numerators[n - 1]``/``denominators[n - 1]`` are the
    summed clipped matches and the summed ``max(1, count)`` of n-grams of order n."""

    numerators: list[int]
    denominators: list[int]
    hyp_lengths: int
    ref_lengths: int
    references: Any  # the last segment's references and hypothesis (None: empty corpus)
    hypothesis: Any


def weight_list(weights) -> list:
    """``weights`` as a list of weight tuples (one tuple: a list of one)."""
    try:
        weights[0][0]
    except (TypeError, IndexError):
        return [weights]
    return list(weights)


def corpus_counts(list_of_references: Sequence[Sequence[Sequence]],
                  hypotheses: Sequence[Sequence], max_order: int) -> CorpusCounts:
    """The corpus sums of :func:`modified_precision` and of the lengths, as NLTK adds them."""
    numerators = [0] * max_order
    denominators = [0] * max_order
    hyp_lengths = ref_lengths = 0
    references: Any = None
    hypothesis: Any = None
    for references, hypothesis in zip(list_of_references, hypotheses):
        for n in range(1, max_order + 1):
            precision = modified_precision(references, hypothesis, n)
            numerators[n - 1] += precision.numerator
            denominators[n - 1] += precision.denominator
        hyp_lengths += len(hypothesis)
        ref_lengths += closest_ref_length(references, len(hypothesis))
    return CorpusCounts(numerators, denominators, hyp_lengths, ref_lengths, references, hypothesis)


def bleu_from_counts(counts: CorpusCounts, weights=DEFAULT_WEIGHTS,
                     smoothing_function: Optional[Callable] = None, auto_reweigh: bool = False):
    """``corpus_bleu``'s score from its corpus sums: NLTK's arithmetic, wherever the
    sums were counted (here, or in the compiled core: :mod:`.nltk_dialect`)."""
    weights = weight_list(weights)
    max_order = max(len(weight) for weight in weights)
    hyp_lengths = counts.hyp_lengths
    bp = brevity_penalty(counts.ref_lengths, hyp_lengths)
    p_n = [Fraction(counts.numerators[n], counts.denominators[n], _normalize=False)
           for n in range(max_order)]
    if counts.numerators[0] == 0:
        return 0 if len(weights) == 1 else [0] * len(weights)

    if not smoothing_function:
        smoothing_function = SmoothingFunction().method0
    # the smoothing sees the *last* segment's references and hypothesis
    p_n = smoothing_function(p_n, references=counts.references, hypothesis=counts.hypothesis,
                             hyp_len=hyp_lengths)

    scores = []
    for weight in weights:
        if auto_reweigh and hyp_lengths < 4 and weight == DEFAULT_WEIGHTS:
            weight = (1 / hyp_lengths,) * hyp_lengths
        logs = (w * math.log(p) for w, p in zip(weight, p_n) if p > 0)
        scores.append(bp * math.exp(math.fsum(logs)))
    return scores[0] if len(weights) == 1 else scores


class SmoothingFunction:
    """Smoothing methods 0-7 of Chen and Cherry (2014) as NLTK implements them.

    Each method takes the list of precisions and returns the smoothed list
    (methods 3-7 change the given list in place, as NLTK's do).
    """

    def __init__(self, epsilon: float = 0.1, alpha: float = 5, k: float = 5) -> None:
        self.epsilon = epsilon
        self.alpha = alpha
        self.k = k

    def method0(self, p_n, *args, **kwargs):
        """No smoothing: an order without matches becomes the smallest normal float."""
        smoothed = []
        for order, p_i in enumerate(p_n, start=1):
            if p_i.numerator != 0:
                smoothed.append(p_i)
                continue
            warnings.warn(
                f"\nNo {order}-gram of the hypothesis matches: BLEU is (close to) 0 "
                "whatever the lower orders match.\nUse a lower n-gram order or a "
                "SmoothingFunction method.", stacklevel=1)  # NLTK's (the default)
            smoothed.append(sys.float_info.min)
        return smoothed

    def method1(self, p_n, *args, **kwargs):
        """Add epsilon to the numerator of orders without matches."""
        return [(p_i.numerator + self.epsilon) / p_i.denominator if p_i.numerator == 0 else p_i
                for p_i in p_n]

    def method2(self, p_n, *args, **kwargs):
        """Add one to numerator and denominator of every order but the first (Lin and Och 2004)."""
        return [p_i if i == 0 else
                Fraction(p_i.numerator + 1, p_i.denominator + 1, _normalize=False)
                for i, p_i in enumerate(p_n)]

    def method3(self, p_n, *args, **kwargs):
        """mteval's "exp" smoothing: the k-th order without matches gets 1/(2^k * total)."""
        k = 1
        for i, p_i in enumerate(p_n):
            if p_i.numerator == 0:
                p_n[i] = 1 / (2 ** k * p_i.denominator)
                k += 1
        return p_n

    def method4(self, p_n, references, hypothesis, hyp_len=None, *args, **kwargs):
        """Like method3, scaled by the log of the hypothesis length (needs length > 1)."""
        k = 1
        hyp_len = hyp_len if hyp_len else len(hypothesis)
        for i, p_i in enumerate(p_n):
            if p_i.numerator == 0 and hyp_len > 1:
                smoothed_count = 1 / (2 ** k * self.k / math.log(hyp_len))
                p_n[i] = smoothed_count / p_i.denominator
                k += 1
        return p_n

    def method5(self, p_n, references, hypothesis, hyp_len=None, *args, **kwargs):
        """Average each order with its neighbours (the order above the last is always 5)."""
        hyp_len = hyp_len if hyp_len else len(hypothesis)
        originals = p_n + [modified_precision(references, hypothesis, 5)]
        previous = p_n[0] + 1
        for i, p_i in enumerate(p_n):
            p_n[i] = (previous + p_i + originals[i + 1]) / 3
            previous = p_n[i]
        return p_n

    def method6(self, p_n, references, hypothesis, hyp_len=None, *args, **kwargs):
        """Interpolate orders >= 3 with a geometric prior (Gao and He 2013)."""
        hyp_len = hyp_len if hyp_len else len(hypothesis)
        if not p_n[2]:
            raise NLTKAssertionError("smoothing method 6 needs a non-zero trigram precision")
        for i, p_i in enumerate(p_n):
            if i < 2:
                continue
            prior = 0 if p_n[i - 2] == 0 else p_n[i - 1] ** 2 / p_n[i - 2]
            matched = p_i.numerator
            count = max(0, len(hypothesis) - i)
            p_n[i] = (matched + self.alpha * prior) / (count + self.alpha)
        return p_n

    def method7(self, p_n, references, hypothesis, hyp_len=None, *args, **kwargs):
        """method4, then method5."""
        hyp_len = hyp_len if hyp_len else len(hypothesis)
        p_n = self.method4(p_n, references, hypothesis, hyp_len)
        return self.method5(p_n, references, hypothesis, hyp_len)
