"""``compute_metrics`` for a ``transformers`` ``Seq2SeqTrainer`` (or ``Trainer``).

The trainer calls ``compute_metrics(eval_prediction)`` with token ids: generated
sequences (``predict_with_generate=True``) or logits, and the labels, where ``-100``
marks what the loss ignores. The function built here turns both into text with the
tokenizer, strips it, scores it with the ``evaluate`` modules' numbers (the same
functions, without ``evaluate``'s storage) and returns a flat dict of floats, one
per metric, keyed by its name; the trainer adds its ``eval_`` prefix.

One difference from the modules: where tf/nmt's BLEU (``"bleu"``) divides by zero
(the model generated nothing at all, early in training, or every label is empty)
the module raises, as the hub's does; here it scores 0.0, so that an evaluation
does not stop the training run.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Optional, Union

from ..core.lazy_numpy import numpy
from .names import check_name
from .scores import chrf_scores, sacrebleu_scores, ter_scores
from .tfnmt import EmptyCorpusError, tfnmt_scores

#: each module's function and the key of its headline number
SCORERS: dict[str, tuple[Callable[..., dict[str, Any]], str]] = {
    "sacrebleu": (sacrebleu_scores, "score"),
    "bleu": (tfnmt_scores, "bleu"),
    "chrf": (chrf_scores, "score"),
    "ter": (ter_scores, "score"),
}

Metrics = Union[Sequence[str], Mapping[str, Mapping[str, Any]]]


def compute_metrics(tokenizer: Any, metrics: Metrics = ("sacrebleu", "chrf"), *,
                    pad_token_id: Optional[int] = None, ignore_index: int = -100,
                    skip_special_tokens: bool = True) -> Callable[[Any], dict[str, float]]:
    """A function of an ``EvalPrediction`` returning ``{name: score}`` for each metric.

    :param tokenizer: anything with ``batch_decode`` (a ``transformers`` tokenizer).
    :param metrics: module names (``"sacrebleu"``, ``"bleu"``, ``"chrf"``, ``"ter"``), or a
        mapping from name to that module's keyword arguments, e.g. ``{"chrf": {"word_order": 2}}``.
        The number is the module's headline: ``score`` (``bleu`` for ``"bleu"``, a fraction).
    :param pad_token_id: what replaces ``ignore_index`` before decoding; default the
        tokenizer's ``pad_token_id``.
    :param ignore_index: the label value the loss ignores (``-100``), also found in
        generated predictions padded by the trainer.
    :param skip_special_tokens: passed to ``batch_decode``.
    """
    chosen = _checked_metrics(metrics)
    pad = tokenizer.pad_token_id if pad_token_id is None else pad_token_id
    if pad is None:
        raise ValueError("the tokenizer has no pad_token_id: pass pad_token_id= (the id that "
                         f"replaces {ignore_index} before decoding)")

    def decode(ids: Any) -> list[str]:
        np = numpy()
        ids = np.asarray(ids)
        if ids.ndim == 3:  # logits: the most likely token at each position
            ids = ids.argmax(axis=-1)
        ids = np.where(ids == ignore_index, pad, ids)
        texts = tokenizer.batch_decode(ids.tolist(), skip_special_tokens=skip_special_tokens)
        return [text.strip() for text in texts]

    def compute(eval_prediction: Any) -> dict[str, float]:
        predictions, labels = _arrays(eval_prediction)
        hypotheses = decode(predictions)
        references = [[text] for text in decode(labels)]
        result = {}
        for name, kwargs in chosen.items():
            scorer, key = SCORERS[name]
            try:
                result[name] = float(scorer(hypotheses, references, **kwargs)[key])
            except EmptyCorpusError:  # tf/nmt's BLEU of nothing (see the module docstring)
                result[name] = 0.0
        return result

    return compute


def _checked_metrics(metrics: Metrics) -> dict[str, dict[str, Any]]:
    if isinstance(metrics, str):
        metrics = (metrics,)
    if isinstance(metrics, Mapping):
        chosen = {check_name(name): dict(kwargs) for name, kwargs in metrics.items()}
    else:
        chosen = {check_name(name): {} for name in metrics}
    if not chosen:
        raise ValueError("no metric to compute: name at least one")
    return chosen


def _arrays(eval_prediction: Any) -> tuple[Any, Any]:
    """``(predictions, label ids)`` of an ``EvalPrediction`` or a ``(predictions, labels)``
    pair; a model returning several outputs gives a tuple whose first is the tokens or logits."""
    if hasattr(eval_prediction, "predictions"):
        predictions, labels = eval_prediction.predictions, eval_prediction.label_ids
    else:
        predictions, labels = eval_prediction[0], eval_prediction[1]
    if isinstance(predictions, tuple):  # (logits or tokens, other outputs...)
        predictions = predictions[0]
    if labels is None:
        raise ValueError("the evaluation has no labels: compute_metrics needs the references")
    return predictions, labels
