"""bench_viewer's peak RSS column is the measured command's own peak, not its parent's.

On Linux a child's ``ru_maxrss`` keeps the peak of the process it was forked from, so a 50k
report measured from a parent that had built a 200k one showed about the 200k peak. Here the
test process holds ``HELD`` MiB (written, so resident) while the bench measures a child that
allocates ``CHILD`` MiB: the reported peak must be about the child's, far below what the
parent holds. (Linux only: the child's own peak is read from /proc.)
"""

from __future__ import annotations

import sys

import pytest
from bench_support import bench_module

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"),
                                reason="the measured peak is VmHWM from /proc: Linux only")

HELD, CHILD = 400, 40  # MiB

SCRIPT = f"""
import sys
block = b"\\1" * ({CHILD} << 20)   # written, so resident
print("allocated", len(block) >> 20, "MiB")
sys.exit(0)
"""


def test_the_peak_is_the_childs_own_not_the_parents(tmp_path):
    script = tmp_path / "child.py"
    script.write_text(SCRIPT, encoding="utf-8")
    held = b"\1" * (HELD << 20)
    wall, cpu, peak_mb, out = bench_module("bench_viewer").run_command([str(script), "x"])
    del held
    assert out.strip() == f"allocated {CHILD} MiB"
    assert wall > 0 and cpu > 0
    assert CHILD <= peak_mb < HELD / 2, f"child's peak {peak_mb:.0f} MB (parent holds {HELD} MiB)"


def test_a_module_runs_as_python_m_runs_it_and_failures_say_so(tmp_path):
    run_python = bench_module("peak_memory").run_python
    measured = run_python(["-m", "json.tool", "--compact", str(_write(tmp_path, '{"a": [1, 2]}'))])
    assert measured.stdout == '{"a":[1,2]}\n' and measured.peak_kib > 0
    with pytest.raises(RuntimeError, match="Expecting value"):
        run_python(["-m", "json.tool", str(_write(tmp_path, "not json"))])


def _write(folder, text: str):
    path = folder / "input.json"
    path.write_text(text, encoding="utf-8")
    return path


def test_the_workers_of_bench_speed_and_bench_chrf_ter_report_their_own_peak(tmp_path):
    """Their workers read their peak themselves (they used ``ru_maxrss``, which reported the
    parent's 400 MiB here)."""
    import argparse

    data = tmp_path / "wmt21"
    (data / "references").mkdir(parents=True)
    (data / "system-outputs").mkdir()
    (data / "references" / "newstest2021.xx-en.ref.A.en").write_text("a b c\n", encoding="utf-8")
    (data / "system-outputs" / "newstest2021.xx-en.hyp.S.en").write_text("a b d\n", encoding="utf-8")
    speed = bench_module("bench_speed")
    held = b"\1" * (HELD << 20)
    worker = speed.measure("corpus", "truebleu", data, 1)
    args = argparse.Namespace(data=data, systems=1, repeat=1, quick=True)
    chrf = bench_module("bench_chrf_ter").measure("chrf", "corpus", "truebleu", args)
    command = speed.measure_cli("truebleu", data / "references" / "newstest2021.xx-en.ref.A.en",
                                data / "system-outputs" / "newstest2021.xx-en.hyp.S.en", 1, single=True)
    del held
    for result in (worker, chrf):
        assert 0 < result["base_kb"] <= result["peak_kb"] < (HELD << 10) / 2, result
    assert 0 < command["peak_kb"] < (HELD << 10) / 2 and float(command["scores"][0]) >= 0, command


def test_the_runner_imports_nothing_before_the_command():
    """The measured command's time includes what the runner imports: nothing beyond what
    ``python -c pass`` imports (``-m`` adds runpy, which ``python -m`` imports too)."""
    import subprocess

    def imported(*argv):
        done = subprocess.run([sys.executable, "-X", "importtime", *argv], capture_output=True,
                              text=True, check=True)
        return {line.split("|")[-1].strip() for line in done.stderr.splitlines()[1:]}

    peak_memory = str(bench_module("peak_memory").__file__)
    plain = imported("-c", "pass")
    assert imported(peak_memory, "/dev/null", "-c", "pass") == plain
