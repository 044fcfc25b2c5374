"""Every input error names the file, and the line where there is one (issue 26, item 12:
"Errors that do not name the file").

``-e utf-16`` on a file without a byte-order mark said ``UTF-16 stream does not start with
BOM``: which file? So did an unknown encoding, JSON nested too deeply (a bare
``RecursionError``), a number of 5,000 digits, an XML declaration naming an unknown encoding
(a bare ``LookupError``) and a test set's TSV line without its column (a bare ``IndexError``).

Each case below makes a bad input and reads it through the input layer's public readers
(plain, compressed, UTF-8 in C, JSON Lines, SGML, WMT XML, test-set TSV, standard input): the
error must be an :class:`~truebleu.io.InputError` whose message holds the file's name and,
where the problem is on a line, ``line N``. The last test checks that the cases reach every
place in ``src/truebleu/io`` that makes an ``InputError``: a new error path without a case
fails it.
"""

from __future__ import annotations

import ast
import bz2
import errno
import gzip
import lzma
import os
import socket
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Optional

import pytest

import truebleu.io as io_layer
from truebleu.io import InputError, decode, iter_aligned_chunks, read_lines
from truebleu.io import lines as lines_module
from truebleu.io.jsonl import read_jsonl_field, read_jsonl_references
from truebleu.io.scores import read_segment_scores, read_system_scores
from truebleu.io.segments import read_reference_streams, read_segments
from truebleu.io.testsets import process
from truebleu.io.utf8_lines import iter_aligned_utf8_chunks
from truebleu.io.wmt_xml import read_wmt_xml

IO_PACKAGE = Path(io_layer.__file__).resolve().parent

GOOD = "one line\ntwo lines\n"


@dataclass
class Case:
    """A bad input: ``make`` writes it (returns the path named in the error), ``read`` reads it."""

    make: Callable[[Path], Path]
    read: Callable[[Path, pytest.MonkeyPatch], object]
    line: Optional[int] = None          # the line the message must name, if any
    name_in_message: Optional[str] = None  # what names the file, if not its path (stdin)


def _file(name: str, data: bytes) -> Callable[[Path], Path]:
    def make(folder: Path) -> Path:
        path = folder / name
        path.write_bytes(data)
        return path
    return make


def _lines(path, monkeypatch, encoding="utf-8", limit=1 << 20):
    return read_lines(path, encoding, limit)


def _native(path, monkeypatch, limit=1 << 20):
    good = path.with_name("good.txt")
    good.write_text(GOOD, encoding="utf-8")
    for _ in iter_aligned_utf8_chunks([good, path], 1000, limit):
        pass


def _failing_open(error: OSError):
    """``open`` as it fails after the file was looked at (removed, replaced, refused)."""
    def fake(*args, **kwargs):
        raise error
    return fake


class _BadDisk:
    """A file whose reads fail (a disk error)."""

    def __init__(self, *args, **kwargs) -> None:
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return None

    def read(self, size=-1):
        raise OSError(errno.EIO, "Input/output error")


def _socket(folder: Path) -> Path:
    path = folder / "case.sock"
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(path))
    _SOCKETS.append(server)
    return path


_SOCKETS: list[socket.socket] = []


def _stdin_twice(path, monkeypatch):
    list(iter_aligned_chunks(["-", "-"]))


def _mismatch(path, monkeypatch):
    other = path.with_name("other.txt")
    other.write_text("1\n2\n3\n", encoding="utf-8")
    list(iter_aligned_chunks([path, other]))


def _tsv(path, monkeypatch):
    return process._tsv_values(str(path), 2)


def _scores(path, monkeypatch):
    """Segment scores (computed elsewhere) of systems A and B, two segments each."""
    return read_segment_scores(path, "COMET", ["A", "B"], 2)


def _system_scores(path, monkeypatch):
    return read_system_scores(path, ["A", "B"])


XML_HEAD = '<?xml version="1.0" encoding="utf-8"?>\n'
XML_DOC = ('<dataset id="t">\n<doc id="d" origlang="de">\n<src lang="de"><p>\n'
           '<seg id="{seg}">Hallo</seg>\n</p></src>\n'
           '<ref lang="en" translator="A"><p><seg id="1">Hello</seg></p></ref>\n</doc>\n</dataset>\n')

