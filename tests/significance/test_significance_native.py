"""Resampling in the compiled core (no NumPy) against NumPy itself and the NumPy path.

NumPy is the oracle for every piece (the seeding and the draws themselves are
test_significance_native_draws.py's): the bootstrap and randomization sums, BLEU of
float32/int64 sums (``BLEUBatchScorer``), the pairwise ``mean``; then the whole
``-pbs``/``-par``/``-ci`` results against the NumPy path and the command line against
sacreBLEU's, with NumPy never imported.
"""

from __future__ import annotations

import os
import struct
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

np = pytest.importorskip("numpy")

from _significance_data import REFERENCE, all_system_paths, needs_wmt21  # noqa: E402
from strategies import corpus  # noqa: E402
from truebleu import BLEU  # noqa: E402
from truebleu.io import read_lines  # noqa: E402
from truebleu.metrics.bleu import BLEUBatchScorer  # noqa: E402
from truebleu.metrics.bleu.statistics import Statistics  # noqa: E402
from truebleu.significance import bootstrap_confidence, compat, native, paired_cells  # noqa: E402
from truebleu.significance.pcg64 import pcg64_state  # noqa: E402

core = native._core()
needs_core = pytest.mark.skipif(core is None, reason="the compiled core is not the active backend")


# -- sums --------------------------------------------------------------------------

def numpy_sums(seed, tables, n_samples, width):
    n = len(tables[0]) // width
    idx = np.random.default_rng(seed).choice(n, size=(n_samples, n), replace=True)
    stacked = np.concatenate([np.asarray(t, dtype=np.int64).reshape(n, width) for t in tables],
                             axis=1)
    return np.stack([stacked[row].sum(0) for row in idx]) if n_samples else \
        np.empty((0, stacked.shape[1]), dtype=np.int64)


@needs_core
@settings(max_examples=60, deadline=None)
@given(st.integers(1, 40), st.integers(1, 11), st.integers(1, 12), st.integers(0, 2 ** 64),
       st.lists(st.integers(0, 11), min_size=1, max_size=4), st.data())
def test_resample_sums_equal_numpy(n, k, width, seed, blocks, data):
    """Rows of up to 132 columns: the core sums 48 at a time (BLOCK x LANES), a row padded
    to a multiple of 4."""
    from array import array

    values = st.integers(-1000, 1000)
    tables = [array("q", data.draw(st.lists(values, min_size=n * width, max_size=n * width)))
              for _ in range(k)]
    state, parts = pcg64_state(seed), []
    for block in blocks:  # a stream continued across calls of any size
        parts.append(np.frombuffer(core.resample_sums(state, block, tables, width),
                                   dtype=np.int64).reshape(block, k * width))
    assert (np.concatenate(parts) == numpy_sums(seed, tables, sum(blocks), width)).all()


# the largest value of the core's uint8 storage and the next one up
STORAGE_BOUNDS = [1, 255, 256, 2 ** 21]


@needs_core
@settings(max_examples=80, deadline=None)
@given(st.sampled_from([1, 2, 5, 39, 129, 300]), st.integers(1, 3), st.integers(1, 60),
       st.sampled_from(STORAGE_BOUNDS), st.booleans(), st.integers(0, 2 ** 64),
       st.integers(0, 2 ** 32), st.integers(1, 6))
def test_resample_sums_equal_numpy_in_every_storage(n, k, width, bound, signed, seed,
                                                    values_seed, n_samples):
    """The core keeps a table of values from 0 to 255 in uint8 where that makes a padded row
    shorter (summed in int16 for 128 draws at a time), else in int32: the sums are NumPy's
    for values at the edges (mostly the bound, so that 300 draws of 255 overflow an int16
    accumulator; -bound to bound when signed), rows of up to 180 columns."""
    from array import array

    rng = np.random.default_rng(values_seed)
    low = -bound if signed else 0
    extremes = rng.choice([bound, low, bound, low, 0], size=(k, n * width))
    anything = rng.integers(low, bound, size=(k, n * width), endpoint=True)
    values = np.where(rng.random((k, n * width)) < 0.8, extremes, anything)
    tables = [array("q", row.astype(np.int64).tobytes()) for row in values]
    sums = np.frombuffer(core.resample_sums(pcg64_state(seed), n_samples, tables, width, False),
                         dtype=np.int64).reshape(n_samples, k * width)
    assert (sums == numpy_sums(seed, tables, n_samples, width)).all()


