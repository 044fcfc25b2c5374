"""BLEU's tokens of a stream, kept as one string per segment.

A report shows, counts and buckets the tokens BLEU counted. Kept as one Python list
of ``str`` per segment, the 200,000-segment report held 12 million token objects
(most of its memory); kept as each segment's tokens joined by single spaces (what the
page shows anyway), a stream is one string per segment, and the buckets read every
token at once with C-level ``str`` and NumPy operations instead of a Python loop per
token. Tokens never contain a space (a tokenizer splits on whitespace), so
``joined.split(" ")`` gives them back exactly.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Callable, Optional, Union, overload

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = ["Tokens", "tokenize_stream"]

#: lines tokenized per call of the kernel (its lists of tokens are joined at once)
CHUNK = 8192


class Tokens(Sequence[Optional[list[str]]]):
    """A stream's tokens: ``tokens[i]`` is segment ``i``'s list (None: no segment)."""

    def __init__(self, joined: list[Optional[str]]) -> None:
        #: each segment's tokens joined by single spaces (None where it has none)
        self.joined = joined

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

        np = numpy()
        lengths: NDArray[Any] = np.fromiter(
            (0 if line is None or not line else line.count(" ") + 1 for line in self.joined),
            dtype=np.int64, count=len(self.joined))
        return lengths

    def flat(self, start: int = 0, stop: Optional[int] = None) -> tuple[NDArray[Any], list[str]]:
        """(each token's segment, every token in order) of segments ``start:stop``, all
        at once (with C-level ``str.join`` and ``str.split``)."""
        from ..core.lazy_numpy import numpy

        np = numpy()
        part = Tokens(self.joined[start:stop])
        lengths = part.lengths()
        segments = np.repeat(np.arange(start, start + len(lengths), dtype=np.int64), lengths)
        words = " ".join(line for line in part.joined if line).split(" ")
        return segments, words if len(segments) else []


def _split(line: Optional[str]) -> Optional[list[str]]:
    if line is None:
        return None
    return line.split(" ") if line else []


def tokenize_stream(lines: Sequence[Optional[str]],
                    tokens_of: Callable[[list[str]], list[list[str]]]) -> Tokens:
    """The tokens of ``lines`` (None stays None) by ``tokens_of`` (a kernel's ``tokens``
    with the metric's settings), a chunk of lines at a time."""
    joined: list[Optional[str]] = [None] * len(lines)
    for start in range(0, len(lines), CHUNK):
        block = lines[start:start + CHUNK]
        present = [k for k, line in enumerate(block) if line is not None]
        found = tokens_of([str(block[k]) for k in present])
        for k, toks in zip(present, found):
            joined[start + k] = " ".join(toks)
    return Tokens(joined)
