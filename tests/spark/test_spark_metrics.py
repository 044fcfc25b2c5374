"""truebleu.spark with any metric: chrF and chrF++ (integer rows) and TER (float rows), every
number equal to the single-process API, whatever the partitioning (BLEU: test_spark.py).

Oracles: the metrics' own ``corpus_score``/``sentence_score`` and ``truebleu.significance`` on
the same rows (themselves proven equal to sacreBLEU 2.6.0 elsewhere). Data: every into-English
WMT21 system output and generated corpora (tests/strategies.py).

One local[2] SparkSession for the whole run (spark_data.py).
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from spark_data import (
    PARTITIONINGS,
    partitioned,
    partitioned_rows,
    require_spark,
    spark,  # noqa: F401 (a fixture)
    three_references,
    wmt21,  # noqa: F401 (a fixture)
    wmt21_df,  # noqa: F401 (a fixture)
)

from conftest import needs_wmt21
from strategies import corpus

require_spark()
np = pytest.importorskip("numpy")

import truebleu.spark as tspark  # noqa: E402
from truebleu.metrics import CHRF, TER  # noqa: E402
from truebleu.significance import bootstrap_ci, paired_bootstrap, paired_randomization  # noqa: E402

CHRF_CONFIGS = {"chrF": {}, "chrF++": {"word_order": 2}}


def chrf_fields(score) -> tuple:
    return (score.name, score.score, score.char_order, score.word_order, score.beta)


def ter_fields(score) -> tuple:
    return (score.score, score.num_edits, score.ref_length)


@needs_wmt21
@pytest.mark.parametrize("name", CHRF_CONFIGS)
def test_chrf_grouped_scores_equal_one_call_per_system(wmt21, wmt21_df, name):
    _, refs, systems = wmt21
    metric = CHRF(**CHRF_CONFIGS[name])
    result = tspark.corpus_score(wmt21_df, metric, references=["ref_a", "ref_b"],
                                 by=["pair", "system"])
    rows = {(r["pair"], r["system"]): r for r in result.collect()}
    assert set(rows) == set(systems)
    for (pair, system), hyps in systems.items():
        oracle = CHRF(**CHRF_CONFIGS[name])
        expected = oracle.corpus_score(hyps, refs[pair])
        row = rows[pair, system]
        assert row["score"] == expected.score, (pair, system)
        assert row["signature"] == str(oracle.get_signature())
        if pair == "de-en":  # the summed rows themselves, on a few systems
            assert row["statistics"] == oracle.corpus_statistics(hyps, refs[pair]).sum()


@needs_wmt21
@pytest.mark.parametrize("partitioning", PARTITIONINGS)
def test_chrf_whole_corpus_score_is_independent_of_the_partitioning(wmt21, wmt21_df,
                                                                      partitioning):
    cols, _, _ = wmt21
    df = partitioned(wmt21_df, partitioning)
    keep = partitioned_rows(cols, partitioning)
    hyps = [cols["hyp"][i] for i in keep]
    refs = [[cols["ref_a"][i] for i in keep], [cols["ref_b"][i] for i in keep]]
    for config in CHRF_CONFIGS.values():
        metric, oracle = CHRF(**config), CHRF(**config)
        expected = oracle.corpus_score(hyps, refs)
        assert chrf_fields(tspark.corpus_score(df, metric, references=["ref_a", "ref_b"])) == \
            chrf_fields(expected)
        assert str(metric.get_signature()) == str(oracle.get_signature())  # nrefs:var, as seen


@needs_wmt21
def test_ter_scores_are_exact_with_one_or_two_references(wmt21, wmt21_df):
    """TER's float rows: [edits, average reference length]; over one or two references
    they are multiples of 1/2, which Spark adds exactly in any order."""
    from pyspark.sql import functions as F

    _, refs, systems = wmt21
    chosen = [("de-en", "Online-A"), ("de-en", "UEdin"), ("ha-en", "Online-B")]
    subset = F.lit(False)
    for pair, system in chosen:
        subset = subset | ((F.col("pair") == pair) & (F.col("system") == system))
    df = wmt21_df.where(subset).repartition(3)
    grouped = tspark.corpus_score(df, TER(), references=["ref_a", "ref_b"], by="system")
    rows = {r["system"]: r for r in grouped.collect()}
    for pair, system in chosen:
        oracle = TER()
        expected = oracle.corpus_score(systems[pair, system], refs[pair])
        assert rows[system]["score"] == expected.score, system
        assert rows[system]["statistics"] == [expected.num_edits, expected.ref_length]
        assert rows[system]["signature"] == str(oracle.get_signature())
    hyps, ref_a, ref_b = [], [], []
    for pair, system in chosen:
        hyps += systems[pair, system]
        ref_a += refs[pair][0]
        ref_b += refs[pair][1] if len(refs[pair]) > 1 else [None] * len(refs[pair][0])
    for layout in (df, df.coalesce(1), df.repartition(7)):
        got = tspark.corpus_score(layout, TER(), references=["ref_a", "ref_b"])
        assert ter_fields(got) == ter_fields(TER().corpus_score(hyps, [ref_a, ref_b]))


def test_ter_that_spark_cannot_add_exactly_is_refused_and_summed_in_order(spark):
    df, hyps, refs = three_references(spark)
    with pytest.raises(ValueError, match="TER's statistics of this DataFrame cannot be summed "
                                         "exactly by Spark: they are floats"):
        tspark.corpus_score(df, TER(), references=["r1", "r2", "r3"])
    with pytest.raises(ValueError, match="of the groups .* cannot be summed exactly"):
        tspark.corpus_score(df, TER(), references=["r1", "r2", "r3"], by="g")

    metric, oracle = TER(), TER()
    got = tspark.corpus_score_in_order(df, metric, references=["r1", "r2", "r3"], order_by="i")
    expected = oracle.corpus_score(hyps, refs)
    assert ter_fields(got) == ter_fields(expected)
    assert str(metric.get_signature()) == str(oracle.get_signature())
    # the order matters: the same rows in another order sum to another float here
    order = sorted(range(len(hyps)), key=lambda i: (i % 5, i))  # 3 references first
    reordered = TER().corpus_score([hyps[i] for i in order], [[r[i] for i in order] for r in refs])
    assert reordered.ref_length != expected.ref_length

    grouped = {r["g"]: r for r in tspark.corpus_score_in_order(
        df, TER(), references=["r1", "r2", "r3"], by="g", order_by="i").collect()}
    for g in range(4):
        rows = range(g, 600, 4)
        oracle = TER()
        expected = oracle.corpus_score([hyps[i] for i in rows],
                                       [[r[i] for i in rows] for r in refs])
        assert grouped[g]["score"] == expected.score
        assert grouped[g]["statistics"] == [expected.num_edits, expected.ref_length]
        assert grouped[g]["signature"] == str(oracle.get_signature())


@needs_wmt21
def test_significance_of_chrf_and_ter_equals_the_single_process_tests(wmt21, wmt21_df):
    from pyspark.sql import functions as F

    _, refs, systems = wmt21
    a = wmt21_df.where((F.col("pair") == "de-en") & (F.col("system") == "Online-A")).select(
        "seg", F.col("hyp").alias("online_a"), "ref_a", "ref_b")
    b = wmt21_df.where((F.col("pair") == "de-en") & (F.col("system") == "UEdin")).select(
        "seg", F.col("hyp").alias("uedin"))
    df = a.join(b, "seg").repartition(3).cache()  # a shuffle: the order is kept by order_by
    for metric, references in ((CHRF(word_order=2), ["ref_a", "ref_b"]), (TER(), ["ref_a"])):
        streams = refs["de-en"][:len(references)]
        stats_a = metric.corpus_statistics(systems["de-en", "Online-A"], streams)
        stats_b = metric.corpus_statistics(systems["de-en", "UEdin"], streams)
        scorer = metric.batch_scorer()
        got = tspark.paired_bootstrap(df, "online_a", "uedin", references, n_samples=200, seed=7,
                                      order_by="seg", metric=metric)
        assert got == paired_bootstrap(stats_a, stats_b, scorer, n_samples=200, seed=7,
                                       names=("online_a", "uedin"))
        got = tspark.paired_randomization(df, "online_a", "uedin", references, n_trials=300,
                                          seed=3, order_by="seg", metric=metric)
        assert got == paired_randomization(stats_a, stats_b, scorer, n_trials=300, seed=3,
                                           names=("online_a", "uedin"))
        got = tspark.bootstrap_ci(df, "uedin", references, n_samples=200, seed=1, order_by="seg",
                                  metric=metric)
        assert got == bootstrap_ci(stats_b, scorer, n_samples=200, seed=1)
        with_stats = tspark.segment_statistics(df, "uedin", references, column="st", metric=metric)
        matrix = tspark.statistics_matrix(with_stats, "st", order_by="seg")
        assert matrix.dtype == (np.int64 if metric.integer_rows else np.float64)
        assert np.array_equal(matrix, stats_b.to_numpy())
    df.unpersist()


CHRF_OPTIONS = st.sampled_from([{}, {"word_order": 2}, {"lowercase": True, "whitespace": True},
                                {"char_order": 3, "word_order": 1, "beta": 1},
                                {"eps_smoothing": True, "word_order": 2}])


@settings(max_examples=3, deadline=None, suppress_health_check=list(HealthCheck))
@given(corpora=st.lists(corpus(max_refs=3, max_segments=8, allow_none=True), min_size=10,
                        max_size=25),
       options=CHRF_OPTIONS, partitions=st.sampled_from([1, 3, 17]),
       references=st.sampled_from([["r0", "r1", "r2"], "refs"]))
def test_generated_corpora_chrf_grouped_and_sentence_scores(spark, corpora, options, partitions,
                                                            references):
    """Many small corpora (one group each), chrF under several options, in one job."""
    rows = []
    for cid, (hyps, refs) in enumerate(corpora):
        refs = refs + [[None] * len(hyps)] * (3 - len(refs))
        for i, hyp in enumerate(hyps):
            rows.append((cid, i, hyp, refs[0][i], refs[1][i], refs[2][i],
                         [r[i] for r in refs if r[i] is not None]))
    df = spark.createDataFrame(
        rows, "cid int, i int, hyp string, r0 string, r1 string, r2 string, refs array<string>"
    ).repartition(partitions)
    grouped = {r["cid"]: r for r in tspark.corpus_score(df, CHRF(**options), references=references,
                                                        by="cid").collect()}
    for cid, (hyps, refs) in enumerate(corpora):
        oracle = CHRF(**options)
        expected = oracle.corpus_score(hyps, refs)
        assert grouped[cid]["score"] == expected.score
        assert grouped[cid]["signature"] == str(oracle.get_signature())
    sentence = {(r["cid"], r["i"]): r["chrf"] for r in
                tspark.sentence_score(df, CHRF(**options), references=references).collect()}
    oracle = CHRF(**options)
    for cid, (hyps, refs) in enumerate(corpora):
        for i, hyp in enumerate(hyps):
            expected = oracle.sentence_score(hyp, [r[i] for r in refs if r[i] is not None])
            assert sentence[cid, i] == expected.score


def test_ter_statistics_and_sentence_columns_equal_truebleu(spark):
    df, hyps, refs = three_references(spark)
    df = df.coalesce(2)  # no shuffle after repartition: collected with order_by anyway
    metric = TER()
    with_stats = tspark.segment_statistics(df, references=["r1", "r2", "r3"], metric=metric)
    assert dict(with_stats.dtypes)["ter_statistics"] == "array<double>"
    matrix = tspark.statistics_matrix(with_stats, "ter_statistics", order_by="i")
    assert np.array_equal(matrix, metric.corpus_statistics(hyps, refs).to_numpy())
    scores = [r["ter"] for r in tspark.sentence_score(df, metric, references=["r1", "r2", "r3"])
              .orderBy("i").collect()]
    per_row = [[r[i] for r in refs if r[i] is not None] for i in range(len(hyps))]
    assert scores == [metric.sentence_score(h, rs).score for h, rs in zip(hyps, per_row)]


