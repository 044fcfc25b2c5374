"""A one-pass call's serial arrays kept for the next call (bleu/groups.c, runtime/gather.c).

The grouping's arrays (the items' order and looks, its chains and their table) and the
gatherers' arrays (each str's storage and owner) were allocated and freed by every call,
and a call of 20,000 sentences faulted in about 460 fresh pages for them each time. They
are now kept (runtime/spares.h) up to TB_SPARE_MAX_BYTES, the chains' table is used again
without clearing (stamps), and a kept owners array is all NULL. So:

- calls of every shape after each other (grouped, in the natural order, larger, smaller,
  lowercased, one failing half-way through its gathering) still give the specification's
  rows: nothing a call leaves behind reaches the next one;
- a repeated large call finds its arrays mapped: it faults in almost no fresh pages.
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
from truebleu.metrics.bleu.kernels import PythonKernel  # noqa: E402
from truebleu.metrics.bleu.native import NativeKernel  # noqa: E402
from truebleu.tokenizers import get_tokenizer  # noqa: E402

NATIVE, PYTHON = NativeKernel(), PythonKernel()
PACKAGE_PARENT = str(Path(truebleu.__file__).resolve().parents[1])


def systems(n_refs: int, n_systems: int, salt: int = 0) -> tuple[list[str], list[list[str]]]:
    """Several systems' outputs of one test set, concatenated (the references repeat far
    apart, so the call groups them), some systems agreeing on a line."""
    refs = [f"The {k * 7 + salt} cats sat on mat number {k % 13}, didn't they? Yes." for k in range(n_refs)]
    hyps, refs_of = [], []
    for s in range(n_systems):
        for k, ref in enumerate(refs):
            hyps.append(f"the {k * 7 + salt} cat sat on a mat {(k + s // 2) % 13} , did n't it ?")
            refs_of.append([ref])
    return hyps, refs_of


def distinct(n: int) -> tuple[list[str], list[list[str]]]:
    """One system: every reference its own (the natural order, no grouping)."""
    return ([f"Line {k} of ours, ÉTÉ {k * 31}." for k in range(n)],
            [[f"line {k} of theirs , été {k * 31} ."] for k in range(n)])


TWO_HYPS, ONE_REF = systems(30, 3)
CALLS = [("grouped", systems(40, 6), False), ("smaller", systems(9, 3, 1), False),
         ("larger", systems(150, 4, 2), True), ("natural order", distinct(120), False),
         ("one item", distinct(1), True), ("grouped again", systems(40, 6), True),
         ("two references", (TWO_HYPS, [r + ["Another reference here ."] for r in ONE_REF]), False)]


@pytest.mark.parametrize("threads", [1, 2])
def test_calls_of_every_shape_after_each_other_are_exact(threads):
    tok = get_tokenizer("13a")
    want = {name: PYTHON.sentence_statistics(h, r, tok, low, 4) for name, (h, r), low in CALLS}
    for name, (hyps, refs), lowercase in CALLS + CALLS[::-1]:
        got = NATIVE.sentence_statistics(hyps, refs, tok, lowercase, 4, threads=threads)
        assert got == want[name], name
        streams = [list(s) for s in zip(*refs)]
        got, _ = NATIVE.stream_statistics(hyps, streams, tok, lowercase, 4, threads=threads)
        assert got == want[name], name


def test_a_call_that_fails_while_gathering_leaves_nothing_behind():
    """A hypothesis that is not a str, after thousands that were gathered: the TypeError,
    and the next calls (which take the same kept arrays) are exact."""
    tok = get_tokenizer("13a")
    hyps, refs = systems(500, 4)
    bad = hyps[:1500] + [b"bytes"] + hyps[1501:]
    for lowercase in (False, True):
        with pytest.raises(TypeError):
            NATIVE.sentence_statistics(bad, refs, tok, lowercase, 4)
        want = PYTHON.sentence_statistics(hyps, refs, tok, lowercase, 4)
        assert NATIVE.sentence_statistics(hyps, refs, tok, lowercase, 4) == want


CHILD = r'''
import json, resource
from array import array
import truebleu._native_core as core

refs = ["The %d cats sat on mat number %d, didn't they? Yes, they did." % (k * 7, k % 13)
        for k in range(2000)]
hyps, refs_of = [], []
for s in range(10):  # ten systems of one test set: 20,000 items in 2,000 groups
    for k, ref in enumerate(refs):
        hyps.append("the %d cat sat on a mat %d , did n't it ?" % (k * 7, (k + s // 2) % 13))
        refs_of.append([ref])

def faults():
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt

def scores():  # the core's own call (the Python layer's result list faults pages of its own)
    core.sentence_statistics(hyps, refs_of, core.MODE_13A, False, 4, 1, None, scores=out)

out = array("d", [0.0]) * len(hyps)
scores()
first = array("d", out)
before = faults()
for _ in range(5):
    scores()
    assert out == first
print(json.dumps({"items": len(hyps), "faults_per_call": (faults() - before) / 5}))
'''


@pytest.mark.skipif("libasan" in os.environ.get("LD_PRELOAD", ""),
                    reason="AddressSanitizer's allocator is not glibc's (it maps its own pages)")
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="minor page faults as Linux counts them")
def test_a_repeated_call_finds_its_arrays_mapped():
    env = dict(os.environ, PYTHONPATH=PACKAGE_PARENT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    got = json.loads(proc.stdout.strip().splitlines()[-1])
    # the arrays kept: the grouping's 64 bytes an item and a table of 16 or more, and two
    # gatherers' 32 bytes a string: about 2.8 MB, 700 pages of 4 KiB. Allocated afresh,
    # each call faulted in most of them again (840 faults a call in all); kept, what a
    # call still faults in is the rest of its arrays (the hypotheses' tuple, the
    # references' offsets and holders: about 120 pages).
    pages = got["items"] * (64 + 16 + 2 * 32) // 4096
    assert got["faults_per_call"] < pages / 4, got
