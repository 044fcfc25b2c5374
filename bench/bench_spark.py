"""Spark local[2] against the single-process native path, and against a row-by-row sacreBLEU UDF.

The corpus: every into-English WMT21 system output with its reference A
(121,842 pairs), repeated to ``--lines`` rows and written once as Parquet under
``--workdir`` (never committed). All engines read the same Parquet file:

- ``single-process``: ``pyarrow`` reads record batches of ``--batch`` rows and
  hands each to ``BLEU.corpus_statistics`` / ``CHRF.corpus_statistics`` (corpus) or
  ``truebleu.metrics.bleu.batch.sentence_scores`` (sentence), with 1 native thread and with 2;
- ``spark local[2]``: ``truebleu.spark.corpus_bleu``, ``truebleu.spark.corpus_score``
  with ``CHRF()`` and ``truebleu.spark.sentence_bleu`` (the column written to Spark's
  ``noop`` sink, so every row is computed); the JVM and the Python workers are
  started (and warmed up) before timing;
- ``spark UDF sacrebleu``: a plain ``pyspark.sql.functions.udf`` calling
  ``sacrebleu.sentence_bleu`` row by row, on the first ``--udf-lines`` rows only
  (it is ~100x slower), reported per row.

Throughput is rows per second; "per core" divides by the cores the engine
uses. The corpus scores of the engines are checked bit-identical.

    python bench/bench_spark.py --lines 10000000        # needs ../shared/data/wmt21
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
METRICS = ("BLEU", "chrF")  # corpus scores; sentence scores are BLEU's
NAME = re.compile(r"^newstest2021\.(?P<pair>[a-z]+-en)\.hyp\.(?P<system>.+)\.en$")


def shared_dir() -> Path:
    return Path(os.environ.get("TRUEBLEU_SHARED", HERE.parent.parent / "shared"))


def read(path: Path) -> list[str]:
    with open(path, encoding="utf-8", newline="\n") as handle:
        return [line.rstrip() for line in handle]


def wmt21_pairs() -> tuple[list[str], list[str]]:
    root = shared_dir() / "data" / "wmt21"
    hyps, refs = [], []
    for path in sorted((root / "system-outputs").iterdir()):
        match = NAME.match(path.name)
        if match:
            hyps += read(path)
            refs += read(root / "references" / f"newstest2021.{match['pair']}.ref.A.en")
    return hyps, refs


def write_corpus(path: Path, lines: int) -> None:
    """WMT21 (hypothesis, reference) pairs repeated to ``lines`` rows, as Parquet."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    if path.exists() and pq.ParquetFile(path).metadata.num_rows == lines:
        return
    hyps, refs = wmt21_pairs()
    block = pa.table({"hyp": hyps, "ref": refs})
    tmp = path.with_suffix(".tmp")
    with pq.ParquetWriter(tmp, block.schema) as writer:
        written = 0
        while written < lines:
            part = block.slice(0, min(len(block), lines - written))
            writer.write_table(part, row_group_size=len(block))
            written += len(part)
    tmp.rename(path)


# -- single process -------------------------------------------------------------------

def make_metric(name: str, threads: int):
    from truebleu.metrics import BLEU, CHRF

    return BLEU(force=True, threads=threads) if name == "BLEU" else CHRF(threads=threads)


def single_corpus(path: Path, batch: int, threads: int, name: str = "BLEU"):
    import pyarrow.parquet as pq

    metric = make_metric(name, threads)
    totals = None
    rows = 0
    for record_batch in pq.ParquetFile(path).iter_batches(batch_size=batch, columns=["hyp", "ref"]):
        hyps = record_batch.column(0).to_pylist()
        refs = record_batch.column(1).to_pylist()
        sums = metric.corpus_statistics(hyps, [refs], check_inputs=False).sum()
        totals = sums if totals is None else [a + b for a, b in zip(totals, sums)]
        rows += len(hyps)
    return rows, metric.score_from_statistics(totals)


def single_sentence(path: Path, batch: int, threads: int):
    import pyarrow.parquet as pq

    from truebleu.metrics.bleu.batch import sentence_scores

    rows = 0
    total = 0.0
    for record_batch in pq.ParquetFile(path).iter_batches(batch_size=batch, columns=["hyp", "ref"]):
        hyps = record_batch.column(0).to_pylist()
        refs = [[r] for r in record_batch.column(1).to_pylist()]
        total += sum(sentence_scores(hyps, refs, threads=threads))
        rows += len(hyps)
    return rows, total


# -- spark ----------------------------------------------------------------------------

def spark_session():
    from pyspark.sql import SparkSession

    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    session = (SparkSession.builder.master("local[2]").appName("truebleu-bench")
               .config("spark.ui.enabled", "false")
               .config("spark.sql.shuffle.partitions", "2")
               .config("spark.driver.memory", "4g")
               .getOrCreate())
    session.sparkContext.setLogLevel("ERROR")
    return session


def spark_corpus(spark, path: Path, name: str = "BLEU"):
    import truebleu.spark as tspark

    df = spark.read.parquet(str(path))
    if name == "BLEU":
        return tspark.corpus_bleu(df, "hyp", "ref")
    return tspark.corpus_score(df, make_metric(name, 1), "hyp", "ref")


