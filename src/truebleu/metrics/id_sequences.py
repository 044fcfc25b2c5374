"""Sequences of token ids in the layouts :mod:`truebleu.metrics.token_ids` accepts, read in
the two forms it scores them in.

The walk of the layouts (one sequence; a batch: a sequence of sequences or a 2-D
array; references: one sequence or several per hypothesis, a 2-D or 3-D array) is
written once, in :class:`SequenceForm`, and gives each sequence in a form:

* :class:`WrittenForm`: its written form, the ids in decimal separated by single
  spaces, the dropped ids (:class:`DroppedIds`) removed and every other id checked
  (an error names the sequence and the position). Every score on ids is defined
  as the score of these strings.
* :class:`GivenForm` (:data:`AS_GIVEN`): the sequence as the caller holds it (a torch
  tensor as a NumPy array), for a kernel that counts the ids themselves; what the
  kernel does not read so is then read in the written form.
"""

from __future__ import annotations

import numbers
from array import array
from collections.abc import Collection, Sequence
from typing import Any, Optional, Protocol, TypeGuard, Union

#: label positions to ignore (PyTorch's ``CrossEntropyLoss(ignore_index=-100)``): always removed
IGNORE_INDEX = -100

_INT_ONLY = frozenset({int})
_LISTS = frozenset({list})
_INTEGER_KINDS = frozenset("iu")  # NumPy dtype kinds: signed and unsigned integers
_TORCH_INTEGER_DTYPES = frozenset(
    f"torch.{name}" for name in ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
                                 "uint64", "short", "int", "long"))
_INT64 = range(-2**63, 2**63)


class IdArray(Protocol):
    """What is read of a NumPy array or a torch tensor: its dimensions and its values."""

    @property
    def ndim(self) -> int: ...

    def tolist(self) -> Any: ...


#: one sequence of token ids
TokenIds = Union[Sequence[int], IdArray]
#: a batch of sequences: a sequence of them, or a 2-D array
TokenIdBatch = Union[Sequence[TokenIds], IdArray]
#: the references of a batch, one entry per hypothesis: one sequence, or several
TokenIdReferences = Union[Sequence[Union[TokenIds, Sequence[Optional[TokenIds]]]], IdArray]


def _is_array(value: object) -> TypeGuard[IdArray]:
    return hasattr(value, "tolist") and hasattr(value, "ndim") and hasattr(value, "dtype")


def _array_values(array: Any, what: str) -> Any:
    """An integer array's values as nested lists; TypeError for any other dtype."""
    dtype = array.dtype
    kind = getattr(dtype, "kind", None)  # NumPy
    if kind is None:
        if str(dtype) not in _TORCH_INTEGER_DTYPES:
            raise TypeError(f"{what} must hold integer token ids, got an array of {dtype}")
    elif kind not in _INTEGER_KINDS:
        raise TypeError(f"{what} must hold integer token ids, got an array of {dtype}")
    if hasattr(array, "detach"):  # torch: a tensor that requires grad, on any device
        array = array.detach()
    return array.tolist()


class DroppedIds:
    """The ids removed before scoring (:mod:`truebleu.metrics.token_ids` says which), checked
    once: a caller that scores batch after batch with the same ``pad_id`` and ``skip_ids`` (a
    reward) keeps one.

    ``ids`` is the set the written form removes; ``int64`` the same ids in ascending order
    as an ``array("q")`` (those in int64's range: no other can equal an id a kernel reads),
    what the kernels' ``ids_statistics`` take.
    """

    __slots__ = ("ids", "int64")

    def __init__(self, pad_id: Optional[int] = None, skip_ids: Collection[int] = ()) -> None:
        dropped = {IGNORE_INDEX}
        for name, ids in (("pad_id", () if pad_id is None else (pad_id,)),
                          ("skip_ids", skip_ids)):
            for value in ids:
                if isinstance(value, bool) or not isinstance(value, numbers.Integral):
                    raise TypeError(f"{name} must hold int token ids, got {value!r}")
                dropped.add(int(value))
        self.ids = frozenset(dropped)
        self.int64 = array("q", sorted(value for value in dropped if value in _INT64))


