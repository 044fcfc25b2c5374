"""sacreBLEU's chrF function API: ``corpus_chrf`` and ``sentence_chrf``, same arguments.

Note sacreBLEU's naming: these functions take ``remove_whitespace=True``
where :class:`~truebleu.metrics.chrf.CHRF` takes ``whitespace=False``.
``options`` are truebleu's keyword-only extras (``lowercase``, ``backend``, ``threads``).
"""

from __future__ import annotations

from collections.abc import Sequence

from .metrics.chrf import CHRF, CHRFScore


def corpus_chrf(hypotheses: Sequence[str], references: Sequence[Sequence[str]],
                char_order: int = CHRF.CHAR_ORDER, word_order: int = CHRF.WORD_ORDER,
                beta: int = CHRF.BETA, remove_whitespace: bool = True,
                eps_smoothing: bool = False, **options) -> CHRFScore:
    """Corpus chrF (chrF++ with ``word_order=2``) of ``hypotheses`` against reference streams."""
    metric = CHRF(char_order=char_order, word_order=word_order, beta=beta,
                  whitespace=not remove_whitespace, eps_smoothing=eps_smoothing, **options)
    return metric.corpus_score(hypotheses, references)


def sentence_chrf(hypothesis: str, references: Sequence[str],
                  char_order: int = CHRF.CHAR_ORDER, word_order: int = CHRF.WORD_ORDER,
                  beta: int = CHRF.BETA, remove_whitespace: bool = True,
                  eps_smoothing: bool = False, **options) -> CHRFScore:
    """chrF of one hypothesis against its references (a list of strings)."""
    metric = CHRF(char_order=char_order, word_order=word_order, beta=beta,
                  whitespace=not remove_whitespace, eps_smoothing=eps_smoothing, **options)
    return metric.sentence_score(hypothesis, references)
