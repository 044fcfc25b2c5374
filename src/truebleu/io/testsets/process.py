"""Raw test-set files -> the plain-text field files sacreBLEU writes, one line per segment.

Each format is processed as sacreBLEU 2.6.0 processes it, so that a cache
filled by either tool holds the same lines:

- ``wmt-xml``: :func:`truebleu.io.wmt_xml.sacrebleu_fields` (segments without
  any reference dropped; fields ``src``, ``ref:<translator>``, ``docid``,
  ``origlang``, the systems, ``domain``); the scored references are the
  registry's ``refs`` of the pair or of the test set;
- ``sgml`` / ``iwslt-xml``: ``<seg>`` lines of the source and reference files;
  ``docid``, ``genre``, ``origlang`` from the source's ``<doc>`` lines (not for
  ``wmt08*``); references are ``ref`` or ``ref:0``, ``ref:1``, ...;
- ``sgml-or-text``: as ``sgml`` for ``.sgm`` files, else as ``text``;
- ``text``: each line right-stripped; ``tsv``: one tab-separated column
  (``"N:file"`` names column N, else 0 for the source and 1 for the reference).
"""

from __future__ import annotations

import os
from functools import lru_cache

from .. import InputError, read_lines
from ..sgml import sgml_doc_attribute, sgml_segments
from ..wmt_xml import read_wmt_xml, sacrebleu_fields
from .cache import download_file, download_path, raw_dir, text_path, write_lines_atomically
from .registry import TestSet, get_testset

__all__ = ["download", "fieldnames", "process_to_text", "get_files", "get_source_file",
           "get_reference_files", "download_test_set", "read_field"]


def download(testset: TestSet, progress_stream=None) -> None:
    """Fetch (or find in the cache) every file of the test set."""
    for url, md5 in zip(testset.urls, testset.md5):
        download_file(url, download_path(testset.name, url), md5,
                      extract_to=raw_dir(testset.name), progress_stream=progress_stream)


def _raw(testset: TestSet, relative: str) -> str:
    return os.path.join(raw_dir(testset.name), relative)


@lru_cache(maxsize=4)
def _parsed_xml_fields(path: str, mtime_ns: int, size: int) -> dict[str, list[str]]:
    return sacrebleu_fields(read_wmt_xml(path))


def xml_fields(path: str) -> dict[str, list[str]]:
    """sacreBLEU's fields of a WMT XML file, parsed once while the file is unchanged.

    (A command asks for the fields, the files and the references: one parse.)
    The lists are shared between callers: do not modify them.
    """
    try:
        stat = os.stat(path)
    except OSError:
        return sacrebleu_fields(read_wmt_xml(path))  # the reader's error names the file
    return _parsed_xml_fields(path, stat.st_mtime_ns, stat.st_size)


def _xml_fields(testset: TestSet, langpair: str) -> dict[str, list[str]]:
    return xml_fields(_raw(testset, testset.raw_files(langpair)[0]))


def _sgml_fieldnames(testset: TestSet, langpair: str) -> list[str]:
    files = testset.raw_files(langpair)
    if len(files) < 2:
        raise ValueError(f"{testset.name}/{langpair}: expected a source and a reference file")
    names = ["src"] + (["ref"] if len(files) == 2 else [f"ref:{i}" for i in range(len(files) - 1)])
    if not testset.name.startswith("wmt08"):
        names += ["docid", "genre", "origlang"]
    return names


def fieldnames(testset: TestSet, langpair: str) -> list[str]:
    """The fields of a pair (``src``, references, metadata), in sacreBLEU's order."""
    testset.check_langpair(langpair)
    if testset.format == "wmt-xml":
        download(testset)
        return list(_xml_fields(testset, langpair))
    if testset.format in ("sgml", "sgml-or-text", "iwslt-xml"):
        return _sgml_fieldnames(testset, langpair)
    return ["src", "ref"]


def _segments_of(testset: TestSet, path: str) -> list[str]:
    lines = read_lines(path)
    if testset.format == "sgml-or-text" and not path.endswith(".sgm"):
        return [line.rstrip() for line in lines]
    return sgml_segments(lines)


