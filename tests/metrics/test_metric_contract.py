"""The metric contract, checked on every metric in the registry (``truebleu.metrics.METRICS``).

What every layer above the metrics relies on, and nothing else (``docs/architecture.md``):
one additive row per segment, in order; a score from the column sums of any rows; both
kernels identical; a signature that names every setting; objects that pickle. A new
metric registered in ``METRICS`` is checked here without a change to this file, except
for :data:`SETTINGS`, where it names settings that change its numbers.
"""

from __future__ import annotations

import pickle

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import available_backends
from strategies import corpus
from truebleu.core.statistics import RowTable
from truebleu.metrics import METRICS
from truebleu.metrics.base import Metric, Score

quick = settings(max_examples=40, deadline=None,
                 suppress_health_check=[HealthCheck.function_scoped_fixture])

#: For each metric, constructor settings that each change its numbers or its signature
#: (every one must show in the signature).
SETTINGS = {
    "bleu": [{"lowercase": True}, {"tokenize": "intl"}, {"tokenize": "char"},
             {"smooth_method": "floor"}, {"smooth_method": "floor", "smooth_value": 0.25},
             {"smooth_method": "add-k"}, {"smooth_method": "none"}, {"max_ngram_order": 3},
             {"effective_order": True}],
    "chrf": [{"char_order": 4}, {"word_order": 2}, {"beta": 3}, {"lowercase": True},
             {"whitespace": True}, {"eps_smoothing": True}],
    "ter": [{"normalized": True}, {"no_punct": True}, {"asian_support": True},
            {"case_sensitive": True}],
}

NAMES = sorted(METRICS)
words = st.lists(st.text("abcdefgh", min_size=1, max_size=6), min_size=5, max_size=15)


@pytest.fixture(params=NAMES)
def name(request) -> str:
    return request.param


def make(name: str, **options) -> Metric:
    return METRICS[name](**options)


def test_every_metric_is_a_metric_and_its_scores_are_scores(name):
    cls = METRICS[name]
    assert issubclass(cls, Metric) and Metric in cls.__mro__
    assert issubclass(cls.score_type, Score)
    score = make(name).corpus_score(["a b c d e"], [["a b c d f"]])
    assert isinstance(score, cls.score_type) and Score in type(score).__mro__
    assert isinstance(cls.higher_is_better, bool)


@quick
@given(text=words)
def test_identical_text_scores_the_best(name, text):
    line = " ".join(text)
    for backend in available_backends():
        score = make(name, backend=backend).corpus_score([line], [[line]]).score
        assert score == pytest.approx(METRICS[name].best_score, rel=1e-14, abs=1e-12)


@quick
@given(data=corpus(max_refs=3, allow_none=True))
def test_rows_add_and_follow_the_segments(name, data):
    hyps, refs = data
    metric = make(name)
    whole = metric.corpus_statistics(hyps, refs)
    assert isinstance(whole, RowTable) and len(whole) == len(hyps)
    for cut in range(1, len(hyps)):
        head = metric.corpus_statistics(hyps[:cut], [r[:cut] for r in refs])
        tail = metric.corpus_statistics(hyps[cut:], [r[cut:] for r in refs])
        assert list(head.rows()) + list(tail.rows()) == list(whole.rows())
    # no segment dropped or reordered: reversing the corpus reverses the rows
    backwards = metric.corpus_statistics(hyps[::-1], [r[::-1] for r in refs])
    assert list(backwards.rows()) == list(whole.rows())[::-1]
    if metric.integer_rows:
        assert whole.sum() == [sum(column) for column in zip(*whole.rows())]
    # the corpus score is the score of the column sums
    assert metric.corpus_score(hyps, refs).score == metric.score_from_statistics(whole.sum()).score


