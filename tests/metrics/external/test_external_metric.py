"""The external-scores metric: scores computed elsewhere, as a metric of the family.

Its rows are ``[score, 1]``, its corpus score their mean (NumPy's ``x.mean()``) or the
official system score given, its direction the user's; the significance layer takes
its rows and its batch scorer as any metric's, so a bootstrap interval through the
metric is what plain NumPy computes for the same rows and seed.
"""

from __future__ import annotations

import math
import pickle

import pytest

np = pytest.importorskip("numpy")

from truebleu.core.statistics import RowTable  # noqa: E402
from truebleu.metrics.base import Metric  # noqa: E402
from truebleu.metrics.external import ExternalScore, ExternalScores  # noqa: E402
from truebleu.significance import bootstrap_ci, compare_all  # noqa: E402

RNG = np.random.default_rng(4)
SCORES = {name: RNG.normal(0.8, 0.1, 300) for name in ("A", "B", "C")}


@pytest.fixture
def comet():
    return ExternalScores("COMET", SCORES)


def test_a_metric_of_the_family(comet):
    assert isinstance(comet, Metric) and comet.higher_is_better is True
    assert comet.score_name() == "COMET" and comet.row_width() == 2
    assert comet.integer_rows is False and comet.backend == "python"
    assert comet.systems == ("A", "B", "C")
    mqm = ExternalScores("MQM", SCORES, higher_is_better=False)
    assert mqm.higher_is_better is False and ExternalScores.higher_is_better is True
    assert mqm.batch_scorer().higher_is_better is False
    assert str(mqm.get_signature()).startswith("higher:no|sys:mean|version:truebleu-")


def test_rows_sum_to_the_mean_of_any_segments(comet):
    rows = comet.system_statistics("B")
    assert [tuple(row) for row in rows.rows()] == [(float(x), 1.0) for x in SCORES["B"]]
    subset = RowTable(2, typecode="d")
    for k in range(10, 60):
        subset.append(rows.row(k))
    score = comet.score_from_statistics(subset.sum())
    assert isinstance(score, ExternalScore) and score.name == "COMET"
    assert score.score == pytest.approx(SCORES["B"][10:60].mean(), rel=1e-15)
    assert math.isnan(comet.score_from_statistics([0.0, 0.0]).score)


def test_the_corpus_score_is_numpys_mean_or_the_official_score(comet):
    for name, x in SCORES.items():
        assert comet.system_score(name).score == x.mean()
    official = ExternalScores("MQM", SCORES, {"A": -1.0, "B": -2.5, "C": 0.0})
    assert official.system_score("B").score == -2.5
    assert str(official.get_signature()).startswith("higher:yes|sys:given|")
    with pytest.raises(KeyError, match="no MQM scores for system 'Z'"):
        official.system_score("Z")


def test_bootstrap_interval_through_the_metric_is_numpys(comet):
    x = SCORES["C"]
    ci = bootstrap_ci(comet.system_statistics("C"), comet.batch_scorer(), n_samples=1000,
                      seed=99)
    idx = np.random.default_rng(99).choice(len(x), size=(1000, len(x)))
    means = np.sort(x[idx].mean(axis=1))
    assert (ci.score, ci.mean, ci.ci) == (x.mean(), means.mean(), 0.5 * (means[974] - means[25]))


def test_compare_all_takes_the_metric_as_any_other(comet):
    result = compare_all({s: comet.system_statistics(s) for s in comet.systems},
                         comet.batch_scorer(), n_samples=200, seed=1)
    assert result.metric == "COMET"
    assert {s.name: s.score for s in result.systems} == {
        s: comet.system_score(s).score for s in comet.systems}


def test_it_scores_no_text(comet):
    for call in (lambda: comet.corpus_score(["a"], [["a"]]),
                 lambda: comet.corpus_statistics(["a"], [["a"]]),
                 lambda: comet.sentence_score("a", ["a"])):
        with pytest.raises(TypeError, match="COMET scores are read from elsewhere"):
            call()


def test_bad_scores_and_settings_are_refused():
    with pytest.raises(ValueError, match=r"scores\['X'\]\['A'\], segment 2: nan is not a finite"):
        ExternalScores("X", {"A": [0.1, float("nan")]})
    with pytest.raises(TypeError, match="higher_is_better must be True or False"):
        ExternalScores("X", {"A": [0.1]}, higher_is_better="no")


def test_it_pickles(comet):
    copy = pickle.loads(pickle.dumps(comet))
    assert copy.system_score("A").score == comet.system_score("A").score
    assert copy.configuration() == comet.configuration() == ("COMET", True)
