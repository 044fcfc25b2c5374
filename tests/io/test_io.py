"""Reading real inputs: compression, line endings, empty lines, bad bytes."""

from __future__ import annotations

import bz2
import gzip
import lzma

import pytest

from truebleu.io import InputError, iter_line_chunks, read_lines, split_lines

LINES = ["first", "", "  spaced  ", "tab\tinside", "carriage\r", "ünïcödé 猫", "last"]


def write(path, data: bytes, opener=open):
    with opener(path, "wb") as handle:
        handle.write(data)
    return path


@pytest.mark.parametrize("suffix,opener", [("", open), (".gz", gzip.open), (".bz2", bz2.open),
                                           (".xz", lzma.open)])
def test_every_compression_reads_the_same_lines(tmp_path, suffix, opener):
    path = write(tmp_path / f"f.txt{suffix}", "\n".join(LINES).encode() + b"\n", opener)
    assert read_lines(path) == LINES


def test_lines_match_python_text_mode_with_newline_n(tmp_path):
    """sacreBLEU opens files with newline='\\n': only \\n ends a line."""
    data = "a\r\nb\rc\u2028d\x85e\x0cf\n\ng".encode()
    path = write(tmp_path / "f.txt", data)
    with open(path, encoding="utf-8", newline="\n") as handle:
        expected = [line[:-1] if line.endswith("\n") else line for line in handle]
    assert read_lines(path) == expected
    assert len(expected) == 4


@pytest.mark.parametrize("text,expected", [("", []), ("\n", [""]), ("a", ["a"]), ("a\n", ["a"]),
                                           ("a\n\n", ["a", ""]), ("\n\na", ["", "", "a"])])
def test_split_lines_keeps_empty_segments(text, expected):
    assert split_lines(text) == expected


def test_invalid_utf8_names_file_and_line(tmp_path):
    path = write(tmp_path / "bad.txt", b"ok\nok\nok\nbad \xc3\x28 byte\nok\n")
    with pytest.raises(InputError, match=r"bad.txt, line 4: invalid utf-8 \(bytes c3\)"):
        read_lines(path)


def test_invalid_utf8_in_compressed_file(tmp_path):
    path = write(tmp_path / "bad.txt.gz", b"ok\n\xff\n", gzip.open)
    with pytest.raises(InputError, match=r"bad.txt.gz, line 2"):
        read_lines(path)


def test_other_encodings(tmp_path):
    path = write(tmp_path / "latin1.txt", "café\nnaïve\n".encode("latin-1"))
    assert read_lines(path, encoding="latin-1") == ["café", "naïve"]


def test_corrupt_compressed_file(tmp_path):
    path = write(tmp_path / "broken.gz", b"this is not gzip")
    with pytest.raises(InputError, match="broken.gz: cannot decompress"):
        read_lines(path)


def test_missing_file_and_directory(tmp_path):
    with pytest.raises(InputError, match="no such file"):
        read_lines(tmp_path / "missing.txt")
    with pytest.raises(InputError, match="is a directory"):
        read_lines(tmp_path)


@pytest.mark.parametrize("chunk", [1, 2, 3, 100])
def test_chunks_concatenate_to_the_whole_file(tmp_path, chunk):
    path = write(tmp_path / "f.txt.gz", "\n".join(LINES).encode(), gzip.open)
    chunks = list(iter_line_chunks(path, chunk_lines=chunk))
    assert all(len(c) <= chunk for c in chunks)
    assert [line for c in chunks for line in c] == read_lines(path)


def test_chunks_report_the_line_of_bad_bytes(tmp_path):
    path = write(tmp_path / "f.txt", b"a\nb\nc\n\xffd\n")
    with pytest.raises(InputError, match="line 4"):
        list(iter_line_chunks(path, chunk_lines=2))


def test_reading_never_writes(tmp_path):
    path = write(tmp_path / "f.txt", b"a\nb\n")
    before = (path.read_bytes(), path.stat().st_mtime_ns)
    read_lines(path)
    list(iter_line_chunks(path))
    assert (path.read_bytes(), path.stat().st_mtime_ns) == before
