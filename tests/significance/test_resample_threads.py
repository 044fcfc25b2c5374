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
