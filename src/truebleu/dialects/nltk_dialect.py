"""The NLTK dialect: :mod:`truebleu.nltk` on text lines."""

from __future__ import annotations

from typing import Sequence

from ..tokenizers import get_tokenizer
from . import nltk_bleu
from ._base import Dialect, DialectScore, check_bool

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
        hyps = [self.tokenize(hyp) for hyp in hypotheses]
        list_of_refs = [[self.tokenize(ref) for ref in seg] for seg in refs]
        smoother = nltk_bleu.SmoothingFunction(epsilon=self.epsilon, alpha=self.alpha, k=self.k)
        score = nltk_bleu.corpus_bleu(list_of_refs, hyps, self.weights,
                                      getattr(smoother, self.smoothing), self.auto_reweigh)
        counts, totals = [], []
        for n in range(1, len(self.weights) + 1):
            pairs = [nltk_bleu.modified_precision(r, h, n) for r, h in zip(list_of_refs, hyps)]
            counts.append(sum(p.numerator for p in pairs))
            totals.append(sum(p.denominator for p in pairs))
        sys_len = sum(len(h) for h in hyps)
        ref_len = sum(nltk_bleu.closest_ref_length(r, len(h)) for r, h in zip(list_of_refs, hyps))
        return DialectScore(
            dialect=self.name, score=score, bleu=100 * score,
            precisions=[c / t if t else 0.0 for c, t in zip(counts, totals)],
            bp=float(nltk_bleu.brevity_penalty(ref_len, sys_len)), sys_len=sys_len,
            ref_len=ref_len, counts=counts, totals=totals)