CASES: dict[str, Case] = {
    # where the file is and what it is
    "missing file": Case(lambda folder: folder / "absent.txt", _lines),
    "directory": Case(lambda folder: folder, _lines),
    "socket": Case(_socket, _lines),
    "path through a file": Case(lambda folder: _file("plain.txt", b"x\n")(folder) / "child",
                                _lines),
    "removed before opening": Case(_file("removed.txt", b"x\n"), lambda path, mp: (
        mp.setattr(lines_module, "open", _failing_open(FileNotFoundError(errno.ENOENT, "gone")),
                   raising=False), _lines(path, mp))),
    "replaced by a directory": Case(_file("replaced.txt", b"x\n"), lambda path, mp: (
        mp.setattr(lines_module, "open", _failing_open(IsADirectoryError(errno.EISDIR, "dir")),
                   raising=False), _lines(path, mp))),
    "permission denied": Case(_file("secret.txt", b"x\n"), lambda path, mp: (
        mp.setattr(lines_module, "open", _failing_open(PermissionError(errno.EACCES, "no")),
                   raising=False), _lines(path, mp))),
    "cannot open": Case(_file("busy.txt", b"x\n"), lambda path, mp: (
        mp.setattr(lines_module, "open", _failing_open(OSError(errno.EBUSY, "busy")),
                   raising=False), _lines(path, mp))),
    "disk error": Case(_file("disk.txt", b"x\n"), lambda path, mp: (
        mp.setattr(lines_module, "open", _BadDisk, raising=False), _lines(path, mp))),
    # compressed files
    "corrupt .gz": Case(_file("corrupt.txt.gz", b"\x1f\x8b\x08\x00garbage" * 10), _lines),
    "truncated .gz": Case(_file("cut.txt.gz", gzip.compress(GOOD.encode() * 100)[:40]), _lines),
    "corrupt .bz2": Case(_file("corrupt.txt.bz2", b"BZh9" + b"\x00" * 40), _lines),
    "truncated .bz2": Case(_file("cut.txt.bz2", bz2.compress(GOOD.encode() * 100)[:30]),
                           _lines),
    "corrupt .xz": Case(_file("corrupt.txt.xz", b"\xfd7zXZ\x00" + b"\x01" * 40), _lines),
    "truncated .xz": Case(_file("cut.txt.xz", lzma.compress(GOOD.encode() * 100)[:40]), _lines),
    "corrupt .gz, native reader": Case(_file("corrupt-native.txt.gz", b"\x1f\x8b\x08\x00xx"),
                                       _native),
    # encodings
    "utf-16 without a byte-order mark": Case(
        _file("nobom.txt", "a\nb\n".encode("utf-16-le")),
        lambda path, mp: _lines(path, mp, "utf-16"), line=1),
    "unknown encoding": Case(_file("klingon.txt", b"x\n"),
                             lambda path, mp: _lines(path, mp, "klingon")),
    "not a text encoding": Case(_file("rot.txt", b"x\n"),
                                lambda path, mp: _lines(path, mp, "rot13")),
    "bad utf-8 on line 3": Case(_file("bad.txt", b"a\nb\nc \xff d\n"), _lines, line=3),
    "bad utf-8 on line 3, native reader": Case(_file("bad-native.txt", b"a\nb\nc \xff\n"),
                                               _native, line=3),
    "bad utf-8 in a .gz on line 3": Case(_file("bad.txt.gz", gzip.compress(b"a\nb\n\xc3(\n")),
                                         _lines, line=3),
    "bad utf-16 on line 2": Case(_file("bad16.txt", "a\n".encode("utf-16") + b"\x00\xd8\n\x00"),
                                 lambda path, mp: _lines(path, mp, "utf-16"), line=2),
    "decoding bytes": Case(lambda folder: Path("named-bytes.txt"),
                           lambda path, mp: decode(b"a\nb\n\xff", str(path), first_line=10),
                           line=12),
    "decoding bytes, an error without a position": Case(
        lambda folder: Path("named-undefined.txt"),
        lambda path, mp: decode(b"x", str(path), "undefined", first_line=5), line=5),
    "unknown encoding of bytes": Case(lambda folder: Path("named-klingon.txt"),
                                      lambda path, mp: decode(b"x", str(path), "klingon")),
    # sizes and line counts
    "line too long on line 3": Case(_file("long.txt", b"a\nb\n" + b"x" * 100 + b"\n"),
                                    lambda path, mp: _lines(path, mp, limit=50), line=3),
    "line too long on line 3, native reader": Case(
        _file("long-native.txt", b"a\nb\n" + b"x" * 100 + b"\n"),
        lambda path, mp: _native(path, mp, limit=50), line=3),
    "files of different lengths": Case(_file("short.txt", b"1\n"), _mismatch),
    "standard input twice": Case(lambda folder: Path("-"), _stdin_twice, name_in_message="'-'"),
    # JSON Lines
    "JSON syntax on line 2": Case(_file("syntax.jsonl", b'{"hyp": "a"}\n{"hyp": \n'),
                                  lambda path, mp: read_jsonl_field(path, "hyp"), line=2),
    "JSON nested too deeply": Case(_file("deep.jsonl", b'{"hyp": "a"}\n' + b"[" * 100_000 + b"\n"),
                                   lambda path, mp: read_jsonl_field(path, "hyp"), line=2),
    "JSON number of 5,000 digits": Case(_file("digits.jsonl", b'{"hyp": "a"}\n' + b"1" * 5000 + b"\n"),
                                        lambda path, mp: read_jsonl_field(path, "hyp"), line=2),
    "JSON not an object": Case(_file("list.jsonl", b'{"hyp": "a"}\n[1, 2]\n'),
                               lambda path, mp: read_jsonl_field(path, "hyp"), line=2),
    "JSON field missing": Case(_file("nofield.jsonl", b'{"hyp": "a"}\n{"src": "b"}\n'),
                               lambda path, mp: read_jsonl_field(path, "hyp"), line=2),
    "JSON field not text": Case(_file("number.jsonl", b'{"hyp": "a"}\n{"hyp": 7}\n'),
                                lambda path, mp: read_segments(path), line=2),
    "JSON references not text": Case(_file("refs.jsonl", b'{"ref": "a"}\n{"ref": [1]}\n'),
                                     lambda path, mp: read_reference_streams(path), line=2),
    "JSON references empty": Case(_file("empty.jsonl", b'{"ref": ["a"]}\n{"ref": []}\n'),
                                  lambda path, mp: read_jsonl_references(path, "ref"), line=2),
    "JSON empty line": Case(_file("blank.jsonl", b'{"hyp": "a"}\n\n'),
                            lambda path, mp: read_segments(path), line=2),
    # SGML, read by lines
    "SGML with bad bytes on line 3": Case(_file("bad.sgm", b'<doc docid="d">\n<seg id="1">a'
                                                           b'</seg>\n<seg id="2">\xff</seg>\n'),
                                          lambda path, mp: read_segments(path), line=3),
    # WMT XML
    "XML syntax on line 3": Case(_file("syntax.xml", b"<dataset>\n<doc id='d'>\n<src </doc>\n"),
                                 lambda path, mp: read_wmt_xml(path), line=3),
    "XML declaring an unknown encoding": Case(
        _file("bogus.xml", b'<?xml version="1.0" encoding="bogus"?><dataset/>'),
        lambda path, mp: read_wmt_xml(path)),
    "XML in a corrupt .gz": Case(_file("corrupt.xml.gz", b"\x1f\x8b\x08\x00garbage"),
                                 lambda path, mp: read_wmt_xml(path)),
    "XML without a source language": Case(_file("nolang.xml", b"<dataset/>"),
                                          lambda path, mp: read_wmt_xml(path)),
    "XML segment id not a number": Case(
        _file("segid.xml", (XML_HEAD + XML_DOC.format(seg="one")).encode()),
        lambda path, mp: read_wmt_xml(path)),
    "XML document without an id": Case(
        _file("docid.xml", (XML_HEAD + XML_DOC.format(seg="1").replace(' id="d"', "")).encode()),
        lambda path, mp: read_wmt_xml(path)),
    # a test set's tab-separated file
    "TSV line without its column on line 2": Case(_file("set.tsv", b"1\ta\tb\n2\tc\n"), _tsv,
                                                  line=2),
    # segment and system scores computed elsewhere (mt-metrics-eval's layout, TSV, JSONL)
    "score missing ('None') on line 2": Case(_file("m.seg.score", b"A\t0.5\nA\tNone\n"),
                                              _scores, line=2),
    "score not a number on line 1": Case(_file("n.seg.score", b"A\tabc\n"), _scores, line=1),
    "score NaN on line 1": Case(_file("nan.seg.score", b"A\tnan\n"), _scores, line=1),
    "score line of three fields on line 1": Case(_file("f.seg.score", b"A\t1\t2\n"), _scores,
                                                  line=1),
    "more scores than segments on line 3": Case(
        _file("x.seg.score", b"A\t1\nA\t2\nA\t3\nB\t1\nB\t2\n"), _scores, line=3),
    "a system without scores": Case(_file("s.seg.score", b"A\t1\nA\t2\n"), _scores),
    "a system with too few scores": Case(_file("t.seg.score", b"A\t1\nA\t2\nB\t1\n"),
                                         _scores),
    "TSV header naming a system twice": Case(_file("d.tsv", b"A\tA\tB\n1\t2\t3\n"), _scores,
                                             line=1),
    "TSV row of the wrong width on line 2": Case(_file("w.tsv", b"A\tB\n1\n"), _scores,
                                                 line=2),
    "TSV without a header": Case(_file("h.tsv", b"A\tB\t0.5\n"), _scores, line=1),
    "JSONL line that is not JSON": Case(_file("j.jsonl", b'{"A": 1, "B"\n'), _scores, line=1),
    "JSONL line that is not an object": Case(_file("a.jsonl", b"[1, 2]\n"), _scores, line=1),
    "JSONL score that is not a number": Case(_file("b.jsonl", b'{"A": "x", "B": 1}\n'), _scores,
                                             line=1),
    "system score given twice on line 2": Case(_file("c.sys.score", b"A\t1\nA\t2\n"),
                                               _system_scores, line=2),
    "system score missing": Case(_file("e.sys.score", b"A\t1\n"), _system_scores),
}


