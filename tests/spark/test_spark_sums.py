"""truebleu.spark.sums: float rows that Spark may add in any order, exactly, or flagged.

No Spark here (NumPy only): the claim is arithmetic. For rows whose values
are non-negative multiples of 2**-SCALE_BITS with small enough sums, the sum
through the integers equals the left-to-right float sum of
``RowTable.sum`` (what ``metric.corpus_score`` adds) in every order of the
rows; anything else is flagged, so Spark never scores it.
"""

from __future__ import annotations

from array import array

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

np = pytest.importorskip("numpy")

from truebleu.core.statistics import RowTable  # noqa: E402
from truebleu.metrics import TER  # noqa: E402
from truebleu.spark.sums import EXACT_LIMIT, SCALE_BITS, from_fixed_point, to_fixed_point  # noqa: E402


def left_fold(matrix) -> list:
    """The column sums as ``metric.corpus_score`` adds float rows: one by one, in order."""
    return RowTable(matrix.shape[1], array("d", matrix.tobytes()), typecode="d").sum()


def spark_like_sum(matrix, pieces: list[int]) -> list:
    """Through the fixed-point integers, in pieces added in reverse (any order will do)."""
    fixed, inexact = to_fixed_point(matrix, integer_rows=False)
    assert not inexact.any()
    parts = [part.sum(axis=0) for part in np.split(fixed, pieces)]
    return from_fixed_point([int(v) for v in sum(reversed(parts))], integer_rows=False)


# a TER-like row: whole edits, an average of 1, 2 or 4 reference lengths
ter_rows = st.lists(st.tuples(st.integers(0, 200), st.sampled_from([1, 2, 4]),
                              st.integers(0, 400)), min_size=1, max_size=300)


@settings(max_examples=100, deadline=None)
@given(rows=ter_rows, data=st.data())
def test_binary_fractions_sum_to_the_left_fold_in_any_order(rows, data):
    matrix = np.array([[float(edits), total / nrefs] for edits, nrefs, total in rows])
    order = data.draw(st.permutations(range(len(rows))))
    pieces = sorted(data.draw(st.lists(st.integers(0, len(rows)), max_size=5)))
    expected = left_fold(matrix)
    assert spark_like_sum(matrix[order], pieces) == expected
    assert left_fold(matrix[order]) == expected  # the premise: any order gives these bits


def test_real_ter_rows_of_two_references():
    hyps = [f"the cat {i} sat on {'a' if i % 3 else 'the'} mat today" for i in range(300)]
    refs = [[f"a cat {i} sat on the mat" for i in range(300)],
            [f"the cat {i % 5} was sitting on the mat" for i in range(300)]]
    matrix = TER().corpus_statistics(hyps, refs).to_numpy()
    assert spark_like_sum(matrix[::-1], [7, 150]) == left_fold(matrix)


@pytest.mark.parametrize("value", [1 / 3, 0.1, -1.0, float("nan"), float("inf"),
                                   2.0 ** (53 - SCALE_BITS), 2.0 ** -(SCALE_BITS + 1)])
def test_values_not_exactly_summable_are_flagged(value):
    matrix = np.array([[1.0, 2.0], [3.0, value], [4.0, 0.5]])
    fixed, inexact = to_fixed_point(matrix, integer_rows=False)
    assert inexact.tolist() == [False, True, False]
    assert fixed[1].tolist() == [0, 0]  # a flagged row is never part of a sum


def test_sums_beyond_the_exact_range_are_refused():
    limit = EXACT_LIMIT
    assert from_fixed_point([limit - 1, 0], integer_rows=False) == [
        (limit - 1) / 2 ** SCALE_BITS, 0.0]
    assert from_fixed_point([limit, 0], integer_rows=False) is None


def test_integer_rows_pass_through():
    matrix = np.array([[1, 2**40], [3, 4]], dtype=np.int64)
    fixed, inexact = to_fixed_point(matrix, integer_rows=True)
    assert fixed is matrix or np.array_equal(fixed, matrix)
    assert not inexact.any()
    assert from_fixed_point([4, 2**40 + 4], integer_rows=True) == [4, 2**40 + 4]