@needs_core
def test_resample_sums_refuse_what_float32_cannot_sum_exactly():
    from array import array

    n = 1000
    fits = [array("q", [2 ** 24 // n] * n)]  # n * 16777 < 2**24
    assert len(core.resample_sums(pcg64_state(1), 2, fits, 1)) == 16
    with pytest.raises(OverflowError, match="2\\*\\*24"):
        core.resample_sums(pcg64_state(1), 2, [array("q", [2 ** 24 // n + 1] * n)], 1)
    with pytest.raises(ValueError):
        core.resample_sums(pcg64_state(1), 2, [array("q", [1] * 10), array("q", [1] * 8)], 2)


@needs_core
def test_resample_sums_are_exact_up_to_int32s_bound():
    """Exact int64 sums (float32=False, the report's buckets) while segments * largest
    value < 2**31, far beyond float32's 2**24; refused at the bound, state untouched."""
    from array import array

    n = 1000
    top = (2 ** 31 - 1) // n  # n * top < 2**31 <= n * (top + 1)
    table = array("q", [top] * n)
    sums = core.resample_sums(pcg64_state(1), 3, [table], 1, False)
    assert struct.unpack("=3q", sums) == (n * top,) * 3
    state = pcg64_state(1)
    before = bytes(state)
    with pytest.raises(OverflowError, match="2\\*\\*31"):
        core.resample_sums(state, 3, [array("q", [top + 1] * n)], 1, False)
    assert bytes(state) == before
    negative = array("q", [-top] * n)  # |sums| bounded alike
    assert struct.unpack("=q", core.resample_sums(pcg64_state(1), 1, [negative], 1, False)) \
        == (-n * top,)


@needs_core
def test_resample_sums_for_float32_check_the_sums_not_the_largest_value():
    """Non-negative rows: float32 sums are exact while every sample's sum (which bounds its
    partial sums) is below 2**24, whatever segments * largest value is: one long segment
    among 200,000 is summed in the core; sums of 2**24 are refused after the draws with the
    state as it was. A negative value keeps the bound segments * largest value < 2**24."""
    from array import array

    n = 200_000
    values = [1] * n
    values[7] = 9000  # n * 9000 >= 2**24, every sum far below it
    state = pcg64_state(5)
    sums = np.frombuffer(core.resample_sums(state, 40, [array("q", values)], 1), dtype=np.int64)
    draws = np.random.default_rng(5).choice(n, size=(40, n))
    assert (sums == np.asarray(values)[draws].sum(axis=1)).all()
    large = array("q", [2 ** 24 // n + 1] * n)  # every sum >= 2**24
    state, before = pcg64_state(5), bytes(pcg64_state(5))
    with pytest.raises(OverflowError, match="2\\*\\*24"):
        core.resample_sums(state, 4, [large], 1)
    assert bytes(state) == before
    assert len(core.resample_sums(pcg64_state(5), 4, [large], 1, False)) == 32
    signed = array("q", values[:-1] + [-1])
    with pytest.raises(OverflowError, match="negative"):
        core.resample_sums(pcg64_state(5), 1, [signed], 1)


def test_sums_that_float32_could_round_take_the_numpy_path(monkeypatch):
    """Beyond 2**24 the NumPy path adds in sacreBLEU's float32 order (its own tests);
    the native path hands over instead of giving exact sums."""
    from array import array

    metric = BLEU(references=[["a"] * 3], max_ngram_order=1)
    huge = Statistics(1, array("q", [2 ** 23, 2 ** 23, 2 ** 22, 2 ** 23] * 3))
    small = Statistics(1, array("q", [5, 5, 2, 5] * 3))
    if core is not None:
        scorer = metric.batch_scorer(in_place=True)
        assert native.bootstrap_columns([huge], scorer, 10, 1) is None
        assert native.bootstrap_columns([small], scorer, 10, 1) is not None
    got = bootstrap_confidence(huge, metric, 10, seed=1)
    numpy_path(monkeypatch)
    assert got == bootstrap_confidence(huge, metric, 10, seed=1)


@needs_core
@settings(max_examples=60, deadline=None)
@given(st.integers(1, 23), st.integers(1, 4), st.integers(1, 11), st.integers(0, 70),
       st.integers(0, 2 ** 64), st.data())
def test_randomization_sums_equal_swapped_sums(n, k, width, n_trials, seed, data):
    from array import array

    from truebleu.significance.resampling import swapped_sums

    values = st.integers(-5000, 5000)
    first, *others = [array("q", data.draw(st.lists(values, min_size=n * width,
                                                    max_size=n * width)))
                      for _ in range(k + 1)]
    masks = core.pcg64_bools(pcg64_state(seed), n_trials * n)
    a, b = core.randomization_sums(masks, first, others, width)
    mask_matrix = np.frombuffer(masks, dtype=np.uint8).astype(bool).reshape(n_trials, n)
    as_matrix = lambda t: np.asarray(t, dtype=np.int64).reshape(n, width)  # noqa: E731
    expected_a, expected_b = swapped_sums(mask_matrix, np.tile(as_matrix(first), (1, k)),
                                          np.concatenate([as_matrix(o) for o in others], axis=1))
    assert (np.frombuffer(a, dtype=np.int64).reshape(n_trials, k * width) == expected_a).all()
    assert (np.frombuffer(b, dtype=np.int64).reshape(n_trials, k * width) == expected_b).all()


@needs_core
def test_randomization_sums_refuse_what_int32_cannot_hold():
    from array import array

    n = 4
    masks = bytes([1, 0, 1, 1])
    small, zeros = array("q", [2 ** 31 // n - 1] * n), array("q", [0] * n)
    assert core.randomization_sums(masks, small, [zeros], 1)[0] == \
        struct.pack("=q", 3 * (2 ** 31 // n - 1))
    with pytest.raises(OverflowError):
        core.randomization_sums(masks, array("q", [2 ** 31 // n] * n), [zeros], 1)
    with pytest.raises(ValueError):
        core.randomization_sums(masks[:3], small, [zeros], 1)
    extreme = array("q", [-2 ** 63, 2 ** 63 - 1, 0, 1])
    with pytest.raises(OverflowError):
        core.randomization_sums(masks, extreme, [zeros], 1)
    with pytest.raises(OverflowError):
        core.randomization_sums(masks, zeros, [extreme], 1)
    with pytest.raises(OverflowError):
        core.resample_sums(pcg64_state(1), 1, [extreme], 1)


# -- scores ------------------------------------------------------------------------

@st.composite
def summed_rows(draw, max_order):
    rows = []
    for _ in range(draw(st.integers(1, 12))):
        sys_len, ref_len = draw(st.integers(0, 3000)), draw(st.integers(0, 3000))
        totals = [draw(st.integers(0, 3000)) for _ in range(max_order)]
        correct = [draw(st.integers(0, t)) for t in totals]
        rows.append([sys_len, ref_len, *correct, *totals])
    return rows


@needs_core
@settings(max_examples=200, deadline=None)
@given(st.integers(1, 6), st.sampled_from(["exp", "floor", "add-k", "none"]),
       st.sampled_from([None, 0.1, 0.5, 1.0, 2.0, 0.01]), st.booleans(), st.booleans(),
       st.data())
def test_bleu_rows_equal_batch_scorer(order, method, value, effective, float32, data):
    if method in ("exp", "none"):
        value = None
    rows = data.draw(summed_rows(order))
    scorer = BLEUBatchScorer(order, method, value, effective, in_place=True)
    sums = np.array(rows, dtype=np.float32 if float32 else np.int64)
    expected = scorer.score_rows(sums)
    got = np.frombuffer(scorer.core_scores(np.array(rows, dtype=np.int64).tobytes(), float32),
                        dtype=np.float64)
    assert got.tobytes() == expected.astype(np.float64).tobytes(), (rows, got, expected)


@needs_core
@settings(max_examples=200, deadline=None)
@given(st.integers(1, 6), st.sampled_from(["exp", "floor", "add-k", "none"]),
       st.sampled_from([None, 0.1, 0.5, 1.0, 2.0, 0.01]), st.booleans(), st.booleans(),
       st.data())
def test_scored_int_rows_equal_score_rows_and_run_in_the_core(order, method, value, effective,
                                                              in_place, data):
    """The report's sentence BLEU and BLEU without each segment (``scored_int_rows``, the
    scorers of ``batch_scorer()``: not in place) are ``score_rows``' floats bit for bit,
    computed by ``core_scores``; a scorer without it keeps ``score_rows``."""
    from truebleu.significance import MeanScorer

    if method in ("exp", "none"):
        value = None
    rows = np.array(data.draw(summed_rows(order)), dtype=np.int64)
    scorer = BLEUBatchScorer(order, method, value, effective, in_place=in_place)
    calls = []
    real = scorer.core_scores
    scorer.core_scores = lambda *a, **k: calls.append(1) or real(*a, **k)
    got = native.scored_int_rows(scorer, rows)
    assert calls and all(type(v) is float for v in got)
    assert np.array(got).tobytes() == scorer.score_rows(rows).astype(np.float64).tobytes()
    mean_rows = np.column_stack([rows[:, 0], np.ones(len(rows), dtype=np.int64)])
    assert native.scored_int_rows(MeanScorer("x"), mean_rows) == \
        MeanScorer("x").score_rows(mean_rows).tolist()


# -- NumPy's reductions ------------------------------------------------------------

@pytest.mark.parametrize("n", list(range(1, 140)) + [255, 256, 257, 511, 512, 513, 999, 1000,
                                                     1001, 1023, 1024, 1025, 4095, 4096, 4097,
                                                     8191, 8192, 8193, 9999, 10000])
def test_pairwise_mean_equals_numpy(n):
    rng = np.random.default_rng(n)
    for values in (rng.standard_normal(n) * 10.0 ** rng.integers(-3, 9, size=n),
                   rng.uniform(0, 100, size=n), np.full(n, -0.0)):
        if n <= native.NUMPY_BUFSIZE:  # beyond it NumPy releases differ (numpy_mean asks NumPy)
            assert struct.pack("d", native.pairwise_sum(values.tolist())) == \
                struct.pack("d", np.add.reduce(values))
        assert struct.pack("d", native.numpy_mean(values.tolist())) == struct.pack("d", values.mean())


@needs_core
@pytest.mark.parametrize("n", list(range(0, 140)) + [255, 256, 257, 999, 1000, 1001, 1025, 4097,
                                                     8191, 8192])
def test_core_pairwise_sum_equals_numpy_and_the_specification(n):
    """The core's pairwise_sum (numpy_mean's, with the core) against np.add.reduce and
    the Python steps it follows (native.pairwise_sum), bit for bit, signed zeros included."""
    rng = np.random.default_rng(1000 + n)
    for values in (rng.standard_normal(n) * 10.0 ** rng.integers(-3, 9, size=n),
                   rng.uniform(0, 100, size=n), np.full(n, -0.0), -rng.uniform(0, 1e-300, size=n)):
        got = struct.pack("d", core.pairwise_sum(values.tolist()))
        assert got == struct.pack("d", native.pairwise_sum(values.tolist())), n
        assert got == struct.pack("d", np.add.reduce(values)), n
    with pytest.raises(TypeError):
        core.pairwise_sum([1.0, "2"])


# -- whole tests: native path against the NumPy path -------------------------------

def numpy_path(monkeypatch):
    monkeypatch.setattr(native, "applies", lambda *args: False)


@needs_core
@settings(max_examples=30, deadline=None)
@given(corpus(max_refs=2, max_segments=8, min_segments=2),
       st.lists(st.integers(0, 5), min_size=2, max_size=3),
       st.integers(1, 60), st.integers(0, 2 ** 40),
       st.sampled_from([{}, {"smooth_method": "floor", "smooth_value": 0.3},
                        {"smooth_method": "add-k", "smooth_value": 2}, {"lowercase": True},
                        {"max_ngram_order": 2}, {"smooth_method": "none"}]))
def test_paired_bootstrap_native_equals_numpy_path(data, shifts, n_samples, seed, options):
    hyps, refs = data
    systems = [(f"sys{k}", hyps[s % len(hyps):] + hyps[:s % len(hyps)])
               for k, s in enumerate(shifts)]
    metric = BLEU(references=refs, **options)
    tables = [metric.corpus_statistics(h) for _, h in systems]
    assert native.applies(metric.batch_scorer(in_place=True), seed, tables)
    got = paired_cells(systems, metric, "bs", n_samples, seed=seed)
    with pytest.MonkeyPatch.context() as mp:
        numpy_path(mp)
        expected = paired_cells(systems, metric, "bs", n_samples, seed=seed)
    assert got[0] == expected[0]
    assert [vars(c) for c in got[1]] == [vars(c) for c in expected[1]]
    stats = tables[-1]
    got_ci = bootstrap_confidence(stats, metric, n_samples + 1, seed=seed)
    with pytest.MonkeyPatch.context() as mp:
        numpy_path(mp)
        assert got_ci == bootstrap_confidence(stats, metric, n_samples + 1, seed=seed)


@needs_core
@settings(max_examples=30, deadline=None)
@given(corpus(max_refs=2, max_segments=9, min_segments=2),
       st.lists(st.integers(0, 8), min_size=2, max_size=4),
       st.integers(1, 300), st.integers(0, 2 ** 40),
       st.sampled_from([{}, {"smooth_method": "floor", "smooth_value": 0.3},
                        {"smooth_method": "add-k", "smooth_value": 2}, {"max_ngram_order": 3},
                        {"smooth_method": "none"}]))
def test_paired_randomization_native_equals_numpy_path(data, shifts, n_trials, seed, options):
    hyps, refs = data
    systems = [(f"sys{k}", hyps[s % len(hyps):] + hyps[:s % len(hyps)])
               for k, s in enumerate(shifts)]
    metric = BLEU(references=refs, **options)
    got = paired_cells(systems, metric, "ar", n_trials, seed=seed)
    with pytest.MonkeyPatch.context() as mp:
        numpy_path(mp)
        expected = paired_cells(systems, metric, "ar", n_trials, seed=seed)
    assert got[0] == expected[0]
    assert [vars(c) for c in got[1]] == [vars(c) for c in expected[1]]


@needs_core
@needs_wmt21
def test_wmt21_randomization_native_equals_numpy_path(monkeypatch):
    refs = [read_lines(REFERENCE)]
    systems = [(str(p), read_lines(p)) for p in all_system_paths()[:8]]
    metric = BLEU(references=refs)
    got = paired_cells(systems, metric, "ar", 2500, seed=12345)
    numpy_path(monkeypatch)
    assert [vars(c) for c in got[1]] == \
        [vars(c) for c in paired_cells(systems, metric, "ar", 2500, seed=12345)[1]]


@needs_core
@needs_wmt21
@pytest.mark.parametrize("seed,n_samples", [(12345, 1000), (0, 333), (2 ** 70, 50)])
def test_wmt21_native_equals_numpy_path(monkeypatch, seed, n_samples):
    refs = [read_lines(REFERENCE)]
    paths = all_system_paths()[:6]
    systems = [(str(p), read_lines(p)) for p in paths]
    metric = BLEU(references=refs)
    got = paired_cells(systems, metric, "bs", n_samples, seed=seed)
    ci = bootstrap_confidence(metric.corpus_statistics(systems[1][1]), metric, n_samples, seed=seed)
    numpy_path(monkeypatch)
    expected = paired_cells(systems, metric, "bs", n_samples, seed=seed)
    assert [vars(c) for c in got[1]] == [vars(c) for c in expected[1]]
    assert ci == bootstrap_confidence(metric.corpus_statistics(systems[1][1]), metric, n_samples,
                                      seed=seed)


def test_other_metrics_and_os_entropy_keep_the_numpy_path():
    from truebleu.metrics.chrf import CHRF

    refs = [["a b c", "d e"]]
    bleu, chrf = BLEU(references=refs), CHRF(references=refs)
    tables = [bleu.corpus_statistics(["a b", "d"])]
    assert not native.applies(chrf.batch_scorer(), 1, [chrf.corpus_statistics(["a b", "d"])])
    assert not native.applies(bleu.batch_scorer(in_place=True), None, tables)
    assert not native.applies(bleu.batch_scorer(in_place=True), -1, tables)


# -- the command line: no NumPy, the same bytes ------------------------------------

RUN_AND_REPORT_NUMPY = (
    "import atexit, sys\n"
    "atexit.register(lambda: sys.stderr.write('numpy imported: %s\\n' % ('numpy' in sys.modules)))\n"
    "from truebleu.cli import main\n"
    "sys.argv[0] = 'truebleu'\n"
    "sys.exit(main())\n")


def truebleu_command(args, backend="native"):
    env = dict(os.environ, NO_COLOR="1", TRUEBLEU_BACKEND=backend)
    env.pop("SACREBLEU_SEED", None)
    done = subprocess.run([sys.executable, "-c", RUN_AND_REPORT_NUMPY, *args],
                          capture_output=True, text=True, env=env, check=True)
    return done.stdout, "numpy imported: True" in done.stderr


def sacrebleu_command(args):
    env = dict(os.environ, NO_COLOR="1")
    env.pop("SACREBLEU_SEED", None)
    return subprocess.run([sys.executable, "-m", "sacrebleu", *args], capture_output=True,
                          text=True, env=env, check=True).stdout


def normalise_version(text: str) -> str:
    import re

    return re.sub(r'(version"?:\s*"?|v:)[^\s|"]+', r"\1X", text)


@needs_core
@needs_wmt21
@pytest.mark.parametrize("args", [["-pbs"], ["-pbs", "-pbsn", "200", "-f", "json", "-w", "3"],
                                  ["-par", "-parn", "1000"], ["-par", "-parn", "300", "-f", "json"],
                                  ["-ci"], ["-ci", "-cin", "300", "-f", "json"]])
def test_command_line_without_numpy_same_bytes_as_sacrebleu(args):
    paths = [str(p) for p in all_system_paths()]  # all 20 for the default -pbs
    paths = paths[:1] if "-ci" in args else paths if len(args) == 1 else paths[:5]
    argv = [str(REFERENCE), "-i", *paths, *args]
    out, numpy_imported = truebleu_command(argv)
    assert not numpy_imported
    assert normalise_version(out) == normalise_version(sacrebleu_command(argv))


@needs_core
@needs_wmt21
def test_command_line_numpy_path_same_bytes():
    """The Python backend keeps the NumPy path: the same report."""
    paths = [str(p) for p in all_system_paths()[:3]]
    for test in (["-pbs", "-pbsn", "100"], ["-par", "-parn", "200"]):
        argv = [str(REFERENCE), "-i", *paths, *test]
        native_out, native_numpy = truebleu_command(argv)
        python_out, python_numpy = truebleu_command(argv, backend="python")
        assert not native_numpy and python_numpy
        assert native_out == python_out


def test_compat_module_keeps_numpy_lazy():
    """Importing the -pbs path does not import NumPy by itself."""
    code = ("import sys; import truebleu.significance.compat, truebleu.significance.native; "
            "print('numpy' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"
    assert compat.native is native
