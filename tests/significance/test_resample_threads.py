"""The bootstrap's sums on the runtime's threads: the draws stay one stream in sample
order, the drawn rows' sums are split over the threads, and every thread count gives
NumPy's sums and leaves the generator where NumPy's ``choice`` leaves it."""

from __future__ import annotations

from array import array

import pytest

np = pytest.importorskip("numpy")

from truebleu.significance import native  # noqa: E402
from truebleu.significance.pcg64 import pcg64_state  # noqa: E402

core = native._core()
needs_core = pytest.mark.skipif(core is None, reason="the compiled core is not the active backend")

THREADS = [1, 2, 3, 7]


def numpy_sums_and_state(seed, tables, n_samples, width):
    """NumPy's sums of ``choice(n, size=(n_samples, n))``'s rows, and its generator after."""
    n = len(tables[0]) // width
    rng = np.random.default_rng(seed)
    idx = rng.choice(n, size=(n_samples, n), replace=True)
    stacked = np.concatenate([np.asarray(t, dtype=np.int64).reshape(n, width) for t in tables],
                             axis=1)
    sums = stacked[idx].sum(axis=1) if n_samples else np.empty((0, stacked.shape[1]), np.int64)
    return sums, native.generator_state(rng)


# (segments, systems, width, largest value): one chunk of samples for a few segments, many
# chunks (16 samples each) for WMT's 1002, a sample a chunk beyond 16384; uint8 and int32 rows
CASES = [(5, 2, 3, 255), (1002, 9, 10, 200), (1002, 3, 4, 70000), (20000, 1, 10, 3)]


@needs_core
@pytest.mark.parametrize("n, k, width, largest", CASES)
@pytest.mark.parametrize("n_samples", [0, 1, 37, 100])
def test_resample_sums_are_numpys_on_any_number_of_threads(n, k, width, largest, n_samples):
    rng = np.random.default_rng(n * 31 + k)
    tables = [array("q", rng.integers(0, largest, size=n * width, endpoint=True).tobytes())
              for _ in range(k)]
    expected, expected_state = numpy_sums_and_state(7, tables, n_samples, width)
    for threads in THREADS:
        state = pcg64_state(7)
        sums = core.resample_sums(state, n_samples, tables, width, False, threads)
        got = np.frombuffer(sums, dtype=np.int64).reshape(n_samples, k * width)
        assert (got == expected).all(), threads
        assert bytes(state) == bytes(expected_state), threads


@needs_core
def test_resample_sums_refuse_a_thread_count_below_one():
    with pytest.raises(ValueError, match="threads"):
        core.resample_sums(pcg64_state(1), 2, [array("q", [1, 2, 3])], 1, False, 0)


# Tables of 1 MiB or more are summed with the rows of later draws fetched ahead
# (resample.c's RESAMPLE_AHEAD_BYTES): 40,000 rows of 20 columns are 1.28 MB in uint8
# (largest value 255) and 1.92 MB in int32 (256, and the largest value int32 sums hold
# exactly for 40,000 segments); 20,000 rows stay below the bound.
LARGE_CASES = [(40000, 255), (40000, 256), (40000, (2 ** 31 - 1) // 40000), (20000, 255)]


@needs_core
@pytest.mark.parametrize("n, largest", LARGE_CASES)
def test_resample_sums_of_large_tables_are_numpys(n, largest):
    width, k, n_samples = 10, 2, 3
    rng = np.random.default_rng(largest)
    values = rng.choice([0, largest, rng.integers(0, largest + 1)], size=(k, n * width))
    tables = [array("q", row.astype(np.int64).tobytes()) for row in values]
    idx = np.random.default_rng(11).choice(n, size=(n_samples, n), replace=True)
    stacked = np.concatenate([v.reshape(n, width) for v in values], axis=1).astype(np.int64)
    expected = np.stack([stacked[row].sum(axis=0) for row in idx])
    for threads in (1, 2):
        sums = core.resample_sums(pcg64_state(11), n_samples, tables, width, False, threads)
        got = np.frombuffer(sums, dtype=np.int64).reshape(n_samples, k * width)
        assert (got == expected).all(), threads
