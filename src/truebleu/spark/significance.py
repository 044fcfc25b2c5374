"""Significance tests over statistics computed by Spark, identical to :mod:`truebleu.significance`.

The resampling itself needs the whole ``(segments, width)`` integer matrix in
one place: it is small (80 bytes per segment for BLEU) and is collected to the
driver, where :mod:`truebleu.significance` runs on it unchanged, so the
results equal the single-process ones on the same rows and seed.

Row order matters to the resampling (segment ``i`` of the matrix is row ``i``),
so it is kept explicitly: the statistics columns are narrow transformations of
``df`` (no shuffle), and ``DataFrame.toArrow`` returns the rows partition by
partition, each in its own order, i.e. in ``df``'s order. When ``df``'s order
is not deterministic (it comes out of a shuffle), give ``order_by``: the
column(s) that sort the segments (e.g. a segment id).
"""

from __future__ import annotations

from typing import Optional, Sequence, Union

from ..metrics.bleu.metric import BLEU
from ..significance import bootstrap_ci as _bootstrap_ci
from ..significance import paired_bootstrap as _paired_bootstrap
from ..significance import paired_randomization as _paired_randomization
from .columns import References
from .scoring import segment_statistics

OrderBy = Optional[Union[str, Sequence[str]]]


def _sorted(df, order_by: OrderBy):
    if order_by is None:
        return df
    return df.orderBy(*([order_by] if isinstance(order_by, str) else order_by))


def _matrix_of(lists, column: str):
    """An Arrow ``list<int64>`` column as a ``(rows, width)`` int64 NumPy matrix."""
    import numpy as np

    lists = lists.combine_chunks()
    if lists.null_count:
        raise ValueError(f"statistics column {column!r} has null rows")
    lengths = set(lists.value_lengths().to_pylist())
    if len(lengths) > 1:
        raise ValueError(f"statistics column {column!r} has rows of different widths "
                         f"{sorted(lengths)}")
    width = lengths.pop() if lengths else 1
    values = lists.flatten().to_numpy(zero_copy_only=False).astype(np.int64, copy=False)
    return values.reshape(-1, width)


def statistics_matrix(df, column: str, order_by: OrderBy = None):
    """The ``array<bigint>`` statistics ``column`` of ``df`` as an int64 NumPy matrix, in row order."""
    return _matrix_of(_sorted(df, order_by).select(column).toArrow().column(0), column)


def _matrices(df, hypotheses: Sequence[str], references: References, order_by: OrderBy,
              options: dict) -> list:
    """One statistics matrix per hypothesis column, rows aligned, collected in one job."""
    names = [f"__truebleu_statistics_{i}" for i in range(len(hypotheses))]
    for hypothesis, name in zip(hypotheses, names):
        df = segment_statistics(df, hypothesis, references, column=name, **options)
    table = _sorted(df, order_by).select(*names).toArrow()
    return [_matrix_of(table.column(name), hypothesis) for name, hypothesis in zip(names, hypotheses)]


def _scorer(options: dict):
    return BLEU(**options).batch_scorer()


def bootstrap_ci(df, hypothesis: str = "hyp", references: References = ("ref",),
                 n_samples: int = 1000, seed=12345, order_by: OrderBy = None, **options):
    """Bootstrap mean and 95% half-width of the corpus BLEU of ``df``
    (= :func:`truebleu.significance.bootstrap_ci`)."""
    (matrix,) = _matrices(df, [hypothesis], references, order_by, options)
    return _bootstrap_ci(matrix, _scorer(options), n_samples, seed=seed)


def paired_bootstrap(df, baseline: str, system: str, references: References = ("ref",),
                     n_samples: int = 1000, seed=12345, statistic: str = "centered",
                     order_by: OrderBy = None, **options):
    """Paired bootstrap test of hypothesis column ``system`` against ``baseline``
    (= :func:`truebleu.significance.paired_bootstrap`)."""
    a, b = _matrices(df, [baseline, system], references, order_by, options)
    return _paired_bootstrap(a, b, _scorer(options), n_samples, seed=seed,
                             names=(baseline, system), statistic=statistic)


def paired_randomization(df, baseline: str, system: str, references: References = ("ref",),
                         n_trials: int = 10000, seed=12345, order_by: OrderBy = None, **options):
    """Paired approximate randomization test of ``system`` against ``baseline``
    (= :func:`truebleu.significance.paired_randomization`)."""
    a, b = _matrices(df, [baseline, system], references, order_by, options)
    return _paired_randomization(a, b, _scorer(options), n_trials, seed=seed,
                                 names=(baseline, system))
