"""Pairwise matrices cost 8-16 bytes per cell (issue 11 item 10, the matrix part).

Before, ``pairwise_matrix(..., as_numpy=True)`` kept every cell's statistics
row (80 bytes at order 4), a list of Python floats and a NumPy copy: about
120 bytes per cell. Now the statistics are computed in bounded blocks and
only the float64 scores are kept, shared with the NumPy array.
"""

from __future__ import annotations

import random
import tracemalloc

import pytest

from conftest import available_backends
from truebleu.metrics.bleu import batch

np = pytest.importorskip("numpy")

WORDS = "the a cat dog sat ran on under mat rug today it was is and of to in".split()


def candidates(n: int, seed: int = 7) -> list[str]:
    rng = random.Random(seed)
    return [" ".join(rng.choice(WORDS) for _ in range(rng.randint(3, 12))) + f" w{i % 50}"
            for i in range(n)]


def peak_bytes(call):
    tracemalloc.start()
    try:
        result = call()
        return result, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def bytes_per_cell(backend, call_for):
    """Peak traced bytes per cell of ``call_for(a, b)()``.

    The native backend is measured on 1500 distinct strings (its fixed block of
    statistics is then small beside the matrix). The slower Python backend is
    measured on 2,000,000 cells of few distinct strings (200 rows of 20
    distinct hypotheses, 10,000 columns of 10 distinct references): the
    per-cell storage is what is bounded, not the per-string work.
    """
    if backend == "native":
        a = b = candidates(1500)
    else:
        a, b = candidates(20) * 10, candidates(10, seed=5) * 1000
    call_for(a[:3], b[:3])()  # warm up: imports and first-use caches are not per cell
    return peak_bytes(call_for(a, b))[1] / (len(a) * len(b))


@pytest.mark.parametrize("backend", available_backends())
def test_pairwise_matrix_as_numpy_takes_at_most_16_bytes_per_cell(backend):
    def call_for(a, b):
        return lambda: batch.pairwise_matrix(a, b, as_numpy=True, backend=backend)

    per_cell = bytes_per_cell(backend, call_for)
    assert per_cell <= 16, f"{per_cell:.1f} bytes per cell"


@pytest.mark.parametrize("backend", available_backends())
def test_pairwise_matrix_as_numpy_is_the_matrix(backend):
    n = 60
    cands = candidates(n)
    matrix = batch.pairwise_matrix(cands, cands, as_numpy=True, backend=backend)
    assert matrix.shape == (n, n) and matrix.dtype == np.float64
    assert matrix.tolist() == batch.pairwise_matrix(cands, cands, backend=backend)
    for i in random.Random(1).sample(range(n), 5):
        assert matrix[i].tolist() == batch.sentence_scores([cands[i]] * n, cands, backend=backend)


@pytest.mark.parametrize("backend", available_backends())
def test_mbr_select_takes_at_most_16_bytes_per_cell(backend):
    # 1000 or 1400 candidates: all distinct on the native backend, 20 distinct on the Python one
    cands = candidates(1000, seed=3) if backend == "native" else (candidates(20, seed=3) * 70)
    batch.mbr_select(cands[:3], backend=backend)  # warm up
    _, peak = peak_bytes(lambda: batch.mbr_select(cands, backend=backend))
    per_cell = peak / len(cands) ** 2
    assert per_cell <= 16, f"{per_cell:.1f} bytes per cell"
    cands = candidates(40, seed=3)
    best, value = batch.mbr_select(cands, backend=backend)
    row = batch.sentence_scores([cands[best]] * 40, cands, backend=backend)
    assert value == sum(x for j, x in enumerate(row) if j != best) / 39


@pytest.mark.parametrize("sum_is_plain", [True, False])
def test_blocks_cover_the_matrix(monkeypatch, sum_is_plain):
    """Several blocks, a short last one: the same cells as one block, with the core's
    scores and (as on Python 3.12+, whose sum() differs) with Python's."""
    native = pytest.importorskip("truebleu.metrics.bleu.native")
    cands = candidates(50)
    want = batch.pairwise_matrix(cands, cands[:37], backend="python")
    monkeypatch.setattr(native.core, "SUM_IS_PLAIN", sum_is_plain)
    monkeypatch.setattr(native, "MATRIX_BLOCK_BYTES", 8 * 10 * 37 * 3)  # 3 rows per block
    assert batch.pairwise_matrix(cands, cands[:37], backend="native") == want
    assert batch.pairwise_matrix(cands, cands[:37], backend="python") == want
