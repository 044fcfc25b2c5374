"""The inputs of the ``evaluate`` modules: references per prediction, and when they are plain.

The hub modules take ``references[i]``, the references of prediction ``i``: a list
of strings, or one string. truebleu's metrics take sacreBLEU's layout, reference
*streams* (``streams[k][i]``: reference ``k`` of segment ``i``); these functions
turn one into the other, with the hub modules' rules.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import chain
from typing import Any, Optional, Union

#: what a module's ``_compute`` receives as ``references``
PerPrediction = Sequence[Union[str, Sequence[str]]]


def per_prediction(references: PerPrediction) -> list[Sequence[str]]:
    """Each prediction's references as a list: the hub modules read a first reference that
    is a string as "one reference string per prediction" (``evaluate`` has already checked
    that every entry has the same form)."""
    if len(references) and isinstance(references[0], str):
        return [[ref] for ref in references]  # type: ignore[list-item]  # all str, as the first
    return list(references)


def equal_streams(references: PerPrediction, what: str) -> list[list[str]]:
    """sacreBLEU's reference streams of ``references``, which must give every prediction
    the same number of references (the sacreBLEU-based hub modules refuse anything else;
    ``what`` names the metric in the error)."""
    per = per_prediction(references)
    width = len(per[0]) if per else 0
    for i, refs in enumerate(per):
        if len(refs) != width:
            raise ValueError(
                f"{what} needs the same number of references for every prediction: prediction 0 "
                f"has {width}, prediction {i} has {len(refs)} (give each one the same number)")
    return [[refs[k] for refs in per] for k in range(width)]


def plain_inputs(predictions: Any, references: Any) -> Optional[tuple[list[str], list[Any]]]:
    """``(predictions, references)`` as ``evaluate`` would hand them to ``_compute``, if they
    are plain: a non-empty list or tuple of ``str``, and as many references, all ``str`` or
    all lists of ``str``, every string encodable in UTF-8. For such input, storing it in
    ``evaluate``'s Arrow table and reading it back gives the same lists, so a module may
    score it directly; anything else (None, NumPy arrays, str subclasses, mixed forms,
    lone surrogates, an empty batch) is left to ``evaluate``, with its checks and errors.
    """
    if not isinstance(predictions, (list, tuple)) or not isinstance(references, (list, tuple)):
        return None
    if not predictions or len(references) != len(predictions):
        return None
    if set(map(type, predictions)) != {str}:  # (map and set: no Python loop per item)
        return None
    strings: Any
    if type(references[0]) is str:
        if set(map(type, references)) != {str}:
            return None
        refs: list[Any] = list(references)
        strings = refs
    else:
        if set(map(type, references)) != {list}:
            return None
        refs = list(references)  # (the lists themselves: nothing downstream changes them)
        strings = list(chain.from_iterable(refs))
        if not set(map(type, strings)) <= {str}:
            return None
    try:  # Arrow stores UTF-8: evaluate refuses what does not encode (lone surrogates)
        "".join(chain(predictions, strings)).encode("utf-8")
    except UnicodeEncodeError:
        return None
    return list(predictions), refs
