"""The all-pairs comparison's bootstrap in the compiled core, against its NumPy path.

``compare_all`` (and ``paired_bootstrap``, ``bootstrap_ci``) draw their bootstrap
samples through :func:`truebleu.significance.paired.drawn_bootstrap_scores`, which
sums integer rows in the core (``significance/native.py``) and falls back to NumPy
for float rows and sums the core refuses. Everything the comparison reports
(p-values, intervals, clusters, each pair's ``delta_interval``) must be the NumPy
path's bits, and the core path must really be the one taken where it applies.
"""

from __future__ import annotations

import pytest

np = pytest.importorskip("numpy")

from _significance_data import REFERENCE, all_system_paths, bleu_stats, needs_wmt21  # noqa: E402
from truebleu import BLEU, CHRF, TER  # noqa: E402
from truebleu.core.kernels import backend_name  # noqa: E402
from truebleu.io import read_lines  # noqa: E402
from truebleu.significance import MeanScorer, compare_all, paired  # noqa: E402
from truebleu.significance.resampling import bootstrap_draws  # noqa: E402
from truebleu.significance.scoring import scorer_for  # noqa: E402

pytestmark = pytest.mark.skipif(backend_name() != "native",
                                reason="the compiled core is not built (the Python backend)")

WORDS = "the a cat dog sat ran on in mat house big small red blue".split()


def sentences(rng, n):
    return [" ".join(rng.choice(WORDS, size=rng.integers(1, 15))) for _ in range(n)]


def metric_rows(metric_class, n, n_systems, seed):
    """(scorer, [(name, rows)]) of ``n_systems`` random systems against random references."""
    rng = np.random.default_rng(seed)
    metric = metric_class(references=[sentences(rng, n)])
    scorer = scorer_for(metric)
    return scorer, [(f"S{k}", np.asarray(scorer.statistics(sentences(rng, n))))
                    for k in range(n_systems)]


def generated(kind, n=300, n_systems=3, seed=1):
    if kind == "bleu":
        return metric_rows(BLEU, n, n_systems, seed)
    if kind == "chrf":
        return metric_rows(CHRF, n, n_systems, seed)
    if kind == "ter":
        return metric_rows(TER, n, n_systems, seed)
    if kind == "bleu-stats":  # larger counts than real sentences give, still under 2**24
        return scorer_for(BLEU()), [(f"S{k}", bleu_stats(n, seed + k)) for k in range(n_systems)]
    rng = np.random.default_rng(seed)
    if kind == "external":  # [score, 1] rows, as --scores gives them
        return MeanScorer("COMET"), [
            (f"S{k}", np.column_stack([rng.normal(0.8, 0.1, n), np.ones(n)]))
            for k in range(n_systems)]
    assert kind == "float"  # float rows summed in float32, as TER's
    return scorer_for(TER()), [
        (f"S{k}", np.column_stack([rng.integers(0, 9, n) + rng.random(n), rng.integers(1, 30, n)
                                   + 0.5 * rng.integers(0, 2, n)]))
        for k in range(n_systems)]


INT_KINDS = ("bleu", "chrf", "bleu-stats")
FLOAT_KINDS = ("ter", "external", "float")


@pytest.fixture
def core_calls(monkeypatch):
    """Whether each bootstrap ran in the core (True) or fell back to NumPy (False)."""
    taken: list[bool] = []
    real = paired._core_bootstrap_scores

    def spy(*args, **kwargs):
        scores = real(*args, **kwargs)
        taken.append(scores is not None)
        return scores

    monkeypatch.setattr(paired, "_core_bootstrap_scores", spy)
    return taken


def numpy_path(monkeypatch, run):
    """``run()`` with the core's bootstrap switched off (the NumPy path throughout)."""
    with monkeypatch.context() as patch:
        patch.setattr(paired, "_core_bootstrap_scores", lambda *args, **kwargs: None)
        return run()


@pytest.mark.parametrize("kind", INT_KINDS + FLOAT_KINDS)
@pytest.mark.parametrize("test,statistic", [("bs", "centered"), ("bs", "sacrebleu"),
                                            ("ar", "centered")])
