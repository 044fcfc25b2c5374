"""chrF's kept scratch (chrf/chrf.c, runtime/spares.h): one call's tables serve the next.

A worker takes a scratch kept by an earlier call (its 256 KB code point map, n-gram
tables, word vocabulary, line buffers) instead of allocating and zeroing it again, and
gives it back when it leaves, unless it grew past TB_SPARE_MAX_BYTES (4 MiB). So:

- whatever a call leaves in the tables, the next call's rows are still exact: calls of
  every shape (chrF, chrF++, whitespace kept, astral code points that take the chained
  counting, a huge line, empty lines, many distinct characters), each after each other,
  on one thread and several, equal the Python specification's rows;
- a call keeps its scratch (the C heap holds it after the call; before, every call
  freed it), the next calls reuse it (the heap does not grow), and a call whose
  scratch grew past the bound keeps nothing of it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

core = pytest.importorskip("truebleu._native_core", reason="compiled core not built")

import truebleu  # noqa: E402
from truebleu.metrics.chrf import CHRF  # noqa: E402

PACKAGE_PARENT = str(Path(truebleu.__file__).resolve().parents[1])

BASIC = ([f"The cat {i} sat on the mat, didn't it?" for i in range(40)],
         [f"the cat sat {i % 7} on a mat . did it not" for i in range(40)])
ASTRAL = ([f"😀 {i} 𝔘𝔫𝔦𝔠𝔬𝔡𝔢 cat" for i in range(20)], [f"𝔘𝔫𝔦𝔠𝔬𝔡𝔢 😀 cats {i}" for i in range(20)])
MANY_SYMBOLS = ([" ".join(chr(0x4E00 + (i * 37 + k) % 3000) for k in range(300)) for i in range(8)],
                [" ".join(chr(0x4E00 + (i * 41 + k) % 2500) for k in range(280)) for i in range(8)])
HUGE = (["abc def ghi " * 60_000, "short line"], ["abd def gh", "short  line ."])
EMPTY = (["", "word", " "], ["", "", "word"])

#: (name, hypotheses and references, CHRF options)
CALLS = [("chrF", BASIC, {}), ("chrF++", BASIC, {"word_order": 2}),
         ("whitespace", BASIC, {"whitespace": True}), ("astral chrF++", ASTRAL, {"word_order": 2}),
         ("many symbols", MANY_SYMBOLS, {"word_order": 2}), ("huge line", HUGE, {"word_order": 2}),
         ("empty", EMPTY, {"word_order": 1}), ("chrF++ again", BASIC, {"word_order": 2})]


def rows(backend: str, data, options: dict, threads: int = 1) -> list[int]:
    hyps, refs = data
    extra = {"threads": threads} if backend == "native" else {}
    metric = CHRF(backend=backend, **options, **extra)
    return list(metric.corpus_statistics(hyps, [refs]).data)


@pytest.fixture(scope="module")
def expected() -> dict[str, list[int]]:
    return {name: rows("python", data, options) for name, data, options in CALLS}


@pytest.mark.parametrize("threads", [1, 3])
def test_calls_of_every_shape_after_each_other_are_exact(expected, threads):
    """Each shape follows each other one (the list forwards, then backwards)."""
    for name, data, options in CALLS + CALLS[::-1]:
        assert rows("native", data, options, threads) == expected[name], name


CHILD = r'''
import ctypes, json, sys
from array import array
import truebleu._native_core as core

class MallInfo2(ctypes.Structure):
    _fields_ = [(name, ctypes.c_size_t) for name in ("arena", "ordblks", "smblks", "hblks", "hblkhd",
                "usmblks", "fsmblks", "uordblks", "fordblks", "keepcost")]
MALLINFO2 = ctypes.CDLL(None).mallinfo2
MALLINFO2.restype = MallInfo2

def heap():
    info = MALLINFO2()
    return info.uordblks + info.hblkhd

SMALL = ["the cat sat on the mat %d" % i for i in range(50)]
SMALL_REFS = [["a cat sat on a mat %d" % (i % 9)] for i in range(50)]
HUGE = ["x%d " % (i % 1000) for i in range(400000)]
HUGE = ["".join(HUGE)]  # 2 MB of text: 8 MB of symbol ids, past the 4 MiB bound
HUGE_REFS = [["x1 x2 x3"]]
small_out = array("q", [0]) * (50 * 3 * 8)
huge_out = array("q", [0]) * (3 * 8)

def chrf(hyps, refs, out):
    core.chrf_statistics(hyps, refs, 6, 2, False, False, 4.0, 5.0, 1, out, None)

before = heap()
chrf(SMALL, SMALL_REFS, small_out)
kept = heap()
for _ in range(20):
    chrf(SMALL, SMALL_REFS, small_out)
again = heap()
chrf(HUGE, HUGE_REFS, huge_out)
after_huge = heap()
print(json.dumps({"before": before, "kept": kept, "again": again, "after_huge": after_huge}))
'''


@pytest.mark.skipif("libasan" in os.environ.get("LD_PRELOAD", ""),
                    reason="AddressSanitizer's allocator is not glibc's (mallinfo2 does not see it)")
def test_a_call_keeps_its_scratch_for_the_next_and_not_a_huge_one():
    if not hasattr(__import__("ctypes").CDLL(None), "mallinfo2"):
        pytest.skip("needs glibc's mallinfo2 (Linux)")
    env = dict(os.environ, PYTHONMALLOC="malloc",
               PYTHONPATH=PACKAGE_PARENT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    heap = json.loads(proc.stdout.strip().splitlines()[-1])
    kib = 1024
    # the first call keeps its scratch: at least the 256 KB code point map
    assert heap["kept"] - heap["before"] >= 256 * kib, heap
    # the next calls take it again: no more memory (a new scratch each would be 256 KB more)
    assert abs(heap["again"] - heap["kept"]) < 32 * kib, heap
    # a scratch grown past 4 MiB is freed, not kept (the small one it grew from with it)
    assert heap["after_huge"] - heap["before"] < 32 * kib, heap
