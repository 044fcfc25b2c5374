"""Reading the text people actually have: plain or compressed, files or stdin.

Lines are split on ``"\\n"`` only, as sacreBLEU reads files: a ``"\\r"`` stays
in the line (the scorer's ``rstrip`` removes it at the end of a line), other
Unicode line separators stay inside their segment, and an empty line is an
empty segment. Nothing is dropped, reordered or truncated; input files are
only ever opened for reading. Decoding errors name the file and the line.
"""

from __future__ import annotations

import bz2
import gzip
import lzma
import os
from itertools import islice
from typing import BinaryIO, Iterator, Sequence

_OPENERS = {".gz": gzip.open, ".bz2": bz2.open, ".xz": lzma.open}


class InputError(ValueError):
    """Input that cannot be scored as given; the message names file and line."""


def open_binary(path: str | os.PathLike) -> BinaryIO:
    """Open a file for reading bytes, decompressing by its extension."""
    path = os.fspath(path)
    opener = _OPENERS.get(os.path.splitext(path)[1].lower(), open)
    try:
        return opener(path, "rb")
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise InputError(f"{path}: is a directory, not a text file") from None
    except PermissionError:
        raise InputError(f"{path}: permission denied") from None


def decode(raw: bytes, name: str, encoding: str = "utf-8", first_line: int = 1) -> str:
    """Decode ``raw``; on bad bytes say which line (counted from ``first_line``) holds them."""
    try:
        return raw.decode(encoding)
    except UnicodeDecodeError as exc:
        line = first_line + raw[:exc.start].decode(encoding, errors="replace").count("\n")
        bad = raw[exc.start:exc.end].hex(" ")
        raise InputError(
            f"{name}, line {line}: invalid {exc.encoding} (bytes {bad}): {exc.reason}") from None
    except LookupError:
        raise InputError(f"unknown encoding {encoding!r}") from None


def split_lines(text: str) -> list[str]:
    """Lines of ``text`` as sacreBLEU's file reading yields them, without the newline."""
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    return lines


def _read_raw(path: str | os.PathLike) -> bytes:
    name = os.fspath(path)
    with open_binary(name) as handle:
        try:
            return handle.read()
        except (OSError, EOFError, lzma.LZMAError) as exc:
            raise InputError(f"{name}: cannot decompress: {exc}") from None


def read_lines(path: str | os.PathLike, encoding: str = "utf-8") -> list[str]:
    """All lines of a plain, .gz, .bz2 or .xz file (``"-"`` is standard input)."""
    if os.fspath(path) == "-":
        return read_stdin_lines(encoding)
    name = os.fspath(path)
    return split_lines(decode(_read_raw(name), name, encoding))


def iter_line_chunks(path: str | os.PathLike, chunk_lines: int = 10_000,
                     encoding: str = "utf-8") -> Iterator[list[str]]:
    """The lines of a file in lists of at most ``chunk_lines``, reading as it goes.

    Memory stays bounded by the chunk, whatever the file's size. Each chunk is
    decoded in one call (lines are split on ``b"\\n"``, so this suits UTF-8
    and the other ASCII-compatible encodings).
    """
    if chunk_lines < 1:
        raise ValueError("chunk_lines must be >= 1")
    name = os.fspath(path)
    first_line = 1
    with open_binary(name) as handle:
        while True:
            try:
                raw_lines = list(islice(handle, chunk_lines))  # binary lines end at b"\n"
            except (OSError, EOFError, lzma.LZMAError) as exc:
                raise InputError(f"{name}: cannot decompress: {exc}") from None
            if not raw_lines:
                return
            lines = split_lines(decode(b"".join(raw_lines), name, encoding, first_line))
            first_line += len(raw_lines)
            yield lines


def read_stdin_lines(encoding: str = "utf-8") -> list[str]:
    """Standard input as sacreBLEU reads it: universal newlines (\\r, \\r\\n, \\n)."""
    import sys

    raw = sys.stdin.buffer.read()
    text = decode(raw, "<stdin>", encoding)
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    return split_lines(text)


def line_count_mismatch(hyp_name: str, hyp_lines: int,
                        refs: Sequence[tuple[str, int]]) -> InputError:
    """The error for hypotheses and references of different lengths, naming every file."""
    return InputError(
        f"{hyp_name} has {hyp_lines} lines but "
        + ", ".join(f"{name} has {n} lines" for name, n in refs)
        + "; hypotheses and references must have one line per segment")


def check_same_length(hypotheses: Sequence, hyp_name: str,
                      references: Sequence[Sequence], ref_names: Sequence[str]) -> None:
    """Refuse hypotheses and references of different lengths, naming both."""
    mismatched = [(name, len(refs)) for refs, name in zip(references, ref_names)
                  if len(refs) != len(hypotheses)]
    if mismatched:
        raise line_count_mismatch(hyp_name, len(hypotheses), mismatched)
