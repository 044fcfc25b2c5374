"""``sacrebleu.metrics.base`` for truebleu: the shared ``Score``, ``Signature`` and ``Metric``.

Thin on purpose. :class:`Score` is the base of the chrF (and TER) scores and
formats them as sacreBLEU does; :class:`Metric` is the base of the metric
objects (what significance tests and the command line rely on). truebleu's
BLEU classes, which predate this package, are registered as virtual
subclasses, so ``isinstance(truebleu.BLEU(), Metric)`` holds.
"""

from __future__ import annotations

import numbers
from abc import ABC, abstractmethod
from typing import Optional, Sequence

from ..core.references import check_str_sequence
from ..core.signature import Signature
from ..core.statistics import RowTable

__all__ = ["Metric", "Score", "Signature"]


class Score(ABC):  # noqa: B024 (an ABC only so that BLEUScore can be registered)
    """A metric's value with its name; ``format()`` gives sacreBLEU's text or JSON."""

    def __init__(self, name: str, score: float) -> None:
        self.name = name
        self.score = score
        # set by bootstrap confidence estimation (-ci); negative = not set
        self._mean = -1.0
        self._ci = -1.0
        # more information printed after the score (BLEU's precisions, ...)
        self._verbose = ""

    def format(self, width: int = 2, score_only: bool = False, signature: str = "",
               is_json: bool = False) -> str:
        """``name|signature = 12.34`` (or JSON), exactly as sacreBLEU formats a score."""
        from ..reports.single import format_score

        return format_score(self, width=width, score_only=score_only, signature=signature,
                            is_json=is_json)

    def __str__(self) -> str:
        return self.format()

    __repr__ = __str__


class Metric(ABC):
    """A metric object: additive statistics per segment, a score from their sum.

    Subclasses implement :meth:`corpus_statistics`, :meth:`score_from_statistics`
    and :meth:`get_signature`; significance tests and reports use only those.
    """

    def __init__(self) -> None:
        self._ref_cache = None
        self.n_bootstrap: Optional[int] = None
        self.seed: Optional[str] = None
        self.num_refs: Optional[int] = None

    @abstractmethod
    def corpus_statistics(self, hypotheses: Sequence[str],
                          references: Optional[Sequence[Sequence[str]]] = None) -> RowTable:
        """One additive statistics row per hypothesis."""

    @abstractmethod
    def score_from_statistics(self, totals: Sequence) -> Score:
        """The score of summed statistics."""

    @abstractmethod
    def get_signature(self) -> Signature:
        """The reproducibility signature of the configuration."""

    def _compute_score_from_stats(self, totals: Sequence) -> Score:
        """sacreBLEU's name for :meth:`score_from_statistics`."""
        return self.score_from_statistics(totals)

    def _signature_fields(self) -> dict:
        """The fields every metric's signature starts with (known once references were seen)."""
        if self.num_refs is None:
            raise ValueError("Number of references unknown, please evaluate the metric first.")
        return {"nrefs": "var" if self.num_refs == -1 else self.num_refs,
                "bs": self.n_bootstrap, "seed": self.seed}

    def corpus_score(self, hypotheses: Sequence[str],
                     references: Optional[Sequence[Sequence[str]]] = None,
                     n_bootstrap: int = 1, *, seed=None) -> Score:
        """The corpus score; ``n_bootstrap > 1`` adds sacreBLEU's bootstrap 95% confidence interval.

        ``seed`` (truebleu's addition) fixes the resampling; by default it is
        ``$SACREBLEU_SEED`` or 12345, as in sacreBLEU.
        """
        if isinstance(n_bootstrap, bool) or not isinstance(n_bootstrap, numbers.Integral):
            raise TypeError(f"n_bootstrap must be an integer, got {n_bootstrap!r}")
        stats = self.corpus_statistics(hypotheses, references)
        if len(stats) == 0:
            raise ValueError("no segments to score")
        score = self.score_from_statistics(stats.sum())  # sums in sacreBLEU's order
        if n_bootstrap > 1:
            from ..significance import bootstrap_confidence

            self.n_bootstrap = int(n_bootstrap)
            self.seed, score._mean, score._ci = bootstrap_confidence(
                stats, self, n_bootstrap, seed=seed)
        return score

    def sentence_score(self, hypothesis: str, references: Sequence[str]) -> Score:
        """The score of one hypothesis against its references (a list of strings)."""
        if not isinstance(hypothesis, str):
            raise TypeError(f"hypothesis must be a string, got {type(hypothesis).__name__}")
        check_str_sequence(references, "references")
        return self.corpus_score([hypothesis], [[ref] for ref in references])


def _register_bleu() -> None:
    from .bleu.metric import BLEU
    from .bleu.score import BLEUScore

    Metric.register(BLEU)
    Score.register(BLEUScore)


_register_bleu()
