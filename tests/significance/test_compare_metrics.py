"""Several metrics over the same systems: ``compare_metrics`` and its reports.

Each metric's ranking must be the one ``compare_all`` gives for that metric alone
(same seed, same draws); external scores rank by their mean or their official system
scores, in the direction given; the agreement figures are assembled from the rankings
(official scores where given) and the sentence scores; bad arguments are one clear
error each. On WMT21 en-de, with external scores made from sentence chrF (so their
ordering is known), the figures are checked against mt-metrics-eval.
"""

from __future__ import annotations

import json
import math
import sys

import pytest

np = pytest.importorskip("numpy")

from _significance_data import REFERENCE, needs_wmt21, system_path  # noqa: E402
from conftest import shared_dir  # noqa: E402
from truebleu import BLEU, CHRF, TER  # noqa: E402
from truebleu.io import read_lines  # noqa: E402
from truebleu.metrics.external import ExternalScores  # noqa: E402
from truebleu.significance import (  # noqa: E402
    MeanScorer,
    compare_all,
    compare_metrics,
    compare_systems,
)
from truebleu.significance import agreement as agree  # noqa: E402
from truebleu.significance.metric_formats import render_metrics  # noqa: E402

REFS = ["the cat sat on the mat", "a dog barks loudly today", "one two three four five",
        "it is raining in the city", "we will meet again tomorrow", "the weather is fine"] * 4
SYSTEMS = {
    "good": ["the cat sat on a mat", "a dog barks today", "one two three four five",
             "it rains in the city", "we meet again tomorrow", "the weather is good"] * 4,
    "fair": ["cat sat on mat", "a dog barked", "one two three", "raining city",
             "we will meet", "weather fine"] * 4,
    "poor": ["mat", "dog", "five four", "city", "tomorrow", "the"] * 4,
}
N = len(REFS)


def external(seed: int, quality: dict[str, float]):
    rng = np.random.default_rng(seed)
    return {name: list(level + rng.normal(0, 0.05, N)) for name, level in quality.items()}


COMET = external(1, {"good": 0.85, "fair": 0.7, "poor": 0.4})
MQM = external(2, {"good": 1.0, "fair": 3.0, "poor": 9.0})  # error points: lower is better


@pytest.fixture(scope="module")
def lexical():
    return [BLEU(references=[REFS]), CHRF(references=[REFS]), TER(references=[REFS])]


@pytest.fixture(scope="module")
def result(lexical):
    return compare_metrics(SYSTEMS, lexical, scores={"COMET": COMET, "MQM": MQM},
                           higher_is_better={"MQM": False}, gold="MQM", n_samples=200, seed=9,
                           n_permutations=300)


def test_each_ranking_is_that_metric_compared_alone(result, lexical):
    assert result.metrics == ("BLEU", "chrF2", "TER", "COMET", "MQM")
    assert result.higher_is_better == (True, True, False, True, False)
    assert result.external == ("COMET", "MQM") and result.official == ()
    for metric, ranking in zip(lexical, result.rankings):
        alone = compare_systems(list(SYSTEMS.items()), metric, n_samples=200, seed=9)
        assert ranking == alone
    for name, scores, higher in (("COMET", COMET, True), ("MQM", MQM, False)):
        rows = {s: np.column_stack([scores[s], np.ones(N)]) for s in SYSTEMS}
        alone = compare_all(rows, MeanScorer(name, higher), n_samples=200, seed=9)
        assert result.ranking(name) == alone
        assert [s.name for s in alone.systems] == ["good", "fair", "poor"]


def test_official_system_scores_rank_while_the_tests_stay_the_segments(lexical):
    official = {"good": 0.1, "fair": 0.9, "poor": 0.5}
    given = compare_metrics(SYSTEMS, scores={"COMET": COMET}, system_scores={"COMET": official},
                            n_samples=200, seed=9)
    plain = compare_metrics(SYSTEMS, scores={"COMET": COMET}, n_samples=200, seed=9)
    assert given.official == ("COMET",)
    ranking = given.ranking("COMET")
    assert [(s.name, s.score) for s in ranking.systems] == [("fair", 0.9), ("poor", 0.5),
                                                            ("good", 0.1)]
    p_values = {frozenset((p.a, p.b)): p.p_value for p in plain.ranking("COMET").pairs}
    assert {frozenset((p.a, p.b)): p.p_value for p in ranking.pairs} == p_values
    assert [(s.mean, s.ci) for s in sorted(ranking.systems, key=lambda s: s.name)] == [
        (s.mean, s.ci) for s in sorted(plain.ranking("COMET").systems, key=lambda s: s.name)]