def spark_sentence(spark, path: Path):
    import truebleu.spark as tspark

    df = spark.read.parquet(str(path))
    tspark.sentence_bleu(df, "hyp", "ref").select("bleu").write.format("noop").mode("overwrite").save()


def spark_sacrebleu_udf(spark, path: Path, lines: int):
    from pyspark.sql import functions as F

    def one_row(hyp: str, ref: str) -> float:
        import sacrebleu

        return sacrebleu.sentence_bleu(hyp, [ref]).score

    udf = F.udf(one_row, "double")
    df = spark.read.parquet(str(path)).limit(lines).repartition(2).cache()
    df.count()  # read and split before timing
    start = time.perf_counter()
    df.select(udf("hyp", "ref").alias("bleu")).write.format("noop").mode("overwrite").save()
    return time.perf_counter() - start


def timed(function, *args):
    start = time.perf_counter()
    result = function(*args)
    return time.perf_counter() - start, result


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lines", type=int, default=10_000_000)
    parser.add_argument("--udf-lines", type=int, default=20_000)
    parser.add_argument("--batch", type=int, default=100_000, help="single-process batch rows")
    parser.add_argument("--workdir", type=Path, default=Path("/tmp/truebleu-bench-spark"))
    args = parser.parse_args(argv)

    args.workdir.mkdir(parents=True, exist_ok=True)
    path = args.workdir / f"wmt21-into-en-x{args.lines}.parquet"
    seconds, _ = timed(write_corpus, path, args.lines)
    print(f"corpus: {path} ({args.lines} rows, {path.stat().st_size / 2**20:.0f} MiB; "
          f"prepared in {seconds:.1f} s)", flush=True)
    try:
        print(f"load average before: {os.getloadavg()}", flush=True)
    except OSError:
        pass

    results = []  # (task, engine, cores, rows, seconds)
    scores = {}
    for threads in (1, 2):
        for name in METRICS:
            seconds, (rows, score) = timed(single_corpus, path, args.batch, threads, name)
            results.append((f"corpus {name}", f"single process, {threads} thread(s)", threads,
                            rows, seconds))
            scores[name, f"single-{threads}"] = score
            print(results[-1], score, flush=True)
        seconds, (rows, _) = timed(single_sentence, path, args.batch, threads)
        results.append(("sentence BLEU", f"single process, {threads} thread(s)", threads, rows, seconds))
        print(results[-1], flush=True)

    start = time.perf_counter()
    spark = spark_session()
    warm = spark.createDataFrame([("a b", "a b c")] * 100, "hyp string, ref string").repartition(2)
    import truebleu.spark as tspark

    tspark.corpus_bleu(warm)  # start the Python workers
    print(f"spark session up and warm in {time.perf_counter() - start:.1f} s", flush=True)
    for name in METRICS:
        seconds, score = timed(spark_corpus, spark, path, name)
        scores[name, "spark"] = score
        results.append((f"corpus {name}", "spark local[2] truebleu.spark", 2, args.lines, seconds))
        print(results[-1], score, flush=True)
    seconds, _ = timed(spark_sentence, spark, path)
    results.append(("sentence BLEU", "spark local[2] truebleu.spark", 2, args.lines, seconds))
    print(results[-1], flush=True)
    seconds = spark_sacrebleu_udf(spark, path, args.udf_lines)
    results.append(("sentence BLEU", "spark local[2] UDF sacrebleu.sentence_bleu (slice)", 2,
                    args.udf_lines, seconds))
    print(results[-1], flush=True)
    spark.stop()

    for (name, engine), score in scores.items():
        same = score.score == scores[name, "single-1"].score  # the sums too, for BLEU:
        if name == "BLEU":
            reference = scores[name, "single-1"]
            same = same and (score.counts, score.totals) == (reference.counts, reference.totals)
        print(f"{name} {engine}: {score}  {'identical' if same else 'DIFFERENT'}")
    try:
        print(f"load average after: {os.getloadavg()}")
    except OSError:
        pass

    print()
    print("| task | engine | rows | seconds | rows/s | rows/s per core | vs single process, 1 thread |")
    print("|---|---|---:|---:|---:|---:|---:|")
    per_core_base = {task: rows / secs for task, engine, cores, rows, secs in results
                     if engine.startswith("single process, 1")}
    for task, engine, cores, rows, secs in results:
        rate = rows / secs
        print(f"| {task} | {engine} | {rows:,} | {secs:.1f} | {rate:,.0f} | {rate / cores:,.0f} | "
              f"{rate / cores / per_core_base[task]:.2f}x per core |")
    udf_rate = args.udf_lines / results[-1][4]
    spark_sentence_rate = args.lines / next(
        s for t, e, c, r, s in results
        if t == "sentence BLEU" and e.startswith("spark local[2] truebleu"))
    print(f"\ntruebleu.spark sentence BLEU vs the row-by-row sacreBLEU UDF: "
          f"{spark_sentence_rate / udf_rate:.0f}x rows/s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
