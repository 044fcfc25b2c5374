"""The core's exact sum (``exact_sum``, ``_native/dialects/exact_sum.c``), with which
``mteval_sums`` adds each segment's NIST information, is ``math.fsum`` bit for bit.

The sum has two accumulators: a 128-bit fixed-point integer for the positive terms from
2**-36 up to below 2**37 (all of NIST's), and Shewchuk's partials for every other term. The
cases below sit on both sides of each edge: the range's ends, the integer's carry between its
two limbs and its overflow (moved into the partials before it can happen), ties of the final
rounding decided by bits far below it, and any finite double.
"""

from __future__ import annotations

import math
from array import array

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from truebleu.core.kernels import backend_name, native_core

pytestmark = pytest.mark.skipif(backend_name() != "native", reason="the compiled core is not built")

SMALLEST_FIXED = 2.0 ** -36
TOP = 2.0 ** 37
EDGES = [SMALLEST_FIXED, math.nextafter(SMALLEST_FIXED, 0.0), math.nextafter(TOP, 0.0), TOP,
         5e-324, 2.2250738585072014e-308, 0.0, -0.0, 1.0, -1.0, 2.0 ** 63, 2.0 ** 64,
         2.0 ** -17, 2.0 ** -53, 1.7976931348623157e308, -1.7976931348623157e308]


def core_sum(values: list[float]) -> float:
    return float(native_core().exact_sum(array("d", values)))


def assert_fsum(values: list[float]) -> None:
    """Bit for bit, but for the sign of a zero total (Python versions differ on it: 3.11's
    fsum([-0.0]) is 0.0), which no NIST total can see: each segment's sum is added to a
    total that starts at 0.0."""
    assert (core_sum(values) + 0.0).hex() == (math.fsum(values) + 0.0).hex(), values


# a double with a chosen mantissa and exponent: every bit of the fixed-point range is reached
scaled = st.builds(math.ldexp, st.integers(1, 2 ** 53 - 1), st.integers(-150, 40))
nist_like = st.builds(lambda weight, matched: weight * matched,
                      st.floats(0.0, 32.0, exclude_min=True), st.integers(1, 50))
term = st.one_of(scaled, nist_like, st.sampled_from(EDGES),
                 st.floats(allow_nan=False, allow_infinity=False, width=64))


@settings(max_examples=600, deadline=None)
@given(st.lists(term, max_size=80))
def test_any_finite_terms_sum_as_fsum(values):
    try:
        math.fsum(values)
    except OverflowError:
        return  # (past the largest double: fsum has no number to compare with)
    assert_fsum(values)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.floats(2.0 ** 36, math.nextafter(TOP, 0.0)), min_size=2, max_size=3000),
       st.lists(scaled, max_size=5))
def test_many_large_terms_do_not_overflow_the_integer(large, small):
    """Each term below 2**37 is below 2**125 units: two of them already pass 2**125, where the
    integer must move into the partials before the next addition could overflow it."""
    assert_fsum(large + small)
    assert_fsum(small + large)


@pytest.mark.parametrize("values", [
    [2.0 ** 36, 2.0 ** -17, 2.0 ** -30],       # a tie broken upwards by a bit 66 places below
    [2.0 ** 36, 2.0 ** -17],                    # the tie itself: to even
    [2.0 ** 36 + 2.0 ** -16, 2.0 ** -17],       # the tie to even, upwards
    [2.0 ** 36, -(2.0 ** -17), 2.0 ** -30],     # one term in the partials, two in the integer
    [math.ldexp(2 ** 53 - 1, -52 - 36 + 64 - 52), math.ldexp(2 ** 53 - 1, -52 - 36 + 64 - 52)],
    [math.ldexp(2 ** 53 - 1, k) for k in range(-88, -15)],  # every carry between the limbs
    [SMALLEST_FIXED] * 1000 + [TOP / 2],
    [],
    [-0.0], [0.0, -0.0], [-0.0, -0.0],
])
def test_edges_sum_as_fsum(values):
    assert_fsum(values)


def test_refuses_what_is_not_finite_float64():
    with pytest.raises(ValueError):
        native_core().exact_sum(array("d", [1.0, math.inf]))
    with pytest.raises(TypeError, match="values must be a buffer of float64"):
        native_core().exact_sum(array("f", [1.0]))
