"""The benches' CPU time and peak memory of a child are that child's own.

* CPU time: bench_significance measured it as the growth of this process's
  ``RUSAGE_CHILDREN`` totals around the command, so any other child reaped in that window
  counted too. Here a finished child that burned ``BURN`` CPU seconds is reaped just as the
  measured ``python -c`` starts (when the bench first reads the clock): the measured CPU time
  must stay the small command's. (Before the fix it was about ``BURN`` more.)
* Peak memory: bench_ter's child and bench_cli_process's runs reported ``ru_maxrss``, which
  on Linux keeps the peak of the parent they were forked from. Here the test process holds
  ``HELD`` MiB while the benches measure children that hold far less: the reported peaks
  must be the children's. (Before the fix both reported about ``HELD`` MiB.)
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time

import pytest
from bench_support import bench_module

linux_only = pytest.mark.skipif(not sys.platform.startswith("linux"),
                                reason="the measured peak is VmHWM from /proc: Linux only")

BURN = 0.6  # CPU seconds of the other child
HELD, CHILD = 400, 40  # MiB held by this process, allocated by a measured child

BURNER = f"""
import time
while time.process_time() < {BURN}:
    pass
"""

ALLOCATE = f"""
import sys
block = b"\\1" * ({CHILD} << 20)   # written, so resident
print("allocated", len(block) >> 20, "MiB")
"""


def test_a_commands_cpu_time_leaves_out_other_children_reaped_meanwhile(monkeypatch):
    burner = subprocess.Popen([sys.executable, "-c", BURNER])
    os.waitid(os.P_PID, burner.pid, os.WEXITED | os.WNOWAIT)  # finished, not yet reaped
    real_clock = time.perf_counter

    def clock_that_reaps_the_burner() -> float:
        if burner.returncode is None:
            _, status = os.waitpid(burner.pid, 0)
            burner.returncode = os.waitstatus_to_exitcode(status)
        return real_clock()

    monkeypatch.setattr(time, "perf_counter", clock_that_reaps_the_burner)
    wall, cpu, out = bench_module("bench_significance").run_command(
        [sys.executable, "-c", "print('truebleu|version:2.6.0|x')"], dict(os.environ))
    monkeypatch.undo()
    assert burner.returncode == 0, "the other child was not reaped in the window"
    assert out == b"truebleu|version|x\n"
    assert 0 < cpu < BURN / 2 and wall > 0, f"{cpu:.2f} CPU s for `python -c print` (other child: {BURN} s)"


def tiny_wmt21(folder):
    data = folder / "wmt21"
    (data / "references").mkdir(parents=True)
    (data / "system-outputs").mkdir()
    (data / "references" / "newstest2021.xx-en.ref.A.en").write_text("a b c\n", encoding="utf-8")
    (data / "system-outputs" / "newstest2021.xx-en.hyp.S.en").write_text("a b d\n", encoding="utf-8")
    return data


@linux_only
def test_bench_ter_reports_its_childs_own_peak(tmp_path):
    args = argparse.Namespace(data=tiny_wmt21(tmp_path), systems=1, repeat=1, threads=None)
    held = b"\1" * (HELD << 20)
    result = bench_module("bench_ter").measure("truebleu-cached", args)
    del held
    assert result["systems"] == 1 and result["segments"] == 1
    assert 0 < result["base"] <= result["peak"] < HELD / 2, result


@linux_only
def test_bench_cli_process_reports_each_runs_own_peak():
    held = b"\1" * (HELD << 20)
    wall, cpu, peak_kib, out = bench_module("bench_cli_process").run_once(
        [sys.executable, "-c", ALLOCATE], dict(os.environ), pinned=False)
    del held
    assert out == f"allocated {CHILD} MiB"
    assert wall > 0 and cpu > 0
    assert CHILD << 10 <= peak_kib < (HELD << 10) / 2, f"{peak_kib} KiB (this process holds {HELD} MiB)"
