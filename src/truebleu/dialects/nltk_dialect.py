"""The NLTK dialect: :mod:`truebleu.nltk` on text lines."""

from __future__ import annotations

from collections import Counter
from typing import Sequence

from ..tokenizers import get_tokenizer
from . import nltk_bleu
from ._base import Dialect, DialectScore, check_bool
from .core_counts import CORE_TOKENIZERS, core_rows, flat_lines, rstrip_is_harmless, within_core_order

SMOOTHING_METHODS = tuple(f"method{i}" for i in range(8))


class NltkDialect(Dialect):
    """``nltk.translate.bleu_score.corpus_bleu`` / ``sentence_bleu`` on text lines.

    Lines become tokens with ``str.split()`` (``tokenize="whitespace"``, what
    most NLTK users do) or with a truebleu tokenizer by name. ``smoothing`` is
    the name of a :class:`~truebleu.nltk.SmoothingFunction` method, built with
    ``epsilon``, ``alpha`` and ``k``.
    """

    name = "nltk"

    def __init__(self, weights: Sequence[float] = nltk_bleu.DEFAULT_WEIGHTS,
                 smoothing: str = "method0", auto_reweigh: bool = False,
                 epsilon: float = 0.1, alpha: float = 5, k: float = 5,
                 tokenize: str = "whitespace") -> None:
        super().__init__()
        if smoothing not in SMOOTHING_METHODS:
            raise ValueError(f"smoothing must be one of {', '.join(SMOOTHING_METHODS)}, "
                             f"got {smoothing!r}")
        weights = tuple(weights)
        if not weights or not all(isinstance(w, (int, float)) and not isinstance(w, bool)
                                  for w in weights):
            raise ValueError(f"weights must be a non-empty sequence of numbers, got {weights!r}")
        self.weights = weights
        self.smoothing = smoothing
        self.auto_reweigh = check_bool(auto_reweigh, "auto_reweigh")
        self.epsilon, self.alpha, self.k = epsilon, alpha, k
        self.tokenize_name = tokenize
        self._tokenizer = None if tokenize == "whitespace" else get_tokenizer(tokenize)

    def _options(self):
        smooth = self.smoothing
        if smooth == "method1":
            smooth += f"[epsilon={self.epsilon}]"
        elif smooth in ("method4", "method7"):
            smooth += f"[k={self.k}]"
        elif smooth == "method6":
            smooth += f"[alpha={self.alpha}]"
        return [("tok", self.tokenize_name), ("weights", ",".join(repr(w) for w in self.weights)),
                ("smooth", smooth), ("auto_reweigh", "yes" if self.auto_reweigh else "no")]

    def tokenize(self, line: str) -> list[str]:
        if self._tokenizer is None:
            return line.split()
        return self._tokenizer(line).split()

    def _corpus(self, hypotheses, refs):
        counts = self.counts(hypotheses, refs)
        smoother = nltk_bleu.SmoothingFunction(epsilon=self.epsilon, alpha=self.alpha, k=self.k)
        score = nltk_bleu.bleu_from_counts(counts, self.weights, getattr(smoother, self.smoothing),
                                           self.auto_reweigh)
        sys_len, ref_len = counts.hyp_lengths, counts.ref_lengths
        return DialectScore(
            dialect=self.name, score=score, bleu=100 * score,
            precisions=[c / t if t else 0.0 for c, t in zip(counts.numerators, counts.denominators)],
            bp=float(nltk_bleu.brevity_penalty(ref_len, sys_len)), sys_len=sys_len,
            ref_len=ref_len, counts=counts.numerators, totals=counts.denominators)

    def counts(self, hypotheses: list[str], refs: list[list[str]]) -> nltk_bleu.CorpusCounts:
        """NLTK's corpus sums: from the core where its tokens are this dialect's, else
        :meth:`python_counts`.

        NLTK clips as sacreBLEU does and takes the closest reference length, ties to the
        shorter; only its denominators differ: a hypothesis shorter than ``n`` counts 1
        n-gram of order ``n``, not 0 (``max(1, ...)`` in ``modified_precision``). The
        smoothing methods read the last segment, which is tokenized here.
        """
        mode = "none" if self.tokenize_name == "whitespace" else self.tokenize_name
        order = len(self.weights)
        if not (hypotheses and mode in CORE_TOKENIZERS and within_core_order(order)
                and rstrip_is_harmless(mode, hypotheses)
                and rstrip_is_harmless(mode, flat_lines(refs))):
            return self.python_counts(hypotheses, refs)
        rows = core_rows(self._prepared, hypotheses, refs, mode, order)
        sums = [int(x) for x in rows.sum()]
        # per order n (from 0), the segments whose hypothesis has at most n tokens
        hyp_lengths = Counter(map(int, rows.data[0::rows.width]))
        short = [sum(segments for length, segments in hyp_lengths.items() if length <= n)
                 for n in range(order)]
        denominators = [total + extra for total, extra in zip(sums[2 + order:], short)]
        return nltk_bleu.CorpusCounts(
            sums[2:2 + order], denominators, sums[0], sums[1],
            [self.tokenize(ref) for ref in refs[-1]], self.tokenize(hypotheses[-1]))

    def python_counts(self, hypotheses: list[str], refs: list[list[str]]
                      ) -> nltk_bleu.CorpusCounts:
        """The sums as NLTK makes them, on this dialect's tokens (the specification)."""
        return nltk_bleu.corpus_counts([[self.tokenize(ref) for ref in seg] for seg in refs],
                                       [self.tokenize(hyp) for hyp in hypotheses],
                                       len(self.weights))
