"""Hugging Face integrations: ``evaluate`` modules and a ``compute_metrics`` for trainers.

``load(name)`` returns an ``evaluate`` module for ``"sacrebleu"``, ``"bleu"``,
``"chrf"`` or ``"ter"``: the inputs, keyword arguments, defaults, errors and
returned dict of ``evaluate.load(name)``, without the hub (nothing is downloaded,
it works offline) and scored by truebleu's compiled core. ``compute_metrics``
builds the function a ``Seq2SeqTrainer`` calls on its predictions.

Importing this package is cheap: ``evaluate`` is imported by :func:`load`, and
``compute_metrics`` needs only NumPy and the tokenizer it is given.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .names import NAMES, check_name

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence


def load(name: str, **kwargs: Any) -> Any:
    """truebleu's ``evaluate`` module ``name`` (an ``evaluate.Metric``): a drop-in for
    ``evaluate.load(name)``.

    ``kwargs`` are those of ``evaluate.load`` that configure the module
    (``config_name``, ``keep_in_memory``, ``cache_dir``, ``num_process``,
    ``process_id``, ``experiment_id``, ``seed``, ...). Raises ImportError when
    ``evaluate`` is not installed, ValueError for a name other than the four.
    """
    check_name(name)
    from .modules import MODULES

    return MODULES[name](**kwargs)


def compute_metrics(tokenizer: Any,
                    metrics: Sequence[str] | Mapping[str, Mapping[str, Any]] = ("sacrebleu", "chrf"),
                    *, pad_token_id: int | None = None, ignore_index: int = -100,
                    skip_special_tokens: bool = True) -> Callable[[Any], dict[str, float]]:
    """The ``compute_metrics`` function of a ``Seq2SeqTrainer``: ``{name: score}`` of the
    decoded predictions against the decoded labels, for each of ``metrics`` (names, or
    names mapped to the module's keyword arguments). See :mod:`truebleu.hf.trainer`."""
    from .trainer import compute_metrics as build

    return build(tokenizer, metrics, pad_token_id=pad_token_id, ignore_index=ignore_index,
                 skip_special_tokens=skip_special_tokens)


__all__ = ["NAMES", "compute_metrics", "load"]
