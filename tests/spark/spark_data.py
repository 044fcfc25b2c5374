"""What the Spark tests share: one local[2] SparkSession for the whole test run, every
into-English WMT21 system as rows, the partitionings they are scored under, and small
generated DataFrames.

The session is made once (UI off, 4 shuffle partitions) and stopped when the process ends:
a test module imports the fixtures below (``spark``, ``wmt21``, ``wmt21_df``), and a second
module finds the session running instead of starting another JVM. The WMT21 rows are read
once, and their DataFrame cached once, likewise.
"""

from __future__ import annotations

import atexit
import functools
import os
import re
import shutil
import sys
from collections import defaultdict
from typing import Any

import pytest

from conftest import wmt21_dir


def require_spark() -> None:
    """Skip the calling test module (at its import) where Spark cannot run."""
    pyspark = pytest.importorskip("pyspark", reason="pyspark not installed (pip install 'truebleu[spark]')")
    pytest.importorskip("pyarrow")
    pytest.importorskip("numpy")
    if not hasattr(pytest.importorskip("pyspark.sql.functions"), "arrow_udf"):
        pytest.skip(f"truebleu.spark needs PySpark >= 4.1 (arrow_udf), found {pyspark.__version__}",
                    allow_module_level=True)
    if not (shutil.which("java") or os.environ.get("JAVA_HOME")):
        pytest.skip("Spark needs Java (no java on PATH and no JAVA_HOME)", allow_module_level=True)


@functools.cache
def local_session() -> Any:
    """The one local[2] SparkSession of the test run, stopped at exit."""
    from pyspark.sql import SparkSession

    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)  # workers import this truebleu
    session = (SparkSession.builder.master("local[2]").appName("truebleu-tests")
               .config("spark.ui.enabled", "false")
               .config("spark.sql.shuffle.partitions", "4")
               .config("spark.sql.execution.arrow.maxRecordsPerBatch", "2000")
               .config("spark.driver.memory", "1g")
               .getOrCreate())
    session.sparkContext.setLogLevel("ERROR")
    atexit.register(session.stop)
    return session


@pytest.fixture(scope="module")
def spark():
    """The test run's SparkSession (:func:`local_session`)."""
    return local_session()


@pytest.fixture(scope="module")
def wmt21():
    """:func:`wmt21_rows`."""
    return wmt21_rows()


@pytest.fixture(scope="module")
def wmt21_df(spark):
    """:func:`wmt21_frame`."""
    return wmt21_frame()


def fields(score) -> tuple:
    return (score.score, list(score.counts), list(score.totals), score.bp, score.sys_len,
            score.ref_len)


# -- WMT21: every into-English system -----------------------------------------

NAME = re.compile(r"^newstest2021\.(?P<pair>[a-z]+-en)\.hyp\.(?P<system>.+)\.en$")


def read(path) -> list[str]:
    with open(path, encoding="utf-8", newline="\n") as handle:
        return [line.rstrip() for line in handle]


@functools.cache
def wmt21_rows() -> tuple[dict, dict, dict]:
    """(rows as a dict of columns, {pair: reference streams}, {(pair, system): hypotheses})."""
    root = wmt21_dir()
    systems = {}
    for path in sorted((root / "system-outputs").iterdir()):
        match = NAME.match(path.name)
        if match:
            systems[match["pair"], match["system"]] = read(path)
    refs = {}
    for pair in {pair for pair, _ in systems}:
        streams = [read(root / "references" / f"newstest2021.{pair}.ref.{name}.en")
                   for name in "AB" if (root / "references" / f"newstest2021.{pair}.ref.{name}.en").exists()]
        refs[pair] = streams
    cols = defaultdict(list)
    for (pair, system), hyps in systems.items():
        streams = refs[pair]
        cols["pair"] += [pair] * len(hyps)
        cols["system"] += [system] * len(hyps)
        cols["seg"] += list(range(len(hyps)))
        cols["hyp"] += hyps
        cols["ref_a"] += streams[0]
        cols["ref_b"] += streams[1] if len(streams) > 1 else [None] * len(hyps)
    return dict(cols), refs, systems


@functools.cache
def wmt21_frame() -> Any:
    """The rows of :func:`wmt21_rows` as a cached DataFrame of :func:`local_session`."""
    import pyarrow as pa

    return local_session().createDataFrame(pa.table(wmt21_rows()[0])).cache()


PARTITIONINGS = ["1", "3", "17", "skewed", "empty"]


def partitioned(wmt21_df, partitioning: str):
    """WMT21 in one of the layouts of PARTITIONINGS: all 100 systems without a shuffle
    ("1"); the shuffled layouts on two pairs (24 systems) to keep the suite quick."""
    from pyspark.sql import functions as F

    subset = F.col("pair").isin("de-en", "ha-en")
    df = {
        "1": lambda d: d.coalesce(1),
        "3": lambda d: d.where(subset).repartition(3),
        "17": lambda d: d.where(subset).repartition(17),
        # almost everything in one partition, a few rows in the others
        "skewed": lambda d: d.where(subset).repartition(
            5, F.when(F.col("pair") == "ha-en", F.col("seg") % 4).otherwise(F.lit(4))),
        # 12 partitions of which most are empty (two keys)
        "empty": lambda d: d.where(subset).repartition(12, F.col("pair")),
    }[partitioning](wmt21_df)
    if partitioning == "empty":
        sizes = df.rdd.glom().map(len).collect()
        assert sizes.count(0) >= 10
    return df


def partitioned_rows(cols: dict, partitioning: str) -> list[int]:
    """The indices of the rows that :func:`partitioned` keeps."""
    return [i for i, pair in enumerate(cols["pair"])
            if partitioning == "1" or pair in ("de-en", "ha-en")]


def three_references(spark):
    """(DataFrame, hypotheses, reference streams): rows with 1 to 3 references, so that
    TER's average reference lengths include thirds, which no order-free sum keeps exact."""
    hyps = [f"the cat {i} sat on the mat" if i % 3 else f"a dog {i} barked" for i in range(600)]
    r1 = [f"the cat {i} sat on a mat" for i in range(600)]
    r2 = [f"a cat {i % 7} sat there" if i % 2 else None for i in range(600)]
    r3 = [f"the dog {i} barked at the cat" if i % 5 == 0 else None for i in range(600)]
    df = spark.createDataFrame(list(zip(range(600), [i % 4 for i in range(600)], hyps, r1, r2, r3)),
                               "i int, g int, hyp string, r1 string, r2 string, r3 string")
    return df.repartition(3), hyps, [r1, r2, r3]
