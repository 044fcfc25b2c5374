"""The report's one resampling pass for its significance test and its frequency buckets.

``compare_all``'s paired bootstrap and ``frequency_buckets`` draw the same indices
(``default_rng(seed).choice(n, size=(n_samples, n))``); where both would run in the core,
the report sums the buckets' counts in the test's pass (significance/extra_columns.py).
These tests hold it to the two separate passes: the same sums and scores bit for bit,
the generator left where the test's own pass leaves it, float32's bound on the test's
columns only, and the separate paths wherever either side would not take the core.
"""

from __future__ import annotations

import pytest

np = pytest.importorskip("numpy")

from _significance_data import bleu_stats  # noqa: E402
from truebleu import BLEU  # noqa: E402
from truebleu.core.kernels import backend_name  # noqa: E402
from truebleu.significance import compare_all, native, paired  # noqa: E402
from truebleu.significance.extra_columns import ExtraColumns  # noqa: E402
from truebleu.significance.multi import compare_all_with_columns  # noqa: E402
from truebleu.significance.scoring import scorer_for  # noqa: E402
from truebleu.viewer import buckets  # noqa: E402
from truebleu.viewer.model import ReportInputs, build_report_data  # noqa: E402

pytestmark = pytest.mark.skipif(backend_name() != "native",
                                reason="the compiled core is not built (the Python backend)")


class _Bar:
    def update(self, n: int) -> None:
        pass


@pytest.fixture
def passes(monkeypatch):
    """Every exact_sum_chunks pass, as (rows, columns, float32, completed)."""
    taken: list[list] = []
    real = native.exact_sum_chunks

    def spy(stacked, n_samples, state, float32=True):
        record = [stacked.shape[0], stacked.shape[1], float32, False]
        taken.append(record)
        yield from real(stacked, n_samples, state, float32=float32)
        record[3] = True

    monkeypatch.setattr(native, "exact_sum_chunks", spy)
    return taken


def _counts(rng, n, columns, high=40):
    table = rng.integers(0, high, size=(n, columns)).astype(np.int64)
    table[:, rng.integers(columns)] = 0  # a column of zeros (the buckets skip those)
    return table


@pytest.mark.parametrize("seed", [0, 7, 12345])
@pytest.mark.parametrize("n,n_systems,n_samples", [(2, 2, 40), (37, 1, 300), (300, 3, 1001),
                                                   (1000, 2, 250)])
def test_the_shared_pass_gives_the_separate_passes_sums_and_scores(seed, n, n_systems,
                                                                   n_samples, passes):
    """drawn_bootstrap_scores with extra columns: the scores, the generator after them, and
    the columns' sums are those of the test's own pass and the buckets' own pass (and of
    NumPy's draws); one pass instead of two (1001 samples: across a chunk's end)."""
    rng = np.random.default_rng(seed + n)
    matrices = [bleu_stats(n, seed + k) for k in range(n_systems)]
    table = _counts(rng, n, 17)
    used = buckets._used_columns(table)
    scorer = scorer_for(BLEU())
    extra = ExtraColumns(table[:, used])
    mine, theirs = np.random.default_rng(seed), np.random.default_rng(seed)
    got = paired.drawn_bootstrap_scores(mine, matrices, scorer, n_samples, extra=extra)
    assert passes == [[n, 10 * n_systems + len(used), False, True]]
    want = paired.drawn_bootstrap_scores(theirs, matrices, scorer, n_samples)
    assert np.array_equal(got, want) and got.dtype == want.dtype
    assert mine.bit_generator.state == theirs.bit_generator.state
    alone = buckets._resampled_sums(table, seed, n_samples, _Bar())
    assert [p[1:3] for p in passes[1:]] == [[10 * n_systems, True], [len(used), False]]
    assert extra.sums is not None and extra.sums.dtype == np.int64
    assert np.array_equal(buckets._resampled_sums(table, seed, n_samples, _Bar(), extra), alone)
    draws = np.random.default_rng(seed).choice(n, size=(n_samples, n))
    assert np.array_equal(alone, table[draws].sum(axis=1))


@pytest.mark.parametrize("test", ["bs", "ar"])
def test_compare_all_with_columns_is_compare_all(test, passes):
    """The comparison is compare_all's (every field); AR's draws are not the buckets'
    (its masks come first), so its pass does not take the columns."""
    scorer = scorer_for(BLEU())
    named = [(f"S{k}", bleu_stats(400, 3 + k)) for k in range(3)]
    table = _counts(np.random.default_rng(5), 400, 9)
    extra = ExtraColumns(table)
    got = compare_all_with_columns(extra, named, scorer, test, 200, 11)
    assert got == compare_all(named, scorer, test=test, n_samples=200, seed=11)
    if test == "ar":
        assert extra.sums is None and all(p[1] == 30 for p in passes)
    else:
        assert extra.sums is not None and passes[0][1:3] == [39, False]
        assert np.array_equal(extra.sums, buckets._core_sums(table, 11, 200, _Bar()))


