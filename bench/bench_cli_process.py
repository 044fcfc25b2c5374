"""The command line on files as a whole process: wall time *and* CPU time, pinned and not.

    python bench/bench_cli_process.py [--data /work/shared/data/wmt21] [--repeat 5]
        [--sacrebleu-repeat 1] [--compare-src OTHER/src]

Runs ``python -m truebleu REF -i HYP -b -q -w 10`` (the bench_speed task "command line
(files)": every WMT21 into-English output and its reference A, concatenated) in child
processes, and prints per tool the median wall time, the median CPU time of the child
(user + system, from ``wait4``) and the child's own peak RSS (VmHWM, ``peak_memory.py``; Linux),
once pinned to one CPU (``taskset``-like: truebleu then uses one thread) and once with every
CPU. CPU time is what a busy machine distorts least; wall time on a shared machine mostly
measures the other processes.
``--compare-src`` runs a second truebleu source tree (e.g. an export of the previous commit
with the same compiled core copied in) interleaved with this one, for before/after figures.
Also prints a bare interpreter start (``python -c pass``) for scale.
"truebleu" is the one installed in this Python's environment: ``PYTHONPATH`` is removed from
the children's environment, so a source tree is measured only through ``--compare-src``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_speed import write_concatenated  # noqa: E402
from callgrind import one_core  # noqa: E402
from peak_memory import run_python  # noqa: E402

DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "wmt21"


def run_once(cmd: list[str], env: dict, pinned: bool) -> tuple[float, float, int, str]:
    """(wall s, CPU s of the child, its own peak RSS in KiB, its stripped stdout) of ``cmd``,
    a ``python ...`` command (``sys.executable`` first), in a fresh process pinned to one CPU
    or not. The peak is the child's VmHWM (``peak_memory.run_python``; Linux), not the
    ``ru_maxrss`` of ``wait4``, which keeps the peak of this bench at fork time."""
    if cmd[0] != sys.executable:
        raise ValueError(f"not a command of this interpreter ({sys.executable}): {cmd}")
    measured = run_python(cmd[1:], env=env, preexec_fn=one_core() if pinned else None)
    return measured.wall_s, measured.cpu_s, measured.peak_kib, measured.stdout.strip()


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--sacrebleu-repeat", type=int, default=1, help="0 leaves sacreBLEU out")
    parser.add_argument("--compare-src", default=None,
                        help="another truebleu src/ directory to run interleaved (before/after)")
    args = parser.parse_args(argv)

    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH",)}
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # users' interpreters read and write .pyc files
    tools = {"truebleu": env}
    if args.compare_src:
        tools["truebleu (compare-src)"] = dict(env, PYTHONPATH=os.path.abspath(args.compare_src))
    with tempfile.TemporaryDirectory() as tmp:
        hyp, ref = Path(tmp) / "hyp", Path(tmp) / "ref"
        n_lines = write_concatenated(args.data, hyp, ref)
        print(f"{n_lines} segments; command: {sys.executable} -m TOOL {ref.name} -i {hyp.name} "
              "-b -q -w 10", flush=True)
        results: dict = {}
        for pinned in (True, False):
            for _ in range(args.repeat):  # interleaved, so that load changes hit every tool
                for name, tool_env in tools.items():
                    cmd = [sys.executable, "-m", "truebleu", str(ref), "-i", str(hyp),
                           "-b", "-q", "-w", "10"]
                    results.setdefault((name, pinned), []).append(run_once(cmd, tool_env, pinned))
                results.setdefault(("python -c pass", pinned), []).append(
                    run_once([sys.executable, "-c", "pass"], env, pinned))
            for _ in range(args.sacrebleu_repeat if pinned else 0):  # one thread either way
                cmd = [sys.executable, "-m", "sacrebleu", str(ref), "-i", str(hyp),
                       "-b", "-q", "-w", "10"]
                results.setdefault(("sacrebleu", pinned), []).append(run_once(cmd, env, pinned))
    print(f"{'tool':26} {'CPUs':>6} {'wall s':>8} {'cpu s':>8} {'peak MiB':>9}  score")
    for (name, pinned), runs in results.items():
        walls, cpus, peaks, outs = zip(*runs)
        print(f"{name:26} {'one' if pinned else 'all':>6} {statistics.median(walls):8.3f} "
              f"{statistics.median(cpus):8.3f} {max(peaks) / 1024:9.0f}  {outs[-1]}")
    print(f"(medians of {args.repeat} runs; sacreBLEU {args.sacrebleu_repeat} run(s), pinned)")
    return report_ratios(results)


def report_ratios(results: dict) -> int:
    """sacreBLEU's pinned wall time over each truebleu run's, once every score is checked
    equal to sacreBLEU's (the printed ``-b -w 10`` number); 1 if one differs."""
    if ("sacrebleu", True) not in results:
        return 0
    expected = results[("sacrebleu", True)][-1][3]
    peer = statistics.median(run[0] for run in results[("sacrebleu", True)])
    for (name, pinned), runs in results.items():
        if name in ("sacrebleu", "python -c pass"):
            continue
        if any(run[3] != expected for run in runs):
            print(f"{name}: score differs from sacreBLEU's ({runs[-1][3]} != {expected})")
            return 1
        cpus = "one CPU" if pinned else "all CPUs"
        print(f"{name}, {cpus}: {peer / statistics.median(run[0] for run in runs):.0f}x "
              "sacreBLEU (pinned), scores identical")
    return 0


if __name__ == "__main__":
    sys.exit(main())
