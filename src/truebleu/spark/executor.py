"""What runs inside Spark's Python workers: one native statistics call per Arrow batch.

Each function here receives whole Arrow batches (``spark.sql.execution.arrow
.maxRecordsPerBatch`` rows, 10,000 by default), turns the text columns into
Python lists once, and hands them to the compiled core in one call: never one
Python call per row. What goes back to the JVM is integers (per-group sums,
or per-row statistics when asked for) or one float per row.

The metric is built once per worker process and configuration (workers are
reused between tasks). Its native core uses one thread unless ``threads`` is
given: Spark already runs one task per core.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Iterator, Optional, Sequence

from ..metrics.bleu.metric import BLEU
from .columns import TextColumns, batch_texts


def worker_options(options: dict) -> tuple:
    """``options`` as a hashable key, with one native thread by default."""
    merged = {"threads": 1, **options, "force": True}
    return tuple(sorted(merged.items()))


@lru_cache(maxsize=8)
def cached_metric(key: tuple) -> BLEU:
    return BLEU(**dict(key))


def statistic_names(max_order: int) -> list[str]:
    """Names of the statistics columns, in the order of :class:`truebleu.stats.Statistics`."""
    return (["hyp_len", "ref_len"] + [f"matches_{n}" for n in range(1, max_order + 1)]
            + [f"totals_{n}" for n in range(1, max_order + 1)])


def _matrix(stats):
    import numpy as np

    return np.frombuffer(stats.data, dtype=np.int64).reshape(-1, stats.width)


def batch_statistics(key: tuple, columns: TextColumns, hyp_array, ref_arrays):
    """(statistics matrix, references per row) of one Arrow batch."""
    hyps, streams, counts = batch_texts(columns, hyp_array, ref_arrays)
    stats = cached_metric(key).corpus_statistics(hyps, streams, check_inputs=False)
    return _matrix(stats), counts


def statistics_array(key: tuple, columns: TextColumns, hyp_array, *ref_arrays):
    """Per-row statistics as an Arrow ``list<int64>`` array (one list per row)."""
    import numpy as np
    import pyarrow as pa

    matrix, _ = batch_statistics(key, columns, hyp_array, ref_arrays)
    rows, width = matrix.shape
    offsets = pa.array(np.arange(0, rows * width + 1, width, dtype=np.int32))
    return pa.ListArray.from_arrays(offsets, pa.array(matrix.reshape(-1)))


def sentence_score_array(settings: dict, columns: TextColumns, hyp_array, *ref_arrays):
    """Sentence BLEU of each row as an Arrow ``double`` array."""
    import pyarrow as pa

    from ..metrics.bleu.batch import sentence_scores

    hyps, streams, _ = batch_texts(columns, hyp_array, ref_arrays)
    # one reference column: its strings are the references (a str counts as one)
    per_row = streams[0] if len(streams) == 1 else [list(refs) for refs in zip(*streams)]
    return pa.array(sentence_scores(hyps, per_row, **{"threads": 1, **settings}), pa.float64())


def partial_sums(key: tuple, columns: TextColumns, by: Sequence[str],
                 batches: Iterator) -> Iterator:
    """``mapInArrow`` body: per batch, the statistics summed per ``by`` group.

    Yields record batches with the ``by`` columns, the summed statistics and
    the smallest and largest number of references of the group's rows. With
    no ``by``, the whole partition is summed into one row (none when empty).
    """
    import numpy as np
    import pyarrow as pa

    names = statistic_names(cached_metric(key).max_ngram_order)
    totals: Optional[np.ndarray] = None
    low = high = None
    for batch in batches:
        if batch.num_rows == 0:
            continue
        hyp_array = batch.column(columns.hypothesis)
        ref_arrays = [batch.column(name) for name in columns.references]
        matrix, counts = batch_statistics(key, columns, hyp_array, ref_arrays)
        if not by:
            sums = matrix.sum(axis=0)
            totals = sums if totals is None else totals + sums
            low = counts.min() if low is None else min(low, counts.min())
            high = counts.max() if high is None else max(high, counts.max())
            continue
        table = pa.table({**{name: batch.column(name) for name in by},
                          **{name: matrix[:, j] for j, name in enumerate(names)},
                          "nrefs_min": pa.array(counts.astype(np.int32)),
                          "nrefs_max": pa.array(counts.astype(np.int32))})
        grouped = table.group_by(list(by), use_threads=False).aggregate(
            [(name, "sum") for name in names] + [("nrefs_min", "min"), ("nrefs_max", "max")])
        grouped = grouped.select([*by, *(f"{name}_sum" for name in names),
                                  "nrefs_min_min", "nrefs_max_max"])
        yield from grouped.rename_columns([*by, *names, "nrefs_min", "nrefs_max"]).to_batches()
    if not by and totals is not None:
        yield pa.record_batch({**{name: pa.array([int(totals[j])], pa.int64())
                                  for j, name in enumerate(names)},
                               "nrefs_min": pa.array([int(low)], pa.int32()),
                               "nrefs_max": pa.array([int(high)], pa.int32())})