def _check(case: Case, tmp_path: Path, monkeypatch) -> InputError:
    path = case.make(tmp_path)
    with pytest.raises(InputError) as caught:
        case.read(path, monkeypatch)
    message = str(caught.value)
    assert (case.name_in_message or str(path)) in message, message
    if case.line is not None:
        assert f"line {case.line}:" in message or f"line {case.line}," in message, message
    assert "\n" not in message
    return caught.value


@pytest.fixture(autouse=True)
def _close_sockets():
    yield
    while _SOCKETS:
        _SOCKETS.pop().close()


@pytest.mark.parametrize("name", CASES)
def test_the_error_names_the_file_and_the_line(name, tmp_path, monkeypatch):
    _check(CASES[name], tmp_path, monkeypatch)


def _construction_sites() -> set[tuple[str, int, int]]:
    """(file, first line, last line) of every ``InputError(...)`` in the input layer."""
    sites = set()
    for path in IO_PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                    and node.func.id == "InputError"):
                sites.add((str(path), node.lineno, node.end_lineno or node.lineno))
    return sites


def test_the_cases_reach_every_error_of_the_input_layer(tmp_path, monkeypatch):
    sites = _construction_sites()
    reached: set[tuple[str, int, int]] = set()
    original = InputError.__init__

    def record(self, *args):
        caller = sys._getframe(1)
        for site in sites:
            if site[0] == caller.f_code.co_filename and site[1] <= caller.f_lineno <= site[2]:
                reached.add(site)
        original(self, *args)

    monkeypatch.setattr(InputError, "__init__", record)
    for index, case in enumerate(CASES.values()):
        folder = tmp_path / str(index)
        folder.mkdir()
        with monkeypatch.context() as patch:
            _check(case, folder, patch)
    missing = sorted(f"{os.path.relpath(path, IO_PACKAGE)}:{line}"
                     for path, line, _ in sites - reached)
    assert not missing, f"input errors no case reaches (add a case): {missing}"
