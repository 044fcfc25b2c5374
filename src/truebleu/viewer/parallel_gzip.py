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

The output depends only on the bytes, never on the number of threads or on how the
caller cuts its pieces: a report gives the same file on every machine.
"""

from __future__ import annotations

import struct
import zlib
from collections import deque
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Iterable, Iterator, Optional

__all__ = ["BLOCK", "gzip_compress"]

#: bytes deflated per task: large enough that a task's overhead is nothing beside its
#: deflating, small enough that every thread gets work and few bytes wait in memory
BLOCK = 1 << 20
#: deflate's window: the history primed into each block
WINDOW = 1 << 15
LEVEL = 1
#: gzip's header: deflate, no name or comment, mtime 0, XFL 4 ("fastest", as gzip writes for
#: level 1), OS 255 (unknown): the header ``gzip.GzipFile`` writes at level 1 with mtime 0
HEADER = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x04\xff"


def _deflate(block: bytes, history: bytes) -> bytes:
    """``block`` as raw deflate blocks after ``history``, ending on a sync flush."""
    if history:
        compressor = zlib.compressobj(LEVEL, zlib.DEFLATED, -zlib.MAX_WBITS, zdict=history)
    else:
        compressor = zlib.compressobj(LEVEL, zlib.DEFLATED, -zlib.MAX_WBITS)
    return compressor.compress(block) + compressor.flush(zlib.Z_SYNC_FLUSH)


def _blocks(pieces: Iterable[bytes]) -> Iterator[bytes]:
    """The bytes of ``pieces``, in order, cut into blocks of exactly :data:`BLOCK` bytes
    (the last one shorter; none if there are no bytes)."""
    pending = bytearray()
    for piece in pieces:
        pending += piece
        while len(pending) >= BLOCK:
            yield bytes(pending[:BLOCK])
            del pending[:BLOCK]
    if pending:
        yield bytes(pending)


def gzip_compress(pieces: Iterable[bytes], threads: Optional[int] = None) -> bytes:
    """The gzip stream of the bytes of ``pieces`` (joined), deflated on ``threads`` threads
    (default: the cores this process may use) while the next pieces are made here."""
    from ..core.kernels import default_threads

    workers = max(1, threads if threads is not None else default_threads())
    out = [HEADER]
    crc, size, history = 0, 0, b""
    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="truebleu-gzip") as pool:
        in_flight: deque[Future[bytes]] = deque()
        for block in _blocks(pieces):
            if len(in_flight) >= 2 * workers:
                out.append(in_flight.popleft().result())
            in_flight.append(pool.submit(_deflate, block, history))
            crc = zlib.crc32(block, crc)  # (lets go of the GIL too)
            size += len(block)
            history = block[-WINDOW:]
        while in_flight:
            out.append(in_flight.popleft().result())
    out.append(zlib.compressobj(LEVEL, zlib.DEFLATED, -zlib.MAX_WBITS).flush(zlib.Z_FINISH))
    out.append(struct.pack("<II", crc, size & 0xFFFFFFFF))
    return b"".join(out)
