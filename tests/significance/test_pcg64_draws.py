"""The compiled core's bounded draws (``pcg64_integers``) against NumPy, draw by draw and state by state.

``test_significance_native.py`` compares the draws. These tests compare the whole
generator after every call as well (the 128-bit state, the increment, whether a spare
32-bit half is kept, and that half), on the edges of the core's fill of 32-bit draws
(``lemire32_fill``), which uses the two halves of each 64-bit output as they come, makes
two outputs at a time in two lanes while six draws or more are left, and falls back to
one output at a time, and to the spare half, around draws that may be rejected:

- counts 0 to a thousand, odd and even, one call after another, so that calls
  start and end with a spare half and without one, and the lanes stop with 2 to 5
  draws left;
- ranges where rejections are frequent (``n`` just above 2**31: about one draw in two;
  ``2**64 // 3 + 1`` for 64-bit draws: about one in three) and where they almost never
  happen (the bootstrap's ``n``).
"""

from __future__ import annotations

import struct

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

np = pytest.importorskip("numpy")

from truebleu.significance import native  # noqa: E402
from truebleu.significance.pcg64 import pcg64_state  # noqa: E402

core = native._core()
pytestmark = pytest.mark.skipif(core is None, reason="the compiled core is not the active backend")

#: n for choice(n): rejections about one draw in two (2**31 + 1), one in four (3 * 2**30 + 1),
#: rare (20,000, 1002, 2**32 - 1), none (2**32: raw 32-bit draws; 2**16); 64-bit Lemire with
#: about one rejection in three (2**64 // 3 + 1)
RANGES = [2 ** 31 + 1, 3 * 2 ** 30 + 1, 20_000, 1002, 2 ** 32 - 1, 2 ** 32, 2 ** 16,
          2 ** 64 // 3 + 1]
#: consecutive calls: empty calls with and without a spare, odd counts leaving a spare
COUNTS = [0, 1, 0, 2, 3, 1, 1, 4, 5, 0, 63, 64, 65, 127, 128, 129, 1000, 1, 2, 0]


def numpy_words(rng: np.random.Generator) -> tuple[int, ...]:
    """NumPy's generator as the core's six state words."""
    s = rng.bit_generator.state
    state, inc, mask = s["state"]["state"], s["state"]["inc"], 2 ** 64 - 1
    return (state >> 64, state & mask, inc >> 64, inc & mask, s["has_uint32"], s["uinteger"])


def draws_and_states(seed: int, calls: list[tuple[int, int]]) -> None:
    state, rng = pcg64_state(seed), np.random.default_rng(seed)
    for k, (n, count) in enumerate(calls):
        got = np.frombuffer(core.pcg64_integers(state, n, count), dtype=np.int64)
        expected = rng.choice(n, size=count, replace=True)
        assert got.tolist() == expected.tolist(), (seed, k, n, count)
        assert struct.unpack("=6Q", state) == numpy_words(rng), (seed, k, n, count)


@pytest.mark.parametrize("n", RANGES)
@pytest.mark.parametrize("seed", [0, 1, 12345, 2 ** 63])
def test_every_call_leaves_numpys_state(seed, n):
    draws_and_states(seed, [(n, count) for count in COUNTS])


@pytest.mark.parametrize("seed", [3, 2 ** 40])
def test_ranges_in_turn_continue_one_stream(seed):
    """Calls of different ranges hand the spare half on (a 64-bit range leaves it alone)."""
    draws_and_states(seed, [(RANGES[k % len(RANGES)], count) for k, count in enumerate(COUNTS * 2)])


def test_an_empty_call_changes_nothing():
    state = pcg64_state(7)
    core.pcg64_integers(state, 2 ** 31 + 1, 3)  # leaves a spare half
    before = bytes(state)
    assert struct.unpack("=6Q", before)[4] == 1
    for n in RANGES:
        assert core.pcg64_integers(state, n, 0) == b""
        assert bytes(state) == before


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2 ** 64),
       calls=st.lists(st.tuples(st.sampled_from(RANGES), st.integers(0, 300)), min_size=1, max_size=8))
def test_any_calls_equal_numpy(seed, calls):
    draws_and_states(seed, calls)
