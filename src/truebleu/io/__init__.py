"""Reading the text people actually have: plain or compressed, files or stdin.

Lines are split on ``"\\n"`` only, as sacreBLEU reads files: a ``"\\r"`` stays
in the line (the scorer's ``rstrip`` removes it at the end of a line), other
Unicode line separators stay inside their segment, and an empty line is an
empty segment. Nothing is dropped, reordered or truncated; input files are
only ever opened for reading. Decoding errors name the file and the line.
Files are written by one writer, :func:`truebleu.io.output.output_file`.
"""

from __future__ import annotations

import os
from itertools import chain

from .errors import InputError, OutputError
from .lines import (
    DEFAULT_MAX_LINE_LENGTH,
    decode_error,
    is_stdin,
    iter_line_blocks,
    iter_sized_line_blocks,
    open_binary,
    text_decoder,
)

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: importing typing costs about 16 M instructions
if TYPE_CHECKING:
    from typing import Iterator, Sequence

__all__ = ["InputError", "OutputError", "DEFAULT_MAX_LINE_LENGTH", "open_binary", "decode", "split_lines",
           "read_lines", "iter_lines", "iter_line_chunks", "iter_aligned_chunks",
           "read_stdin_lines", "line_count_mismatch", "check_same_length", "is_stdin"]


def decode(raw: bytes, name: str, encoding: str = "utf-8", first_line: int = 1) -> str:
    """Decode ``raw``; on bad bytes say which line (counted from ``first_line``) holds them."""
    text_decoder(encoding, name)  # unknown or non-text encodings: a clear error
    try:
        return raw.decode(encoding)
    except UnicodeError as exc:
        raise decode_error(exc, name, encoding, first_line) from None


def split_lines(text: str) -> list[str]:
    """Lines of ``text`` as sacreBLEU's file reading yields them, without the newline."""
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    return lines


def iter_lines(path: str | os.PathLike, encoding: str = "utf-8",
               max_line_length: int = DEFAULT_MAX_LINE_LENGTH) -> Iterator[str]:
    """The lines of a plain, .gz, .bz2 or .xz file one by one (``"-"`` is standard input)."""
    return chain.from_iterable(iter_line_blocks(path, encoding, max_line_length))


def read_lines(path: str | os.PathLike, encoding: str = "utf-8",
               max_line_length: int = DEFAULT_MAX_LINE_LENGTH) -> list[str]:
    """All lines of a plain, .gz, .bz2 or .xz file (``"-"`` is standard input).

    Peak memory is the list of lines plus one block: no copy of the whole file
    as bytes or as one string is ever held.
    """
    return list(iter_lines(path, encoding, max_line_length))


def read_stdin_lines(encoding: str = "utf-8",
                     max_line_length: int = DEFAULT_MAX_LINE_LENGTH) -> list[str]:
    """Standard input as sacreBLEU reads it: universal newlines (\\r, \\r\\n, \\n)."""
    return read_lines("-", encoding, max_line_length)


def iter_line_chunks(path: str | os.PathLike, chunk_lines: int = 10_000,
                     encoding: str = "utf-8",
                     max_line_length: int = DEFAULT_MAX_LINE_LENGTH) -> Iterator[list[str]]:
    """The lines of a file in lists of at most ``chunk_lines``, reading as it goes."""
    for (chunk,) in iter_aligned_chunks([path], chunk_lines, encoding, max_line_length):
        yield chunk


#: Characters a chunk may hold per file, whatever ``chunk_lines`` says (8 Mi characters,
#: at most 32 MiB as ``str``): bounds a chunk of long lines in bytes.
CHUNK_CHARACTERS = 1 << 23


def iter_aligned_chunks(paths: Sequence[str | os.PathLike], chunk_lines: int = 10_000,
                        encoding: str = "utf-8",
                        max_line_length: int = DEFAULT_MAX_LINE_LENGTH
                        ) -> Iterator[list[list[str]]]:
    """The same lines of several files side by side: one list per file, of equal lengths.

    A chunk holds at most ``chunk_lines`` lines and, per file, about ``CHUNK_CHARACTERS``
    characters (plus one read block), so memory is bounded in bytes as well as in lines.
    Files with different numbers of lines are an error naming every file and its count.
    """
    if chunk_lines < 1:
        raise ValueError("chunk_lines must be >= 1")
    names = [os.fspath(path) for path in paths]
    if sum(map(is_stdin, names)) > 1:
        raise InputError("standard input ('-') can be read only once")
    readers = [iter_sized_line_blocks(name, encoding, max_line_length) for name in names]
    pending: list[list[str]] = [[] for _ in names]
    characters = [0] * len(names)  # a bound on the characters held in each pending list
    done = 0
    while True:
        for k, reader in enumerate(readers):
            lines = pending[k]
            while len(lines) < chunk_lines and characters[k] < CHUNK_CHARACTERS:
                block = next(reader, None)
                if block is None:
                    break
                lines += block[0]
                characters[k] += block[1]
        available = [len(lines) for lines in pending]
        if not any(available):
            return
        if not all(available):
            counts = [done + n + sum(len(lines) for lines, _ in reader)
                      for n, reader in zip(available, readers)]
            shown = ["<stdin>" if is_stdin(name) else name for name in names]
            raise line_count_mismatch(shown[0], counts[0], list(zip(shown[1:], counts[1:])))
        size = min(chunk_lines, *available)
        if size == max(available):  # every file's lines are used up: hand the lists over
            yield pending
            pending, characters = [[] for _ in names], [0] * len(names)
        else:
            yield [lines[:size] for lines in pending]
            for k, lines in enumerate(pending):
                del lines[:size]
                characters[k] = sum(map(len, lines))  # what is left: at most a block or two
        done += size


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
