"""BLEU and chrF on token ids: what a training loop holds, without detokenizing.

A sequence of token ids is scored as its **written form**: the ids in decimal,
separated by single spaces (``[464, 3290, 13]`` is ``"464 3290 13"``). Every
score here is bit-identical to sacreBLEU on those strings: BLEU with
``tokenize="none"`` (each id is one token, so n-grams are n-grams of ids), chrF
on the same string with the same settings (its character n-grams are then
over the digits; chrF++'s word n-grams, ``word_order=2``, are n-grams of ids).
:func:`ids_to_text` gives the written form, so any number here can be checked
against ``sacrebleu.sentence_bleu(ids_to_text(h), [ids_to_text(r)], tokenize="none")``.

Why ids: a reward or a validation metric on token ids skips decoding and the
tokenizer (13a's regular expressions), and is independent of how a
detokenizer joins sub-words. It measures overlap of *model tokens*, so it is
comparable only between runs with the same vocabulary.

Accepted inputs, without importing NumPy or torch unless given such objects:

* one sequence: a list or tuple of ints (Python or NumPy integers), a 1-D
  integer NumPy array or torch tensor (on any device; read with ``tolist()``);
* a batch: a sequence of such sequences, or a 2-D integer array or tensor
  (one row per sequence);
* references, one entry per hypothesis: one sequence (a single reference) or
  a sequence of sequences (several; ``None`` entries are dropped, as sacreBLEU
  drops missing references); a 2-D array is one reference per hypothesis, a
  3-D array ``(batch, k, length)`` is ``k`` references each. An empty list is
  one empty reference.

Which positions are removed before scoring (all of them, wherever they are, so
left and right padding, and a pad id equal to the EOS id, all work):

* ``pad_id``: the tokenizer's padding id (``tokenizer.pad_token_id``);
* ``skip_ids``: any other ids to drop, e.g. ``tokenizer.all_special_ids``, as
  ``decode(..., skip_special_tokens=True)`` drops them (TRL's completion ids
  end with the EOS token);
* :data:`IGNORE_INDEX` (-100), always: the label value PyTorch's cross-entropy
  and Hugging Face's collators use for positions to ignore. It is never a
  token, so removing it cannot change a real sequence.

Any other negative id, a float, a bool or a nested sequence where an id is
expected is an error that names the sequence and the position.
"""

from __future__ import annotations

import numbers
from collections.abc import Collection, Sequence
from typing import TYPE_CHECKING, Any, Optional, Protocol, TypeGuard, Union

from .bleu.batch import sentence_scores
from .bleu.metric import BLEU
from .chrf.batch import sentence_chrf_scores
from .chrf.metric import CHRF

if TYPE_CHECKING:
    from .bleu.score import BLEUScore
    from .chrf.metric import CHRFScore

#: label positions to ignore (PyTorch's ``CrossEntropyLoss(ignore_index=-100)``): always removed
IGNORE_INDEX = -100

_INT_ONLY = frozenset({int})
_INTEGER_KINDS = frozenset("iu")  # NumPy dtype kinds: signed and unsigned integers
_TORCH_INTEGER_DTYPES = frozenset(
    f"torch.{name}" for name in ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
                                 "uint64", "short", "int", "long"))


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


def _drop_set(pad_id: Optional[int], skip_ids: Collection[int]) -> frozenset[int]:
    """The ids removed before scoring (the module docstring), checked."""
    dropped = {IGNORE_INDEX}
    for name, ids in (("pad_id", () if pad_id is None else (pad_id,)), ("skip_ids", skip_ids)):
        for value in ids:
            if isinstance(value, bool) or not isinstance(value, numbers.Integral):
                raise TypeError(f"{name} must hold int token ids, got {value!r}")
            dropped.add(int(value))
    return frozenset(dropped)


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
    text = " ".join(map(str, kept))
    if "-" in text:  # a negative id that is not dropped
        raise _bad_id(ids, what, dropped)
    return text


def ids_to_text(ids: TokenIds, *, pad_id: Optional[int] = None,
                skip_ids: Collection[int] = ()) -> str:
    """The written form of one sequence of ids: what every score here is the score of."""
    return _written(ids, "ids", _drop_set(pad_id, skip_ids))


def texts_of_ids(batch: TokenIdBatch, *, pad_id: Optional[int] = None,
                 skip_ids: Collection[int] = (), what: str = "hypotheses") -> list[str]:
    """The written form of each sequence of a batch (a sequence of sequences, or a 2-D array)."""
    dropped = _drop_set(pad_id, skip_ids)
    if _is_array(batch):
        if batch.ndim != 2:
            raise ValueError(f"{what} must be a batch of sequences (2-D), got {batch.ndim}-D")
        batch = _array_values(batch, what)
    if isinstance(batch, (str, bytes)) or not isinstance(batch, Sequence):
        raise TypeError(f"{what} must be a sequence of token id sequences, "
                        f"got {type(batch).__name__}")
    return [_written(ids, f"{what}[{i}]", dropped) for i, ids in enumerate(batch)]


