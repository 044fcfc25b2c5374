"""BLEU's tokens of a stream, kept as one string per segment, and their word ids.

A report shows, counts and buckets the tokens BLEU counted. Kept as one Python list
of ``str`` per segment, the 200,000-segment report held 12 million token objects
(most of its memory); kept as each segment's tokens joined by single spaces (what the
page shows anyway), a stream is one string per segment. Tokens never contain a space
(a tokenizer splits on whitespace), so ``joined.split(" ")`` gives them back exactly.

The frequency buckets count words by id. The ids are given while the tokens are made,
from the tokenizer's own lists (one ``dict.setdefault`` per token, in C through ``map``),
so that no stream is split into token strings a second time.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import chain, count
from typing import TYPE_CHECKING, Any, Callable, Iterable, Optional, Union, overload

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = ["Tokens", "Vocabulary", "tokenize_stream"]

#: lines tokenized per call of the kernel (its lists of tokens are joined at once)
CHUNK = 8192


class Vocabulary:
    """One id per distinct word, shared by the streams whose words are compared.

    A word's raw id is the number of tokens numbered before its first occurrence (so
    one C-level ``setdefault`` per token numbers it, with no Python code per token);
    :meth:`dense` renumbers raw ids to ``0 .. len(self) - 1`` in order of first occurrence.
    """

    def __init__(self) -> None:
        self._ids: dict[str, int] = {}
        #: tokens numbered so far: every raw id is below it
        self.numbered = 0
        self._table: Optional[NDArray[Any]] = None

    def __len__(self) -> int:
        return len(self._ids)

    def raw_ids(self, words: Iterable[str], n_words: int) -> NDArray[Any]:
        """The raw ids of ``words`` (exactly ``n_words`` of them), int64, numbering new ones."""
        from ..core.lazy_numpy import numpy

        np = numpy()
        ids: NDArray[Any] = np.fromiter(map(self._ids.setdefault, words, count(self.numbered)),
                                        dtype=np.int64, count=n_words)
        self.numbered += n_words
        self._table = None
        return ids

    def dense(self, raw: NDArray[Any]) -> NDArray[Any]:
        """Raw ids as ids from 0 to ``len(self) - 1`` (int32 while they fit: a table of one
        entry per numbered token is made once)."""
        from ..core.lazy_numpy import numpy

        np = numpy()
        if self._table is None:
            firsts = np.fromiter(self._ids.values(), dtype=np.int64, count=len(self._ids))
            table = np.zeros(self.numbered, dtype=np.int32 if len(firsts) < 2**31 else np.int64)
            table[firsts] = np.arange(len(firsts), dtype=np.int64)  # values in insertion order
            self._table = table
        dense: NDArray[Any] = self._table[raw]
        return dense


class Tokens(Sequence[Optional[list[str]]]):
    """A stream's tokens: ``tokens[i]`` is segment ``i``'s list (None: no segment)."""

    def __init__(self, joined: list[Optional[str]], lengths: Optional[NDArray[Any]] = None,
                 raw_ids: Optional[NDArray[Any]] = None,
                 vocabulary: Optional[Vocabulary] = None) -> None:
        #: each segment's tokens joined by single spaces (None where it has none)
        self.joined = joined
        self._lengths = lengths
        self._raw_ids = raw_ids
        self.vocabulary = vocabulary

    def __len__(self) -> int:
        return len(self.joined)

    @overload
    def __getitem__(self, i: int) -> Optional[list[str]]: ...

    @overload
    def __getitem__(self, i: slice) -> list[Optional[list[str]]]: ...

    def __getitem__(self, i: Union[int, slice]) -> Any:
        if isinstance(i, slice):
            return [_split(line) for line in self.joined[i]]
        return _split(self.joined[i])

    def lengths(self) -> NDArray[Any]:
        """Tokens per segment (0 where there is no segment), int64."""
        from ..core.lazy_numpy import numpy

        if self._lengths is None:
            np = numpy()
            self._lengths = np.fromiter(
                (0 if line is None or not line else line.count(" ") + 1 for line in self.joined),
                dtype=np.int64, count=len(self.joined))
        return self._lengths

    def word_ids(self) -> tuple[NDArray[Any], NDArray[Any]]:
        """(each token's segment, each token's id in :attr:`vocabulary`), two integer arrays
        in token order; only for tokens made with a vocabulary (:func:`tokenize_stream`)."""
        from ..core.lazy_numpy import numpy

        if self._raw_ids is None or self.vocabulary is None:
            raise ValueError("these tokens were made without a vocabulary")
        np = numpy()
        segments = np.repeat(np.arange(len(self), dtype=np.int64), self.lengths())
        return segments, self.vocabulary.dense(self._raw_ids)


def _split(line: Optional[str]) -> Optional[list[str]]:
    if line is None:
        return None
    return line.split(" ") if line else []


def tokenize_stream(lines: Sequence[Optional[str]],
                    tokens_of: Callable[[list[str]], list[list[str]]],
                    vocabulary: Optional[Vocabulary] = None) -> Tokens:
    """The tokens of ``lines`` (None stays None) by ``tokens_of`` (a kernel's ``tokens``
    with the metric's settings), a chunk of lines at a time; with ``vocabulary``, every
    token's word id too (:meth:`Tokens.word_ids`)."""
    from ..core.lazy_numpy import numpy

    np = numpy()
    joined: list[Optional[str]] = [None] * len(lines)
    lengths = np.zeros(len(lines), dtype=np.int64)
    ids = []
    for start in range(0, len(lines), CHUNK):
        block = lines[start:start + CHUNK]
        present = [k for k, line in enumerate(block) if line is not None]
        found = tokens_of([str(block[k]) for k in present])
        texts = list(map(" ".join, found))
        if len(present) == len(block):
            joined[start:start + len(block)] = texts
        else:
            for k, text in zip(present, texts):
                joined[start + k] = text
        counts = np.fromiter(map(len, found), dtype=np.int64, count=len(found))
        lengths[np.asarray(present, dtype=np.int64) + start] = counts
        if vocabulary is not None:
            ids.append(vocabulary.raw_ids(chain.from_iterable(found), int(counts.sum())))
    if vocabulary is None:
        return Tokens(joined, lengths)
    raw = np.concatenate(ids) if ids else np.empty(0, dtype=np.int64)
    return Tokens(joined, lengths, raw, vocabulary)
