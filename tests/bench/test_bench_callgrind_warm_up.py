"""Every bench's whole-process callgrind count is the work of a run, not a first run's compiling.

A process's first run compiles the bytecode of every module it imports (``-pbs``: 655 M
instructions counted instead of 343 M). Each bench with a callgrind mode (bench_speed,
bench_chrf_ter, bench_significance) must run the counted command once, uncounted, in the same
environment, right before counting it, and that environment must let Python write its caches
(no ``PYTHONDONTWRITEBYTECODE``, which the test sets, as this project's sessions do). The
commands are recorded, not run: no valgrind is needed. (Before the fix bench_chrf_ter counted
its whole process with no such run: it only worked when a core-only count happened first.)
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys

import pytest
from bench_support import bench_module

VALGRIND_OUTPUT = "==1== Events    : Ir\n==1== Collected : 1000\n"


@pytest.fixture
def recorded(monkeypatch):
    """subprocess.run recorded: (argv, env) of each call; valgrind 'counts' 1000."""
    calls: list[tuple[list[str], dict]] = []

    def run(argv, *args, **kwargs):
        calls.append((list(argv), dict(kwargs.get("env") or {})))
        return subprocess.CompletedProcess(argv, 0, stdout="", stderr=VALGRIND_OUTPUT)

    monkeypatch.setenv("PYTHONDONTWRITEBYTECODE", "1")
    monkeypatch.setattr(subprocess, "run", run)
    monkeypatch.setattr(shutil, "which", lambda name, *a, **k: f"/usr/bin/{name}")
    return calls


def whole_process_counts_after_a_warm_up(calls) -> int:
    """The number of whole-process counts; fails unless each follows its warm-up run."""
    counted = 0
    for k, (argv, env) in enumerate(calls):
        if argv[0] != "valgrind" or "--collect-atstart=no" in argv:
            continue
        start = next(i for i in range(1, len(argv)) if not argv[i].startswith("--"))
        command = argv[start:]  # what follows valgrind's own options
        assert k > 0 and calls[k - 1] == (command, env), f"{command[:4]}... counted without a run before"
        assert "PYTHONDONTWRITEBYTECODE" not in env
        counted += 1
    return counted


def fake_wmt21(folder):
    """The smallest folder the benches read: one X-en test set and one system output."""
    (folder / "references").mkdir(parents=True)
    (folder / "system-outputs").mkdir()
    (folder / "references" / "newstest2021.xx-en.ref.A.en").write_text("a b c\n", encoding="utf-8")
    (folder / "system-outputs" / "newstest2021.xx-en.hyp.S.en").write_text("a b d\n", encoding="utf-8")
    return folder


def test_bench_chrf_ter(recorded, tmp_path, capsys):
    args = argparse.Namespace(data=fake_wmt21(tmp_path / "wmt21"), systems=1)
    bench_module("bench_chrf_ter").callgrind_table(args)
    assert whole_process_counts_after_a_warm_up(recorded) == 3
    assert capsys.readouterr().out.count("| 1,000 | 1,000 |") == 3


def test_bench_speed(recorded, tmp_path):
    counts = bench_module("bench_speed").callgrind_instructions(fake_wmt21(tmp_path / "wmt21"))
    assert whole_process_counts_after_a_warm_up(recorded) == 1
    assert set(counts.values()) == {1000}


def test_bench_significance(recorded, tmp_path, capsys):
    wmt = fake_wmt21(tmp_path / "data" / "wmt21")
    (wmt / "references" / "newstest2021.en-de.ref.A.de").write_text("a\n", encoding="utf-8")
    bench_module("bench_significance").callgrind_instructions(tmp_path, 9)
    assert whole_process_counts_after_a_warm_up(recorded) == 2
    assert capsys.readouterr().out.count("| 1,000 |") == 2


def test_the_check_sees_a_count_without_a_warm_up():
    calls = [([sys.executable, "-c", "pass"], {}),
             (["valgrind", "--tool=callgrind", sys.executable, "-m", "truebleu"], {})]
    with pytest.raises(AssertionError, match="counted without a run before"):
        whole_process_counts_after_a_warm_up(calls)