@pytest.mark.skipif(len(available_backends()) < 2, reason="the compiled core is not built")
@quick
@given(data=corpus(max_refs=3, allow_none=True))
def test_both_kernels_give_the_same_rows(name, data):
    hyps, refs = data
    python = make(name, backend="python").corpus_statistics(hyps, refs)
    native = make(name, backend="native").corpus_statistics(hyps, refs)
    assert python == native


def test_cached_references_give_the_same_rows_and_score(name):
    hyps = ["the cat sat on the mat", "a dog", "", "x y z"]
    refs = [["the cat is on the mat", "a dog barks", "nothing", "x y z"]]
    cold = make(name)
    cached = make(name, references=refs)
    assert cached.corpus_statistics(hyps) == cold.corpus_statistics(hyps, refs)
    assert cached.corpus_score(hyps).score == cold.corpus_score(hyps, refs).score
    assert str(cached.get_signature()) == str(cold.get_signature())


@quick
@given(data=corpus(max_refs=3, allow_none=True), other=st.data())
def test_systems_statistics_are_each_systems_own_in_order(name, data, other):
    """``systems_statistics`` (one call for several systems; BLEU's native kernel makes it
    one core call) gives each system's ``corpus_statistics``, in order."""
    hyps, refs = data
    systems = [hyps, hyps[::-1], other.draw(st.lists(st.sampled_from(["a b", "", "x y z"]),
                                                     min_size=len(hyps), max_size=len(hyps)))]
    for backend in available_backends():
        cold, cached = make(name, backend=backend), make(name, backend=backend, references=refs)
        want = [cold.corpus_statistics(h, refs) for h in systems]
        assert cold.systems_statistics(systems, refs) == want
        assert cached.systems_statistics(systems) == want
        assert cached.systems_statistics(systems[1:2]) == want[1:2]


def test_every_setting_shows_in_the_signature(name):
    """In what is printed: the score's name and its signature (chrF's beta is in its name,
    ``chrF3``, as in sacreBLEU)."""
    assert name in SETTINGS, f"add the settings of metric {name!r} to SETTINGS"
    hyps, refs = ["the cat sat on the mat"], [["the cat is on the mat"]]

    def signature(**options) -> str:
        metric = make(name, **options)
        score = metric.corpus_score(hyps, refs)
        return f"{score.name}|{metric.get_signature()}"

    default = signature()
    seen = {default}
    for options in SETTINGS[name]:
        changed = signature(**options)
        assert changed != default, options
        assert make(name, **options).configuration() != make(name).configuration(), options
        seen.add(changed)
    assert len(seen) == len(SETTINGS[name]) + 1  # no two settings share a signature


def test_metrics_and_their_accumulators_pickle(name):
    hyps, refs = ["the cat sat on the mat", "a dog"], [["the cat is on the mat", "a dog barks"]]
    metric = make(name)
    again = pickle.loads(pickle.dumps(metric))
    assert type(again) is type(metric) and again.configuration() == metric.configuration()
    assert again.corpus_score(hyps, refs).score == metric.corpus_score(hyps, refs).score
    if metric.integer_rows:
        accumulator = metric.accumulator().update(hyps, refs)
        restored = pickle.loads(pickle.dumps(accumulator))
        assert restored.score().score == metric.corpus_score(hyps, refs).score
    else:
        with pytest.raises(TypeError, match="not integer rows"):
            metric.accumulator()


def test_threads_and_backend_follow_one_rule(name):
    for bad in (0, 2000, -1):
        with pytest.raises(ValueError, match="threads must be between 1 and 1024"):
            make(name, threads=bad)
    for bad in ("2", 1.5, True):
        with pytest.raises(TypeError, match="threads must be an int"):
            make(name, threads=bad)
    with pytest.raises(ValueError, match="unknown backend"):
        make(name, backend="gpu")
    assert make(name, backend="python").backend == "python"


def test_significance_takes_the_direction_from_the_class(name):
    from truebleu.significance.scoring import scorer_for

    metric = make(name)
    assert scorer_for(metric).higher_is_better is METRICS[name].higher_is_better