def _is_id(value: object) -> bool:
    if type(value) is int:
        return True
    if _is_array(value):
        return getattr(value, "ndim", 1) == 0
    return isinstance(value, numbers.Integral)


def references_of_ids(references: TokenIdReferences, n_hypotheses: int, *,
                      pad_id: Optional[int] = None, skip_ids: Collection[int] = ()
                      ) -> list[list[str]]:
    """Each hypothesis's references in written form (the layouts of the module docstring)."""
    dropped = _drop_set(pad_id, skip_ids)
    if _is_array(references):
        if references.ndim not in (2, 3):
            raise ValueError("references as an array must be 2-D (one reference per hypothesis) "
                             f"or 3-D (k references per hypothesis), got {references.ndim}-D")
        references = _array_values(references, "references")
    if isinstance(references, (str, bytes)) or not isinstance(references, Sequence):
        raise TypeError(f"references must be a sequence with one entry per hypothesis, "
                        f"got {type(references).__name__}")
    if len(references) != n_hypotheses:
        raise ValueError(f"{n_hypotheses} hypotheses but {len(references)} reference entries")
    out: list[list[str]] = []
    for i, entry in enumerate(references):
        what = f"references[{i}]"
        if type(entry) is list and entry and type(entry[0]) is list:  # several, as lists
            out.append(_several(entry, i, dropped))
            continue
        if _is_array(entry):
            if entry.ndim not in (1, 2):
                raise ValueError(f"{what} must be 1-D (one reference) or 2-D (several), "
                                 f"got {entry.ndim}-D")
            entry = _array_values(entry, what)
        if isinstance(entry, (str, bytes)) or not isinstance(entry, Sequence):
            raise TypeError(f"{what} must be a sequence of ids or of id sequences, "
                            f"got {type(entry).__name__}")
        if not entry or _is_id(entry[0]):
            out.append([_written(entry, what, dropped)])
            continue
        out.append(_several(entry, i, dropped))
    return out


def _several(entry: Sequence[Any], i: int, dropped: frozenset[int]) -> list[str]:
    """The written forms of hypothesis ``i``'s references (``None`` dropped)."""
    refs = [_written(ref, f"references[{i}][{k}]", dropped)
            for k, ref in enumerate(entry) if ref is not None]
    if not refs:
        raise ValueError(f"hypothesis {i} has no reference (every reference is None)")
    return refs


def _streams(segments: list[list[str]]) -> list[list[Optional[str]]]:
    """Per-hypothesis references as sacreBLEU's streams (``None`` where a segment has fewer)."""
    width = max((len(refs) for refs in segments), default=1)
    return [[refs[k] if k < len(refs) else None for refs in segments] for k in range(width)]


# -- BLEU ------------------------------------------------------------------------------------


def sentence_bleu_ids_scores(hypotheses: TokenIdBatch, references: TokenIdReferences, *,
                             pad_id: Optional[int] = None, skip_ids: Collection[int] = (),
                             smooth_method: str = "exp", smooth_value: Optional[float] = None,
                             use_effective_order: bool = True, max_ngram_order: int = 4,
                             threads: Optional[int] = None, backend: Optional[str] = None
                             ) -> list[float]:
    """The sentence BLEU of each hypothesis against its references, in one call of the core.

    Each float equals ``sacrebleu.sentence_bleu(ids_to_text(h), [ids_to_text(r), ...],
    tokenize="none", ...).score`` with the same settings (sentence_bleu's defaults).
    """
    texts = texts_of_ids(hypotheses, pad_id=pad_id, skip_ids=skip_ids)
    refs = references_of_ids(references, len(texts), pad_id=pad_id, skip_ids=skip_ids)
    return sentence_scores(texts, refs, tokenize="none", smooth_method=smooth_method,
                           smooth_value=smooth_value, use_effective_order=use_effective_order,
                           max_ngram_order=max_ngram_order, threads=threads, backend=backend)


def sentence_bleu_ids(hypothesis: TokenIds, references: Union[TokenIds, Sequence[TokenIds]], *,
                      pad_id: Optional[int] = None, skip_ids: Collection[int] = (),
                      smooth_method: str = "exp", smooth_value: Optional[float] = None,
                      use_effective_order: bool = True, max_ngram_order: int = 4,
                      backend: Optional[str] = None) -> BLEUScore:
    """The BLEU of one sequence of ids against its reference(s), as sacreBLEU's ``sentence_bleu``."""
    text = ids_to_text(hypothesis, pad_id=pad_id, skip_ids=skip_ids)
    refs = references_of_ids([references], 1, pad_id=pad_id, skip_ids=skip_ids)[0]
    metric = BLEU(tokenize="none", smooth_method=smooth_method, smooth_value=smooth_value,
                  effective_order=use_effective_order, max_ngram_order=max_ngram_order,
                  backend=backend)
    return metric.sentence_score(text, refs)


