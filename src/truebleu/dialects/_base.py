"""What every dialect provides: a score record, a base class, input checks."""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, field
from itertools import chain
from operator import is_
from typing import Any, Callable, Hashable, Optional, Sequence, TypeVar

from ..core.signature import VERSION


@dataclass
class DialectScore:
    """One score as a reference tool reports it.

    ``score`` is in the tool's own scale (mteval, tf-nmt, NLTK and torchmetrics
    return a fraction in [0, 1]; multi-bleu prints a percentage); ``bleu`` is
    always a percentage, so dialects can be compared side by side. For the
    fraction-scale tools ``bleu == 100 * score`` (one multiplication); for
    multi-bleu ``bleu == score``. ``precisions`` are in the scale of ``score``.
    ``nist`` is set by the mteval dialects only.
    """

    dialect: str
    score: float
    bleu: float
    precisions: list[float]
    bp: float
    sys_len: int
    ref_len: int
    counts: Sequence[float] = field(default_factory=list)  # lists (sacreBLEU add-k: floats)
    totals: Sequence[float] = field(default_factory=list)
    nist: Optional[float] = None
    signature: str = ""

    @property
    def ratio(self) -> float:
        return self.sys_len / self.ref_len if self.ref_len else 0.0

    def format(self, width: int = 2, score_only: bool = False) -> str:
        """A one-line text form: ``DIALECT = score (precisions | BP | lengths)``."""
        value = f"{self.score:.{width}f}"
        if score_only:
            return value
        parts = [f"{self.dialect} = {value}"]
        if self.nist is not None:
            parts.append(f"NIST = {self.nist:.4f}")
        precisions = "/".join(f"{p:.{max(width - 1, 1)}f}" for p in self.precisions)
        parts.append(f"{precisions} (BP = {self.bp:.3f} ratio = {self.ratio:.3f} "
                     f"hyp_len = {self.sys_len} ref_len = {self.ref_len})")
        return " ".join(parts)

    def __str__(self) -> str:
        return self.format()


class Dialect:
    """A tool's BLEU: call :meth:`corpus_score` or :meth:`sentence_score`.

    Subclasses set ``name`` and implement ``_corpus`` on per-segment reference
    lists (``refs[i]`` holds the references of segment ``i``).
    """

    name: str = ""

    def __init__(self) -> None:
        self._nrefs: Optional[int] = None
        # prepared references and corpus sums of the last inputs, owned by this
        # object (scoring several systems with one dialect object reuses them;
        # nothing is kept once the object is gone)
        self._prepared = PreparedCache(4)
        self._sums = PreparedCache(4)
        # the last reference streams' lines and their per-segment lists (corpus_score)
        self._last_references: Optional[tuple[tuple[tuple[str, ...], ...], Segments]] = None

    def corpus_score(self, hypotheses: Sequence[str],
                     references: Sequence[Sequence[str]]) -> DialectScore:
        """Score a corpus; ``references`` is a list of reference streams (sacreBLEU's layout)."""
        check_strings(hypotheses, "hypotheses")
        if isinstance(references, str) or not isinstance(references, Sequence):
            raise TypeError("references must be a list of reference streams (lists of str)")
        if len(references) == 0:
            raise ValueError("at least one reference stream is needed")
        for k, stream in enumerate(references):
            if isinstance(stream, str) or not isinstance(stream, Sequence):
                check_strings(stream, f"reference stream {k + 1}")  # (raises)
        # the lines now (a list may change later); streams holding the very objects of the
        # last call's were checked then (a str stays a str), the others are checked now
        snapshot = tuple(map(tuple, references))
        known = self._last_references is not None and same_objects(self._last_references[0],
                                                                   snapshot)
        for k, stream in enumerate(references):
            if not known:
                check_strings(stream, f"reference stream {k + 1}")
            if len(stream) != len(hypotheses):
                raise ValueError(
                    f"reference stream {k + 1} has {len(stream)} lines, "
                    f"the hypotheses have {len(hypotheses)}")
        self._nrefs = len(references)
        if not known:
            self._last_references = (snapshot, Segments(map(list, zip(*snapshot))))
        assert self._last_references is not None
        # (the same per-segment lists as the last call's on the same lines: scoring several
        # systems against one reference builds neither them nor their references_key again)
        segments = self._last_references[1] if hypotheses else []
        result = self._corpus(list(hypotheses), segments)
        result.signature = self.signature()
        return result

    def sentence_score(self, hypothesis: str, references: Sequence[str]) -> DialectScore:
        """Score one segment, as the tool does on a one-line corpus."""
        if not isinstance(hypothesis, str):
            raise TypeError("hypothesis must be a str")
        check_strings(references, "references")
        return self.corpus_score([hypothesis], [[ref] for ref in references])

    def _corpus(self, hypotheses: list[str], refs: list[list[str]]) -> DialectScore:
        raise NotImplementedError  # pragma: no cover

    def _options(self) -> list[tuple[str, str]]:
        """Signature fields after ``dialect``: every option that changes the number."""
        return []

    def signature(self) -> str:
        """``key:value|...``: the dialect, its number-changing options, nrefs, version."""
        fields = [("dialect", self.name), *self._options()]
        fields.append(("nrefs", str(self._nrefs) if self._nrefs is not None else "?"))
        fields.append(("version", VERSION))
        return "|".join(f"{key}:{value}" for key, value in fields)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.signature()})"


