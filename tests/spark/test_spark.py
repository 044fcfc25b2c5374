"""truebleu.spark with BLEU: every number equal to the single-process API, whatever the
partitioning (chrF and TER: test_spark_metrics.py).

Oracles: ``truebleu.corpus_bleu`` / ``truebleu.sentence_bleu`` /
``truebleu.significance`` on the same rows (themselves proven equal to
sacreBLEU 2.6.0 in test_wmt21.py and test_significance_sacrebleu.py), plus
sacreBLEU's own ``sentence_bleu`` on a sample. Data: every into-English WMT21
system output (121,842 rows) and generated corpora (tests/strategies.py).

One local[2] SparkSession for the whole run (spark_data.py).
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from spark_data import (
    PARTITIONINGS,
    fields,
    partitioned,
    partitioned_rows,
    require_spark,
    spark,  # noqa: F401 (a fixture)
    three_references,
    wmt21,  # noqa: F401 (a fixture)
    wmt21_df,  # noqa: F401 (a fixture)
)

import truebleu
from conftest import needs_wmt21
from strategies import corpus

require_spark()
np = pytest.importorskip("numpy")

import truebleu.spark as tspark  # noqa: E402
from truebleu.metrics import CHRF, TER  # noqa: E402
from truebleu.metrics.bleu import BLEUBatchScorer  # noqa: E402
from truebleu.significance import bootstrap_ci, paired_bootstrap, paired_randomization  # noqa: E402

sacrebleu = pytest.importorskip("sacrebleu")


@needs_wmt21
def test_grouped_scores_equal_one_call_per_system(wmt21, wmt21_df):
    _, refs, systems = wmt21
    assert len(systems) == 100
    result = tspark.corpus_bleu(wmt21_df, references=["ref_a", "ref_b"], by=["pair", "system"])
    rows = {(r["pair"], r["system"]): r for r in result.collect()}
    assert set(rows) == set(systems)
    for (pair, system), hyps in systems.items():
        metric = truebleu.BLEU()
        expected = metric.corpus_score(hyps, refs[pair])
        row = rows[pair, system]
        assert row["score"] == expected.score, (pair, system)
        assert row["signature"] == str(metric.get_signature())
        assert [row["matches_1"], row["matches_2"], row["matches_3"], row["matches_4"]] == expected.counts
        assert [row["totals_1"], row["totals_2"], row["totals_3"], row["totals_4"]] == expected.totals
        assert (row["hyp_len"], row["ref_len"]) == (expected.sys_len, expected.ref_len)


@needs_wmt21
@pytest.mark.parametrize("partitioning", PARTITIONINGS)
def test_whole_corpus_score_is_independent_of_the_partitioning(wmt21, wmt21_df, partitioning):
    cols, _, _ = wmt21
    df = partitioned(wmt21_df, partitioning)
    keep = partitioned_rows(cols, partitioning)
    expected = truebleu.corpus_bleu([cols["hyp"][i] for i in keep], [[cols["ref_a"][i] for i in keep]])
    assert fields(tspark.corpus_bleu(df, references="ref_a")) == fields(expected)


@needs_wmt21
def test_sentence_bleu_column_equals_truebleu_and_sacrebleu(wmt21, wmt21_df):
    from pyspark.sql import functions as F

    part = wmt21_df.where((F.col("pair") == "ha-en") | (F.col("system") == "Online-B")).repartition(3)
    rows = (tspark.sentence_bleu(part, references=["ref_a", "ref_b"])
            .orderBy("pair", "system", "seg").collect())
    assert len(rows) > 3000
    refs = [[r["ref_a"]] + ([r["ref_b"]] if r["ref_b"] is not None else []) for r in rows]
    expected = truebleu.sentence_bleu([r["hyp"] for r in rows], refs)
    assert [r["bleu"] for r in rows] == [score.score for score in expected]
    for row, ref in list(zip(rows, refs))[::25]:
        assert row["bleu"] == sacrebleu.sentence_bleu(row["hyp"], ref).score


@needs_wmt21
def test_significance_equals_the_single_process_tests(wmt21, wmt21_df):
    from pyspark.sql import functions as F

    _, refs, systems = wmt21
    a = wmt21_df.where((F.col("pair") == "de-en") & (F.col("system") == "Online-A")).select(
        "seg", F.col("hyp").alias("online_a"), "ref_a")
    b = wmt21_df.where((F.col("pair") == "de-en") & (F.col("system") == "UEdin")).select(
        "seg", F.col("hyp").alias("uedin"))
    df = a.join(b, "seg").repartition(3)  # a shuffle: the order is kept by order_by="seg"
    metric = truebleu.BLEU()
    stats_a = metric.corpus_statistics(systems["de-en", "Online-A"], refs["de-en"][:1])
    stats_b = metric.corpus_statistics(systems["de-en", "UEdin"], refs["de-en"][:1])
    scorer = BLEUBatchScorer.from_metric(metric)

    got = tspark.paired_bootstrap(df, "online_a", "uedin", "ref_a", n_samples=300, seed=7,
                                  order_by="seg")
    want = paired_bootstrap(stats_a, stats_b, scorer, n_samples=300, seed=7,
                            names=("online_a", "uedin"))
    assert got == want
    got = tspark.paired_randomization(df, "online_a", "uedin", "ref_a", n_trials=500, seed=3,
                                      order_by="seg")
    assert got == paired_randomization(stats_a, stats_b, scorer, n_trials=500, seed=3,
                                       names=("online_a", "uedin"))
    got = tspark.bootstrap_ci(df, "uedin", "ref_a", n_samples=200, seed=1, order_by="seg")
    assert got == bootstrap_ci(stats_b, scorer, n_samples=200, seed=1)
    # the statistics column itself, collected in order
    with_stats = tspark.segment_statistics(df, "uedin", "ref_a", column="st")
    assert np.array_equal(tspark.statistics_matrix(with_stats, "st", order_by="seg"),
                          stats_b.to_numpy())


def test_order_of_a_narrow_dataframe_is_kept_without_order_by(spark):
    hyps = [f"the cat {i} sat" if i % 3 else f"a dog {i}" for i in range(500)]
    refs = [f"the cat {i} sat down" for i in range(500)]
    df = spark.createDataFrame(list(zip(hyps, refs)), "hyp string, ref string").coalesce(3)
    matrix = tspark.statistics_matrix(tspark.segment_statistics(df, column="s"), "s")
    assert np.array_equal(matrix, truebleu.BLEU().corpus_statistics(hyps, [refs]).to_numpy())


# -- generated corpora: nulls, empty strings, options, many groups in one job -----------

OPTIONS = st.sampled_from([{}, {"lowercase": True}, {"tokenize": "intl"}, {"tokenize": "char"},
                           {"smooth_method": "floor", "max_ngram_order": 3},
                           {"effective_order": True, "smooth_method": "add-k"}])


@settings(max_examples=3, deadline=None, suppress_health_check=list(HealthCheck))
@given(corpora=st.lists(corpus(max_refs=3, max_segments=8, allow_none=True), min_size=10,
                        max_size=25),
       options=OPTIONS, partitions=st.sampled_from([1, 3, 17]),
       references=st.sampled_from([["r0", "r1", "r2"], "refs"]))
def test_generated_corpora_grouped_and_sentence_scores(spark, corpora, options, partitions,
                                                       references):
    """Many small corpora (one group each) scored in one job, in string or array columns."""
    rows = []
    for cid, (hyps, refs) in enumerate(corpora):
        refs = refs + [[None] * len(hyps)] * (3 - len(refs))  # always three reference columns
        for i, hyp in enumerate(hyps):
            rows.append((cid, i, hyp, refs[0][i], refs[1][i], refs[2][i],
                         [r[i] for r in refs if r[i] is not None]))
    df = spark.createDataFrame(
        rows, "cid int, i int, hyp string, r0 string, r1 string, r2 string, refs array<string>"
    ).repartition(partitions)
    grouped = {r["cid"]: r for r in tspark.corpus_bleu(df, references=references, by="cid",
                                                       **options).collect()}
    for cid, (hyps, refs) in enumerate(corpora):
        metric = truebleu.BLEU(force=True, **options)
        expected = metric.corpus_score(hyps, refs)
        assert grouped[cid]["score"] == expected.score
        assert grouped[cid]["signature"] == str(metric.get_signature())
    sentence = {(r["cid"], r["i"]): r["bleu"]
                for r in tspark.sentence_bleu(df, references=references).collect()}
    for cid, (hyps, refs) in enumerate(corpora):
        per_hyp = [[r[i] for r in refs if r[i] is not None] for i in range(len(hyps))]
        expected = truebleu.sentence_bleu(hyps, per_hyp)
        assert [sentence[cid, i] for i in range(len(hyps))] == [s.score for s in expected]


def test_nulls_and_empty_strings(spark):
    rows = [("", "a b", None), ("a b", "", "a b"), ("", "", None), ("x y z", None, "x y")]
    df = spark.createDataFrame(rows, "hyp string, r1 string, r2 string").repartition(2)
    hyps = [r[0] for r in rows]
    refs = [[r[1] for r in rows], [r[2] for r in rows]]
    assert fields(tspark.corpus_bleu(df, references=["r1", "r2"])) == fields(
        truebleu.corpus_bleu(hyps, refs))
    empty = df.where("hyp = 'never'")
    assert fields(tspark.corpus_bleu(empty, references=["r1", "r2"])) == fields(
        truebleu.corpus_bleu([], [[]]))
    assert tspark.corpus_bleu(empty, references=["r1"], by="hyp").count() == 0


# -- errors ----------------------------------------------------------------------

def test_a_reference_column_of_the_wrong_type_is_named(spark):
    df = spark.createDataFrame([("a", 1, [1], "b")], "hyp string, num int, nums array<int>, ref string")
    with pytest.raises(TypeError, match="reference column 'num' must hold strings .* not int"):
        tspark.corpus_bleu(df, references=["ref", "num"])
    with pytest.raises(TypeError, match="reference column 'nums' .* not array<int>"):
        tspark.sentence_bleu(df, references="nums")
    with pytest.raises(TypeError, match="hypothesis column 'num' must hold strings"):
        tspark.corpus_bleu(df, hypothesis="num", references="ref")
    with pytest.raises(ValueError, match="reference column 'missing' is not in the DataFrame"):
        tspark.segment_statistics(df, references=["missing"])
    with pytest.raises(ValueError, match="by column 'nope'"):
        tspark.corpus_bleu(df, references="ref", by=["nope"])
    with pytest.raises(TypeError, match="unknown sentence BLEU setting"):
        tspark.sentence_bleu(df, references="ref", trg_lang="de")
    with pytest.raises(ValueError, match="smooth_method"):
        tspark.corpus_bleu(df, references="ref", smooth_method="nope")


def test_null_hypotheses_and_rows_without_references_are_errors(spark):
    df = spark.createDataFrame([("a", "a"), (None, "b")], "hyp string, ref string")
    with pytest.raises(Exception, match="hypothesis column 'hyp' is null"):
        tspark.corpus_bleu(df, references="ref")
    df = spark.createDataFrame([("a", "a", None), ("b", None, None)], "hyp string, r1 string, r2 string")
    with pytest.raises(Exception, match="a row has no reference"):
        tspark.sentence_bleu(df, references=["r1", "r2"]).collect()


# -- the accumulator in mapPartitions (the README example) -------------------------

def test_accumulator_in_map_partitions(spark):
    hyps = [f"the cat {i % 7} sat on the mat" for i in range(300)]
    refs = [f"the cat {i % 5} sat on a mat" for i in range(300)]
    df = spark.createDataFrame(list(zip(hyps, refs)), "hyp string, ref string").repartition(5)
    metric = truebleu.BLEU()

    def accumulate(rows):
        acc = metric.accumulator()
        batch = []
        for row in rows:
            batch.append(row)
            if len(batch) == 100:
                acc.update([r.hyp for r in batch], [[r.ref for r in batch]])
                batch = []
        if batch:
            acc.update([r.hyp for r in batch], [[r.ref for r in batch]])
        yield acc

    total = df.rdd.mapPartitions(accumulate).reduce(lambda a, b: a.merge(b))
    assert fields(total.score()) == fields(truebleu.corpus_bleu(hyps, [refs]))


# -- bounded executor memory ----------------------------------------------------------

EXECUTOR_STREAM = textwrap.dedent("""
    import resource, sys
    import pyarrow as pa
    from truebleu import BLEU
    from truebleu.spark.columns import TextColumns
    from truebleu.spark.executor import partial_sums, worker_metric
    n_batches, by = int(sys.argv[1]), sys.argv[2:]
    def batches():
        for b in range(n_batches):
            rows = range(b * 2000, (b + 1) * 2000)
            yield pa.record_batch({"g": pa.array([i % 3 for i in rows]),
                                   "hyp": pa.array([f"the cat sat on mat {i}" for i in rows]),
                                   "ref": pa.array([f"the cat sat on the mat {i}" for i in rows])})
    out = list(partial_sums(worker_metric(BLEU()), TextColumns("hyp", ("ref",), False), by, batches()))
    print(sum(b.num_rows for b in out), resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
""")


@pytest.mark.parametrize("by", [[], ["g"]])
def test_executor_memory_is_bounded_by_a_batch(by):
    """The mapInArrow body over 10 and 150 batches of 2,000 rows: same peak RSS."""
    peaks = []
    for n in (10, 150):
        out = subprocess.run([sys.executable, "-c", EXECUTOR_STREAM, str(n), *by], check=True,
                             capture_output=True, text=True).stdout.split()
        assert int(out[0]) == (n * 3 if by else 1)
        peaks.append(int(out[1]))
    # 300k rows of text are ~60 MiB as Python strings; the peaks differ by far less
    assert peaks[1] - peaks[0] < 6 * 1024, f"peak RSS {peaks} KiB"


def test_corpus_score_of_a_bleu_object_equals_corpus_bleu(spark):
    df, hyps, refs = three_references(spark)
    references = ["r1", "r2", "r3"]
    metric = truebleu.BLEU(tokenize="intl", lowercase=True)
    whole = tspark.corpus_score(df, metric, references=references)
    assert fields(whole) == fields(tspark.corpus_bleu(df, references=references, tokenize="intl",
                                                      lowercase=True))
    assert fields(whole) == fields(truebleu.corpus_bleu(hyps, refs, tokenize="intl",
                                                        lowercase=True))
    grouped = tspark.corpus_score(df, metric, references=references, by="g").collect()
    named = {r["g"]: r for r in tspark.corpus_bleu(df, references=references, by="g",
                                                   tokenize="intl", lowercase=True).collect()}
    for row in grouped:
        other = named[row["g"]]
        assert (row["score"], row["signature"]) == (other["score"], other["signature"])
        assert row["statistics"] == [other[name] for name in
                                     ["hyp_len", "ref_len", "matches_1", "matches_2", "matches_3",
                                      "matches_4", "totals_1", "totals_2", "totals_3", "totals_4"]]


def test_empty_dataframes_and_bad_metrics(spark):
    df = spark.createDataFrame([("a b", "a b c")], "hyp string, ref string")
    empty = df.where("hyp = 'never'")
    with pytest.raises(ValueError, match="no segments to score"):
        CHRF().corpus_score([], [[]])
    with pytest.raises(ValueError, match="no segments to score"):
        tspark.corpus_score(empty, CHRF())
    with pytest.raises(ValueError, match="no segments to score"):
        tspark.corpus_score_in_order(empty, TER())
    assert tspark.corpus_score(empty, CHRF(), by="hyp").count() == 0
    with pytest.raises(TypeError, match="metric must be a truebleu metric"):
        tspark.corpus_score(df, "chrf")
    with pytest.raises(TypeError, match="either metric=... or BLEU's options"):
        tspark.segment_statistics(df, metric=CHRF(), lowercase=True)
    with pytest.raises(ValueError, match="by column 'statistics' has the name of an output"):
        tspark.corpus_score(df.withColumnRenamed("ref", "statistics"), CHRF(),
                            references="statistics", by="statistics")


def test_bleu_options_are_built_on_the_executors_so_mecab_works(spark):
    """corpus_bleu ships BLEU's options, not the object: MeCab's tagger does not pickle."""
    pytest.importorskip("MeCab", reason="ja-mecab needs MeCab (pip install 'truebleu[ja]')")
    hyps = ["今日は良い天気です。", "猫がマットの上に座った。", "雨が降っています"] * 40
    refs = ["今日はいい天気だ。", "猫がマットに座っている。", "雨が降る"] * 40
    df = spark.createDataFrame(list(zip(hyps, refs)), "hyp string, ref string").repartition(3)
    expected = truebleu.corpus_bleu(hyps, [refs], tokenize="ja-mecab")
    assert fields(tspark.corpus_bleu(df, tokenize="ja-mecab")) == fields(expected)


def test_a_metric_that_does_not_pickle_is_refused_on_the_driver(spark):
    df = spark.createDataFrame([("a b", "a b c")], "hyp string, ref string")
    metric = CHRF()
    metric.hook = lambda: None  # a lambda does not pickle
    with pytest.raises(TypeError, match="CHRF cannot be sent to the Spark executors: it does "
                                        "not pickle"):
        tspark.corpus_score(df, metric)
