"""Lines of a file, read in blocks of bounded size, split on *decoded* text.

Every file is read the same way whatever its encoding: a block of bytes goes
through the codec's incremental decoder (which keeps a byte-order mark, a
multi-byte character or a shift state that straddles two blocks), and the
decoded text is split on ``"\\n"``, exactly as ``open(path, encoding=...,
newline="\\n")`` splits it (how sacreBLEU reads files). There is no list of
"safe" encodings: UTF-16 Chinese, whose U+4E0A holds the byte 0x0A, is split
where its text has a newline and nowhere else. For UTF-8 this is also the fast
path: one ``decode`` and one ``split`` per block, both in C, and no Python-level
work per line (a line can only break the length limit when its block's text,
plus the unfinished line before it, is longer than the limit: only then are the
lines measured). Larger blocks do not pay: a block holding one non-ASCII character
is decoded to a wider string, and splitting it narrows every line again.

Memory is bounded by bytes, not lines: a block is at most ``BLOCK_BYTES`` of
input plus one unfinished line, and no line may be longer than
``max_line_length`` characters (an :class:`~truebleu.io.InputError` naming the
file and the line otherwise), so a decompression bomb without newlines, or
``/dev/zero``, stops at the limit instead of filling the machine.
"""

from __future__ import annotations

import codecs
import os
import stat
import sys
from importlib import import_module

from .errors import InputError

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: every command reads through this module
if TYPE_CHECKING:  # for the checker only: a Protocol class costs start-up to build
    from types import TracebackType
    from typing import Iterator, Optional, Protocol

    class BinaryReader(Protocol):
        """What :func:`open_binary` returns: a file object (plain or decompressing) read in
        blocks, or standard input's bytes; a context manager."""

        def read(self, size: int = -1, /) -> bytes: ...

        def readinto(self, buffer: memoryview, /) -> int: ...

        def __enter__(self) -> BinaryReader: ...

        def __exit__(self, exc_type: Optional[type[BaseException]], exc: Optional[BaseException],
                     traceback: Optional[TracebackType], /) -> Optional[bool]: ...

#: Default longest line, in characters. A WMT segment is under 2,000 characters and whole
#: documents on one line rarely exceed 100,000; a line of 2**20 characters costs at most
#: 4 MiB as a ``str`` (plus its bytes while decoding), far below any machine's memory.
#: Raise it with ``--max-line-length`` / ``max_line_length=`` for longer lines.
DEFAULT_MAX_LINE_LENGTH = 1 << 20

#: Bytes read (and decoded) at a time: small enough to add little to a read's peak memory
#: (a whole-file read peaks within a few percent of sacreBLEU's), large enough to be fast.
BLOCK_BYTES = 1 << 16

#: The module whose ``open`` reads a compressed file, by extension (imported for such files only).
_DECOMPRESSORS = {".gz": "gzip", ".bz2": "bz2", ".xz": "lzma"}


def decompression_errors() -> tuple[type[Exception], ...]:
    """What reading a corrupt or truncated .gz, .bz2 or .xz file raises (and any read error).

    A function for ``except decompression_errors() as exc:``, which runs it only when an
    exception is raised: a command on plain files never imports ``zlib`` and ``lzma``.
    """
    import lzma
    import zlib

    return (OSError, EOFError, zlib.error, lzma.LZMAError)


def is_stdin(path: str | os.PathLike) -> bool:
    """``-`` names standard input, on every path of the command line."""
    return os.fspath(path) == "-"


def _not_a_file_error(path: str) -> InputError | None:
    """An error for paths that cannot hold lines to read (sockets, directories), else None.

    Pipes (``<(zcat f.gz)``), ``/dev/stdin`` and other character devices are read like
    files; a device that never ends (``/dev/zero``) stops at the line-length limit.
    """
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return InputError(f"{path}: no such file")
    except OSError as exc:
        return InputError(f"{path}: cannot read: {exc.strerror or exc}")
    if stat.S_ISDIR(mode):
        return InputError(f"{path}: is a directory, not a text file")
    if stat.S_ISSOCK(mode):
        return InputError(f"{path}: is a socket, not a text file")
    return None


def open_binary(path: str | os.PathLike[str]) -> BinaryReader:
    """Open a file for reading bytes, decompressing by its extension (``-``: standard input)."""
    name = os.fspath(path)
    if is_stdin(name):
        return _StdinBytes()
    error = _not_a_file_error(name)
    if error is not None:
        raise error
    module = _DECOMPRESSORS.get(os.path.splitext(name)[1].lower())
    opener = open if module is None else import_module(module).open
    try:
        return opener(name, "rb")
    except FileNotFoundError:
        raise InputError(f"{name}: no such file") from None
    except IsADirectoryError:
        raise InputError(f"{name}: is a directory, not a text file") from None
    except PermissionError:
        raise InputError(f"{name}: permission denied") from None
    except OSError as exc:
        raise InputError(f"{name}: cannot open: {exc.strerror or exc}") from None


class _StdinBytes:
    """Standard input's bytes, left open when the ``with`` block ends."""

    def __enter__(self) -> _StdinBytes:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def read(self, size: int = -1, /) -> bytes:
        return sys.stdin.buffer.read(size)

    def readinto(self, buffer: memoryview, /) -> int:
        data = self.read(len(buffer))  # (the UTF-8 path, which reads into buffers, refuses stdin)
        buffer[:len(data)] = data
        return len(data)


def _read_block(handle: BinaryReader, name: str, size: int) -> bytes:
    try:
        return handle.read(size)
    except decompression_errors() as exc:
        raise _read_error(exc, name) from None


