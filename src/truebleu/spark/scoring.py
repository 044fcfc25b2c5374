"""Corpus scores of Spark DataFrames, for any metric (driver side).

Executors compute each row's statistics per Arrow batch (see :mod:`.executor`);
Spark sums them per group (partial sums on each executor, then one row per
group and partition through the shuffle); the driver turns each group's sums
into a score with ``metric.score_from_statistics``. Integer sums do not depend
on the partitioning or on the order of additions, so every score is
bit-identical to ``metric.corpus_score`` on the same rows. Float rows (TER's)
are summed exactly where that is possible in every order (:mod:`.sums`);
:func:`corpus_score_in_order` covers the rest by adding the rows on the driver,
in row order, as ``metric.corpus_score`` does.
"""

from __future__ import annotations

import copy
from array import array
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any, Optional, Sequence, Union, overload

from ..core.statistics import RowTable
from ..metrics.base import Metric, ScoreT
from ..metrics.bleu.metric import BLEU
from .collect import OrderBy, matrix_of, sorted_by
from .columns import References, TextColumns, reference_count, text_columns
from .executor import (
    INEXACT,
    NREFS_MAX,
    NREFS_MIN,
    WorkerMetric,
    partial_sums,
    sum_names,
    worker_bleu,
    worker_metric,
)
from .segments import metric_of, segment_statistics
from .sums import from_fixed_point

if TYPE_CHECKING:
    import pyarrow as pa
    from pyspark.sql import DataFrame, Row

    from ..metrics.bleu.score import BLEUScore

By = Optional[Union[str, Sequence[str]]]
#: the columns of a grouped result besides the ``by`` columns
OUTPUT_COLUMNS = ("score", "signature", "statistics")


@dataclass(frozen=True)
class GroupTotals:
    """One group's summed statistics and its references per row (-1: it varies)."""

    keys: tuple[Any, ...]  # the values of the ``by`` columns
    totals: list[float]
    num_refs: Optional[int]


def _reference_count(low: Optional[int], high: Optional[int]) -> Optional[int]:
    if low is None:
        return None
    return int(low) if low == high else -1


def _by_columns(df: DataFrame, by: By, reserved: Sequence[str]) -> list[str]:
    """``by`` as a list of column names, checked against ``df`` and the output columns."""
    names = [by] if isinstance(by, str) else list(by or [])
    for name in names:
        if name not in df.columns:
            raise ValueError(f"by column {name!r} is not in the DataFrame (columns: "
                             f"{', '.join(df.columns)})")
        if name in reserved:
            raise ValueError(f"by column {name!r} has the name of an output column; rename it")
    return names


# -- summing in Spark ----------------------------------------------------------------

def _spark_sums(df: DataFrame, metric: Metric[Any], worker: WorkerMetric, columns: TextColumns,
                by: list[str]) -> list[Row]:
    """One collected row per group: the summed statistics, inexact rows, reference counts."""
    from pyspark.sql import functions as F
    from pyspark.sql.types import IntegerType, LongType, StructField, StructType

    names = sum_names(metric.row_width())
    schema = StructType([df.schema[name] for name in by]
                        + [StructField(name, LongType(), False) for name in [*names, INEXACT]]
                        + [StructField(NREFS_MIN, IntegerType()),
                           StructField(NREFS_MAX, IntegerType())])
    body = partial(partial_sums, worker, columns, by)
    sums = df.select(*dict.fromkeys([*by, *columns.names])).mapInArrow(body, schema)
    aggregates = ([F.sum(name).alias(name) for name in [*names, INEXACT]]
                  + [F.min(NREFS_MIN).alias(NREFS_MIN), F.max(NREFS_MAX).alias(NREFS_MAX)])
    rows: list[Row] = (sums.agg(*aggregates) if not by
                       else sums.groupBy(*by).agg(*aggregates)).collect()
    return rows


