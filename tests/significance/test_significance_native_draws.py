"""Seeding and draws in the compiled core (no NumPy) against NumPy itself.

NumPy is the oracle: SeedSequence/PCG64 seeding, and every draw of ``Generator.choice`` and
``integers(2, dtype=bool)`` for many seeds, ranges on both sides of the algorithm's boundaries,
and calls split into blocks. The sums drawn rows make, and the whole tests, are in
test_significance_native.py.
"""

from __future__ import annotations

import struct

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

np = pytest.importorskip("numpy")

from truebleu.significance import native  # noqa: E402
from truebleu.significance.pcg64 import generate_state, is_plain_seed, pcg64_state, seed_words  # noqa: E402

core = native._core()
needs_core = pytest.mark.skipif(core is None, reason="the compiled core is not the active backend")

SEEDS = [0, 1, 2, 12345, 2 ** 32 - 1, 2 ** 32, 2 ** 63, 2 ** 64 + 5, 2 ** 127 + 3, 3 ** 200]
# ranges: 1 draws nothing; below 2**32 Lemire on 32-bit draws; 2**32 raw 32-bit draws;
# above, Lemire on 64-bit draws
SIZES = [1, 2, 3, 7, 1002, 2 ** 16, 2 ** 31 + 1, 2 ** 32 - 1, 2 ** 32, 2 ** 32 + 1, 2 ** 40,
         2 ** 62 + 12345, 2 ** 63 - 1]


# -- seeding -----------------------------------------------------------------------

@pytest.mark.parametrize("seed", SEEDS)
def test_seed_sequence_and_pcg64_state_equal_numpy(seed):
    assert generate_state(seed, 4) == np.random.SeedSequence(seed).generate_state(4, np.uint64).tolist()
    words = struct.unpack("=6Q", pcg64_state(seed))
    expected = np.random.PCG64(seed).state
    assert (words[0] << 64 | words[1]) == expected["state"]["state"]
    assert (words[2] << 64 | words[3]) == expected["state"]["inc"]
    assert words[4:] == (expected["has_uint32"], expected["uinteger"])


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 2 ** 300))
def test_seed_sequence_any_size_equals_numpy(seed):
    assert generate_state(seed, 4) == np.random.SeedSequence(seed).generate_state(4, np.uint64).tolist()


@pytest.mark.parametrize("seed", [-1, -2 ** 40, True, 1.0, "1", None, np.int64(3)])
def test_what_numpy_handles_is_left_to_numpy(seed):
    """Negative seeds (NumPy refuses them with its own error), OS entropy and NumPy's
    own integer types are not taken by the native path."""
    assert not is_plain_seed(seed)
    with pytest.raises(ValueError):
        seed_words(seed)
    if isinstance(seed, int) and not isinstance(seed, bool) and seed < 0:
        with pytest.raises(ValueError):
            np.random.default_rng(seed)


# -- draws -------------------------------------------------------------------------

@needs_core
@pytest.mark.parametrize("seed", SEEDS)
def test_every_choice_draw_equals_numpy(seed):
    for n in SIZES:
        state, rng = pcg64_state(seed), np.random.default_rng(seed)
        for count in (1, 5, 0, 64, 3):  # consecutive calls continue one stream
            got = np.frombuffer(core.pcg64_integers(state, n, count), dtype=np.int64)
            assert got.tolist() == rng.choice(n, size=count, replace=True).tolist(), (seed, n, count)
    state, rng = pcg64_state(seed), np.random.default_rng(seed)
    got = np.frombuffer(core.pcg64_integers(state, 2 ** 63, 20), dtype=np.int64).view(np.uint64)
    assert got.tolist() == rng.integers(0, 2 ** 63, size=20, dtype=np.uint64).tolist()


@needs_core
@pytest.mark.parametrize("seed", [0, 12345, 2 ** 63])
def test_choice_in_blocks_equals_one_numpy_call(seed):
    """``choice(n, size=(k, n))`` drawn block by block gives the rows of one call."""
    n, k = 1002, 37
    expected = np.random.default_rng(seed).choice(n, size=(k, n), replace=True)
    state, rows = pcg64_state(seed), []
    for block in (1, 4, 9, 23):
        rows.append(np.frombuffer(core.pcg64_integers(state, n, block * n), dtype=np.int64))
    assert (np.concatenate(rows).reshape(k, n) == expected).all()


@needs_core
@pytest.mark.parametrize("seed", SEEDS)
def test_every_bool_draw_equals_numpy(seed):
    state, rng = pcg64_state(seed), np.random.default_rng(seed)
    for count in (1, 31, 32, 33, 64, 1000, 0, 7):  # a call drops its last draw's spare bits
        got = np.frombuffer(core.pcg64_bools(state, count), dtype=np.uint8).astype(bool)
        assert (got == rng.integers(2, size=count, dtype=bool)).all(), (seed, count)
    # the state carries over to the next kind of call, as NumPy's does
    got = np.frombuffer(core.pcg64_integers(state, 1002, 10), dtype=np.int64)
    assert got.tolist() == rng.choice(1002, size=10).tolist()


@needs_core
def test_bad_state_and_ranges_are_refused():
    with pytest.raises(ValueError):
        core.pcg64_integers(bytearray(40), 3, 1)
    with pytest.raises(BufferError):
        core.pcg64_integers(bytes(48), 3, 1)  # read-only
    with pytest.raises(ValueError):
        core.pcg64_integers(pcg64_state(1), 0, 1)
    with pytest.raises(ValueError):
        core.pcg64_bools(pcg64_state(1), -1)
