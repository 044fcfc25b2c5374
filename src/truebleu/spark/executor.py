"""What runs inside Spark's Python workers: one statistics call per Arrow batch, for any metric.

Each function here receives whole Arrow batches (``spark.sql.execution.arrow
.maxRecordsPerBatch`` rows, 10,000 by default), turns the text columns into
Python lists once, and hands them to the metric's kernel in one call
(``metric.corpus_statistics``): never one kernel call per row. What goes back
to the JVM is integers (per-group sums, see :mod:`.sums`), per-row
statistics when asked for, or one float per row.

The metric travels as a :class:`WorkerMetric`, captured in the function
Spark pickles for its tasks: usually the metric object itself
(:func:`worker_metric`), so the workers run exactly the configuration the
driver scores with, whatever the metric; for BLEU's keyword options
(:func:`corpus_bleu` and the functions without ``metric=``) the options,
from which each Python worker builds BLEU once (:func:`worker_bleu`), as
truebleu.spark always did (this also serves tokenizers that do not pickle:
MeCab's). The native kernel uses one thread unless asked otherwise: Spark
already runs one task per core.
"""

from __future__ import annotations

import pickle
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Iterator, Optional, Sequence

from ..core.kernels import check_threads
from ..metrics.base import Metric
from ..metrics.bleu.metric import BLEU
from .columns import TextColumns, batch_texts
from .sums import to_fixed_point

#: the internal columns of the partial sums (none of them is in the output)
SUM_PREFIX = "__truebleu_sum_"
INEXACT = "__truebleu_inexact"
NREFS_MIN = "__truebleu_nrefs_min"
NREFS_MAX = "__truebleu_nrefs_max"


@dataclass(frozen=True)
class WorkerMetric:
    """The metric as it travels to the executors: the object, or BLEU's options."""

    shipped: Optional[Metric] = None
    bleu_options: tuple = ()  # sorted (name, value) pairs, hashable

    def get(self) -> Metric:
        """The metric to run in this Python worker."""
        if self.shipped is not None:
            return self.shipped
        return _cached_bleu(self.bleu_options)


@lru_cache(maxsize=8)
def _cached_bleu(options: tuple) -> BLEU:
    return BLEU(**dict(options))  # once per worker process and configuration


def worker_metric(metric: Metric, threads: Optional[int] = None) -> WorkerMetric:
    """``metric`` for the executors: a copy with ``threads`` native threads (default 1),
    without references given to its constructor (the rows bring their own;
    prepared references would be pickled with every task for nothing)."""
    if not isinstance(metric, Metric):
        raise TypeError(f"metric must be a truebleu metric (BLEU(...), CHRF(...), TER(...)), "
                        f"got {type(metric).__name__}")
    worker = metric.without_references(threads=check_threads(threads) or 1)
    try:
        pickle.dumps(worker)
    except (TypeError, AttributeError, pickle.PicklingError) as exc:
        raise TypeError(f"{type(metric).__name__} cannot be sent to the Spark executors: it "
                        f"does not pickle ({exc}). For BLEU, give its options to "
                        "truebleu.spark.corpus_bleu (or segment_statistics and the "
                        "significance functions without metric=): each executor then builds "
                        "it") from exc
    return WorkerMetric(shipped=worker)


def worker_bleu(options: dict, threads: Optional[int] = None) -> WorkerMetric:
    """BLEU's keyword ``options`` for the executors, which build it (``threads``: default 1)."""
    options = {**options, "threads": check_threads(threads) or 1, "force": True}
    return WorkerMetric(bleu_options=tuple(sorted(options.items())))


def sum_names(width: int) -> list[str]:
    """Names of the summed statistics columns of the partial sums."""
    return [f"{SUM_PREFIX}{j}" for j in range(width)]


def row_matrix(stats) -> Any:
    """A :class:`~truebleu.core.statistics.RowTable` as a ``(rows, width)`` NumPy view
    (int64 or float64, by the table's type; no copy)."""
    import numpy as np

    dtype = np.float64 if stats.data.typecode == "d" else np.int64
    return np.frombuffer(stats.data, dtype=dtype).reshape(-1, stats.width)


def batch_statistics(metric: Metric, columns: TextColumns, hyp_array, ref_arrays) -> tuple:
    """(statistics matrix, references per row) of one Arrow batch under ``metric``."""
    hyps, streams, counts = batch_texts(columns, hyp_array, ref_arrays)
    stats = metric.corpus_statistics(hyps, streams, check_inputs=False)
    return row_matrix(stats), counts