def _exact_totals(metric: Metric[Any], rows: list[Row], by: list[str]) -> list[GroupTotals]:
    """Each group's column sums as ``metric.corpus_score`` adds them; a ValueError
    naming the groups whose float rows cannot be added exactly in every order."""
    names = sum_names(metric.row_width())
    groups: list[GroupTotals] = []
    inexact: list[tuple[Any, ...]] = []
    for row in rows:
        keys = tuple(row[name] for name in by)
        if row[NREFS_MIN] is None:  # no rows at all (the whole-DataFrame aggregate)
            continue
        totals = None if row[INEXACT] else from_fixed_point([row[n] for n in names],
                                                            metric.integer_rows)
        if totals is None:
            inexact.append(keys)
            continue
        groups.append(GroupTotals(keys, totals,
                                  _reference_count(row[NREFS_MIN], row[NREFS_MAX])))
    if inexact:
        raise ValueError(_inexact_message(metric, inexact, by))
    return groups


def _inexact_message(metric: Metric[Any], groups: list[tuple[Any, ...]], by: list[str]) -> str:
    where = (f"the groups {', '.join(map(repr, groups[:3]))}"
             f"{f' (and {len(groups) - 3} more)' if len(groups) > 3 else ''}" if by
             else "this DataFrame")
    return (f"{type(metric).__name__}'s statistics of {where} cannot be summed exactly by "
            f"Spark: they are floats, whose sum depends on the order of additions, and not all "
            f"are non-negative multiples of 1/1024 with sums below 2**43 (TER: an average "
            f"reference length over 3 references is a multiple of 1/3), so no sum in Spark's "
            f"order is sure to equal metric.corpus_score's. "
            f"Use truebleu.spark.corpus_score_in_order(df, metric, ..., order_by=...): it "
            f"collects the statistics to the driver and adds them in row order")


# -- summing on the driver, in row order -----------------------------------------------------

def _ordered_totals(metric: Metric[Any], df: DataFrame, columns: TextColumns, by: list[str],
                    order_by: OrderBy, threads: Optional[int]) -> list[GroupTotals]:
    """Each group's rows collected in order and added one by one, as ``corpus_score`` does."""
    stats, nrefs = "__truebleu_statistics", "__truebleu_nrefs"
    df = segment_statistics(df, columns.hypothesis, list(columns.references), stats,
                            metric=metric, threads=threads)
    df = df.withColumn(nrefs, reference_count(columns))
    table = sorted_by(df, order_by).select(*by, stats, nrefs).toArrow()
    if not table.num_rows:
        return []
    matrix = matrix_of(table.column(stats), stats)
    counts = table.column(nrefs).to_numpy()
    typecode = "d" if matrix.dtype.kind == "f" else "q"  # float64 or int64, as collected
    groups: list[GroupTotals] = []
    for key, rows in _rows_of_groups(table, by).items():
        ordered = RowTable(matrix.shape[1], array(typecode, matrix[rows].tobytes()))
        groups.append(GroupTotals(key, ordered.sum(),  # one by one, in order
                                  _reference_count(counts[rows].min(), counts[rows].max())))
    return groups


def _rows_of_groups(table: pa.Table, by: list[str]) -> dict[tuple[Any, ...], list[int]]:
    """The indices of each group's rows in an Arrow table, in the table's order."""
    rows_of: dict[tuple[Any, ...], list[int]] = {}
    keys = zip(*(table.column(name).to_pylist() for name in by)) if by else [()] * table.num_rows
    for index, key in enumerate(keys):
        rows_of.setdefault(key, []).append(index)
    return rows_of


# -- scores -------------------------------------------------------------------------------

def _whole_score(metric: Metric[ScoreT], groups: list[GroupTotals]) -> ScoreT:
    """The score of the one group (none: an empty DataFrame), as ``metric.corpus_score``."""
    if not groups:
        if metric.empty_corpus_is_error:
            raise ValueError("no segments to score")
        return metric.score_from_statistics([0] * metric.row_width())
    (group,) = groups
    metric.num_refs = group.num_refs
    return metric.score_from_statistics(group.totals)


def _signature(metric: Metric[Any], num_refs: Optional[int]) -> str:
    metric = copy.copy(metric)
    metric.num_refs = num_refs
    return str(metric.get_signature())


