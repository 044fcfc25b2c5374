"""mteval's NIST score does not depend on the interpreter's string hashing.

A segment's information sum adds ``info * matched`` over its matched n-grams.
Iterated in a set's order (the intersection of two Counters' keys), the float
additions followed ``PYTHONHASHSEED``; the specification now sums each segment
exactly (``math.fsum``), so every order gives the same bits. Each child process
scores the same generated corpora (many matched n-grams per segment, fractional
weights) under its own hash seed, and prints the ``repr`` of every NIST score.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src"

CHILD = """
import random
from truebleu.dialects.mteval import MtevalDialect
rng = random.Random(7)
vocab = [f"w{i}" for i in range(30)]
for _ in range(30):
    hyps, refs = [], []
    for _ in range(5):
        ref = [rng.choice(vocab) for _ in range(rng.randint(20, 40))]
        hyp = list(ref)
        rng.shuffle(hyp)
        hyp = hyp[:rng.randint(10, len(hyp))] + ref[:10]
        hyps.append(" ".join(hyp))
        refs.append(" ".join(ref))
    print(repr(MtevalDialect().corpus_score(hyps, [refs]).nist))
"""


def _scores(seed: int) -> str:
    env = {**os.environ, "PYTHONHASHSEED": str(seed),
           "PYTHONPATH": os.pathsep.join(filter(None, [str(SRC), os.environ.get("PYTHONPATH")]))}
    result = subprocess.run([sys.executable, "-c", CHILD], env=env, capture_output=True,
                            text=True, timeout=300, check=True)
    return result.stdout


def test_nist_is_the_same_under_every_hash_seed():
    first = _scores(0)
    assert first.count("\n") == 30
    for seed in (1, 2, 3, 4):
        assert _scores(seed) == first, f"PYTHONHASHSEED={seed} changes the NIST score"
