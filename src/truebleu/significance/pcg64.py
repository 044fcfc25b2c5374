"""NumPy's ``default_rng(seed)`` without NumPy: SeedSequence and PCG64 seeding.

sacreBLEU draws its samples from ``numpy.random.default_rng(seed)``. That
generator is PCG64 seeded through a SeedSequence; this module computes the
same initial state with Python integers (a few dozen operations), and the
compiled core (``_native/significance/``) draws from it. The tests compare every draw
with NumPy's own generator for many seeds.

SeedSequence (O'Neill's seed_seq design as NumPy implements it): the seed is
split into 32-bit words, least significant first; the words are hashed into a
pool of four words, the pool words are mixed with each other (and with any
words beyond the fourth), and the pool is hashed again to give the output
words. PCG64 takes four 64-bit output words (pairs of 32-bit words, low
first): the first two are the initial state, the last two the stream.
"""

from __future__ import annotations

import struct

MASK32 = 0xFFFFFFFF
MASK128 = (1 << 128) - 1
POOL_SIZE = 4
INIT_A, MULT_A = 0x43B0D7E5, 0x931E8875
INIT_B, MULT_B = 0x8B51F9DD, 0x58F38DED
MIX_MULT_L, MIX_MULT_R = 0xCA01F9DD, 0x4973F715
XSHIFT = 16
PCG_MULTIPLIER = (2549297995355413924 << 64) | 4865540595714422341


def is_plain_seed(seed: object) -> bool:
    """Whether ``seed`` is a non-negative Python int, the seeds this module handles.

    Anything else (``None`` for OS entropy, NumPy generators, negative numbers,
    which NumPy refuses with its own error) is left to NumPy.
    """
    return type(seed) is int and seed >= 0


def seed_words(seed: int) -> list[int]:
    """The seed as 32-bit words, least significant first (0 is one word)."""
    if not is_plain_seed(seed):
        raise ValueError(f"expected a non-negative integer seed, got {seed!r}")
    words = [seed & MASK32]
    seed >>= 32
    while seed:
        words.append(seed & MASK32)
        seed >>= 32
    return words


class _Hash:
    """SeedSequence's multiplicative hash, whose constant advances with every use."""

    def __init__(self, constant: int, multiplier: int) -> None:
        self.constant = constant
        self.multiplier = multiplier

    def __call__(self, value: int) -> int:
        value ^= self.constant
        self.constant = (self.constant * self.multiplier) & MASK32
        value = (value * self.constant) & MASK32
        return value ^ (value >> XSHIFT)


def _mix(x: int, y: int) -> int:
    result = (MIX_MULT_L * x - MIX_MULT_R * y) & MASK32
    return result ^ (result >> XSHIFT)


def seed_sequence_pool(seed: int) -> list[int]:
    """The four-word entropy pool of ``SeedSequence(seed)``."""
    entropy = seed_words(seed)
    hashmix = _Hash(INIT_A, MULT_A)
    pool = [hashmix(entropy[i] if i < len(entropy) else 0) for i in range(POOL_SIZE)]
    for src in range(POOL_SIZE):
        for dst in range(POOL_SIZE):
            if src != dst:
                pool[dst] = _mix(pool[dst], hashmix(pool[src]))
    for word in entropy[POOL_SIZE:]:
        for dst in range(POOL_SIZE):
            pool[dst] = _mix(pool[dst], hashmix(word))
    return pool


def generate_state(seed: int, n_words64: int) -> list[int]:
    """``SeedSequence(seed).generate_state(n_words64, np.uint64)``."""
    pool = seed_sequence_pool(seed)
    hashmix = _Hash(INIT_B, MULT_B)
    words32 = [hashmix(pool[i % POOL_SIZE]) for i in range(2 * n_words64)]
    return [words32[2 * i] | (words32[2 * i + 1] << 32) for i in range(n_words64)]


def _step(state: int, increment: int) -> int:
    return (state * PCG_MULTIPLIER + increment) & MASK128


def pcg64_state(seed: int) -> bytearray:
    """The state of ``PCG64(seed)`` in the layout of the core (``_native/significance/pcg64.h``).

    Six native-endian uint64 words: state high, state low, increment
    high, increment low, whether a spare 32-bit half is held, that half.
    The draws of the compiled core update it in place.
    """
    w = generate_state(seed, 4)
    initstate = (w[0] << 64) | w[1]
    increment = (((w[2] << 64) | w[3]) << 1 | 1) & MASK128
    state = _step(0, increment)
    state = _step((state + initstate) & MASK128, increment)
    return bytearray(struct.pack("=6Q", state >> 64, state & (2 ** 64 - 1),
                                 increment >> 64, increment & (2 ** 64 - 1), 0, 0))
