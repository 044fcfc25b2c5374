"""Every metric in the report's API and in ``serve``: a one-system report of several
metrics, the payload's rows from which the page scores a filter, and ``POST
/api/paired`` by any metric (equal to :mod:`truebleu.significance` on the same rows,
subset and seed; a bad metric name is a 400 naming the field).
"""

from __future__ import annotations

import json
import random

import pytest

np = pytest.importorskip("numpy")

import truebleu  # noqa: E402
from hostile_text import PAYLOADS  # noqa: E402  (the security corpus)
from serving import running_server  # noqa: E402
from truebleu.metrics import CHRF, TER  # noqa: E402
from truebleu.significance import bootstrap_ci, paired_bootstrap  # noqa: E402
from truebleu.significance.external import MeanScorer  # noqa: E402
from truebleu.viewer import report as make_report  # noqa: E402

WORDS = ("the a cat dog sat on mat house river green quickly slowly ran saw big small of to "
         "and was is will be").split()


def corpus(n_segments: int, n_systems: int, seed: int = 11):
    """References and systems that share most words (so every metric has something to count)."""
    rng = random.Random(seed)
    refs = [" ".join(rng.choice(WORDS) for _ in range(rng.randint(3, 14))) for _ in range(n_segments)]

    def noisy(line: str, rate: float) -> str:
        return " ".join(w if rng.random() > rate else rng.choice(WORDS) for w in line.split())

    systems = {f"sys{k}": [noisy(r, 0.15 + 0.15 * k) for r in refs] for k in range(n_systems)}
    return refs, systems


@pytest.fixture(scope="module")
def metric_report():
    refs, systems = corpus(80, 3)
    comet = {name: [truebleu.sentence_chrf(h, [r]).score / 100 + 0.01 * (k % 7)
                    for k, (h, r) in enumerate(zip(lines, refs))] for name, lines in systems.items()}
    rep = make_report([refs], systems, metrics=["chrf", "bleu", "ter"], scores={"COMET": comet},
                      n_samples=150, seed=9)
    return {"refs": refs, "systems": systems, "comet": comet, "report": rep}


@pytest.fixture(scope="module")
def server(metric_report):
    with running_server(metric_report["report"], request_timeout=5.0) as srv:
        yield srv


def post(server, body) -> tuple[int, str]:
    import http.client

    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
    try:
        connection.request("POST", "/api/paired", json.dumps(body).encode(),
                           {"Content-Type": "application/json", "Host": f"127.0.0.1:{server.port}"})
        response = connection.getresponse()
        return response.status, response.read().decode("utf-8")
    finally:
        connection.close()


# -- one system, several metrics -------------------------------------------------------

def test_one_system_report_of_several_metrics():
    """Refused before ("a report of several metrics compares systems"): each metric's
    score and bootstrap interval, as the API gives them for that one system."""
    refs, systems = corpus(40, 1)
    hyps = systems["sys0"]
    comet = [0.5 + 0.01 * (k % 9) for k in range(40)]
    rep = make_report([refs], systems, metrics=["bleu", "chrf", "ter"],
                      scores={"COMET": {"sys0": comet}}, n_samples=120, seed=4)
    entries = {m["name"]: m for m in rep.data.metrics["list"]}
    assert list(entries) == ["BLEU", "chrF2", "TER", "COMET"]
    assert rep.data.metrics["agreement"] is None
    for name, metric in (("chrF2", CHRF(references=[refs])), ("TER", TER(references=[refs]))):
        stats = metric.corpus_statistics(hyps)
        assert entries[name]["score"] == [metric.corpus_score(hyps).score]
        ci = bootstrap_ci(stats, metric.batch_scorer(), 120, seed=4)
        assert entries[name]["ci"] == [ci.ci] and entries[name]["ci_mean"] == [ci.mean]
        assert entries[name]["pairs"] == [] and entries[name]["rank"] == [1]
    assert entries["BLEU"]["score"] == [truebleu.corpus_bleu(hyps, [refs]).score]
    assert entries["COMET"]["score"] == [float(np.mean(comet))]
    assert entries["COMET"]["sentence"] == [comet]
    assert entries["TER"]["sentence"][0] == pytest.approx(
        [truebleu.sentence_ter(h, [r]).score for h, r in zip(hyps, refs)], abs=1e-9)


