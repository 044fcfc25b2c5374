"""One gzip stream compressed on several threads (as pigz makes it), read by any gzip reader.

The page's data are about 170 MB before compression at 200,000 segments, and zlib at
level 1 was the longest step of writing the page. zlib lets go of the GIL while it
deflates, so the bytes are cut into blocks of :data:`BLOCK` bytes that are deflated on
several threads at once. Each block is a raw deflate stream primed with the 32 KiB
before it (``zdict``: the window a single stream would have had, so the ratio stays
nearly the same) and ended by a sync flush (a byte boundary, no final block); the
blocks are joined in order and closed by an empty final block: one ordinary deflate
stream in one gzip member, which ``gzip.decompress`` and the browser's
``DecompressionStream("gzip")`` read like any other.

The deflater is ISA-L's where its Python binding is installed (the ``isal`` extra), else
zlib's: the same calls (ISA-L's binding copies zlib's interface), and the same stream
structure. ISA-L deflates the page's texts about five times as fast as zlib at level 1 on
this project's machine (2026-11-29: 201 against 42 MB/s on 60 MB of the report's texts),
into a slightly smaller stream (0.442 of the bytes against 0.452): at 200,000 segments, the
longest step of the report after the resampling was zlib's.

The output depends only on the bytes and the deflater, never on the number of threads or on
how the caller cuts its pieces. With zlib, a report gives the same file wherever zlib is the
same version; ISA-L chooses its code by the processor and does not promise the same bytes
across processors or versions. The data a page holds are the same whichever made it.
"""

from __future__ import annotations

import struct
import zlib
from collections import deque
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from types import ModuleType
from typing import Iterable, Iterator, Optional, Sequence

__all__ = ["BLOCK", "DEFLATER", "DeflatedHead", "crc32", "deflate_block", "gzip_compress",
           "whole_blocks"]

#: bytes deflated per task: large enough that a task's overhead is nothing beside its
#: deflating, small enough that every thread gets work and few bytes wait in memory
BLOCK = 1 << 20
#: deflate's window: the history primed into each block
WINDOW = 1 << 15
LEVEL = 1
#: gzip's header: deflate, no name or comment, mtime 0, XFL 4 ("fastest", as gzip writes for
#: level 1), OS 255 (unknown): the header ``gzip.GzipFile`` writes at level 1 with mtime 0
HEADER = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x04\xff"


def _deflater() -> ModuleType:
    """ISA-L's zlib interface (``isal.isal_zlib``) where it is installed, else zlib."""
    try:
        from isal import isal_zlib
    except ImportError:
        return zlib
    return isal_zlib


#: the module whose ``compressobj`` and ``crc32`` make the stream (zlib's interface; both
#: let go of the GIL while they work, so the blocks deflate on several threads at once)
DEFLATER = _deflater()


def deflate_block(block: bytes, history: bytes) -> bytes:
    """``block`` as raw deflate blocks after ``history``, ending on a sync flush."""
    deflater = DEFLATER
    if history:
        compressor = deflater.compressobj(LEVEL, deflater.DEFLATED, -zlib.MAX_WBITS, zdict=history)
    else:
        compressor = deflater.compressobj(LEVEL, deflater.DEFLATED, -zlib.MAX_WBITS)
    return compressor.compress(block) + compressor.flush(deflater.Z_SYNC_FLUSH)


def crc32(data: bytes, value: int = 0) -> int:
    """gzip's CRC-32 of ``data`` after ``value`` (the deflater's: the same number either way)."""
    result: int = DEFLATER.crc32(data, value)
    return result


@dataclass
class DeflatedHead:
    """A stream's first whole blocks, the first of them already deflated (:mod:`.early_gzip`):
    ``deflated``, their deflated bytes in order, of ``size`` bytes whose CRC-32 is ``crc``
    and whose last 32 KiB are ``history``; ``pending``, the whole blocks after them, not
    deflated; ``tail``, the bytes after those, less than a block (what follows continues it)."""

    deflated: Sequence[bytes]
    crc: int
    size: int
    history: bytes
    pending: Sequence[bytes]
    tail: bytes


def whole_blocks(pieces: Iterable[bytes], pending: bytearray) -> Iterator[bytes]:
    """The bytes of ``pending`` then ``pieces``, in order, as blocks of exactly :data:`BLOCK`
    bytes; what is left (less than a block) stays in ``pending``."""
    for piece in pieces:
        pending += piece
        while len(pending) >= BLOCK:
            yield bytes(pending[:BLOCK])
            del pending[:BLOCK]


def gzip_compress(pieces: Iterable[bytes], threads: Optional[int] = None,
                  head: Optional[DeflatedHead] = None) -> bytes:
    """The gzip stream of the bytes of ``pieces`` (joined; after ``head``'s, if given),
    deflated on ``threads`` threads (default: the cores this process may use) while the
    next pieces are made here."""
    from ..core.kernels import default_threads

    workers = max(1, threads if threads is not None else default_threads())
    out = [HEADER]
    crc, size = 0, 0
    history = b""
    pending = bytearray()
    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="truebleu-gzip") as pool:
        in_flight: deque[Future[bytes]] = deque()

        def submit(block: bytes) -> None:
            nonlocal crc, size, history
            if len(in_flight) >= 2 * workers:
                out.append(in_flight.popleft().result())
            in_flight.append(pool.submit(deflate_block, block, history))
            crc = crc32(block, crc)  # (lets go of the GIL too)
            size += len(block)
            history = block[-WINDOW:]

        if head is not None:
            out += head.deflated
            crc, size, history = head.crc, head.size, head.history
            for block in head.pending:
                submit(block)
            pending += head.tail
        for block in whole_blocks(pieces, pending):
            submit(block)
        if pending:
            submit(bytes(pending))
        while in_flight:
            out.append(in_flight.popleft().result())
    out.append(zlib.compressobj(LEVEL, zlib.DEFLATED, -zlib.MAX_WBITS).flush(zlib.Z_FINISH))
    out.append(struct.pack("<II", crc, size & 0xFFFFFFFF))
    return b"".join(out)
