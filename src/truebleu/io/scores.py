"""Reading segment scores computed elsewhere: mt-metrics-eval's layout, TSV and JSON Lines.

Neural metrics (COMET, MetricX, xCOMET) and human judgements (DA, MQM) are computed
elsewhere, one number per segment and system; these readers turn such a file into a
:class:`~truebleu.core.segment_scores.SegmentScores` for the systems compared. The
layout is chosen by the file name (compressed or not):

- ``*.jsonl`` / ``*.ndjson``: one JSON object per segment, ``{"sysA": 0.81, "sysB":
  0.77}``: its keys name the systems;
- ``*.tsv``: a header line naming the systems (tab-separated), then one line per
  segment with one score per system, in the header's order;
- anything else (``COMET.seg.score``): Google's mt-metrics-eval layout, one
  ``SYSTEM<TAB>SCORE`` line per segment (a space instead of the tab is accepted, as
  mt-metrics-eval accepts blanks), each system's segments in order (its block may
  be interleaved with other systems' lines; their order is kept).

A system-level file in mt-metrics-eval's layout (``NAME.sys.score``: one
``SYSTEM<TAB>SCORE`` line per system) gives the official system scores where they are
not the mean of the segments; :func:`system_score_file` finds the one beside a
``NAME.seg.score`` file.

Systems are named as truebleu names the ``-i`` files (``compare`` prints the names).
A file may score more systems than are compared (mt-metrics-eval's files score every
system of a test set): those lines are checked for their layout and otherwise left
alone. For the systems compared, every error names the file and the line: a line that
is not ``SYSTEM<TAB>SCORE``, a value that is not a number (``None``, mt-metrics-eval's
mark for a missing human score, included: every segment needs a score), NaN or an
infinity, a system with too many or too few scores, a system missing. The file is only
ever read.
"""

from __future__ import annotations

import json
import math
import os
from typing import Iterator, Optional, Sequence

from ..core.segment_scores import SegmentScores
from . import DEFAULT_MAX_LINE_LENGTH, InputError, iter_lines
from .jsonl import is_jsonl

__all__ = ["read_segment_scores", "read_system_scores", "system_score_file"]

_COMPRESSED = (".gz", ".bz2", ".xz")


def _stem(path: str) -> str:
    """The file name without a compression ending, lower-cased (to choose the layout)."""
    name = os.path.basename(path).lower()
    for suffix in _COMPRESSED:
        name = name.removesuffix(suffix)
    return name


def system_score_file(path: str | os.PathLike[str]) -> Optional[str]:
    """The ``NAME.sys.score`` file beside a ``NAME.seg.score`` file, if there is one."""
    name = os.fspath(path)
    stem = _stem(name)
    if not stem.endswith(".seg.score"):
        return None
    folder, base = os.path.split(name)
    cut = base.lower().rindex(".seg.score")
    sibling = os.path.join(folder, base[:cut] + ".sys.score")
    return sibling if os.path.isfile(sibling) else None


def _number(text: str, path: str, line_no: int, system: str) -> float:
    """The score ``text`` of ``system``, or an InputError naming the file and line."""
    where = f"{path}, line {line_no}: score of system {system!r}"
    if text.strip() == "None":
        raise InputError(f"{where} is missing ('None'); every segment of a system "
                         "compared needs a score")
    try:
        value = float(text)
    except ValueError:
        raise InputError(f"{where}: {text!r} is not a number") from None
    if not math.isfinite(value):
        raise InputError(f"{where} is {text.strip()!r}; every score must be a finite number")
    return value


def _name_and_score(line: str, path: str, line_no: int) -> tuple[str, str]:
    """``SYSTEM<TAB>SCORE`` (or ``SYSTEM SCORE``), split."""
    text = line.rstrip("\r\n")
    fields = text.split("\t") if "\t" in text else text.split()
    if len(fields) != 2 or not fields[0]:
        raise InputError(f"{path}, line {line_no}: expected SYSTEM<TAB>SCORE, found "
                         f"{len(fields)} field(s): {text[:80]!r}")
    return fields[0], fields[1]


class _Collector:
    """Scores of the systems compared, counted as they come, with the errors' lines."""

    def __init__(self, path: str, systems: Sequence[str], n_segments: int) -> None:
        if len(set(systems)) != len(systems):
            raise ValueError("a system is compared twice")
        self.path = path
        self.n_segments = n_segments
        self.scores: dict[str, list[float]] = {system: [] for system in systems}
        self.seen: list[str] = []  # every system of the file, in first-seen order

    def note(self, system: str) -> None:
        if system not in self.seen:
            self.seen.append(system)

    def add(self, system: str, text: str, line_no: int) -> None:
        scores = self.scores[system]
        if len(scores) == self.n_segments:
            raise InputError(f"{self.path}, line {line_no}: system {system!r} has more than "
                             f"{self.n_segments} scores, one per segment of the references")
        scores.append(_number(text, self.path, line_no, system))

    def missing(self, systems: Sequence[str], where: str) -> InputError:
        """The error for systems compared that the file does not score."""
        found = ", ".join(map(repr, self.seen)) or "none"
        return InputError(f"{where}: no scores for system(s) {', '.join(map(repr, systems))} "
                          f"(systems are named as truebleu names the -i files); the file "
                          f"scores: {found}")

    def finish(self, name: str) -> SegmentScores:
        missing = [system for system, scores in self.scores.items() if not scores]
        if missing:
            raise self.missing(missing, self.path)
        short = {system: len(scores) for system, scores in self.scores.items()
                 if len(scores) != self.n_segments}
        if short:
            raise InputError(f"{self.path}: " + ", ".join(
                f"system {system!r} has {count} scores" for system, count in short.items())
                + f", but the references have {self.n_segments} segments")
        return SegmentScores(name, self.scores)


