"""No leaks: repeated calls neither keep references nor grow the process."""

from __future__ import annotations

import gc
import sys
from array import array

import pytest

core = pytest.importorskip("truebleu._native_core", reason="compiled core not built")

from truebleu.metrics.bleu.native import MODES  # noqa: E402


def rss_bytes() -> int:
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * 4096
    except OSError:
        pytest.skip("needs /proc/self/statm")


HYPS = [f"Sentence {i}: ÉTÉ, İstanbul — the CAT sat ... {i % 13}-{i % 7} &amp; 你好" for i in range(2000)]
REFS = [[f"sentence {i}: été, istanbul - the cat sat. {i % 11}", f"A {i} ΣΟΦΟΣ"] for i in range(2000)]


def one_round():
    for mode in MODES.values():
        for lowercase in (False, True):
            prepared = core.prepare(REFS, mode, lowercase, 2)
            out = array("q", [0]) * (len(HYPS) * 10)
            core.statistics(HYPS, prepared, mode, lowercase, 4, 2, out)
            pairs = array("q", [0]) * (50 * 50 * 10)
            small = core.prepare([[h] for h in HYPS[:50]], mode, lowercase, 2)
            core.pair_statistics(small, small, None, None, 4, 2, pairs)
            core.tokenize(HYPS[0], mode, lowercase)
            core.sentence_statistics(HYPS, [r[0] if i % 3 else [None, *r] for i, r in enumerate(REFS)],
                                     mode, lowercase, 4, 2, out)
            streams = core.prepare_streams([[r[0] for r in REFS], [r[1] for r in REFS]], mode, lowercase, 2)
            core.statistics(HYPS, streams, mode, lowercase, 4, 2, out)
            core.stream_statistics(HYPS, [[r[0] for r in REFS], [None if i % 3 else r[1] for i, r in
                                                                enumerate(REFS)]],
                                   mode, lowercase, 4, 2, out)
            shared = core.prepare([HYPS[:60]], mode, lowercase, 2)
            index = array("q", range(60))
            cells = array("q", [0]) * (60 * 60 * 10)
            core.cross_statistics(shared, index, index, 4, 2, cells, array("d", [0.0]) * 3600, 3, 0.0, True)
            scores = array("d", [0.0]) * len(HYPS)
            core.bleu_scores(out, 4, 3, 0.0, True, scores)
    # error paths must release what they took
    for bad in ([["a", 1]], [b"x"], None):
        with pytest.raises(TypeError):
            core.prepare(bad, 1, True, 2)
    with pytest.raises(TypeError):
        core.statistics(HYPS[:-1] + [3], prepared, 1, True, 4, 2, out)
    for hyps, streams in ((HYPS[:-1] + [3], [[r[0] for r in REFS]]),
                          (HYPS, [[r[0] for r in REFS[:-1]] + [b"x"]]),
                          (HYPS, [[r[0] for r in REFS[:-1]] + [None]])):
        with pytest.raises((TypeError, ValueError)):
            core.stream_statistics(hyps, streams, 1, True, 4, 2, out)


def test_no_reference_leaks():
    one_round()
    probes = HYPS[:3] + [REFS[0][0]]
    before = [sys.getrefcount(x) for x in probes]
    for _ in range(3):
        one_round()
    gc.collect()
    assert [sys.getrefcount(x) for x in probes] == before


def test_process_does_not_grow():
    for _ in range(3):
        one_round()
    gc.collect()
    start = rss_bytes()
    for _ in range(15):
        one_round()
    gc.collect()
    grown = rss_bytes() - start
    assert grown < 8 * 2**20, f"RSS grew by {grown / 2**20:.1f} MiB over 15 rounds"
