"""Bounded memory: the accumulator and the file path keep a batch, not the corpus.

Each measurement runs in its own Python process and reports its peak RSS
(``ru_maxrss``); a stream ten times longer must not raise the peak by more than
a few MiB, while keeping the corpus itself would cost tens of MiB.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="needs the resource module")

# a generated stream: segment i is one of 1000 random word sequences plus its number
STREAM = textwrap.dedent("""
    import random, resource, sys
    WORDS = "the a cat dog sat on mat . , is was and of to it this that with for".split()
    _rng = random.Random(1)
    POOL = [" ".join(_rng.choice(WORDS) for _ in range(_rng.randint(5, 40))) for _ in range(1000)]
    def segment(i, shift):
        return f"{POOL[(i * 7 + shift) % 1000]} {i}"
""")

ACCUMULATE = STREAM + textwrap.dedent("""
    import truebleu
    n = int(sys.argv[1])
    acc = truebleu.BLEU(force=True).accumulator()
    for start in range(0, n, 1000):
        hyps = [segment(i, 0) for i in range(start, start + 1000)]
        refs = [[segment(i, 1) for i in range(start, start + 1000)]]
        acc.update(hyps, refs)
    assert acc.segments == n
    print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
""")

WRITE_FILES = STREAM + textwrap.dedent("""
    n, hyp_path, ref_path = int(sys.argv[1]), sys.argv[2], sys.argv[3]
    with open(hyp_path, "w") as hyp, open(ref_path, "w") as ref:
        for i in range(n):
            hyp.write(segment(i, 0) + "\\n")
            ref.write(segment(i, 1) + "\\n")
""")

SCORE_FILES = textwrap.dedent("""
    import resource, sys
    from truebleu import BLEU
    from truebleu.metrics.streaming import score_files
    result = score_files(sys.argv[1], [sys.argv[2]], BLEU(force=True), chunk_lines=1000)
    assert result.segments == int(sys.argv[3])
    print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
""")


def peak_kib(script: str, *args) -> int:
    out = subprocess.run([sys.executable, "-c", script, *map(str, args)], check=True,
                         capture_output=True, text=True).stdout
    return int(out.split()[-1])


# 10k segments against 300k: keeping the long stream's strings would cost ~80 MiB,
# its statistics rows alone 23 MiB (the peak then grows by ~15 MiB over the short
# run's transient peak: measured); the peaks of the two runs differ by well under
# 1 MiB when nothing is kept, so 4 MiB of slack is generous
SHORT, LONG, SLACK_KIB = 10_000, 300_000, 4 * 1024


def test_accumulator_memory_does_not_grow_with_the_stream():
    short = peak_kib(ACCUMULATE, SHORT)
    long = peak_kib(ACCUMULATE, LONG)
    assert long - short < SLACK_KIB, f"peak RSS {short} KiB for {SHORT} segments, {long} KiB for {LONG}"


def test_file_scoring_memory_does_not_grow_with_the_file(tmp_path):
    peaks = []
    for n in (SHORT, LONG):
        hyp, ref = tmp_path / f"hyp{n}", tmp_path / f"ref{n}"
        subprocess.run([sys.executable, "-c", WRITE_FILES, str(n), str(hyp), str(ref)], check=True)
        peaks.append(peak_kib(SCORE_FILES, hyp, ref, n))
    assert peaks[1] - peaks[0] < SLACK_KIB, f"peak RSS {peaks} KiB for {SHORT} and {LONG} lines"