def same_objects(first: tuple[tuple[object, ...], ...], second: tuple[tuple[object, ...], ...]) -> bool:
    """Whether two snapshots of reference streams hold the very same objects, in order."""
    return len(first) == len(second) and all(
        len(a) == len(b) and all(map(is_, a, b)) for a, b in zip(first, second))


def check_strings(values, what: str) -> None:
    """Raise TypeError unless ``values`` is a sequence of str (not a str itself)."""
    if isinstance(values, str) or not isinstance(values, Sequence):
        raise TypeError(f"{what} must be a sequence of str, got {type(values).__name__}")
    if set(map(type, values)) <= {str}:  # the usual case, without a Python loop per line
        return
    for value in values:
        if not isinstance(value, str):
            raise TypeError(f"{what} must contain str, found {type(value).__name__}")


class Segments(list[list[str]]):
    """Per-segment references made here (by :meth:`Dialect.corpus_score`, or a dialect's
    own preparation of them), never changed once made: they keep their
    :func:`references_key` once computed."""

    __slots__ = ("key",)
    key: Hashable


def references_key(refs: Sequence[Sequence[str]]) -> Hashable:
    """A cache key of per-segment references, equal exactly when they are (each segment's
    number of references, then every line in order): two flat tuples, which a large corpus
    builds, hashes and compares several times faster than a tuple per segment (and without
    a thousand small tuples for the garbage collector to visit), hashed once. The key of
    :class:`Segments` is built once and kept."""
    if isinstance(refs, Segments):
        try:
            return refs.key
        except AttributeError:
            refs.key = _HashedOnce((tuple(map(len, refs)), tuple(chain.from_iterable(refs))))
            return refs.key
    return _HashedOnce((tuple(map(len, refs)), tuple(chain.from_iterable(refs))))


def check_bool(value, what: str) -> bool:
    if not isinstance(value, bool):
        raise TypeError(f"{what} must be True or False, got {value!r}")
    return value


class ToolError(ValueError):
    """The reference tool stops with an error on this input, so there is no number to give."""


T = TypeVar("T")


class _HashedOnce:
    """A key whose hash is computed once: the keys here hold whole corpora (tuples of every
    line, whose hash Python does not keep), and a lookup would hash them twice."""

    __slots__ = ("key", "hash")

    def __init__(self, key: Hashable) -> None:
        self.key = key
        self.hash = hash(key)

    def __hash__(self) -> int:
        return self.hash

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _HashedOnce) and self.hash == other.hash and self.key == other.key


class PreparedCache:
    """A small LRU of prepared references, owned by one dialect object.

    Scoring many systems against the same references with one object (the
    usual case) then tokenizes and counts the references once.
    """

    def __init__(self, size: int = 6) -> None:
        self.size = size
        self._items: "OrderedDict[Hashable, Any]" = OrderedDict()

    def get(self, key: Hashable, build: Callable[[], T]) -> T:
        """The value kept under ``key``, made by ``build()`` (and kept) the first time."""
        key = _HashedOnce(key)
        try:
            self._items.move_to_end(key)
            return self._items[key]
        except KeyError:
            value = build()
            self._items[key] = value
            if len(self._items) > self.size:
                self._items.popitem(last=False)
            return value