def test_the_agreement_is_assembled_from_the_rankings(result):
    agreement = result.agreement
    names = list(SYSTEMS)
    oriented = {}
    for name, higher, ranking in zip(result.metrics, result.higher_is_better, result.rankings):
        by_name = {s.name: s.score for s in ranking.systems}
        oriented[name] = np.array([by_name[s] for s in names]) * (1 if higher else -1)
    assert len(agreement.systems) == 10
    for pair in agreement.systems:
        counts = agree.pair_counts(oriented[pair.metric_a], oriented[pair.metric_b])
        assert (pair.accuracy, pair.kendall_tau) == (counts.accuracy, counts.tau_b)
    significant = [p for p in result.ranking("MQM").pairs if p.significant]
    assert agreement.gold == "MQM" and [g.metric for g in agreement.against_gold] == [
        "BLEU", "chrF2", "TER", "COMET"]
    for row in agreement.against_gold:
        assert row.significant_pairs == len(significant) == 3
        assert row.accuracy_significant == 1.0  # every metric orders good > fair > poor
    assert len(agreement.tests) == 2 * 6  # tau and acc23 for each pair of the 4 metrics


def test_an_external_metric_object_is_taken_as_scores(lexical):
    metric = ExternalScores("MQM", MQM, higher_is_better=False)
    by_object = compare_metrics(SYSTEMS, [lexical[0], metric], n_samples=100, seed=2)
    by_scores = compare_metrics(SYSTEMS, [lexical[0]], scores={"MQM": MQM},
                                higher_is_better={"MQM": False}, n_samples=100, seed=2)
    assert by_object == by_scores


@pytest.mark.parametrize("call,message", [
    (dict(scores={"BLEU": COMET}), r"metric name\(s\) given twice: 'BLEU'"),
    (dict(gold="HUMAN"), r"the gold metric 'HUMAN' is not among the metrics compared: 'BLEU'"),
    (dict(gold="BLEU"), r"the gold metric 'BLEU' needs another metric to measure against it"),
    (dict(higher_is_better={"BLEU": False}), "BLEU is a metric truebleu computes"),
    (dict(higher_is_better={"COMET": False}), r"'COMET' names no external scores"),
    (dict(scores={"C": {"good": [0.5] * N, "fair": [0.5] * N}}),
     r"scores\['C'\]: no C scores for system\(s\) 'poor'"),
    (dict(scores={"C": {s: [0.5] * (N - 1) for s in SYSTEMS}}),
     "the metrics score different numbers of segments: BLEU 24, C 23"),
])
def test_bad_arguments(lexical, call, message):
    with pytest.raises(ValueError, match=message):
        compare_metrics(SYSTEMS, lexical[:1], n_samples=20, **call)


def test_names_only_for_external_scores():
    result = compare_metrics(list(SYSTEMS), scores={"COMET": COMET}, n_samples=50)
    assert result.metrics == ("COMET",) and result.agreement is None
    with pytest.raises(ValueError, match="metrics that score text need each system's hypotheses"):
        compare_metrics(list(SYSTEMS), [BLEU(references=[REFS])])


@pytest.mark.parametrize("fmt", ["text", "json", "latex", "tsv"])
def test_every_format_has_every_metric_and_the_agreement(result, fmt):
    text = render_metrics(result, fmt)
    for name in ("BLEU", "chrF2", "TER", "COMET", "MQM"):
        assert name in text
    if fmt == "json":
        record = json.loads(text)
        assert [m["metric"] for m in record["metrics"]] == list(result.metrics)
        assert record["metrics"][4]["higher_is_better"] is False
        assert len(record["agreement"]["against_gold"]) == 4
    if fmt == "tsv":
        tables = text.rstrip("\n").split("\n\n")
        assert len(tables) == 5
        assert len(tables[0].splitlines()) == 1 + 5 * 3  # header + metrics x systems
        assert all(len(line.split("\t")) == len(table.splitlines()[0].split("\t"))
                   for table in tables for line in table.splitlines())
    if fmt == "text":
        assert "Metric agreement over 3 systems (3 pairs" in text
        assert "Against the gold MQM" in text and "Pairwise permutation test" in text


def test_external_scores_get_the_decimals_their_intervals_need():
    result = compare_metrics(SYSTEMS, scores={"COMET": COMET, "X": COMET}, n_samples=200)
    text = render_metrics(result, "text", width=2)
    ci = min(s.ci for s in result.ranking("COMET").systems)
    digits = 1 - math.floor(math.log10(ci))
    assert digits > 2
    top = result.ranking("COMET").systems[0]
    assert f"{top.score:.{digits}f}  {top.mean:.{digits}f} ± {top.ci:.{digits}f}" in text


