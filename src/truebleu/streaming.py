"""Scoring files too large for memory: read in chunks, keep only sums.

BLEU's statistics add, so a corpus can be scored chunk by chunk: each chunk
of hypothesis lines is paired with the same lines of every reference file,
turned into statistics, and summed. Memory is bounded by the chunk size
(plus the per-segment rows, only if asked for). Lines are read as the
``truebleu`` command reads them: split on ``\\n``, trailing whitespace stripped.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from itertools import zip_longest
from typing import Optional, Sequence

from .bleu import BLEU, count_tokenized_periods, warn_if_tokenized
from .io import InputError, iter_line_chunks, line_count_mismatch
from .score import BLEUScore
from .stats import Statistics


@dataclass
class StreamResult:
    score: BLEUScore
    segments: int
    statistics: Optional[Statistics]  # per-segment rows, when keep_statistics=True


def _count_rest(chunks) -> int:
    return sum(len(chunk) for chunk in chunks if chunk is not None)


def score_files(hypothesis_file: str | os.PathLike, reference_files: Sequence[str | os.PathLike],
                metric: Optional[BLEU] = None, *, chunk_lines: int = 10_000,
                keep_statistics: bool = False, encoding: str = "utf-8") -> StreamResult:
    """Corpus BLEU of a hypothesis file against reference files, in bounded memory."""
    if not reference_files:
        raise ValueError("at least one reference file is needed")
    metric = metric or BLEU()
    names = [os.fspath(hypothesis_file), *map(os.fspath, reference_files)]
    readers = [iter_line_chunks(name, chunk_lines, encoding) for name in names]
    totals: Optional[list[int]] = None
    kept = Statistics(metric.max_ngram_order) if keep_statistics else None
    segments = tokenized = 0
    for chunks in zip_longest(*readers):
        if any(chunk is None for chunk in chunks) or len({len(c) for c in chunks}) > 1:
            counts = [segments + (len(c) if c is not None else 0) for c in chunks]
            counts = [n + _count_rest(reader) for n, reader in zip(counts, readers)]
            raise line_count_mismatch(names[0], counts[0], list(zip(names[1:], counts[1:])))
        hyps = [line.rstrip() for line in chunks[0]]
        refs = [[line.rstrip() for line in chunk] for chunk in chunks[1:]]
        tokenized += count_tokenized_periods(chunks[0])
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
