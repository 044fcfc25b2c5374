"""JSON Lines input: one JSON object per line, segments taken from named fields.

``{"id": 7, "src": "...", "hyp": "...", "ref": "..."}`` per line; a field may
hold a string, or (for references) a list of strings, several references of
the segment. Lines that are empty or only whitespace are errors (a segment is
never silently dropped), as are missing fields and values that are not text.
"""

from __future__ import annotations

import os

from . import DEFAULT_MAX_LINE_LENGTH, InputError, iter_lines

__all__ = ["read_jsonl_field", "read_jsonl_references", "is_jsonl"]

_SUFFIXES = (".jsonl", ".jsonl.gz", ".jsonl.bz2", ".jsonl.xz", ".ndjson", ".ndjson.gz")


def is_jsonl(path: str | os.PathLike) -> bool:
    """True for ``.jsonl`` / ``.ndjson`` files, compressed or not."""
    return os.fspath(path).lower().endswith(_SUFFIXES)


def _records(path: str, encoding: str, max_line_length: int):
    import json

    for line_no, line in enumerate(iter_lines(path, encoding, max_line_length), 1):
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InputError(f"{path}, line {line_no}: not a JSON object: {exc.msg}") from None
        except ValueError as exc:  # a number of more digits than Python converts
            raise InputError(f"{path}, line {line_no}: cannot read the JSON: {exc}") from None
        except RecursionError:
            raise InputError(f"{path}, line {line_no}: the JSON is nested too deeply") from None
        if not isinstance(record, dict):
            raise InputError(f"{path}, line {line_no}: expected a JSON object, "
                             f"found {type(record).__name__}")
        yield line_no, record


def _value(path: str, line_no: int, record: dict, field: str):
    if field not in record:
        raise InputError(f"{path}, line {line_no}: no field {field!r} "
                         f"(fields: {', '.join(map(str, record)) or 'none'})")
    return record[field]


def read_jsonl_field(path: str | os.PathLike, field: str, encoding: str = "utf-8",
                     max_line_length: int = DEFAULT_MAX_LINE_LENGTH) -> list[str]:
    """The string ``field`` of every line, in order."""
    name = os.fspath(path)
    values = []
    for line_no, record in _records(name, encoding, max_line_length):
        value = _value(name, line_no, record, field)
        if not isinstance(value, str):
            raise InputError(f"{name}, line {line_no}: field {field!r} holds "
                             f"{type(value).__name__}, expected text")
        values.append(value)
    return values


def read_jsonl_references(path: str | os.PathLike, field: str, encoding: str = "utf-8",
                          max_line_length: int = DEFAULT_MAX_LINE_LENGTH
                          ) -> list[list[str | None]]:
    """Reference streams from ``field``: a string (one reference) or a list of strings per line.

    With lists of different lengths the shorter ones are padded with ``None``
    (a variable number of references per segment, as sacreBLEU's API allows).
    """
    name = os.fspath(path)
    rows = []
    for line_no, record in _records(name, encoding, max_line_length):
        value = _value(name, line_no, record, field)
        refs = [value] if isinstance(value, str) else value
        if not isinstance(refs, list) or not all(isinstance(r, str) for r in refs) or not refs:
            raise InputError(f"{name}, line {line_no}: field {field!r} must be a string or a "
                             "non-empty list of strings")
        rows.append(refs)
    width = max((len(row) for row in rows), default=1)
    return [[row[k] if k < len(row) else None for row in rows] for k in range(width)]