def _grouped_result(df: DataFrame, metric: Metric[Any], by: list[str],
                    groups: list[GroupTotals]) -> DataFrame:
    """A DataFrame: the ``by`` columns, ``score``, ``signature``, ``statistics``."""
    from pyspark.sql.types import ArrayType, DoubleType, LongType, StringType, StructField, StructType

    out = [(*group.keys, metric.score_from_statistics(group.totals).score,
            _signature(metric, group.num_refs), group.totals) for group in groups]
    number = LongType() if metric.integer_rows else DoubleType()
    schema = StructType([df.schema[name] for name in by]
                        + [StructField("score", DoubleType(), False),
                           StructField("signature", StringType(), False),
                           StructField("statistics", ArrayType(number, False), False)])
    return df.sparkSession.createDataFrame(out, schema)


@overload
def corpus_score(df: DataFrame, metric: Metric[ScoreT], hypothesis: str = "hyp",
                 references: References = ("ref",), by: None = None, *,
                 threads: Optional[int] = None) -> ScoreT: ...


@overload
def corpus_score(df: DataFrame, metric: Metric[ScoreT], hypothesis: str = "hyp",
                 references: References = ("ref",), *, by: Union[str, Sequence[str]],
                 threads: Optional[int] = None) -> DataFrame: ...


@overload
def corpus_score(df: DataFrame, metric: Metric[ScoreT], hypothesis: str, references: References,
                 by: Union[str, Sequence[str]], *,
                 threads: Optional[int] = None) -> DataFrame: ...


def corpus_score(df: DataFrame, metric: Metric[ScoreT], hypothesis: str = "hyp",
                 references: References = ("ref",), by: By = None, *,
                 threads: Optional[int] = None) -> Union[ScoreT, DataFrame]:
    """The corpus score of the rows of ``df`` under ``metric``, or of each group of rows.

    Equal, bit for bit, to ``metric.corpus_score`` on the same rows, whatever the
    partitioning. Float rows (TER's) are summed exactly when their values are
    multiples of 1/1024 (TER with 1, 2 or 4 references per row); otherwise a
    ValueError says so and points to :func:`corpus_score_in_order`.

    :param metric: a truebleu metric (``BLEU(...)``, ``CHRF(...)``, ``TER(...)``);
        it is pickled to the executors as it is (without references given to
        its constructor).
    :param references: string columns (one reference set each) or one
        array-of-strings column; ``null`` is a missing reference.
    :param by: column names; when given, returns a DataFrame with the ``by``
        columns, ``score``, ``signature`` and ``statistics`` (the summed row:
        ``array<bigint>``, or ``array<double>`` for float rows), one row per group.
    :param threads: native threads per Spark task (default 1: Spark runs a task per core).
    :returns: a score, when ``by`` is None; ``metric.get_signature()`` then
        names it (``nrefs`` as seen in the rows), as after ``metric.corpus_score``.
    """
    columns = text_columns(df.schema, hypothesis, references)
    metric = metric_of(metric, {})
    names = _by_columns(df, by, OUTPUT_COLUMNS)
    sums = _spark_sums(df, metric, worker_metric(metric, threads), columns, names)
    groups = _exact_totals(metric, sums, names)
    if not names:
        return _whole_score(metric, groups)
    return _grouped_result(df, metric, names, groups)


@overload
def corpus_score_in_order(df: DataFrame, metric: Metric[ScoreT], hypothesis: str = "hyp",
                          references: References = ("ref",), by: None = None,
                          order_by: OrderBy = None, *, threads: Optional[int] = None
                          ) -> ScoreT: ...


@overload
def corpus_score_in_order(df: DataFrame, metric: Metric[ScoreT], hypothesis: str = "hyp",
                          references: References = ("ref",), *,
                          by: Union[str, Sequence[str]], order_by: OrderBy = None,
                          threads: Optional[int] = None) -> DataFrame: ...


@overload
def corpus_score_in_order(df: DataFrame, metric: Metric[ScoreT], hypothesis: str,
                          references: References, by: Union[str, Sequence[str]],
                          order_by: OrderBy = None, *, threads: Optional[int] = None
                          ) -> DataFrame: ...


