"""sacreBLEU's function API: change the import, keep the call.

``corpus_bleu``, ``sentence_bleu`` and ``raw_corpus_bleu`` take sacreBLEU's
arguments with sacreBLEU's defaults (note that they differ: ``sentence_bleu``
uses the effective order by default, ``corpus_bleu`` does not).
"""

from __future__ import annotations

from typing import Optional, Sequence

from .bleu import BLEU
from .score import SMOOTH_DEFAULTS, BLEUScore


def corpus_bleu(hypotheses: Sequence[str], references: Sequence[Sequence[str]],
                smooth_method: str = "exp", smooth_value: Optional[float] = None,
                force: bool = False, lowercase: bool = False, tokenize: str = "13a",
                use_effective_order: bool = False, **options) -> BLEUScore:
    """Corpus BLEU of ``hypotheses`` against reference streams ``references``.

    ``options`` are truebleu's keyword-only extras of :class:`BLEU`
    (``max_ngram_order``, ``trg_lang``, ``spm_model``, ``backend``, ``threads``).
    """
    metric = BLEU(lowercase=lowercase, force=force, tokenize=tokenize,
                  smooth_method=smooth_method, smooth_value=smooth_value,
                  effective_order=use_effective_order, **options)
    return metric.corpus_score(hypotheses, references)


def raw_corpus_bleu(hypotheses: Sequence[str], references: Sequence[Sequence[str]],
                    smooth_value: Optional[float] = SMOOTH_DEFAULTS["floor"]) -> BLEUScore:
    """BLEU on untokenized text with floor smoothing, as sacreBLEU's ``raw_corpus_bleu``."""
    return corpus_bleu(hypotheses, references, smooth_method="floor", smooth_value=smooth_value,
                       force=True, tokenize="none", use_effective_order=True)


def sentence_bleu(hypothesis: str, references: Sequence[str],
                  smooth_method: str = "exp", smooth_value: Optional[float] = None,
                  lowercase: bool = False, tokenize: str = "13a",
                  use_effective_order: bool = True, **options) -> BLEUScore:
    """BLEU of one hypothesis against its references (a list of strings)."""
    metric = BLEU(lowercase=lowercase, tokenize=tokenize, force=False,
                  smooth_method=smooth_method, smooth_value=smooth_value,
                  effective_order=use_effective_order, **options)
    return metric.sentence_score(hypothesis, references)
