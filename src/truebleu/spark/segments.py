"""Per-row columns of Spark DataFrames, for any metric: statistics and sentence scores.

Each function adds one column computed by a scalar Arrow UDF (``arrow_udf``,
PySpark 4.1+): only the hypothesis and reference columns go to Python, a
batch at a time, and the metric's kernel runs once per batch
(:mod:`.executor`). Nothing is summed here, so float rows (TER's) are as
exact as integer ones.
"""

from __future__ import annotations

from functools import partial
from typing import Optional

from ..metrics.base import Metric
from ..metrics.bleu.metric import BLEU
from .columns import References, text_columns
from .executor import (
    WorkerMetric,
    score_array,
    sentence_bleu_array,
    statistics_array,
    worker_bleu,
    worker_metric,
)

SENTENCE_SETTINGS = ("smooth_method", "smooth_value", "lowercase", "tokenize",
                     "use_effective_order", "max_ngram_order", "threads", "backend")


def arrow_udf(function, return_type: str):
    """A scalar Arrow UDF: ``function`` gets whole Arrow arrays (one batch), returns one."""
    import warnings

    from pyspark.sql.functions import ArrowUDFType
    from pyspark.sql.functions import arrow_udf as make_udf

    with warnings.catch_warnings():  # PySpark prefers type hints; a partial has none
        warnings.filterwarnings("ignore", "It is preferred to specify type hints", UserWarning)
        return make_udf(function, return_type, ArrowUDFType.SCALAR)


def metric_of(metric: Optional[Metric], options: dict) -> Metric:
    """``metric``, or ``BLEU(**options)`` when none is given (the BLEU-only signatures)."""
    if metric is None:
        return BLEU(**options)  # checks the options on the driver, before any job
    if options:
        raise TypeError(f"give either metric=... or BLEU's options, not both "
                        f"(got {', '.join(sorted(options))})")
    if not isinstance(metric, Metric):
        raise TypeError(f"metric must be a truebleu metric (BLEU(...), CHRF(...), TER(...)), "
                        f"got {type(metric).__name__}")
    return metric


def metric_for_workers(metric: Optional[Metric], options: dict,
                       threads: Optional[int]) -> tuple[Metric, WorkerMetric]:
    """The driver's metric (checked) and how the executors get it: the object itself,
    or BLEU's options when no metric is given."""
    driver = metric_of(metric, options)
    if metric is None:
        return driver, worker_bleu(options, threads)
    return driver, worker_metric(driver, threads)


def statistics_type(metric: Metric) -> str:
    """The Spark SQL type of one row of ``metric``'s statistics."""
    return "array<bigint>" if metric.integer_rows else "array<double>"


def segment_statistics(df, hypothesis: str = "hyp", references: References = ("ref",),
                       column: Optional[str] = None, *, metric: Optional[Metric] = None,
                       threads: Optional[int] = None, **options):
    """``df`` with a column of per-row statistics of ``metric`` (default: ``BLEU(**options)``).

    Each array is the row's statistics, as ``metric.corpus_statistics`` gives
    it (BLEU: ``[hyp_len, ref_len, matches_1..N, totals_1..N]``):
    ``array<bigint>`` for integer rows, ``array<double>`` for float rows (TER).

    :param column: the new column's name; default ``<metric>_statistics``
        (``bleu_statistics``, ``chrf_statistics``, ``ter_statistics``).
    :param threads: native threads per Spark task (default 1: Spark runs a task per core).
    """
    columns = text_columns(df.schema, hypothesis, references)
    metric, worker = metric_for_workers(metric, options, threads)
    if column is None:
        column = f"{type(metric).__name__.lower()}_statistics"
    udf = arrow_udf(partial(statistics_array, worker, columns), statistics_type(metric))
    return df.withColumn(column, udf(*columns.names))


def sentence_score(df, metric: Metric, hypothesis: str = "hyp",
                   references: References = ("ref",), column: Optional[str] = None, *,
                   threads: Optional[int] = None):
    """``df`` with a ``double`` column: each row's score alone, under ``metric``.

    Each value equals ``metric.sentence_score(hyp, refs).score`` (the row's
    statistics scored by ``metric.score_from_statistics``), e.g. sentence
    chrF or sentence TER. For sacreBLEU's ``sentence_bleu`` (effective order
    by default) use :func:`sentence_bleu`.

    :param column: default: the metric's class name in lower case (``chrf``, ``ter``).
    """
    columns = text_columns(df.schema, hypothesis, references)
    if metric is None:
        raise TypeError("sentence_score needs a metric (sentence BLEU: sentence_bleu)")
    metric, worker = metric_for_workers(metric, {}, threads)
    if column is None:
        column = type(metric).__name__.lower()
    udf = arrow_udf(partial(score_array, worker, columns), "double")
    return df.withColumn(column, udf(*columns.names))


def sentence_bleu(df, hypothesis: str = "hyp", references: References = ("ref",),
                  column: str = "bleu", **settings):
    """``df`` with a ``double`` column of sentence BLEU, one per row.

    Each value equals ``truebleu.sentence_bleu(hyp, refs, **settings).score``
    (sacreBLEU's ``sentence_bleu``: effective order by default); the settings
    are those of :func:`truebleu.metrics.bleu.batch.sentence_scores`.
    """
    unknown = sorted(set(settings) - set(SENTENCE_SETTINGS))
    if unknown:
        raise TypeError(f"unknown sentence BLEU setting(s): {', '.join(unknown)} "
                        f"(known: {', '.join(SENTENCE_SETTINGS)})")
    columns = text_columns(df.schema, hypothesis, references)
    from ..metrics.bleu.batch import sentence_scores

    sentence_scores([], [], **settings)  # check the settings on the driver
    udf = arrow_udf(partial(sentence_bleu_array, settings, columns), "double")
    return df.withColumn(column, udf(*columns.names))
