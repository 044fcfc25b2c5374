"""Corpus BLEU, sentence BLEU and per-segment statistics of Spark DataFrames (driver side).

Executors compute integer statistics per Arrow batch (see :mod:`.executor`);
Spark sums them per group (partial sums on each executor, then one row per
group and partition through the shuffle); the driver turns each group's sums
into a score. Integer sums do not depend on the partitioning or on the order
of additions, so every score is bit-identical to ``truebleu.corpus_bleu`` on
the same rows.
"""

from __future__ import annotations

from functools import partial
from typing import Optional, Sequence

from ..metrics.bleu.metric import BLEU
from ..metrics.bleu.score import BLEUScore
from .columns import References, text_columns
from .executor import (partial_sums, sentence_score_array, statistic_names, statistics_array,
                       worker_options)

SENTENCE_SETTINGS = ("smooth_method", "smooth_value", "lowercase", "tokenize",
                     "use_effective_order", "max_ngram_order", "threads", "backend")


def _arrow_udf(function, return_type: str):
    """A scalar Arrow UDF: ``function`` gets whole Arrow arrays (one batch), returns one."""
    import warnings

    from pyspark.sql.functions import ArrowUDFType, arrow_udf

    with warnings.catch_warnings():  # PySpark prefers type hints; a partial has none
        warnings.filterwarnings("ignore", "It is preferred to specify type hints", UserWarning)
        return arrow_udf(function, return_type, ArrowUDFType.SCALAR)


def _driver_metric(options: dict, num_refs: Optional[int]) -> BLEU:
    """The metric on the driver, scoring summed rows (its ``num_refs`` set for the signature)."""
    metric = BLEU(**options)
    metric.num_refs = num_refs
    return metric


def _reference_count(low: Optional[int], high: Optional[int]) -> Optional[int]:
    if low is None:
        return None
    return low if low == high else -1


def segment_statistics(df, hypothesis: str = "hyp", references: References = ("ref",),
                       column: str = "bleu_statistics", **options):
    """``df`` with a column of per-row BLEU statistics (``array<bigint>``).

    Each array is the row's :class:`truebleu.stats.Statistics` row
    (``[hyp_len, ref_len, matches_1..N, totals_1..N]``); ``options`` are
    :class:`truebleu.BLEU`'s.
    """
    columns = text_columns(df.schema, hypothesis, references)
    BLEU(**options)  # check the options on the driver
    udf = _arrow_udf(partial(statistics_array, worker_options(options), columns), "array<bigint>")
    return df.withColumn(column, udf(*columns.names))


def sentence_bleu(df, hypothesis: str = "hyp", references: References = ("ref",),
                  column: str = "bleu", **settings):
    """``df`` with a ``double`` column of sentence BLEU, one per row.

    Each value equals ``truebleu.sentence_bleu(hyp, refs, **settings).score``
    (sacreBLEU's ``sentence_bleu``: effective order by default); the settings
    are those of :func:`truebleu.batch.sentence_scores`.
    """
    unknown = sorted(set(settings) - set(SENTENCE_SETTINGS))
    if unknown:
        raise TypeError(f"unknown sentence BLEU setting(s): {', '.join(unknown)} "
                        f"(known: {', '.join(SENTENCE_SETTINGS)})")
    columns = text_columns(df.schema, hypothesis, references)
    from ..metrics.bleu.batch import sentence_scores

    sentence_scores([], [], **settings)  # check the settings on the driver
    udf = _arrow_udf(partial(sentence_score_array, settings, columns), "double")
    return df.withColumn(column, udf(*columns.names))


def corpus_bleu(df, hypothesis: str = "hyp", references: References = ("ref",),
                by: Optional[Sequence[str]] = None, **options):
    """Corpus BLEU of the rows of ``df``, or of each group of rows.

    :param references: string columns (one reference set each) or one
        array-of-strings column; ``null`` is a missing reference.
    :param by: column names; when given, returns a DataFrame with the ``by``
        columns, ``score``, ``signature`` and the summed statistics columns,
        one row per group (each equal to ``truebleu.corpus_bleu`` on the group).
    :param options: :class:`truebleu.BLEU`'s (``tokenize``, ``lowercase``, ...).
    :returns: a :class:`~truebleu.score.BLEUScore` when ``by`` is None.
    """
    from pyspark.sql import functions as F
    from pyspark.sql.types import (DoubleType, IntegerType, LongType, StringType, StructField,
                                   StructType)

    columns = text_columns(df.schema, hypothesis, references)
    by = [by] if isinstance(by, str) else list(by or [])
    metric = BLEU(**options)
    names = statistic_names(metric.max_ngram_order)
    for name in by:
        if name not in df.columns:
            raise ValueError(f"by column {name!r} is not in the DataFrame (columns: "
                             f"{', '.join(df.columns)})")
        if name in names or name in ("score", "signature", "nrefs_min", "nrefs_max"):
            raise ValueError(f"by column {name!r} has the name of an output column; rename it")
    schema = StructType([df.schema[name] for name in by]
                        + [StructField(name, LongType(), False) for name in names]
                        + [StructField("nrefs_min", IntegerType()),
                           StructField("nrefs_max", IntegerType())])
    sums = (df.select(*dict.fromkeys([*by, *columns.names]))
            .mapInArrow(partial(partial_sums, worker_options(options), columns, by), schema))
    aggregates = ([F.sum(name).alias(name) for name in names]
                  + [F.min("nrefs_min").alias("nrefs_min"), F.max("nrefs_max").alias("nrefs_max")])
    if not by:
        row = sums.agg(*aggregates).collect()[0]
        totals = [row[name] or 0 for name in names]
        return _driver_metric(options, _reference_count(row["nrefs_min"], row["nrefs_max"])
                              ).score_from_statistics(totals)
    groups = sums.groupBy(*by).agg(*aggregates).collect()
    out = []
    for row in groups:
        metric = _driver_metric(options, _reference_count(row["nrefs_min"], row["nrefs_max"]))
        totals = [row[name] for name in names]
        score: BLEUScore = metric.score_from_statistics(totals)
        out.append((*(row[name] for name in by), score.score, str(metric.get_signature()), *totals))
    result_schema = StructType([df.schema[name] for name in by]
                               + [StructField("score", DoubleType(), False),
                                  StructField("signature", StringType(), False)]
                               + [StructField(name, LongType(), False) for name in names])
    return df.sparkSession.createDataFrame(out, result_schema)

