"""The page's texts deflated while the report is computed.

The texts (the source's, each reference's and system's) are about nine tenths of a
page's bytes, and they are known before any system is scored; the page's stream begins
with them (:func:`.page._block_columns`). Much of the scoring leaves a core idle (the
reading, the Python between the core's calls), so a command that will write the page
(``truebleu report``, ``truebleu serve``: :func:`texts_deflated_early`) has them made into
UTF-8 at once and deflated on one thread of their own from the start (:class:`EarlyTexts`).
:func:`.page.encode_payload` then takes what that thread has done and goes on: the stream
is the one it would have written alone, byte for byte, since each block's deflate depends
only on its bytes and the 32 KiB before them (:mod:`.parallel_gzip`).

The thread does nothing but call the deflater (zlib's or ISA-L's,
:data:`.parallel_gzip.DEFLATER`), which lets go of the GIL: it takes the GIL for a moment
between two blocks of a megabyte, never for long (making the texts into UTF-8 is done
before it starts, on the caller's thread, which would do it later anyway).
"""

from __future__ import annotations

import threading
from collections import deque
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any, Iterator, Optional, Sequence

from . import parallel_gzip
from .parallel_gzip import DeflatedHead, deflate_block, whole_blocks

if TYPE_CHECKING:
    from .model import ReportInputs
    from .page import Path

__all__ = ["EarlyTexts", "leading_text_columns", "start_early_texts", "texts_deflated_early"]

_WANTED: ContextVar[bool] = ContextVar("truebleu_texts_deflated_early", default=False)


@contextmanager
def texts_deflated_early() -> Iterator[None]:
    """Reports made inside deflate their texts while they are computed
    (:func:`start_early_texts`); outside, a report that may never be shown does not spend a
    core on it."""
    token = _WANTED.set(True)
    try:
        yield
    finally:
        _WANTED.reset(token)


Column = tuple[str, "Path", Sequence[Any]]


def start_early_texts(inputs: ReportInputs) -> Optional[EarlyTexts]:
    """:class:`EarlyTexts` of the report's texts inside :func:`texts_deflated_early`, else
    None."""
    return EarlyTexts(leading_text_columns(inputs)) if _WANTED.get() else None


def leading_text_columns(inputs: ReportInputs) -> list[Column]:
    """The text columns the payload begins with, in its order (:func:`.page._block_columns`):
    the source's, each reference's, each system's; the lists the payload will hold."""
    columns: list[Column] = [("text", ["source"], inputs.source)] if inputs.source is not None else []
    columns += [("text", ["references", k, "text"], stream) for k, stream in enumerate(inputs.references)]
    columns += [("text", ["systems", k, "text"], stream) for k, stream in enumerate(inputs.systems)]
    return columns


class EarlyTexts:
    """The leading text columns of a payload as UTF-8 (their blocks' entries made as the
    payload's writer makes them), deflated block after block on a thread started here,
    each block's bytes let go of once deflated. :meth:`take` stops it and hands over what
    is done."""

    def __init__(self, columns: Sequence[Column]) -> None:
        from .page import Written, column_pieces

        self.columns = list(columns)
        self.written = Written()
        pending = bytearray()
        pieces = (piece for kind, path, values in self.columns
                  for piece in column_pieces(kind, path, values, self.written))
        self._blocks = deque(whole_blocks(pieces, pending))  # (those not deflated yet)
        self._tail = bytes(pending)
        self._deflated: list[bytes] = []
        self._crc, self._size, self._history = 0, 0, b""
        self._stop = threading.Event()
        self._taken = False
        self._thread = threading.Thread(target=self._run, name="truebleu-early-gzip", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while self._blocks and not self._stop.is_set():
            block = self._blocks[0]
            self._deflated.append(deflate_block(block, self._history))
            self._crc = parallel_gzip.crc32(block, self._crc)  # (both let go of the GIL)
            self._size += len(block)
            self._history = block[-parallel_gzip.WINDOW:]
            self._blocks.popleft()  # (its deflated bytes are all that is kept)

    def take(self, columns: Sequence[Column]) -> Optional[DeflatedHead]:
        """What is deflated so far and what is not, if this object's columns are the first
        of ``columns`` (the same kind and path, the very same lists of texts); else None
        (the payload's writer then writes every column itself)."""
        self._stop.set()
        self._thread.join()
        mine = self.columns
        same = (not self._taken and len(columns) >= len(mine)
                and all(kind == own[0] and path == own[1] and values is own[2]
                        for (kind, path, values), own in zip(columns, mine)))
        self._taken = True
        if not same:
            return None
        return DeflatedHead(deflated=self._deflated, crc=self._crc, size=self._size,
                            history=self._history, pending=list(self._blocks), tail=self._tail)

    def abandon(self) -> None:
        """Stops the thread (the report was not saved)."""
        self._stop.set()
        self._thread.join()
        self._taken = True