def corpus_bleu_ids(hypotheses: TokenIdBatch, references: TokenIdReferences, *,
                    pad_id: Optional[int] = None, skip_ids: Collection[int] = (),
                    smooth_method: str = "exp", smooth_value: Optional[float] = None,
                    use_effective_order: bool = False, max_ngram_order: int = 4,
                    threads: Optional[int] = None, backend: Optional[str] = None) -> BLEUScore:
    """Corpus BLEU of a batch of id sequences, as sacreBLEU's ``corpus_bleu(tokenize="none")``
    on the written forms.

    ``references`` has one entry per hypothesis (this module's layout), not
    sacreBLEU's reference streams: that is how a batch holds them.
    """
    texts = texts_of_ids(hypotheses, pad_id=pad_id, skip_ids=skip_ids)
    refs = references_of_ids(references, len(texts), pad_id=pad_id, skip_ids=skip_ids)
    metric = BLEU(tokenize="none", smooth_method=smooth_method, smooth_value=smooth_value,
                  effective_order=use_effective_order, max_ngram_order=max_ngram_order,
                  backend=backend, threads=threads)
    return metric.corpus_score(texts, _streams(refs))


# -- chrF ------------------------------------------------------------------------------------


def sentence_chrf_ids_scores(hypotheses: TokenIdBatch, references: TokenIdReferences, *,
                             pad_id: Optional[int] = None, skip_ids: Collection[int] = (),
                             char_order: int = 6, word_order: int = 0, beta: float = 2,
                             remove_whitespace: bool = True, eps_smoothing: bool = False,
                             threads: Optional[int] = None, backend: Optional[str] = None
                             ) -> list[float]:
    """The sentence chrF of each hypothesis against its references, in one call of the core.

    Each float equals ``sacrebleu.sentence_chrf(ids_to_text(h), [ids_to_text(r), ...],
    ...).score`` with the same settings.
    """
    texts = texts_of_ids(hypotheses, pad_id=pad_id, skip_ids=skip_ids)
    refs = references_of_ids(references, len(texts), pad_id=pad_id, skip_ids=skip_ids)
    return sentence_chrf_scores(texts, refs, char_order=char_order, word_order=word_order,
                                beta=beta, remove_whitespace=remove_whitespace,
                                eps_smoothing=eps_smoothing, threads=threads, backend=backend)


def _chrf(char_order: int, word_order: int, beta: float, remove_whitespace: bool,
          eps_smoothing: bool, threads: Optional[int], backend: Optional[str]) -> CHRF:
    return CHRF(char_order=char_order, word_order=word_order, beta=beta,
                whitespace=not remove_whitespace, eps_smoothing=eps_smoothing, backend=backend,
                threads=threads)


def sentence_chrf_ids(hypothesis: TokenIds, references: Union[TokenIds, Sequence[TokenIds]], *,
                      pad_id: Optional[int] = None, skip_ids: Collection[int] = (),
                      char_order: int = 6, word_order: int = 0, beta: float = 2,
                      remove_whitespace: bool = True, eps_smoothing: bool = False,
                      backend: Optional[str] = None) -> CHRFScore:
    """The chrF of one sequence of ids against its reference(s), as sacreBLEU's ``sentence_chrf``."""
    text = ids_to_text(hypothesis, pad_id=pad_id, skip_ids=skip_ids)
    refs = references_of_ids([references], 1, pad_id=pad_id, skip_ids=skip_ids)[0]
    metric = _chrf(char_order, word_order, beta, remove_whitespace, eps_smoothing, None, backend)
    return metric.sentence_score(text, refs)


def corpus_chrf_ids(hypotheses: TokenIdBatch, references: TokenIdReferences, *,
                    pad_id: Optional[int] = None, skip_ids: Collection[int] = (),
                    char_order: int = 6, word_order: int = 0, beta: float = 2,
                    remove_whitespace: bool = True, eps_smoothing: bool = False,
                    threads: Optional[int] = None, backend: Optional[str] = None) -> CHRFScore:
    """Corpus chrF of a batch of id sequences, as sacreBLEU's ``corpus_chrf`` on the written
    forms (``references``: one entry per hypothesis, as :func:`corpus_bleu_ids`)."""
    texts = texts_of_ids(hypotheses, pad_id=pad_id, skip_ids=skip_ids)
    refs = references_of_ids(references, len(texts), pad_id=pad_id, skip_ids=skip_ids)
    metric = _chrf(char_order, word_order, beta, remove_whitespace, eps_smoothing, threads,
                   backend)
    return metric.corpus_score(texts, _streams(refs))
