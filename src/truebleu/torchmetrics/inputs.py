"""torchmetrics' input conventions, checked: predictions and their references.

torchmetrics groups references *per prediction*: ``target[i]`` is the list of
references of ``preds[i]`` (sacreBLEU groups them per reference stream). Two
conventions exist in torchmetrics 1.9 and are kept here:

* BLEU (``BLEUScore``, ``SacreBLEUScore``): ``preds`` a sequence of str,
  ``target`` a sequence of sequences of str, taken as they are;
* chrF and TER (``CHRFScore``, ``TranslationEditRate``) also take a single
  prediction as a str, and a flat list of str as references: of the single
  prediction when there is one, else one reference per prediction.

Where torchmetrics would silently compute something meaningless, these
functions raise instead: a str where a list is expected (torchmetrics
iterates its characters), ``preds`` and ``target`` of different lengths
(torchmetrics' classes ``zip`` them and drop the rest), a prediction without
any reference where the metric needs one.
"""

from __future__ import annotations

from typing import Sequence, Union


def _check_str(value: object, what: str) -> str:
    if not isinstance(value, str):
        raise TypeError(f"{what} must be a str, got {type(value).__name__}")
    return value


def _check_list(value: object, what: str) -> Sequence[object]:
    if isinstance(value, str) or not isinstance(value, Sequence):
        raise TypeError(f"{what} must be a list of str, got {type(value).__name__}")
    return value


def _checked(preds: Sequence[object], target: Sequence[object], need_reference: bool
             ) -> tuple[list[str], list[list[str]]]:
    if len(preds) != len(target):
        raise ValueError(f"preds and target must have the same length: "
                         f"{len(preds)} != {len(target)}")
    hypotheses = [_check_str(pred, f"preds[{i}]") for i, pred in enumerate(preds)]
    references = []
    for i, refs in enumerate(target):
        refs = _check_list(refs, f"target[{i}]")
        if need_reference and not refs:
            raise ValueError(f"target[{i}] has no reference")
        references.append([_check_str(ref, f"target[{i}][{k}]") for k, ref in enumerate(refs)])
    return hypotheses, references


def bleu_inputs(preds: Sequence[str], target: Sequence[Sequence[str]]
                ) -> tuple[list[str], list[list[str]]]:
    """``(predictions, references per prediction)`` in BLEUScore's convention, checked."""
    return _checked(_check_list(preds, "preds"), _check_list(target, "target"),
                    need_reference=True)


def text_inputs(preds: Union[str, Sequence[str]],
                target: Union[Sequence[str], Sequence[Sequence[str]]],
                need_reference: bool) -> tuple[list[str], list[list[str]]]:
    """``(predictions, references per prediction)`` in CHRFScore's and
    TranslationEditRate's convention (a str prediction; a flat list of references)."""
    hypotheses: Sequence[object] = [preds] if isinstance(preds, str) else _check_list(preds, "preds")
    segments: Sequence[object] = _check_list(target, "target")
    if all(isinstance(ref, str) for ref in segments):  # a flat list of references
        segments = [list(segments)] if len(hypotheses) == 1 else [[ref] for ref in segments]
    return _checked(hypotheses, segments, need_reference)