def _bad_id(ids: Sequence[Any], what: str, dropped: frozenset[int]) -> Exception:
    """The error for the first element of ``ids`` that is neither dropped nor an int id >= 0."""
    for j, value in enumerate(ids):
        if isinstance(value, bool) or not isinstance(value, numbers.Integral):
            return TypeError(f"{what}[{j}] must be an int token id, got {type(value).__name__}")
        if value < 0 and value not in dropped:
            return ValueError(f"{what}[{j}] is {value}: a negative id is not a token (only "
                              f"{IGNORE_INDEX}, pad_id and skip_ids are removed)")
    return AssertionError(f"{what}: no bad id")  # pragma: no cover (called when there is one)


def _written(ids: Any, what: str, dropped: frozenset[int]) -> str:
    """One sequence's written form, its dropped ids removed.

    Written for the common case, a list of Python ints: the checks run at C speed
    (a set of the element types, a look for "-" in the text); anything else takes
    the slower path that converts NumPy integers or names the bad element. Nothing
    is cached between calls (a cache of decimal strings would halve the writing, at
    the price of process-wide state that grows with the vocabulary).
    """
    if type(ids) is not list and type(ids) is not tuple:
        if _is_array(ids):
            if ids.ndim != 1:
                raise ValueError(f"{what} must be one sequence of ids (1-D), got {ids.ndim}-D")
            ids = _array_values(ids, what)
        if isinstance(ids, (str, bytes)) or not isinstance(ids, Sequence):
            raise TypeError(f"{what} must be a sequence of int token ids, "
                            f"got {type(ids).__name__}")
    try:
        kept = ids if dropped.isdisjoint(ids) else [token for token in ids if token not in dropped]
    except TypeError:  # an unhashable element (a nested list)
        raise _bad_id(ids, what, dropped) from None
    if not _INT_ONLY.issuperset(map(type, kept)):  # NumPy integers, or an error
        if any(isinstance(token, bool) or not isinstance(token, numbers.Integral)
               for token in kept):
            raise _bad_id(ids, what, dropped)
        kept = [int(token) for token in kept]
    # one format call, no str per id: twice as fast as " ".join(map(str, kept)), same text
    text = ("%d " * len(kept))[:-1] % tuple(kept)
    if "-" in text:  # a negative id that is not dropped
        raise _bad_id(ids, what, dropped)
    return text


def _is_id(value: object) -> bool:
    if type(value) is int:
        return True
    if _is_array(value):
        return getattr(value, "ndim", 1) == 0
    return isinstance(value, numbers.Integral)


class NotReadAsGiven(Exception):
    """A sequence the kernels do not read as it is: the call takes the written form."""


