"""No leaks: repeated calls of every entry point of the compiled core keep no references,
hold no memory and leave no thread behind.

Each measurement runs in a child process of its own that does nothing else, so that
nothing of pytest (caches, other tests' objects, fragmentation) moves the numbers:

- references: the reference counts of the input strings after many rounds equal those
  after the first round;
- memory: the bytes in use in the C heap (glibc's mallinfo2, with PYTHONMALLOC=malloc so
  that Python objects are counted too) are sampled after every round, past a warm-up;
  their growth per round, fitted over many rounds, must stay below half the smallest
  leak the test guards against: one small allocation (64 bytes) left behind by each call
  of the core. Steady state grows by about 1 byte per call (Python's own caches), so a
  leak of that size is 30 times the noise. (An earlier version measured the RSS of the
  pytest process with an 8 MiB margin, and saw 10.8 MiB once without any leak.)
- threads: after every round the process is back to its number of threads.

Without glibc, the memory check falls back to the RSS, with a margin that a leak of
2 KB per call still exceeds (a page-grained measure cannot see less).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("truebleu._native_core", reason="compiled core not built")

import truebleu  # noqa: E402

# the folder holding the truebleu under test (installed or editable), for the child
PACKAGE_PARENT = str(Path(truebleu.__file__).resolve().parents[1])

# The smallest leak guarded against: one allocation of this many bytes per call.
LEAK_PER_CALL = 64

CHILD = r'''
import ctypes, gc, json, os, sys, time
from array import array
import truebleu._native_core as core

WARMUP, ROUNDS = int(sys.argv[1]), int(sys.argv[2])
MODES = [core.MODE_NONE, core.MODE_13A, core.MODE_INTL, core.MODE_ZH, core.MODE_CHAR]
HYPS = [f"Sentence {i}: ÉTÉ, İstanbul — the CAT sat ... {i % 13}-{i % 7} &amp; 你好" for i in range(2000)]
REFS = [[f"sentence {i}: été, istanbul - the cat sat. {i % 11}", f"A {i} ΣΟΦΟΣ"] for i in range(2000)]
# every input is made once: a round allocates only what the core's calls allocate
LOOSE = [r[0] if i % 3 else [None, *r] for i, r in enumerate(REFS)]
STREAMS = [[r[0] for r in REFS], [r[1] for r in REFS]]
GAPPED = [[r[0] for r in REFS], [None if i % 3 else r[1] for i, r in enumerate(REFS)]]
SMALL_SEGMENTS = [[h] for h in HYPS[:50]]
SHARED_LINES = [HYPS[:60]]
UTF8 = ["\n".join(HYPS[:300]).encode(), "\n".join(r[0] for r in REFS[:300]).encode()]
OUT = array("q", [0]) * (len(HYPS) * 10)
TOTALS = array("q", [0]) * 10
PAIRS = array("q", [0]) * (50 * 50 * 10)
INDEX = array("q", range(60))
CELLS = array("q", [0]) * (60 * 60 * 10)
CELL_SCORES = array("d", [0.0]) * 3600
SCORES = array("d", [0.0]) * len(HYPS)
CHRF = array("q", [0]) * (len(HYPS) * 24)
TER_HYPS, TER_REFS = HYPS[:200], REFS[:200]
TER = array("d", bytes(16 * 200))
STATE = array("Q", [0, 7, 0, 11, 0, 0])
TABLES = [array("q", range(k, k + 500 * 10)) for k in range(2)]
MASKS = bytes(i % 2 for i in range(500 * 20))
BAD_HYPS = HYPS[:-1] + [3]
BAD_STREAMS = (([r[0] for r in REFS[:-1]] + [b"x"],), ([r[0] for r in REFS[:-1]] + [None],))
LINE_UTF8 = HYPS[0].encode()
ID_HYPS = [[i % 50, (i * 7) % 50, 3, 4, 0, 5] * 4 for i in range(2000)]
ID_REFS = [[[i % 50, 3, 4, 5, -100, 6] * 4, array("H", [3, 4, i % 50])] for i in range(2000)]
ID_DROPPED = array("q", [-100, 0])
ID_UNREAD = ID_HYPS[:-1] + [[1.5]]  # not read by the core: False, nothing computed
ID_BAD_DROPPED = array("q", [0, -100])
ID_NO_REFS = ID_REFS[:-1] + [[]]
# a stream of 2,000 lines as ids (the report's tokens), and two reference streams
STREAM_IDS, STREAM_LENGTHS = array("i", [i % 50 for i in range(6000)]), array("q", [3] * 2000)
STREAM_REFS = [(array("q", [i % 40 for i in range(4000)]), array("q", [2] * 2000)),
               (array("i", [i % 7 for i in range(2000)]), array("q", [1] * 2000))]
STREAM_BAD_LENGTHS = array("q", [3] * 1999 + [4])
TOKEN_LINES = [None if i % 17 == 0 else h for i, h in enumerate(HYPS[:600])] + ["x\ud800 y."]
CALLS = 0

def call(f, *args, **kwargs):
    global CALLS
    CALLS += 1
    return f(*args, **kwargs)

def fails(f, *args, **kwargs):
    global CALLS
    CALLS += 1
    try:
        f(*args, **kwargs)
    except (TypeError, ValueError, IndexError, OverflowError):
        return
    raise AssertionError(f"{f.__name__} did not fail")

def one_round():
    for mode in MODES:
        for lowercase in (False, True):
            prepared = call(core.prepare, REFS, mode, lowercase, 2)
            call(core.statistics, HYPS, prepared, mode, lowercase, 4, 2, OUT)
            call(core.statistics, hypotheses=HYPS, prepared=prepared, mode=mode, lowercase=lowercase,
                 max_order=4, threads=2, out=None, totals=TOTALS)
            small = call(core.prepare, SMALL_SEGMENTS, mode, lowercase, 2)
            call(core.pair_statistics, small, small, None, None, 4, 2, PAIRS)
            call(core.tokenize, HYPS[0], mode, lowercase)
            call(core.sentence_statistics, HYPS, LOOSE, mode, lowercase, 4, 2, OUT)
            call(core.sentence_statistics, HYPS, LOOSE, mode, lowercase, 4, 2, None, scores=SCORES,
                 smooth=1, smooth_value=0.1, effective_order=False)
            streams = call(core.prepare_streams, STREAMS, mode, lowercase, 2)
            call(core.statistics, HYPS, streams, mode, lowercase, 4, 2, OUT)
            call(core.stream_statistics, HYPS, GAPPED, mode, lowercase, 4, 2, OUT)
            call(core.stream_statistics, HYPS, GAPPED, mode, lowercase, 4, 2, None, TOTALS)
            call(core.stream_statistics_utf8, UTF8, [len(b) for b in UTF8], 300, mode, lowercase, 4, 2,
                 None, TOTALS)
            shared = call(core.prepare, SHARED_LINES, mode, lowercase, 2)
            call(core.cross_statistics, shared, INDEX, INDEX, 4, 2, CELLS, CELL_SCORES, 3, 0.0, True)
            call(core.bleu_scores, OUT, 4, 3, 0.0, True, SCORES)
            words = call(core.tokens_vocabulary)
            call(core.tokens_stream, TOKEN_LINES, mode, lowercase, words)
            call(core.tokens_vocabulary_words, words)
    call(core.tokenize, LINE_UTF8, core.MODE_13A, False)
    call(core.column_sums, OUT, 10)
    call(core.tokenized_periods, HYPS)
    call(core.utf8_scan, UTF8[0], 0)
    call(core.utf8_line_chars, UTF8[0], 100)
    call(core.utf8_first_long_line, UTF8[0], 0, len(UTF8[0]), 0, 40)
    call(core.chrf_statistics, HYPS, REFS, 6, 2, 0, 0, 4.0, 5.0, 2, CHRF, None)
    call(core.ter_statistics, TER_HYPS, TER_REFS, 2, TER)
    call(core.ter_alignment, TER_HYPS, TER_REFS, 2)
    call(core.pcg64_integers, STATE, 1000, 100)
    call(core.pcg64_bools, STATE, 100)
    sums = call(core.resample_sums, STATE, 20, TABLES, 10)
    call(core.bleu_rows, sums, 4, 3, 0.0, True, True, True, None)
    call(core.bleu_rows, sums, 4, 3, 0.0, True, False, True, sum)
    call(core.randomization_sums, MASKS, TABLES[0], TABLES[1:], 10)
    call(core.ids_statistics, ID_HYPS, ID_REFS, ID_DROPPED, 4, 2, OUT)
    call(core.ids_statistics, ID_HYPS, ID_REFS, ID_DROPPED, 4, 2, None, TOTALS)
    call(core.ids_statistics, ID_UNREAD, ID_REFS, ID_DROPPED, 4, 2, OUT)
    call(core.ids_statistics_streams, STREAM_IDS, STREAM_LENGTHS, STREAM_REFS, 4, 2, OUT)
    # error paths must release what they took
    for bad in ([["a", 1]], [b"x"], None):
        fails(core.prepare, bad, 1, True, 2)
    fails(core.statistics, BAD_HYPS, prepared, 1, True, 4, 2, OUT)
    fails(core.sentence_statistics, HYPS, LOOSE, 1, True, 4, 2, OUT, scores=SCORES[:-1])
    fails(core.chrf_statistics, BAD_HYPS, REFS, 6, 2, 0, 0, 4.0, 5.0, 2, CHRF, None)
    fails(core.ter_statistics, TER_HYPS, [[]] * 200, 2, TER)
    fails(core.ter_alignment, TER_HYPS, TER_REFS[:-1] + [[]], 2)
    for streams in BAD_STREAMS:
        fails(core.stream_statistics, HYPS, streams, 1, True, 4, 2, OUT)
    fails(core.stream_statistics, BAD_HYPS, STREAMS, 1, True, 4, 2, OUT)
    fails(core.ids_statistics, ID_HYPS, ID_REFS, ID_BAD_DROPPED, 4, 2, OUT)
    fails(core.ids_statistics, ID_HYPS, ID_NO_REFS, ID_DROPPED, 4, 2, OUT)
    fails(core.ids_statistics_streams, STREAM_IDS, STREAM_BAD_LENGTHS, STREAM_REFS, 4, 2, OUT)
    fails(core.tokens_stream, TOKEN_LINES[:5] + [3], 1, False, core.tokens_vocabulary())
    fails(core.ids_statistics_streams, STREAM_IDS, STREAM_LENGTHS, STREAM_REFS[:1] + [None], 4, 2, OUT)

class MallInfo2(ctypes.Structure):
    _fields_ = [(name, ctypes.c_size_t)
                for name in ("arena", "ordblks", "smblks", "hblks", "hblkhd",
                             "usmblks", "fsmblks", "uordblks", "fordblks", "keepcost")]

try:
    MALLINFO2 = ctypes.CDLL(None).mallinfo2  # (looked up once: the measuring must not allocate)
    MALLINFO2.restype = MallInfo2
except (OSError, AttributeError):
    MALLINFO2 = None

def heap_in_use():
    """Bytes allocated by malloc and not freed (every arena), or None without glibc."""
    if MALLINFO2 is None:
        return None
    info = MALLINFO2()
    return info.uordblks + info.hblkhd

def rss():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")

def threads():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("Threads:"):
                return int(line.split()[1])

base_threads = threads()

def settle():
    """Waits (at most 5 s) for the helpers of the last calls to be gone, then collects."""
    deadline = time.monotonic() + 5
    while threads() > base_threads and time.monotonic() < deadline:
        time.sleep(0.001)
    gc.collect()
    return threads() - base_threads

# (and output buffers: a Py_buffer left unreleased keeps a reference to its object)
probes = HYPS[:3] + [REFS[0][0], UTF8[0], ID_HYPS[0], ID_REFS[0][1], OUT, TOTALS, SCORES]
one_round()
settle()
refs_before = [sys.getrefcount(x) for x in probes]
for _ in range(WARMUP - 1):
    one_round()
calls_per_round = CALLS // WARMUP
extra_threads = settle()
use_heap = heap_in_use() is not None
samples = array("q", [0]) * (ROUNDS + 1)  # preallocated: the measuring allocates nothing
samples[0] = heap_in_use() if use_heap else rss()
for i in range(1, ROUNDS + 1):
    one_round()
    extra_threads = max(extra_threads, settle())
    samples[i] = heap_in_use() if use_heap else rss()
print(json.dumps({"refs_before": refs_before, "refs_after": [sys.getrefcount(x) for x in probes],
                  "calls_per_round": calls_per_round, "heap": use_heap, "samples": list(samples),
                  "extra_threads": extra_threads}))
'''


def run_child(warmup: int, rounds: int) -> dict:
    env = dict(os.environ, PYTHONMALLOC="malloc",
               PYTHONPATH=PACKAGE_PARENT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.run([sys.executable, "-c", CHILD, str(warmup), str(rounds)], capture_output=True,
                          text=True, env=env, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def growth_per_round(samples: list[int]) -> float:
    """The least-squares slope of the samples (one per round): a one-off step (a cache
    filled once) moves it by step / rounds, a leak by its full size."""
    n = len(samples)
    mean_x, mean_y = (n - 1) / 2, sum(samples) / n
    num = sum((x - mean_x) * (y - mean_y) for x, y in enumerate(samples))
    den = sum((x - mean_x) ** 2 for x in range(n))
    return num / den


@pytest.fixture(scope="module")
def measured():
    if not Path("/proc/self/status").exists():
        pytest.skip("needs /proc (Linux)")
    return run_child(warmup=10, rounds=40)


def test_no_reference_leaks(measured):
    assert measured["refs_after"] == measured["refs_before"]


def test_no_thread_outlives_its_call(measured):
    assert measured["extra_threads"] == 0


def test_memory_does_not_grow(measured):
    samples, calls = measured["samples"], measured["calls_per_round"]
    growth = growth_per_round(samples)
    if measured["heap"]:
        limit = LEAK_PER_CALL * calls / 2
        what = "bytes of C heap"
    else:  # pages, and the allocator's own jitter: a leak of 2 KB per call (the line table of
        # a call of 50 lines) is about the least it resolves
        limit = 1024 * calls
        what = "bytes of RSS"
    assert growth < limit, (f"{growth:.0f} {what} more per round of {calls} calls (limit {limit:.0f}: "
                            f"{LEAK_PER_CALL} bytes left by each call would be {LEAK_PER_CALL * calls}); "
                            f"samples {samples}")
