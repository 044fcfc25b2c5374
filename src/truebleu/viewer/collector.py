"""The cyclic garbage collector held off while a report makes millions of objects.

Python's collector runs after every few hundred new container objects, and its full
collections walk every object alive. A report of 200,000 segments holds millions of
them (its columns of texts, tokens and numbers) while it makes hundreds of thousands
more (each segment's list of token offsets, the page's columns): the collector's walks
were about 0.5 s of the page's 0.7 s of building its data, and 1 s of the whole
command's CPU time, finding nothing (what a report makes is freed by reference
counting). :func:`collector_paused` turns it off for such a stretch and back on after.
"""

from __future__ import annotations

import gc
from contextlib import contextmanager
from typing import Iterator

__all__ = ["collector_paused"]


@contextmanager
def collector_paused() -> Iterator[None]:
    """No automatic cyclic collection inside the block (as it was after it: left off if
    the caller had turned it off)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
