"""One reader for every segment format the command line accepts, chosen by file name.

- ``*.jsonl`` / ``*.ndjson`` (compressed or not): a named field (:mod:`.jsonl`);
- ``*.sgm`` / ``*.sgml`` (compressed or not): the ``<seg>`` lines (:mod:`.sgml`);
- anything else: one segment per line (plain, ``.gz``, ``.bz2``, ``.xz``, or ``-``).

WMT XML files hold several streams at once and are read with
:func:`truebleu.io.wmt_xml.read_wmt_xml` (``truebleu --wmt-xml FILE``).
"""

from __future__ import annotations

import os

from . import DEFAULT_MAX_LINE_LENGTH, iter_lines
from .jsonl import is_jsonl, read_jsonl_field, read_jsonl_references

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: this module is on every command's path
if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = ["read_segments", "read_reference_streams", "is_plain_text"]

_SGML = (".sgm", ".sgml")


def _is_sgml(path: str) -> bool:
    stem = path.lower()
    for suffix in (".gz", ".bz2", ".xz"):
        stem = stem.removesuffix(suffix)
    return stem.endswith(_SGML)


def is_plain_text(path: str | os.PathLike) -> bool:
    """True when ``path`` is read line by line (so it can be streamed)."""
    name = os.fspath(path)
    return not (is_jsonl(name) or _is_sgml(name))


def read_segments(path: str | os.PathLike, encoding: str = "utf-8", field: str = "hyp",
                  max_line_length: int = DEFAULT_MAX_LINE_LENGTH) -> list[str]:
    """The segments of a file, each right-stripped as sacreBLEU strips input lines.

    Lines are stripped as they are read, so the peak is one list of lines (as sacreBLEU's).
    """
    name = os.fspath(path)
    if is_jsonl(name):
        return [value.rstrip()
                for value in read_jsonl_field(name, field, encoding, max_line_length)]
    if _is_sgml(name):
        from .sgml import read_sgml

        return read_sgml(name, encoding, max_line_length)
    # (map calls str.rstrip without a comprehension's frame: 10 WMT21 files of 1,002
    # lines 29.3 M -> 28.7 M instructions)
    return list(map(str.rstrip, iter_lines(name, encoding, max_line_length)))


def read_reference_streams(path: str | os.PathLike, encoding: str = "utf-8", field: str = "ref",
                           max_line_length: int = DEFAULT_MAX_LINE_LENGTH
                           ) -> list[Sequence[str | None]]:
    """The reference streams of one file: one, or several from a JSON Lines list field."""
    name = os.fspath(path)
    if is_jsonl(name):
        return [[None if ref is None else ref.rstrip() for ref in stream]
                for stream in read_jsonl_references(name, field, encoding, max_line_length)]
    return [read_segments(name, encoding, max_line_length=max_line_length)]