def _tsv_column(meta: str, field: str) -> tuple[int, str]:
    index, sep, name = meta.partition(":")
    if sep:
        try:
            return int(index), name
        except ValueError:
            raise ValueError(f"invalid TSV column in the registry: {meta!r}") from None
    return (0 if field == "src" else 1), meta


def _tsv_values(path: str, column: int) -> list[str]:
    """Column ``column`` of every line of a tab-separated file (a line without it: an error)."""
    values = []
    for line_no, line in enumerate(read_lines(path), 1):
        cells = line.split("\t")
        if not -len(cells) <= column < len(cells):
            raise InputError(f"{path}, line {line_no}: no column {column} (the line has "
                             f"{len(cells)} tab-separated columns)")
        values.append(cells[column])
    return values


def _pair_fields(testset: TestSet, langpair: str) -> dict[str, list[str]]:
    """Every field of one pair, computed from the raw files."""
    if testset.format == "wmt-xml":
        return _xml_fields(testset, langpair)
    files = testset.raw_files(langpair)
    names = fieldnames(testset, langpair)
    if testset.format in ("sgml", "sgml-or-text", "iwslt-xml"):
        fields = {name: _segments_of(testset, _raw(testset, path))
                  for name, path in zip(names, files)}
        source_lines = read_lines(_raw(testset, files[0]))
        for name in names[len(files):]:
            fields[name] = sgml_doc_attribute(source_lines, name)
        return fields
    if testset.format == "tsv":
        fields = {}
        for name, meta in zip(names, files):
            column, path = _tsv_column(meta, name)
            fields[name] = _tsv_values(_raw(testset, path), column)
        return fields
    return {name: [line.rstrip() for line in read_lines(_raw(testset, path))]
            for name, path in zip(names, files)}


def process_to_text(testset: TestSet, langpair: str) -> None:
    """Write the pair's text files that are missing (or empty) in the cache."""
    download(testset)
    for name, lines in _pair_fields(testset, langpair).items():
        path = text_path(testset.name, langpair, name)
        if not (os.path.exists(path) and os.path.getsize(path) > 0):
            write_lines_atomically(path, lines)


def _resolve(testset: TestSet | str) -> TestSet:
    return get_testset(testset) if isinstance(testset, str) else testset


def get_files(testset: TestSet | str, langpair: str) -> list[str]:
    """The text files of every field, in :func:`fieldnames` order, made when missing."""
    testset = _resolve(testset)
    names = fieldnames(testset, langpair)
    files = [text_path(testset.name, langpair, name) for name in names]
    if not all(os.path.exists(path) for path in files):
        process_to_text(testset, langpair)
    return files


def get_source_file(testset: TestSet | str, langpair: str) -> str:
    testset = _resolve(testset)
    return get_files(testset, langpair)[fieldnames(testset, langpair).index("src")]


def get_reference_files(testset: TestSet | str, langpair: str) -> list[str]:
    """The scored reference files: all ``ref*`` fields, or the registry's choice (WMT XML)."""
    testset = _resolve(testset)
    names = fieldnames(testset, langpair)
    files = get_files(testset, langpair)
    if testset.format == "wmt-xml":
        allowed = {f"ref:{t}" if t else "ref" for t in testset.scored_translators(langpair)}
        return [path for path, name in zip(files, names) if name in allowed]
    return [path for path, name in zip(files, names) if name.startswith("ref")]


def download_test_set(testset: TestSet | str, langpair: str | None = None) -> list[str]:
    """Download and process one pair, or every pair when ``langpair`` is None; the text files."""
    testset = _resolve(testset)
    pairs = [langpair] if langpair else list(testset.langpairs)
    return [path for pair in pairs for path in get_files(testset, pair)]


def read_field(path: str) -> list[str]:
    """A processed text file's lines, right-stripped, as sacreBLEU's command line reads them."""
    return [line.rstrip() for line in read_lines(path)]