class SequenceForm:
    """The walk of the accepted layouts (:mod:`truebleu.metrics.token_ids` lists them), written
    once for the two forms a sequence of ids is scored in: :class:`WrittenForm` (its text) and
    :class:`GivenForm` (the sequence itself, for a kernel's ``ids_statistics``)."""

    def rows(self, array: Any, what: str) -> Sequence[Any]:
        """The sub-arrays of an array of two or three dimensions, in this form's terms."""
        raise NotImplementedError

    def sequence(self, ids: Any, what: str) -> Any:
        """One sequence of ids (``what`` names it in errors)."""
        raise NotImplementedError

    def batch(self, batch: Any, what: str) -> list[Any]:
        """Each sequence of a batch (a sequence of sequences, or a 2-D array)."""
        if _is_array(batch):
            if batch.ndim != 2:
                raise ValueError(f"{what} must be a batch of sequences (2-D), got {batch.ndim}-D")
            batch = self.rows(batch, what)
        if isinstance(batch, (str, bytes)) or not isinstance(batch, Sequence):
            raise TypeError(f"{what} must be a sequence of token id sequences, "
                            f"got {type(batch).__name__}")
        sequence = self.sequence
        return [sequence(ids, f"{what}[{i}]") for i, ids in enumerate(batch)]

    def references(self, references: Any, n_hypotheses: int) -> list[list[Any]]:
        """Each hypothesis's references."""
        if _is_array(references):
            if references.ndim not in (2, 3):
                raise ValueError("references as an array must be 2-D (one reference per "
                                 f"hypothesis) or 3-D (k references per hypothesis), "
                                 f"got {references.ndim}-D")
            references = self.rows(references, "references")
        if isinstance(references, (str, bytes)) or not isinstance(references, Sequence):
            raise TypeError(f"references must be a sequence with one entry per hypothesis, "
                            f"got {type(references).__name__}")
        if len(references) != n_hypotheses:
            raise ValueError(f"{n_hypotheses} hypotheses but {len(references)} reference entries")
        out: list[list[Any]] = []
        for i, entry in enumerate(references):
            what = f"references[{i}]"
            if type(entry) is list and entry and type(entry[0]) is list:  # several, as lists
                out.append(self._several(entry, i))
            elif _is_array(entry):
                if entry.ndim not in (1, 2):
                    raise ValueError(f"{what} must be 1-D (one reference) or 2-D (several), "
                                     f"got {entry.ndim}-D")
                if entry.ndim == 1:
                    out.append([self.sequence(entry, what)])
                    continue
                rows = self.rows(entry, what)
                out.append(self._several(rows, i) if len(rows) else [self.sequence([], what)])
            elif isinstance(entry, (str, bytes)) or not isinstance(entry, Sequence):
                raise TypeError(f"{what} must be a sequence of ids or of id sequences, "
                                f"got {type(entry).__name__}")
            elif not entry or _is_id(entry[0]):
                out.append([self.sequence(entry, what)])
            else:
                out.append(self._several(entry, i))
        return out

    def _several(self, entry: Sequence[Any], i: int) -> list[Any]:
        """Hypothesis ``i``'s references (``None`` dropped)."""
        refs = [self.sequence(ref, f"references[{i}][{k}]")
                for k, ref in enumerate(entry) if ref is not None]
        if not refs:
            raise ValueError(f"hypothesis {i} has no reference (every reference is None)")
        return refs


class WrittenForm(SequenceForm):
    """Each sequence as its written form (a str), the dropped ids removed and every id checked."""

    def __init__(self, dropped: DroppedIds) -> None:
        self.dropped = dropped.ids

    def rows(self, array: Any, what: str) -> Sequence[Any]:
        values: list[Any] = _array_values(array, what)
        return values

    def sequence(self, ids: Any, what: str) -> str:
        return _written(ids, what, self.dropped)


def _numpy(tensor: Any) -> Any:
    """A torch tensor's values as a NumPy array (the kernels read its buffer)."""
    try:
        return tensor.detach().cpu().numpy()
    except (TypeError, RuntimeError, AttributeError):  # a dtype NumPy lacks, no NumPy, ...
        raise NotReadAsGiven from None


class GivenForm(SequenceForm):
    """Each sequence as the caller holds it (a torch tensor as a NumPy array): what a kernel's
    ``ids_statistics`` reads, or refuses (then the written form scores it).

    The layouts a training loop passes (lists of lists of ints: TRL's ``completion_ids``
    and a dataset column) are recognised first, by the walk's own rules, without a Python
    call per sequence: the walk costs more than the counting otherwise.
    """

    def rows(self, array: Any, what: str) -> Sequence[Any]:
        return list(_numpy(array) if hasattr(array, "detach") else array)

    def sequence(self, ids: Any, what: str) -> Any:
        return _numpy(ids) if hasattr(ids, "detach") and _is_array(ids) else ids

    def batch(self, batch: Any, what: str) -> list[Any]:
        if type(batch) is list and _LISTS.issuperset(map(type, batch)):
            return batch
        return super().batch(batch, what)

    def references(self, references: Any, n_hypotheses: int) -> list[list[Any]]:
        if type(references) is not list or len(references) != n_hypotheses:
            return super().references(references, n_hypotheses)
        out: list[list[Any]] = []
        for entry in references:
            if type(entry) is not list or not entry:
                return super().references(references, n_hypotheses)
            first = type(entry[0])
            if first is int:  # one reference
                out.append([entry])
            elif first is list and _LISTS.issuperset(map(type, entry)):  # several, no None
                out.append(entry)
            else:
                return super().references(references, n_hypotheses)
        return out


AS_GIVEN = GivenForm()