# -- WMT21 en-de, against mt-metrics-eval --------------------------------------------------

WMT_SYSTEMS = ["Facebook-AI", "UEdin", "Online-W", "VolcTrans-GLAT", "happypoet", "ICL"]


@pytest.fixture(scope="module")
def oracle():
    pytest.importorskip("scipy", reason="mt-metrics-eval's statistics need scipy (test extra)")
    folder = shared_dir() / "oracles" / "mt-metrics-eval"
    if not (folder / "mt_metrics_eval" / "stats.py").is_file():
        pytest.skip(f"mt-metrics-eval's statistics not found at {folder}")
    sys.path.insert(0, str(folder))
    try:
        from mt_metrics_eval import stats
    finally:
        sys.path.remove(str(folder))
    return stats


@needs_wmt21
def test_wmt21_with_scores_made_from_sentence_chrf(oracle):
    refs = [read_lines(REFERENCE)]
    systems = {name: read_lines(system_path(name)) for name in WMT_SYSTEMS}
    chrf = CHRF(references=refs)
    sentence = {name: chrf.batch_scorer().score_rows(chrf.corpus_statistics(hyps).to_numpy())
                for name, hyps in systems.items()}
    rng = np.random.default_rng(21)
    human = {s: np.round(v / 10) for s, v in sentence.items()}  # chrF in 10-point steps: ties
    close = {s: v / 100 + rng.normal(0, 0.02, len(v)) for s, v in sentence.items()}
    noisy = {s: v / 100 + rng.normal(0, 0.3, len(v)) for s, v in sentence.items()}
    metrics = [BLEU(references=refs), chrf, TER(references=refs)]
    result = compare_metrics(systems, metrics,
                             scores={"HUMAN": human, "CLOSE": close, "NOISY": noisy},
                             gold="HUMAN", n_samples=200, seed=5, n_permutations=500)
    agreement = result.agreement
    rows = {row.metric: row for row in agreement.against_gold}
    # the orderings made known: chrF itself agrees best, then CLOSE, then the noisy one
    assert rows["chrF2"].segment_tau > rows["CLOSE"].segment_tau > rows["NOISY"].segment_tau
    assert rows["chrF2"].segment_tau > rows["BLEU"].segment_tau
    tests = {(t.better, t.worse, t.statistic): t for t in agreement.tests}
    assert tests["chrF2", "NOISY", "tau"].significant and tests["CLOSE", "NOISY", "acc23"].significant
    # the same figures from mt-metrics-eval, on the same oriented scores
    names = list(systems)
    gold_flat = np.concatenate([human[s] for s in names]).tolist()
    for name, ranking, higher in zip(result.metrics, result.rankings, result.higher_is_better):
        if name == "HUMAN":
            continue
        by_name = {s.name: s.score for s in ranking.systems}
        gold_sys = [{s.name: s.score for s in result.ranking("HUMAN").systems}[s] for s in names]
        metric_sys = [by_name[s] * (1 if higher else -1) for s in names]
        agree_count, pairs = oracle.Agreement(gold_sys, metric_sys)
        assert rows[name].accuracy == agree_count / pairs
        tau = oracle.Correlation(len(names), gold_sys, metric_sys).Kendall()[0]
        assert rows[name].kendall_tau == pytest.approx(tau, abs=1e-15)
        if name in ("CLOSE", "NOISY"):
            scores = np.concatenate([{"CLOSE": close, "NOISY": noisy}[name][s] for s in names])
        else:
            metric = metrics[result.metrics.index(name)]
            scorer = (metric.batch_scorer(effective_order=True) if name == "BLEU"
                      else metric.batch_scorer())
            scores = np.concatenate([scorer.score_rows(metric.corpus_statistics(systems[s])
                                                       .to_numpy()) for s in names])
            scores = scores if higher else -scores
        seg_tau = oracle.Correlation(len(names), gold_flat, scores.tolist()).Kendall(
            average_by="item")[0]
        assert rows[name].segment_tau == pytest.approx(seg_tau, abs=1e-12), name
        acc23, _, _ = oracle.KendallWithTiesOpt(gold_flat, scores.tolist(), variant="acc23",
                                                num_sys=len(names), average_by="item",
                                                sample_rate=1.0)
        assert rows[name].segment_acc23 == pytest.approx(acc23, abs=1e-12), name