def corpus_score_in_order(df: DataFrame, metric: Metric[ScoreT], hypothesis: str = "hyp",
                          references: References = ("ref",), by: By = None,
                          order_by: OrderBy = None, *, threads: Optional[int] = None
                          ) -> Union[ScoreT, DataFrame]:
    """:func:`corpus_score` with the statistics added on the driver, one row after another.

    For float rows that Spark cannot add exactly (TER with 3 references, say):
    the sum of floats depends on the order of additions, so the rows are
    collected in ``df``'s order (or ``order_by``'s; see :mod:`.collect`) and
    added as ``metric.corpus_score`` adds them. Exact for any metric; the cost
    is a job that brings every row's statistics (8 bytes per number: 16 for
    TER) and ``by`` keys to the driver, which must hold them.
    """
    columns = text_columns(df.schema, hypothesis, references)
    metric = metric_of(metric, {})
    names = _by_columns(df, by, OUTPUT_COLUMNS)
    groups = _ordered_totals(metric, df, columns, names, order_by, threads)
    if not names:
        return _whole_score(metric, groups)
    return _grouped_result(df, metric, names, groups)


# -- BLEU -----------------------------------------------------------------------------------

def statistic_names(max_order: int) -> list[str]:
    """Names of BLEU's statistics columns, in the order of its rows."""
    return (["hyp_len", "ref_len"] + [f"matches_{n}" for n in range(1, max_order + 1)]
            + [f"totals_{n}" for n in range(1, max_order + 1)])


def _bleu_result(df: DataFrame, metric: BLEU, by: list[str], groups: list[GroupTotals]
                 ) -> DataFrame:
    """:func:`corpus_bleu`'s grouped DataFrame: one named ``bigint`` column per statistic."""
    from pyspark.sql.types import DoubleType, LongType, StringType, StructField, StructType

    names = statistic_names(metric.max_ngram_order)
    out = [(*group.keys, metric.score_from_statistics(group.totals).score,
            _signature(metric, group.num_refs), *group.totals) for group in groups]
    schema = StructType([df.schema[name] for name in by]
                        + [StructField("score", DoubleType(), False),
                           StructField("signature", StringType(), False)]
                        + [StructField(name, LongType(), False) for name in names])
    return df.sparkSession.createDataFrame(out, schema)


@overload
def corpus_bleu(df: DataFrame, hypothesis: str = "hyp", references: References = ("ref",),
                by: None = None, **options: Any) -> BLEUScore: ...


@overload
def corpus_bleu(df: DataFrame, hypothesis: str = "hyp", references: References = ("ref",), *,
                by: Union[str, Sequence[str]], **options: Any) -> DataFrame: ...


@overload
def corpus_bleu(df: DataFrame, hypothesis: str, references: References,
                by: Union[str, Sequence[str]], **options: Any) -> DataFrame: ...


def corpus_bleu(df: DataFrame, hypothesis: str = "hyp", references: References = ("ref",),
                by: By = None, **options: Any) -> Union[BLEUScore, DataFrame]:
    """Corpus BLEU of the rows of ``df``, or of each group of rows (:func:`corpus_score`
    with ``BLEU(**options)``).

    :param references: string columns (one reference set each) or one
        array-of-strings column; ``null`` is a missing reference.
    :param by: column names; when given, returns a DataFrame with the ``by``
        columns, ``score``, ``signature`` and the summed statistics columns
        (``hyp_len``, ``ref_len``, ``matches_1``..., ``totals_1``...), one row
        per group (each equal to ``truebleu.corpus_bleu`` on the group).
    :param options: :class:`truebleu.BLEU`'s (``tokenize``, ``lowercase``, ...);
        ``threads`` is per Spark task (default 1).
    :returns: a :class:`~truebleu.metrics.bleu.score.BLEUScore` when ``by`` is None.
    """
    metric = BLEU(**options)
    columns = text_columns(df.schema, hypothesis, references)
    reserved = ("score", "signature", *statistic_names(metric.max_ngram_order))
    names = _by_columns(df, by, reserved)
    sums = _spark_sums(df, metric, worker_bleu(options, options.get("threads")), columns, names)
    groups = _exact_totals(metric, sums, names)
    if not names:
        return _whole_score(metric, groups)
    return _bleu_result(df, metric, names, groups)