def test_float32s_bound_holds_for_the_tests_columns_only(passes):
    """Counts whose sums pass 2**24 still share the pass (they are exact int64 either way);
    statistics whose sums do are refused as the test's own pass refuses them (NumPy's path,
    which gives the same numbers) and the columns are left to their own pass."""
    scorer = scorer_for(BLEU())
    named = [(f"S{k}", bleu_stats(300, 8 + k)) for k in range(2)]
    big_counts = _counts(np.random.default_rng(2), 300, 6, high=150_000)  # sums > 2**24
    extra = ExtraColumns(big_counts)
    got = compare_all_with_columns(extra, named, scorer, "bs", 100, 4)
    assert passes == [[300, 26, False, True]] and extra.sums.max() >= 2 ** 24
    assert np.array_equal(extra.sums, buckets._core_sums(big_counts, 4, 100, _Bar()))
    assert got == compare_all(named, scorer, test="bs", n_samples=100, seed=4)
    passes.clear()
    big_stats = [(name, m * 3000) for name, m in named]  # sums > 2**24, n * largest < 2**31
    got = compare_all_with_columns(extra, big_stats, scorer, "bs", 100, 4)
    assert extra.sums is None  # (not the sums of the pass before)
    # the shared pass refused, then the test's own pass, refused by the core as before
    assert passes == [[300, 26, False, False], [300, 20, True, False]]
    assert got == compare_all(big_stats, scorer, test="bs", n_samples=100, seed=4)


def test_the_int32_bound_of_the_joint_table_falls_back_to_the_separate_passes(passes):
    """Counts too large for the core's int32 sums beside statistics that are not: the test's
    own pass runs in the core as before, and the columns are left to theirs."""
    scorer = scorer_for(BLEU())
    named = [(f"S{k}", bleu_stats(300, 8 + k)) for k in range(2)]
    counts = _counts(np.random.default_rng(2), 300, 6)
    counts[7, 0] = 2 ** 31 // 300 + 1
    extra = ExtraColumns(counts)
    got = compare_all_with_columns(extra, named, scorer, "bs", 100, 4)
    assert extra.sums is None
    assert passes == [[300, 26, False, False], [300, 20, True, True]]
    assert got == compare_all(named, scorer, test="bs", n_samples=100, seed=4)


def test_extra_columns_are_non_negative_int64():
    with pytest.raises(ValueError, match="negative"):
        ExtraColumns(np.array([[1, -1], [0, 2]], dtype=np.int64))
    with pytest.raises(ValueError, match="int64"):
        ExtraColumns(np.ones((3, 2)))


WORDS = "the a cat dog sat ran on in mat house big small red blue green tree".split()


def _inputs(n_systems, n=120, seed=6):
    rng = np.random.default_rng(seed)

    def line():
        return " ".join(rng.choice(WORDS, size=rng.integers(3, 14)))

    ref = [line() for _ in range(n)]
    systems = [[r if rng.random() < 0.3 else line() for r in ref] for _ in range(n_systems)]
    return ReportInputs([ref], ["ref"], systems, [f"S{k}" for k in range(n_systems)])


def _report(monkeypatch, inputs, share, **options):
    """The report's data, and its core passes, with the shared pass on or off."""
    with monkeypatch.context() as patch:
        if not share:
            patch.setattr(buckets.FrequencyCounts, "shared_columns", lambda self, seed: None)
        taken = []
        real = native.exact_sum_chunks

        def spy(stacked, n_samples, state, float32=True):
            taken.append((stacked.shape[1], float32))
            return real(stacked, n_samples, state, float32=float32)

        patch.setattr(native, "exact_sum_chunks", spy)
        data = build_report_data(inputs, **options)
    return data.payload(), taken


@pytest.mark.parametrize("n_systems", [2, 3])
def test_the_report_takes_one_pass_for_both(n_systems, monkeypatch):
    """Two systems or more, the bootstrap, a plain seed: one pass (the test's statistics,
    10 columns a system, then the buckets' used counts) where there were two."""
    inputs = _inputs(n_systems)
    shared, one = _report(monkeypatch, inputs, True, n_samples=300, seed=3)
    alone, two = _report(monkeypatch, inputs, False, n_samples=300, seed=3)
    assert shared == alone
    assert len(two) == 2 and two[0] == (10 * n_systems, True) and two[1][1] is False
    assert one == [(two[0][0] + two[1][0], False)]


@pytest.mark.parametrize("case", ["one system", "ar", "numpy seed", "one segment"])
def test_the_report_keeps_the_separate_passes_elsewhere(case, monkeypatch):
    """Where either side would not take the core pass, the passes are today's: one system
    (bootstrap_ci), AR (its masks come first), a seed that is not a plain int (the
    buckets take NumPy's path), one segment (no resampling at all)."""
    inputs = _inputs(1 if case == "one system" else 2, n=1 if case == "one segment" else 120)
    options = {"n_samples": 200, "seed": 5}
    if case == "ar":
        options["test"] = "ar"
    if case == "numpy seed":
        options["seed"] = np.int64(5)
    shared, taken = _report(monkeypatch, inputs, True, **options)
    alone, before = _report(monkeypatch, inputs, False, **options)
    assert taken == before and shared == alone
    expected = {"one system": 2, "ar": 2, "numpy seed": 1, "one segment": 0}[case]
    assert len(taken) == expected
