"""Scoring files too large for memory: read in chunks, keep only sums.

Any metric with integer rows can score a corpus chunk by chunk: each chunk of
hypothesis lines is paired with the same lines of every reference file,
turned into statistics, and summed. Memory is bounded by the chunk size (plus
the per-segment rows, only if asked for). Lines are read as the ``truebleu``
command reads them: split on ``\\n``, trailing whitespace stripped. Metrics
whose rows are floats (TER) are refused: the sum of chunk sums would not be
the sum the metric makes in one pass.

Where the metric's kernel reads UTF-8 bytes itself (BLEU on the compiled core,
``Metric.utf8_statistics``), files are read as bytes
(:mod:`truebleu.io.utf8_lines`: no ``str`` per line); the ``str`` path here is
that path's specification, and reads everything else.
"""

from __future__ import annotations

import codecs
import os
from array import array

from ..core.statistics import RowTable
from ..io import DEFAULT_MAX_LINE_LENGTH, InputError, is_stdin, iter_aligned_chunks
from .base import Metric, Score

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: importing typing costs about 16 M instructions
if TYPE_CHECKING:  # type aliases are for the checker only: building them costs start-up
    from typing import Any, Iterator, Optional, Sequence, Union

    #: a file name (``"-"``: standard input) or a path
    StrPath = Union[str, os.PathLike[str]]


class StreamResult:
    """What :func:`score_files` found (a plain class: :mod:`dataclasses` costs start-up)."""

    def __init__(self, score: Score, segments: int, statistics: Optional[RowTable]) -> None:
        self.score = score
        self.segments = segments
        self.statistics = statistics  # per-segment rows, when keep_statistics=True

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return ((self.score, self.segments, self.statistics)
                == (other.score, other.segments, other.statistics))

    __hash__ = None  # type: ignore[assignment]  # mutable: unhashable, as a dataclass with eq

    def __repr__(self) -> str:
        return (f"StreamResult(score={self.score!r}, segments={self.segments!r}, "
                f"statistics={self.statistics!r})")


def score_files(hypothesis_file: StrPath, reference_files: Sequence[StrPath],
                metric: Optional[Metric[Any]] = None, *, chunk_lines: int = 10_000,
                keep_statistics: bool = False, encoding: str = "utf-8",
                max_line_length: int = DEFAULT_MAX_LINE_LENGTH) -> StreamResult:
    """The corpus score of a hypothesis file against reference files, in bounded memory.

    ``metric`` is any metric with integer rows (default: ``BLEU()``). ``"-"`` reads
    standard input (once). A chunk is at most ``chunk_lines`` lines and one read
    block of each file; a line longer than ``max_line_length`` characters is an
    error naming the file and the line.
    """
    if not reference_files:
        raise ValueError("at least one reference file is needed")
    if metric is None:
        from .bleu import BLEU

        metric = BLEU()
    check_integer_rows(metric)
    names = [os.fspath(hypothesis_file), *(os.fspath(name) for name in reference_files)]
    if _reads_utf8_bytes(names, metric, encoding):
        return _score_utf8_files(names, metric, chunk_lines, keep_statistics, max_line_length)
    totals: Optional[list[float]] = None
    kept = metric.empty_statistics() if keep_statistics else None
    segments = warnings = 0
    for hyps, refs in _stripped_chunks(names, chunk_lines, encoding, max_line_length):
        warnings += metric.input_warnings(hyps)  # stripped: "... .\r" counts, as in sacreBLEU
        stats = metric.corpus_statistics(hyps, refs, check_inputs=False)
        chunk_sum = stats.sum()
        totals = chunk_sum if totals is None else [a + b for a, b in zip(totals, chunk_sum)]
        if kept is not None:
            kept.extend(stats)
        segments += len(hyps)
    if totals is None:
        raise InputError(f"{names[0]} is empty: nothing to score")
    metric.warn_about_inputs(warnings)
    return StreamResult(metric.score_from_statistics(totals), segments, kept)


def check_integer_rows(metric: Metric[Any]) -> None:
    """A TypeError for a metric whose rows are floats: their sums depend on the order."""
    if not metric.integer_rows:
        raise TypeError(f"{type(metric).__name__}'s statistics are not integer rows: "
                        "a sum of chunk sums would depend on the chunking")


def _reads_utf8_bytes(names: list[str], metric: Metric[Any], encoding: str) -> bool:
    """Whether the files are read as bytes: UTF-8 files (no standard input) and a metric
    whose kernel reads them (BLEU on the compiled core). Anything else reads lines as
    ``str`` (:func:`_stripped_chunks`), the specification of this path."""
    if not metric.reads_utf8() or any(map(is_stdin, names)):
        return False
    try:
        return codecs.lookup(encoding).name == "utf-8"
    except LookupError:
        return False  # the str path names the unknown encoding


def _score_utf8_files(names: list[str], metric: Metric[Any], chunk_lines: int, keep_statistics: bool,
                      max_line_length: int) -> StreamResult:
    """:func:`score_files` on the bytes of UTF-8 files: the same chunks, errors and result."""
    from ..io.utf8_lines import iter_aligned_utf8_chunks

    totals = array("q", [0]) * metric.row_width()
    kept = metric.empty_statistics() if keep_statistics else None
    segments = warnings = 0
    for files, n in iter_aligned_utf8_chunks(names, chunk_lines, max_line_length):
        stats, consumed, count = metric.utf8_statistics(
            [file.buffer for file in files], [file.complete_end for file in files], n, totals,
            keep_rows=kept is not None)
        for file, taken in zip(files, consumed):
            file.consume(taken)
        warnings += count
        if kept is not None and stats is not None:  # (rows come with keep_rows=True)
            kept.extend(stats)
        segments += n
    if not segments:
        raise InputError(f"{names[0]} is empty: nothing to score")
    metric.warn_about_inputs(warnings)
    return StreamResult(metric.score_from_statistics(totals.tolist()), segments, kept)


def sentence_scores_from_files(hypothesis_file: StrPath,
                               reference_files: Sequence[StrPath], metric: Metric[Any], *,
                               chunk_lines: int = 10_000, encoding: str = "utf-8",
                               max_line_length: int = DEFAULT_MAX_LINE_LENGTH
                               ) -> Iterator[Score]:
    """Each segment's score, in order, reading and scoring one chunk at a time.

    ``metric`` is used as given (``truebleu -sl`` passes BLEU with ``effective_order=True``);
    memory is bounded by the chunk, however many segments the files hold.
    """
    names = [os.fspath(hypothesis_file), *(os.fspath(name) for name in reference_files)]
    warnings = 0
    for hyps, refs in _stripped_chunks(names, chunk_lines, encoding, max_line_length):
        warnings += metric.input_warnings(hyps)
        for row in metric.corpus_statistics(hyps, refs, check_inputs=False).rows():
            yield metric.score_from_statistics(row)
    metric.warn_about_inputs(warnings)


def _stripped_chunks(names: list[str], chunk_lines: int, encoding: str, max_line_length: int
                     ) -> Iterator[tuple[list[str], list[list[str]]]]:
    """Hypotheses right-stripped as sacreBLEU's command line strips them, and the references.

    References are left as read: every kernel strips every segment's end before
    tokenizing (sacreBLEU's metrics do the same), so stripping them here would only
    make a second copy. Hypotheses are stripped because the tokenized-period check
    looks at their ends.
    """
    for chunks in iter_aligned_chunks(names, chunk_lines, encoding, max_line_length):
        yield list(map(str.rstrip, chunks[0])), chunks[1:]
