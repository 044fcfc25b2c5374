"""bench/fuzz_ids.py, the fuzzer of BLEU on token ids: it passes on the core as it is, and it
can fail. Two deliberately wrong cores, each a bug the core's ids path could have, must make
it report a difference (the seed, the item, the rows) and exit with status 1 within a few
hundred inputs: ids read as their low 32 bits (a vocabulary keyed by 32-bit ids), and the
look-ahead's mistake (an item given the references of the item before when their sequences
have the same lengths, not the same ids)."""

from __future__ import annotations

import pytest
from bench_support import bench_module

pytest.importorskip("truebleu._native_core")
fuzz_ids = bench_module("fuzz_ids")
REAL_NATIVE_ROWS = fuzz_ids.native_rows


def as_list(seq):
    return seq.tolist() if hasattr(seq, "tolist") else list(seq)


def low_32_bits(hyps, refs, dropped, order, threads, totals_only):
    dropped_ids = set(dropped)

    def low(seq):
        return [v if type(v) is not int or v in dropped_ids else v & 0xFFFFFFFF
                for v in as_list(seq)]
    return REAL_NATIVE_ROWS([low(h) for h in hyps], [[low(r) for r in rs] for rs in refs],
                            dropped, order, threads, totals_only)


def same_lengths_same_references(hyps, refs, dropped, order, threads, totals_only):
    kept, before = [], None
    for rs in refs:
        rs = [as_list(r) for r in rs]
        if before is not None and [len(r) for r in rs] == [len(r) for r in before]:
            rs = before
        kept.append(rs)
        before = rs
    return REAL_NATIVE_ROWS([as_list(h) for h in hyps], kept, dropped, order, threads,
                            totals_only)


def test_passes_on_the_core(capsys):
    assert fuzz_ids.main(["-n", "600", "--seed", "5", "--batch", "200"]) == 0
    assert "finished: 600 inputs" in capsys.readouterr().out


@pytest.mark.parametrize("wrong", [low_32_bits, same_lengths_same_references])
def test_reports_a_wrong_core(monkeypatch, capsys, wrong):
    monkeypatch.setattr(fuzz_ids, "native_rows", wrong)
    assert fuzz_ids.main(["-n", "600", "--seed", "5", "--batch", "200"]) == 1
    out = capsys.readouterr().out
    assert "DIFF seed=5 batch=" in out
    assert "native=" in out and "python=" in out
    assert "differences" in out.splitlines()[-1] and " 0 differences" not in out.splitlines()[-1]


def test_a_difference_is_shrunk(monkeypatch, capsys):
    """The report gives the smallest items that still differ: here the wrong core's item
    and the item before it whose references it takes, a few ids each."""
    monkeypatch.setattr(fuzz_ids, "native_rows", same_lengths_same_references)
    fuzz_ids.main(["-n", "600", "--seed", "5", "--batch", "200"])
    shrunk = [line for line in capsys.readouterr().out.splitlines() if "shrunk" in line]
    assert shrunk and "(2 items" in shrunk[0]
