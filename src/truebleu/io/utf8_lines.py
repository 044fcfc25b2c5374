"""UTF-8 files side by side as bytes: the command line's lines without a ``str`` per line.

The same reading as :func:`truebleu.io.iter_aligned_chunks` (itself built on
:func:`truebleu.io.lines.iter_sized_line_blocks`, the specification), block for
block and chunk for chunk, except that the lines stay in a ``bytearray`` per file
and only the compiled core looks at them: the same blocks are read, in the same
order, so the same error (bad UTF-8, a line over the limit, files of different
lengths) is raised with the same message at the same moment. Each block is checked
in C (:func:`utf8_scan`: validity as Python's strict decoder sees it, characters,
newlines); an error is left to Python's own decoder, which says what is wrong in
its words, and a block that could hold a line over the limit is measured line by
line. Files only, UTF-8 only: standard input (universal newlines) and other
encodings are read by the ``str`` path.
"""

from __future__ import annotations

import codecs
import os

from ..core.kernels import native_core
from . import lines as _lines
from .errors import InputError
from .lines import line_too_long

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: importing typing costs about 16 M instructions
if TYPE_CHECKING:
    from typing import Iterator, Sequence

core = native_core()  # ImportError where the core was not built: callers check first


class Utf8File:
    """One file's bytes: complete lines first, then the unfinished line (and an unfinished
    character) read so far, in ``buffer[:length]``. :attr:`blocks` yields ``(lines,
    characters)`` per block as :func:`~truebleu.io.lines.iter_sized_line_blocks` yields its
    lists.

    Blocks are read straight into :attr:`buffer` (``readinto``: no ``bytes`` object per
    block, no copy), which keeps its size from chunk to chunk: it grows only while a chunk
    needs more room than any chunk before.
    """

    def __init__(self, name: str, max_line_length: int, block_bytes: int | None = None) -> None:
        if max_line_length < 1:
            raise ValueError("max_line_length must be >= 1")
        self.name = name
        self.buffer = bytearray()  # buffer[:length] holds the bytes; the rest is room to read into
        self.length = 0
        self.complete_end = 0  # bytes holding the complete lines (a last line at the end of file)
        self._decoded = 0      # where the bytes not yet scanned start (an unfinished character)
        self.blocks = self._blocks(max_line_length, block_bytes or _lines.BLOCK_BYTES)

    def consume(self, taken: int) -> None:
        """Forget the first ``taken`` bytes (lines handed to the core).

        The rest (at most a block or two) moves to the front; the buffer keeps its size.
        """
        rest = self.length - taken
        self.buffer[:rest] = self.buffer[taken:self.length]
        self.length = rest
        self.complete_end -= taken
        self._decoded -= taken

    def _read(self, handle, size: int) -> int:
        """Read the next block (at most ``size`` bytes) after the bytes held; its length."""
        end = self.length + size
        if end > len(self.buffer):  # doubling: a few times per file, then never again
            self.buffer += bytes(max(end, 2 * len(self.buffer)) - len(self.buffer))
        read = _lines.readinto_block(handle, self.name, memoryview(self.buffer)[self.length:end])
        self.length += read
        return read

    def _blocks(self, limit: int, size: int) -> Iterator[tuple[int, int]]:
        name = self.name
        pending = 0   # characters of the unfinished line
        line_no = 1   # its number
        with _lines.open_binary(name) as handle:
            while True:
                start = self._decoded
                read = self._read(handle, size)
                buffer, length = self.buffer, self.length
                valid, chars, newlines, error, last = core.utf8_scan(buffer, start, length)
                if error or (not read and valid < length):
                    raise self._decode_error(start, not read, line_no)
                self._decoded = valid
                if not newlines:
                    pending += chars
                    if pending > limit:
                        raise line_too_long(name, line_no, limit)
                    if not read:
                        if pending:
                            self.complete_end = length
                            yield 1, pending
                        return
                    continue
                characters = pending + chars  # no line of this block can be longer
                if characters > limit:  # only then can a line be too long: look
                    index = core.utf8_first_long_line(buffer, start, valid, pending, limit)
                    if index >= 0 or last > limit:
                        raise line_too_long(name, line_no + (newlines if index < 0 else index),
                                               limit)
                pending = last
                line_no += newlines
                self.complete_end = buffer.rindex(b"\n", start, valid) + 1
                yield newlines, characters - pending
                # the str path's "if not raw" here cannot happen: an empty read has no newline

    def _decode_error(self, start: int, final: bool, line_no: int) -> InputError:
        """Python's decoder on the bytes it would have been given: its message, exactly."""
        try:
            codecs.utf_8_decode(bytes(self.buffer[start:self.length]), "strict", final)
        except UnicodeDecodeError as exc:
            return _lines.decode_error(exc, self.name, "utf-8", line_no)
        raise RuntimeError("utf8_scan and Python's decoder disagree")  # pragma: no cover


def _chunk_characters() -> int:
    """:data:`truebleu.io.CHUNK_CHARACTERS`, read when a reading starts (tests change it)."""
    from . import CHUNK_CHARACTERS
    return CHUNK_CHARACTERS


def iter_aligned_utf8_chunks(paths: Sequence[str | os.PathLike], chunk_lines: int,
                             max_line_length: int) -> Iterator[tuple[list[Utf8File], int]]:
    """``(files, n)``: the next ``n`` lines of every file are the first ``n`` of its buffer.

    The caller hands them to the core and calls :meth:`Utf8File.consume` with the
    bytes they took before asking for the next chunk. The chunking is
    :func:`truebleu.io.iter_aligned_chunks`'s, line count for line count.
    """
    from . import is_stdin, line_count_mismatch

    if chunk_lines < 1:
        raise ValueError("chunk_lines must be >= 1")
    names = [os.fspath(path) for path in paths]
    if any(map(is_stdin, names)):
        raise ValueError("standard input is read by the str path (universal newlines)")
    files = [Utf8File(name, max_line_length) for name in names]
    limit = _chunk_characters()
    pending = [0] * len(files)      # complete lines held
    characters = [0] * len(files)   # a bound on their characters
    done = 0
    while True:
        for k, file in enumerate(files):
            while pending[k] < chunk_lines and characters[k] < limit:
                block = next(file.blocks, None)
                if block is None:
                    break
                pending[k] += block[0]
                characters[k] += block[1]
        if not any(pending):
            return
        if not all(pending):
            counts = [done + n + sum(lines for lines, _ in file.blocks)
                      for n, file in zip(pending, files)]
            raise line_count_mismatch(names[0], counts[0], list(zip(names[1:], counts[1:])))
        size = min(chunk_lines, *pending)
        yield files, size
        if size == max(pending):
            pending, characters = [0] * len(files), [0] * len(files)
        else:
            for k, file in enumerate(files):
                pending[k] -= size
                characters[k] = core.utf8_line_chars(file.buffer, pending[k], file.complete_end)
        done += size