def readinto_block(handle: BinaryReader, name: str, view: memoryview) -> int:
    """:func:`_read_block` into ``view`` (the same bytes: ``readinto`` of a buffered or
    compressed file, like ``read``, stops short only at the end); returns their number."""
    try:
        return handle.readinto(view)
    except decompression_errors() as exc:
        raise _read_error(exc, name) from None


def _read_error(exc: Exception, name: str) -> InputError:
    kind = os.path.splitext(name)[1].lower()
    if kind in _DECOMPRESSORS:
        return InputError(f"{name}: cannot decompress (corrupt or truncated {kind} file): {exc}")
    return InputError(f"{name}: cannot read: {exc}")


def text_decoder(encoding: str, name: str | None = None):
    """The incremental decoder of ``encoding``, refusing names that are not text encodings.

    ``name``, the file to be read, is named in the error.
    """
    where = "" if name is None else f"{name}: "
    try:
        info = codecs.lookup(encoding)
    except LookupError:
        raise InputError(f"{where}unknown encoding {encoding!r}") from None
    if not getattr(info, "_is_text_encoding", True) or info.incrementaldecoder is None:
        # rot13, base64: open() refuses them too
        raise InputError(f"{where}{encoding!r} is not a text encoding")
    return info.incrementaldecoder(errors="strict")


def decode_error(exc: UnicodeError, name: str, encoding: str, line: int) -> InputError:
    """Name the line holding the bad bytes (``line`` is where the decoded piece starts).

    A ``UnicodeDecodeError`` says where the bad bytes are; other ``UnicodeError`` types
    say nothing (``UTF-16 stream does not start with BOM`` from ``-e utf-16``, punycode,
    idna), so they are reported from the line where the undecodable piece starts.
    """
    if not isinstance(exc, UnicodeDecodeError):
        return InputError(f"{name}, from line {line}: cannot decode as {encoding}: {exc}")
    before = exc.object[:exc.start]
    line += before.decode(encoding, errors="replace").count("\n")
    bad = exc.object[exc.start:exc.end].hex(" ")
    return InputError(f"{name}, line {line}: invalid {exc.encoding} (bytes {bad}): {exc.reason}")


def line_too_long(name: str, line: int, limit: int) -> InputError:
    return InputError(f"{name}, line {line}: longer than {limit:,} characters (the line-length "
                      "limit; raise it with --max-line-length or max_line_length=)")


def iter_line_blocks(path: str | os.PathLike, encoding: str = "utf-8",
                     max_line_length: int = DEFAULT_MAX_LINE_LENGTH,
                     block_bytes: int | None = None) -> Iterator[list[str]]:
    """The lines of a file (without ``"\\n"``) in lists, one list per block read.

    ``-`` is standard input, read as sacreBLEU reads it: universal newlines
    (``\\r\\n`` and ``\\r`` end a line too). Files keep ``\\r`` in the line, as
    ``open(..., newline="\\n")`` does. Blocks hold at least one line; their sizes
    follow the bytes read, not the number of lines.
    """
    for lines, _ in iter_sized_line_blocks(path, encoding, max_line_length, block_bytes):
        yield lines


def iter_sized_line_blocks(path: str | os.PathLike, encoding: str = "utf-8",
                           max_line_length: int = DEFAULT_MAX_LINE_LENGTH,
                           block_bytes: int | None = None) -> Iterator[tuple[list[str], int]]:
    """:func:`iter_line_blocks`, each list with a bound on its characters.

    The bound (the characters decoded for the list, newlines included) lets a
    reader of several files bound its memory without measuring every line.
    """
    if max_line_length < 1:
        raise ValueError("max_line_length must be >= 1")
    name = os.fspath(path)
    universal = is_stdin(name)
    display = "<stdin>" if universal else name
    decoder = text_decoder(encoding, display)
    size = block_bytes or BLOCK_BYTES
    pieces: list[str] = []      # the unfinished line, in pieces (no "\n" in any)
    pending = 0                 # its length
    line_no = 1                 # the number of the unfinished line
    held_cr = False             # universal newlines: a "\r" at a block's end may start "\r\n"
    with open_binary(name) as handle:
        while True:
            raw = _read_block(handle, display, size)
            try:
                text = decoder.decode(raw, final=not raw)
            except UnicodeError as exc:
                raise decode_error(exc, display, encoding, line_no) from None
            if universal:
                if held_cr:
                    text = "\r" + text
                held_cr = bool(raw) and text.endswith("\r")
                if held_cr:
                    text = text[:-1]
                text = text.replace("\r\n", "\n").replace("\r", "\n")
            lines = text.split("\n")
            if len(lines) == 1:  # no line ends in this block
                if text:
                    pieces.append(text)
                    pending += len(text)
                    if pending > max_line_length:
                        raise line_too_long(display, line_no, max_line_length)
                if not raw:
                    if pending:
                        yield ["".join(pieces)], pending
                    return
                continue
            characters = pending + len(text)  # no line of this block can be longer
            if pieces:
                pieces.append(lines[0])
                lines[0] = "".join(pieces)
            last = lines.pop()
            pieces, pending = ([last], len(last)) if last else ([], 0)
            if characters > max_line_length:  # only then can a line be too long: look
                index = next((i for i, line in enumerate(lines) if len(line) > max_line_length),
                             None)
                if index is not None or pending > max_line_length:
                    raise line_too_long(display, line_no + (len(lines) if index is None else index),
                                    max_line_length)
            line_no += len(lines)
            yield lines, characters - pending
            if not raw:
                if pending:
                    yield ["".join(pieces)], pending
                return
