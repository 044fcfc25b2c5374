"""Scoring files too large for memory: read in chunks, keep only sums.

BLEU's statistics add, so a corpus can be scored chunk by chunk: each chunk
of hypothesis lines is paired with the same lines of every reference file,
turned into statistics, and summed. Memory is bounded by the chunk size
(plus the per-segment rows, only if asked for). Lines are read as the
``truebleu`` command reads them: split on ``\\n``, trailing whitespace stripped.
UTF-8 files scored by the compiled core are read as bytes
(:mod:`truebleu.io.utf8_lines`: no ``str`` per line); the ``str`` path here is
that path's specification, and reads everything else.
"""

from __future__ import annotations

import codecs
import os
from array import array
from typing import Iterator, Optional, Sequence

from ..metrics.bleu.metric import BLEU, count_tokenized_periods, warn_if_tokenized
from . import DEFAULT_MAX_LINE_LENGTH, InputError, is_stdin, iter_aligned_chunks
from ..metrics.bleu.score import BLEUScore
from ..metrics.bleu.statistics import Statistics, row_width


class StreamResult:
    """What :func:`score_files` found (a plain class: :mod:`dataclasses` costs start-up)."""

    def __init__(self, score: BLEUScore, segments: int, statistics: Optional[Statistics]) -> None:
        self.score = score
        self.segments = segments
        self.statistics = statistics  # per-segment rows, when keep_statistics=True

    def __eq__(self, other) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return ((self.score, self.segments, self.statistics)
                == (other.score, other.segments, other.statistics))

    __hash__ = None

    def __repr__(self) -> str:
        return (f"StreamResult(score={self.score!r}, segments={self.segments!r}, "
                f"statistics={self.statistics!r})")


def score_files(hypothesis_file: str | os.PathLike, reference_files: Sequence[str | os.PathLike],
                metric: Optional[BLEU] = None, *, chunk_lines: int = 10_000,
                keep_statistics: bool = False, encoding: str = "utf-8",
                max_line_length: int = DEFAULT_MAX_LINE_LENGTH) -> StreamResult:
    """Corpus BLEU of a hypothesis file against reference files, in bounded memory.

    ``"-"`` reads standard input (once). A chunk is at most ``chunk_lines`` lines
    and one read block of each file; a line longer than ``max_line_length``
    characters is an error naming the file and the line.
    """
    if not reference_files:
        raise ValueError("at least one reference file is needed")
    metric = metric or BLEU()
    names = [os.fspath(hypothesis_file), *map(os.fspath, reference_files)]
    if _reads_utf8_bytes(names, metric, encoding):
        return _score_utf8_files(names, metric, chunk_lines, keep_statistics, max_line_length)
    totals: Optional[list[int]] = None
    kept = Statistics(metric.max_ngram_order) if keep_statistics else None
    segments = tokenized = 0
    for hyps, refs in _stripped_chunks(names, chunk_lines, encoding, max_line_length):
        tokenized += count_tokenized_periods(hyps)  # stripped: "... .\r" counts, as in sacreBLEU
        stats = metric.corpus_statistics(hyps, refs, check_tokenized=False)
        chunk_sum = stats.sum()
        totals = chunk_sum if totals is None else [a + b for a, b in zip(totals, chunk_sum)]
        if kept is not None:
            kept.extend(stats)
        segments += len(hyps)
    if totals is None:
        raise InputError(f"{names[0]} is empty: nothing to score")
    if not metric.force:
        warn_if_tokenized(tokenized)
    return StreamResult(metric.score_from_statistics(totals), segments, kept)


def _reads_utf8_bytes(names: list[str], metric: BLEU, encoding: str) -> bool:
    """The common case, read as bytes by the core: UTF-8 files (no standard input), BLEU
    itself on the native backend with a tokenizer the core runs. Anything else reads
    lines as ``str`` (:func:`_stripped_chunks`), the specification of this path."""
    if type(metric) is not BLEU or metric.backend != "native" or any(map(is_stdin, names)):
        return False
    try:
        if codecs.lookup(encoding).name != "utf-8":
            return False
    except LookupError:
        return False  # the str path names the unknown encoding
    from ..metrics.bleu.native import core_mode

    return core_mode(metric.tokenizer) is not None


def _score_utf8_files(names: list[str], metric: BLEU, chunk_lines: int, keep_statistics: bool,
                      max_line_length: int) -> StreamResult:
    """:func:`score_files` on the bytes of UTF-8 files: the same chunks, errors and result."""
    from .utf8_lines import iter_aligned_utf8_chunks

    backend = metric._backend
    totals = array("q", [0]) * row_width(metric.max_ngram_order)
    kept = Statistics(metric.max_ngram_order) if keep_statistics else None
    segments = tokenized = 0
    for files, n in iter_aligned_utf8_chunks(names, chunk_lines, max_line_length):
        stats, consumed, periods = backend.utf8_statistics(
            [file.buffer for file in files], [file.complete_end for file in files], n,
            metric.tokenizer, metric.lowercase, metric.max_ngram_order, totals, metric.threads,
            keep_rows=kept is not None)
        for file, taken in zip(files, consumed):
            file.consume(taken)
        tokenized += periods
        if kept is not None:
            kept.extend(stats)
        segments += n
        metric.num_refs = len(names) - 1
    if not segments:
        raise InputError(f"{names[0]} is empty: nothing to score")
    if not metric.force:
        warn_if_tokenized(tokenized)
    return StreamResult(metric.score_from_statistics(totals.tolist()), segments, kept)


def sentence_scores_from_files(hypothesis_file: str | os.PathLike,
                               reference_files: Sequence[str | os.PathLike], metric: BLEU, *,
                               chunk_lines: int = 10_000, encoding: str = "utf-8",
                               max_line_length: int = DEFAULT_MAX_LINE_LENGTH
                               ) -> Iterator[BLEUScore]:
    """Each segment's score, in order, reading and scoring one chunk at a time.

    ``metric`` is used as given (``truebleu -sl`` passes one with ``effective_order=True``);
    memory is bounded by the chunk, however many segments the files hold.
    """
    names = [os.fspath(hypothesis_file), *map(os.fspath, reference_files)]
    tokenized = 0
    for hyps, refs in _stripped_chunks(names, chunk_lines, encoding, max_line_length):
        tokenized += count_tokenized_periods(hyps)
        for row in metric.corpus_statistics(hyps, refs, check_tokenized=False).rows():
            yield metric.score_from_statistics(row)
    if not metric.force:
        warn_if_tokenized(tokenized)


def _stripped_chunks(names: list[str], chunk_lines: int, encoding: str, max_line_length: int
                     ) -> Iterator[tuple[list[str], list[list[str]]]]:
    """Hypotheses right-stripped as sacreBLEU's command line strips them, and the references.

    References are left as read: both backends strip every segment's end before
    tokenizing (sacreBLEU's ``BLEU`` does the same), so stripping them here would only
    make a second copy. Hypotheses are stripped because the tokenized-period check
    looks at their ends.
    """
    for chunks in iter_aligned_chunks(names, chunk_lines, encoding, max_line_length):
        yield list(map(str.rstrip, chunks[0])), chunks[1:]