def test_compare_all_equals_the_numpy_path(kind, test, statistic, core_calls, monkeypatch):
    scorer, rows = generated(kind, n_systems=4 if test == "bs" else 3)

    def run():
        return compare_all(rows, scorer, test=test, n_samples=200 if test == "bs" else 100,
                           seed=7, ci_samples=150, statistic=statistic)

    got = run()
    assert core_calls == [kind in INT_KINDS]
    want = numpy_path(monkeypatch, run)
    assert got == want  # every p-value, interval, cluster and delta_interval, bit for bit
    assert all(pair.delta_interval is not None for pair in got.pairs)


@pytest.mark.parametrize("kind", INT_KINDS + FLOAT_KINDS)
def test_resampled_scores_and_the_generator_after_them_equal_numpy(kind, core_calls):
    scorer, rows = generated(kind, n=257, n_systems=2, seed=3)
    matrices = [m for _, m in rows]
    rng, twin = np.random.default_rng(11), np.random.default_rng(11)
    rng.integers(5, size=3)  # a generator part-way through its stream, a spare half held
    twin.integers(5, size=3)
    got = paired.drawn_bootstrap_scores(rng, matrices, scorer, 1234)
    want = paired.bootstrap_scores(bootstrap_draws(twin, 257, 1234), matrices, scorer)
    assert core_calls == [kind in INT_KINDS]
    assert got.dtype == want.dtype and got.shape == want.shape
    assert np.array_equal(got, want)
    assert rng.bit_generator.state == twin.bit_generator.state
    assert rng.integers(1 << 30) == twin.integers(1 << 30)


def test_paired_bootstrap_and_interval_take_the_core(core_calls, monkeypatch):
    scorer, rows = generated("chrf", n=200, n_systems=2, seed=5)
    (_, a), (_, b) = rows

    def run():
        return (paired.paired_bootstrap(a, b, scorer, n_samples=300, seed=2),
                paired.bootstrap_ci(a, scorer, n_samples=300, seed=2))

    got = run()
    assert core_calls == [True, True]
    assert got == numpy_path(monkeypatch, run)


def test_sums_float32_could_round_fall_back_untouched(core_calls, monkeypatch):
    scorer, rows = generated("bleu-stats", n=400, n_systems=2, seed=8)
    rows = [(name, m * 50_000) for name, m in rows]  # 400 * 50,000 * 39 >= 2**24

    def run():
        return compare_all(rows, scorer, n_samples=100, seed=4)

    got = run()
    assert core_calls == [False]
    assert got == numpy_path(monkeypatch, run)


class NumPyScored:
    """BLEU's batch scorer without its core scores: the sums scored by ``score_rows``."""

    def __init__(self) -> None:
        self.inner = scorer_for(BLEU())
        self.name = "BLEU"

    def score_rows(self, sums):
        return self.inner.score_rows(sums)


@pytest.mark.parametrize("scorer", [scorer_for(BLEU()), NumPyScored()], ids=["core", "numpy"])
def test_values_beyond_float32s_bound_with_small_sums_take_the_core(scorer, core_calls,
                                                                    monkeypatch):
    """200,000 segments of 84 tokens or more give segments * largest value >= 2**24 while
    every sum stays far below 2**24: the core sums them (it checks the sums themselves)."""
    rows = [(f"S{k}", bleu_stats(3000, 40 + k)) for k in range(3)]
    long = rows[1][1]
    long[7] = [9000, 9100, 9000, 8000, 7000, 6000, 9000, 8999, 8998, 8997]  # one long segment
    assert 3000 * 9100 >= 2 ** 24

    def run():
        return compare_all(rows, scorer, n_samples=300, seed=21)

    got = run()
    assert core_calls == [True]
    assert got == numpy_path(monkeypatch, run)


@needs_wmt21
@pytest.mark.parametrize("metric_class", [BLEU, CHRF])
def test_wmt21_comparison_equals_the_numpy_path(metric_class, core_calls, monkeypatch):
    metric = metric_class(references=[read_lines(REFERENCE)])
    scorer = scorer_for(metric)
    rows = [(path.name.split(".")[3], np.asarray(scorer.statistics(read_lines(path))))
            for path in all_system_paths()[:4]]

    def run():
        return compare_all(rows, scorer, n_samples=300, seed=12345)

    got = run()
    assert core_calls == [True]
    assert got == numpy_path(monkeypatch, run)