def test_one_system_with_a_gold_metric_is_refused():
    refs, systems = corpus(20, 1)
    with pytest.raises(ValueError, match="gold metric 'COMET' orders systems"):
        make_report([refs], systems, metrics=["chrf"], scores={"COMET": {"sys0": [0.1] * 20}},
                    gold="COMET", n_samples=50)


# -- what the page scores a filter from --------------------------------------------------

def test_payload_rows_are_the_metrics_rows(metric_report):
    """chrF's and TER's rows per system (the page sums them for a filter), how to score
    them, and the kind of the others (BLEU's rows are the report's own)."""
    refs, systems = metric_report["refs"], metric_report["systems"]
    entries = {m["name"]: m for m in metric_report["report"].data.metrics["list"]}
    chrf, ter = CHRF(references=[refs]), TER(references=[refs])
    for k, hyps in enumerate(systems.values()):
        for name, metric in (("chrF2", chrf), ("TER", ter)):
            rows = metric.corpus_statistics(hyps).to_numpy().ravel().tolist()
            assert entries[name]["scoring"]["stats"][k] == rows
    assert entries["chrF2"]["scoring"]["width"] == 18 and entries["TER"]["scoring"]["width"] == 2
    assert entries["chrF2"]["scoring"]["beta"] == 2 and entries["chrF2"]["scoring"]["eps_smoothing"] is False
    assert entries["BLEU"]["scoring"] == {"kind": "bleu"}
    assert entries["COMET"]["scoring"] == {"kind": "mean"}


# -- the paired test of a filter, by any metric ------------------------------------------

SUBSET = list(range(3, 70, 2))


@pytest.mark.parametrize("name", ["chrF2", "TER", "BLEU", "COMET"])
def test_paired_test_by_metric_is_the_significance_module(server, metric_report, name):
    refs, systems = metric_report["refs"], metric_report["systems"]
    a, b = 0, 2
    names = list(systems)
    if name == "COMET":
        rows = [np.column_stack([metric_report["comet"][n], np.ones(80)]) for n in names]
        scorer = MeanScorer("COMET")
    else:
        metric = {"chrF2": CHRF, "TER": TER, "BLEU": truebleu.BLEU}[name](references=[refs])
        rows = [metric.corpus_statistics(systems[n]).to_numpy() for n in names]
        scorer = metric.batch_scorer()
    want = paired_bootstrap(rows[a][SUBSET], rows[b][SUBSET], scorer, n_samples=90, seed=17)
    status, body = post(server, {"a": a, "b": b, "segments": SUBSET, "n_samples": 90, "seed": 17,
                                 "metric": name})
    assert status == 200, body
    got = json.loads(body)
    assert got["metric"] == name and got["segments"] == len(SUBSET)
    assert got["p"] == want.p_value and got["delta"] == want.delta
    assert got["score_a"] == want.score_a and got["score_b"] == want.score_b
    if name != "COMET":  # the subset's corpus score is the metric's own on those segments
        subset_score = metric.corpus_score([systems[names[b]][i] for i in SUBSET],
                                           [[refs[i] for i in SUBSET]]).score
        assert got["score_b"] == pytest.approx(subset_score, abs=1e-9)


def test_paired_test_without_a_metric_is_bleu(server, metric_report):
    status, body = post(server, {"a": 0, "b": 1, "segments": SUBSET, "n_samples": 60, "seed": 3})
    assert status == 200
    got = json.loads(body)
    assert got["metric"] == "BLEU"
    assert got == dict(metric_report["report"].paired_test(0, 1, SUBSET, n_samples=60, seed=3),
                       metric="BLEU")


@pytest.mark.parametrize("metric", ["chrf", "bleu ", "", 3, ["TER"], {"x": 1}, True, *PAYLOADS])
def test_bad_metric_names_are_a_400_naming_the_field(server, metric):
    """Names differing in case or space, other types, and the security corpus: one 400
    naming the field and the names allowed (plain text; the name quoted as JSON, cut)."""
    status, body = post(server, {"a": 0, "b": 1, "segments": SUBSET, "metric": metric})
    assert status == 400
    assert body.startswith('metric must be one of "chrF2", "BLEU", "TER", "COMET", got ')
    assert len(body) < 200


def test_the_report_api_refuses_an_unknown_metric(metric_report):
    with pytest.raises(ValueError, match="metric must be one of chrF2, BLEU, TER, COMET, got 'METEOR'"):
        metric_report["report"].paired_test(0, 1, SUBSET, metric="METEOR")