def statistics_array(worker: WorkerMetric, columns: TextColumns, hyp_array, *ref_arrays):
    """Per-row statistics as an Arrow ``list<int64>`` (or ``list<double>``) array."""
    import numpy as np
    import pyarrow as pa

    matrix, _ = batch_statistics(worker.get(), columns, hyp_array, ref_arrays)
    rows, width = matrix.shape
    offsets = pa.array(np.arange(0, rows * width + 1, width, dtype=np.int32), type=pa.int32())
    return pa.ListArray.from_arrays(offsets, pa.array(matrix.reshape(-1)))


def score_array(worker: WorkerMetric, columns: TextColumns, hyp_array, *ref_arrays):
    """Each row's score alone (``metric.score_from_statistics(row).score``) as Arrow ``double``."""
    import pyarrow as pa

    metric = worker.get()
    matrix, _ = batch_statistics(metric, columns, hyp_array, ref_arrays)
    score = metric.score_from_statistics
    return pa.array([score(row).score for row in matrix.tolist()], pa.float64())


def sentence_bleu_array(settings: dict, columns: TextColumns, hyp_array, *ref_arrays):
    """Sentence BLEU of each row as an Arrow ``double`` array (``sentence_scores``' settings)."""
    import pyarrow as pa

    from ..metrics.bleu.batch import sentence_scores

    hyps, streams, _ = batch_texts(columns, hyp_array, ref_arrays)
    # one reference column: its strings are the references (a str counts as one)
    per_row = streams[0] if len(streams) == 1 else [list(refs) for refs in zip(*streams)]
    return pa.array(sentence_scores(hyps, per_row, **{"threads": 1, **settings}), pa.float64())


def _summed_batch(metric: Metric, columns: TextColumns, batch) -> tuple:
    """(int64 matrix for Spark to add, rows not exactly summable, references per row)."""
    hyp_array = batch.column(columns.hypothesis)
    ref_arrays = [batch.column(name) for name in columns.references]
    matrix, counts = batch_statistics(metric, columns, hyp_array, ref_arrays)
    fixed, inexact = to_fixed_point(matrix, metric.integer_rows)
    return fixed, inexact, counts


def _grouped_sums(batch, by: Sequence[str], names: list[str], fixed, inexact, counts):
    """One record batch per group of ``by`` in this batch: its sums and reference counts."""
    import numpy as np
    import pyarrow as pa

    counts = pa.array(counts.astype(np.int32))
    table = pa.table({**{name: batch.column(name) for name in by},
                      **{name: fixed[:, j] for j, name in enumerate(names)},
                      INEXACT: inexact.astype(np.int64),
                      NREFS_MIN: counts, NREFS_MAX: counts})
    grouped = table.group_by(list(by), use_threads=False).aggregate(
        [(name, "sum") for name in [*names, INEXACT]]
        + [(NREFS_MIN, "min"), (NREFS_MAX, "max")])
    grouped = grouped.select([*by, *(f"{name}_sum" for name in [*names, INEXACT]),
                              f"{NREFS_MIN}_min", f"{NREFS_MAX}_max"])
    return grouped.rename_columns([*by, *names, INEXACT, NREFS_MIN, NREFS_MAX]).to_batches()


def partial_sums(worker: WorkerMetric, columns: TextColumns, by: Sequence[str],
                 batches: Iterator) -> Iterator:
    """``mapInArrow`` body: per batch, the statistics summed per ``by`` group.

    Yields record batches with the ``by`` columns, the summed statistics
    (:func:`sum_names`, as :func:`~.sums.to_fixed_point` integers), the number
    of rows that could not be summed exactly (float rows only) and the
    smallest and largest number of references of the group's rows. With no
    ``by``, the whole partition is summed into one row (none when empty).
    """
    import pyarrow as pa

    metric = worker.get()
    names = sum_names(metric.row_width())
    totals = None
    inexact_rows = 0
    low = high = None
    for batch in batches:
        if batch.num_rows == 0:
            continue
        fixed, inexact, counts = _summed_batch(metric, columns, batch)
        if by:
            yield from _grouped_sums(batch, by, names, fixed, inexact, counts)
            continue
        sums = fixed.sum(axis=0)
        totals = sums if totals is None else totals + sums
        inexact_rows += int(inexact.sum())
        low = counts.min() if low is None else min(low, counts.min())
        high = counts.max() if high is None else max(high, counts.max())
    if not by and totals is not None and low is not None and high is not None:  # (set together)
        yield pa.record_batch({**{name: pa.array([int(totals[j])], pa.int64())
                                  for j, name in enumerate(names)},
                               INEXACT: pa.array([inexact_rows], pa.int64()),
                               NREFS_MIN: pa.array([int(low)], pa.int32()),
                               NREFS_MAX: pa.array([int(high)], pa.int32())})
