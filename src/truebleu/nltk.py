"""NLTK's ``nltk.translate.bleu_score`` path: ``from truebleu.nltk import sentence_bleu, corpus_bleu``.

A re-export of :mod:`truebleu.dialects.nltk_bleu`, NLTK 3.10's BLEU replicated
without NLTK (same floats, types and exceptions).
"""

from .dialects.nltk_bleu import (  # noqa: F401
                                 DEFAULT_WEIGHTS,
                                 Fraction,
                                 NLTKAssertionError,
                                 SmoothingFunction,
                                 __all__,
                                 brevity_penalty,
                                 closest_ref_length,
                                 corpus_bleu,
                                 modified_precision,
                                 sentence_bleu,
)
