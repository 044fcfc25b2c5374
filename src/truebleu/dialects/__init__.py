"""Dialects: each tool's BLEU, reproduced exactly, under one interface.

``get_dialect(name, **options)`` returns an object with
``corpus_score(hypotheses, references)`` (references as sacreBLEU: a list of
reference streams), ``sentence_score(hypothesis, references)`` and
``signature()``; scores are :class:`DialectScore` records.

=================  ==========================================  ============================
name               tool                                        options
=================  ==========================================  ============================
sacrebleu          sacreBLEU 2.6 (truebleu's engine)           ``truebleu.BLEU`` arguments
nltk               NLTK 3.10 ``corpus_bleu``                   weights, smoothing, epsilon,
                                                               alpha, k, auto_reweigh, tokenize
mteval-v13a        NIST mteval-v13a.pl (BLEU and NIST)         lowercase, brevity_penalty,
mteval-v14         NIST mteval-v14.pl                          international_tokenization, nist
multi-bleu         Moses multi-bleu.perl                       lowercase
multi-bleu-detok   Moses multi-bleu-detok.perl                 lowercase
tf-nmt             tensorflow/nmt ``compute_bleu``             max_order, smooth, tokenize
hf-evaluate        alias of tf-nmt (``evaluate``'s ``bleu``)   as tf-nmt
torchmetrics       torchmetrics ``BLEUScore``, ``SacreBLEU``-  n_gram, smooth, weights, backend,
                   ``Score`` (with ``tokenize``)               tokenize, lowercase
torchmetrics-chrf  torchmetrics ``CHRFScore``                  n_char_order, n_word_order, beta,
                                                               lowercase, whitespace
torchmetrics-ter   torchmetrics ``TranslationEditRate``        normalize, no_punctuation,
                                                               lowercase, asian_support
=================  ==========================================  ============================

``DIALECTS`` are BLEU's; ``METRIC_DIALECTS`` (``torchmetrics-chrf``,
``torchmetrics-ter``) score other metrics and are not offered where BLEU is
meant (the ``dialect`` command).
"""

from __future__ import annotations

from typing import Any, Callable

from ._base import Dialect, DialectScore, ToolError


def _mteval(version: str) -> Callable[..., Dialect]:
    def build(**options: Any) -> Dialect:
        from .mteval import MtevalDialect

        return MtevalDialect(version, **options)
    return build


def _multi_bleu(detok: bool) -> Callable[..., Dialect]:
    def build(**options: Any) -> Dialect:
        from .multibleu import MultiBleuDialect

        return MultiBleuDialect(detok=detok, **options)
    return build


def _lazy(module: str, cls: str) -> Callable[..., Dialect]:
    def build(**options: Any) -> Dialect:
        from importlib import import_module

        return getattr(import_module(f".{module}", __name__), cls)(**options)
    return build


_BUILDERS: dict[str, Callable[..., Dialect]] = {
    "sacrebleu": _lazy("sacrebleu_dialect", "SacreBleuDialect"),
    "nltk": _lazy("nltk_dialect", "NltkDialect"),
    "mteval-v13a": _mteval("v13a"),
    "mteval-v14": _mteval("v14"),
    "multi-bleu": _multi_bleu(False),
    "multi-bleu-detok": _multi_bleu(True),
    "tf-nmt": _lazy("tfnmt", "TfNmtDialect"),
    "hf-evaluate": _lazy("tfnmt", "TfNmtDialect"),
    "torchmetrics": _lazy("torchmetrics_bleu", "TorchmetricsDialect"),
}

# Dialects of other metrics than BLEU: found by get_dialect, not offered as BLEU dialects
# (the `dialect` command's choices, which score BLEU). Their scores are DialectScore records
# too: `score` in the tool's scale, `bleu` its percentage, `precisions` the sentence scores.
_OTHER_METRICS: dict[str, Callable[..., Dialect]] = {
    "torchmetrics-chrf": _lazy("torchmetrics_chrf", "TorchmetricsChrfDialect"),
    "torchmetrics-ter": _lazy("torchmetrics_ter", "TorchmetricsTerDialect"),
}

DIALECTS = tuple(_BUILDERS)
METRIC_DIALECTS = tuple(_OTHER_METRICS)
ALIASES = {"hf-evaluate": "tf-nmt"}


def get_dialect(name: str, **options: Any) -> Dialect:
    """The dialect ``name`` configured with the tool's ``options`` (see the table above)."""
    if isinstance(name, str) and name in _OTHER_METRICS:
        return _OTHER_METRICS[name](**options)
    if not isinstance(name, str) or name not in _BUILDERS:
        raise ValueError(f"unknown dialect {name!r}; choose one of: "
                         f"{', '.join(DIALECTS + METRIC_DIALECTS)}")
    return _BUILDERS[name](**options)


__all__ = ["ALIASES", "DIALECTS", "METRIC_DIALECTS", "Dialect", "DialectScore", "ToolError",
           "get_dialect"]