def _lines(path: str, encoding: str, max_line_length: int) -> Iterator[tuple[int, str]]:
    return enumerate(iter_lines(path, encoding, max_line_length), 1)


def _read_mtme(collector: _Collector, encoding: str, max_line_length: int) -> None:
    for line_no, line in _lines(collector.path, encoding, max_line_length):
        system, text = _name_and_score(line, collector.path, line_no)
        collector.note(system)
        if system in collector.scores:
            collector.add(system, text, line_no)


def _read_tsv(collector: _Collector, encoding: str, max_line_length: int) -> None:
    path = collector.path
    columns: list[int] = []
    header: list[str] = []
    segments = 0
    for line_no, line in _lines(path, encoding, max_line_length):
        fields = line.rstrip("\r\n").split("\t")
        if line_no == 1:
            header = fields
            duplicated = sorted({name for name in header if header.count(name) > 1})
            if duplicated:
                raise InputError(f"{path}, line 1: system(s) named twice in the header: "
                                 f"{', '.join(map(repr, duplicated))}")
            for name in header:
                collector.note(name)
            absent = [system for system in collector.scores if system not in header]
            if absent:
                raise collector.missing(absent, f"{path}, line 1")
            columns = [header.index(system) for system in collector.scores]
            continue
        if len(fields) != len(header):
            raise InputError(f"{path}, line {line_no}: {len(fields)} tab-separated scores, but "
                             f"the header names {len(header)} systems")
        segments += 1
        for column in columns:
            collector.add(header[column], fields[column], line_no)
    if segments == 0 and header:
        try:  # a SYSTEM<TAB>SCORE file given a .tsv name: say so
            float(header[-1])
        except ValueError:
            return
        raise InputError(f"{path}, line 1: a .tsv score file starts with a header naming the "
                         "systems; for mt-metrics-eval's SYSTEM<TAB>SCORE lines name the "
                         "file *.score")


def _read_jsonl(collector: _Collector, encoding: str, max_line_length: int) -> None:
    path = collector.path
    for line_no, line in _lines(path, encoding, max_line_length):
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InputError(f"{path}, line {line_no}: not a JSON object: {exc.msg}") from None
        if not isinstance(record, dict):
            raise InputError(f"{path}, line {line_no}: expected a JSON object mapping "
                             f"systems to scores, found {type(record).__name__}")
        for name in record:
            collector.note(name)
        absent = [system for system in collector.scores if system not in record]
        if absent:
            raise collector.missing(absent, f"{path}, line {line_no}")
        for system in collector.scores:
            value = record[system]
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise InputError(f"{path}, line {line_no}: score of system {system!r}: "
                                 f"{json.dumps(value)[:40]} is not a number")
            collector.add(system, json.dumps(value), line_no)


def read_segment_scores(path: str | os.PathLike[str], name: str, systems: Sequence[str],
                        n_segments: int, *, encoding: str = "utf-8",
                        system_scores: str | os.PathLike[str] | None = None,
                        max_line_length: int = DEFAULT_MAX_LINE_LENGTH) -> SegmentScores:
    """The segment scores of ``systems`` (``n_segments`` each) in the file ``path``.

    :param name: the metric's name (``COMET``).
    :param system_scores: a ``NAME.sys.score`` file of official system scores; by
        default the one beside a ``NAME.seg.score`` file, if any (:func:`system_score_file`).
    """
    source = os.fspath(path)
    collector = _Collector(source, systems, n_segments)
    stem = _stem(source)
    if is_jsonl(source):
        _read_jsonl(collector, encoding, max_line_length)
    elif stem.endswith(".tsv"):
        _read_tsv(collector, encoding, max_line_length)
    else:
        _read_mtme(collector, encoding, max_line_length)
    scores = collector.finish(name)
    official_file = system_score_file(source) if system_scores is None else system_scores
    if official_file is None:
        return scores
    official = read_system_scores(official_file, systems, encoding=encoding,
                                  max_line_length=max_line_length)
    return SegmentScores(name, scores.segments, official)


def read_system_scores(path: str | os.PathLike[str], systems: Sequence[str], *,
                       encoding: str = "utf-8",
                       max_line_length: int = DEFAULT_MAX_LINE_LENGTH) -> dict[str, float]:
    """Official system scores (mt-metrics-eval's ``NAME.sys.score``: ``SYSTEM<TAB>SCORE``
    per line) of ``systems``; other systems' lines are checked for their layout only."""
    source = os.fspath(path)
    wanted = set(systems)
    found: dict[str, float] = {}
    seen: list[str] = []
    for line_no, line in _lines(source, encoding, max_line_length):
        system, text = _name_and_score(line, source, line_no)
        if system in seen:
            raise InputError(f"{source}, line {line_no}: system {system!r} is scored twice")
        seen.append(system)
        if system in wanted:
            found[system] = _number(text, source, line_no, system)
    missing = [system for system in systems if system not in found]
    if missing:
        raise InputError(f"{source}: no system score for {', '.join(map(repr, missing))} "
                         f"(systems are named as truebleu names the -i files); the file "
                         f"scores: {', '.join(map(repr, seen)) or 'none'}")
    return {system: found[system] for system in systems}
