"""Per-row statistics collected to the driver, in row order.

Resampling (significance) and order-dependent float sums
(:func:`~.scoring.corpus_score_in_order`) need every row in one place, in
the order of the segments. The statistics columns are narrow transformations
of ``df`` (no shuffle), and ``DataFrame.toArrow`` returns the rows partition
by partition, each in its own order, i.e. in ``df``'s order. When that order
is not deterministic (``df`` comes out of a shuffle: a join, a
``repartition``), ``order_by`` names the column(s) that sort the segments.
"""

from __future__ import annotations

from typing import Any, Optional, Sequence, Union

OrderBy = Optional[Union[str, Sequence[str]]]


def sorted_by(df, order_by: OrderBy):
    """``df`` sorted by ``order_by`` (column names), or as it is when None."""
    if order_by is None:
        return df
    return df.orderBy(*([order_by] if isinstance(order_by, str) else order_by))


def matrix_of(lists, column: str) -> Any:
    """An Arrow ``list<int64>`` (or ``list<double>``) column as a ``(rows, width)`` NumPy
    matrix (int64, or float64), rows in the column's order."""
    import numpy as np
    import pyarrow as pa

    lists = lists.combine_chunks()
    if lists.null_count:
        raise ValueError(f"statistics column {column!r} has null rows")
    lengths = set(lists.value_lengths().to_pylist())
    if len(lengths) > 1:
        raise ValueError(f"statistics column {column!r} has rows of different widths "
                         f"{sorted(lengths)}")
    width = lengths.pop() if lengths else 1
    floats = pa.types.is_floating(lists.type.value_type)
    values = lists.flatten().to_numpy(zero_copy_only=False)
    return values.astype(np.float64 if floats else np.int64, copy=False).reshape(-1, width)


def statistics_matrix(df, column: str, order_by: OrderBy = None) -> Any:
    """The statistics ``column`` of ``df`` (``array<bigint>``, or ``array<double>`` for
    float rows) as a NumPy matrix, in row order (or ``order_by``'s)."""
    return matrix_of(sorted_by(df, order_by).select(column).toArrow().column(0), column)
