"""Significance tests: truebleu against sacreBLEU 2.6.0, side by side, one process.

On the 20 WMT21 en-de systems (the first file is the baseline, as sacreBLEU's
``-i`` takes it): paired bootstrap (``-pbs``, 1000 resamples), paired
approximate randomization (``-par``, 10000 trials) and a single-system
bootstrap interval (``-ci``, 1000). Both tools start from the same lines in
memory and compute their statistics themselves (tokenizing included); the
results are checked to be identical before the times are reported.

``--commands`` adds (or ``--commands-only`` gives only) the whole command line
as a user runs it: ``sacrebleu REF -i SYS... -pbs`` against ``truebleu REF -i
SYS... -pbs`` (and ``-ci`` on one system, ``-par`` with ``--with-par``), each
a fresh process including interpreter start-up and imports, alternating the two
tools run by run; stdout must be byte-identical. Each tool's median and best
(fastest) run are printed, wall and CPU; the speed-ups divide medians, or best
runs with ``--ratios best``. Both run with bytecode caches
(one warm-up run each writes them, as an installed package has them). The
command lines take the first ``--systems`` files in name order (9: issue 25's
row; 20 is every WMT21 en-de system). ``--quick`` is ``--commands-only
--command-repeat 1``: a sanity check, not a measurement. ``--callgrind`` adds
the instructions callgrind counts in the whole ``truebleu ... -pbs`` process
and in ``python -c pass`` (the interpreter's own start-up), which no other load
on the machine changes.

    python bench/bench_significance.py [--shared PATH] [--repeat 5]
    python bench/bench_significance.py --commands-only [--command-repeat 3] [--with-par]
    python bench/bench_significance.py --quick --callgrind

Prints a markdown table. Not a test: nothing fails because a machine is slow.
"""

from __future__ import annotations

import argparse
import os
import platform
import re
import shutil
import sys
from pathlib import Path

from timing import add_ratio_flag, best_of, run_child, spread, times_note

DEFAULT_SHARED = Path(__file__).resolve().parents[1].parent / "shared"


def run_command(argv: list[str], env: dict) -> tuple[float, float, bytes]:
    """(wall seconds, CPU seconds of that one process, stdout with the version field blanked)."""
    run = run_child(argv, env=env)
    if run.exit_code != 0:
        raise RuntimeError(f"{' '.join(argv[:3])}... failed ({run.exit_code}): "
                           f"{run.stderr.decode('utf-8', 'replace')[-2000:]}")
    # the signature names each tool's own version; everything else must be equal
    return run.wall_s, run.cpu_s, re.sub(rb'version(":\s*"|:)[^|"\s]*', b"version", run.stdout)


def command_files(shared: Path, n_systems: int) -> tuple[str, list[str]]:
    """The reference and the first ``n_systems`` WMT21 en-de system files, in name order."""
    wmt = shared / "data" / "wmt21"
    ref = str(wmt / "references" / "newstest2021.en-de.ref.A.de")
    systems = [str(p) for p in sorted((wmt / "system-outputs").glob("newstest2021.en-de.hyp.*.de"))]
    return ref, systems[:n_systems]


def command_env() -> dict[str, str]:
    """The environment of the timed commands: bytecode caches written, the default seed."""
    return {k: v for k, v in os.environ.items()
            if k not in ("PYTHONDONTWRITEBYTECODE", "SACREBLEU_SEED")}


SACREBLEU = "sacreBLEU 2.6.0"


def command_row(label: str, walls: dict[str, list[float]], cpus: dict[str, list[float]],
                same: bool, ratios: str, before: bool) -> str:
    """One command's row: each tool's median and best wall / CPU seconds, the speed-ups
    (of medians, or of best runs with ``ratios="best"``), whether the outputs agree."""
    wall = {name: spread(t) for name, t in walls.items()}
    cpu = {name: spread(t) for name, t in cpus.items()}
    key = f"{ratios}_s"

    def times(name: str, digits: int) -> str:
        return (f"{wall[name]['median_s']:.{digits}f} / {cpu[name]['median_s']:.{digits}f} | "
                f"{wall[name]['best_s']:.{digits}f} / {cpu[name]['best_s']:.{digits}f}")

    def speed_up(name: str, sep: str) -> str:
        return (f"{wall[SACREBLEU][key] / wall[name][key]:.0f}x{sep}"
                f"{cpu[SACREBLEU][key] / cpu[name][key]:.0f}x")

    row = (f"| {label} | {times(SACREBLEU, 2)} | {times('truebleu', 3)} | "
           f"{speed_up('truebleu', ' | ')} | {'yes' if same else 'NO'} |")
    if before:
        row += f" {times('truebleu before', 3)} | {speed_up('truebleu before', ' / ')} |"
    return row


def command_lines(shared: Path, repeat: int, with_par: bool, before: str | None = None,
                  n_systems: int = 9, ratios: str = "median") -> None:
    """Whole processes, side by side: sacreBLEU's command and truebleu's.

    ``before``: another install's ``truebleu`` executable (e.g. the main branch's),
    timed in the same alternation so that "before" and "after" share the load.
    """
    wmt = shared / "data" / "wmt21"
    ref, systems = command_files(shared, n_systems)
    env = command_env()
    bindir = Path(sys.executable).parent
    tools = {SACREBLEU: shutil.which("sacrebleu", path=str(bindir)) or shutil.which("sacrebleu"),
             "truebleu": str(bindir / "truebleu")}
    if before:
        tools["truebleu before"] = before
    tasks = [(f"`-pbs`: {len(systems)} systems (1000 resamples)", ["-pbs"], systems),
             ("`-ci`: one system (1000 resamples)", ["-ci"], systems[:1])]
    if with_par:
        tasks.append((f"`-par`: {len(systems)} systems (10000 trials)", ["-par"], systems))
    print(f"Whole command line, fresh process each run, {repeat} runs per tool alternating; "
          f"{os.cpu_count()} CPUs, load average at start {os.getloadavg()[0]:.1f}. "
          f"CPU = user + system time of the process, which other load barely changes:\n")
    extra = " | truebleu before median wall / CPU (s) | best | before: speed-up wall / CPU" if before else ""
    print("| command | sacreBLEU 2.6.0 median wall / CPU (s) | best | truebleu median wall / CPU (s) | best "
          f"| speed-up wall | speed-up CPU | identical stdout{extra} |")
    print("|---|---:|---:|---:|---:|---:|---:|:---:|" + ("---:|---:|---:|" if before else ""))
    for label, flags, paths in tasks:
        outputs, walls, cpus = {}, {name: [] for name in tools}, {name: [] for name in tools}
        for name, exe in tools.items():  # warm-up: writes bytecode caches
            _, _, outputs[name] = run_command([exe, ref, "-i", *paths, *flags], env)
        for _ in range(repeat):
            for name, exe in tools.items():
                wall, cpu, out = run_command([exe, ref, "-i", *paths, *flags], env)
                walls[name].append(wall)
                cpus[name].append(cpu)
                if out != outputs[name]:
                    outputs[name] = b"differs between runs"
        same = len(set(outputs.values())) == 1
        print(command_row(label, walls, cpus, same, ratios, before is not None))
    print("\n" + times_note(ratios, f"each tool's runs (--command-repeat {repeat})"))
    print(f"\nReproduce one row: `time sacrebleu {ref} -i SYS... -pbs` and the same with "
          f"`truebleu`, SYS the first {len(systems)} of {wmt}/system-outputs/"
          f"newstest2021.en-de.hyp.*.de in name order.")


def callgrind_instructions(shared: Path, n_systems: int) -> None:
    """Instructions of the whole ``truebleu REF -i SYS... -pbs`` process and of ``python -c
    pass``, counted by callgrind (one run each, after a run that writes the bytecode caches)."""
    if shutil.which("valgrind") is None:
        print("\ninstructions (callgrind): not measured, valgrind is not installed")
        return
    from callgrind import count_instructions

    ref, systems = command_files(shared, n_systems)
    commands = {f"`truebleu REF -i SYS... -pbs`, {len(systems)} systems, whole process":
                [sys.executable, "-m", "truebleu", ref, "-i", *systems, "-pbs"],
                "`python -c pass` (the interpreter's start-up)": [sys.executable, "-c", "pass"]}
    print("\n| instructions (callgrind) | count |")
    print("|---|---:|")
    for label, argv in commands.items():  # each after an uncounted run (bytecode caches)
        print(f"| {label} | {count_instructions(argv, pinned=False, env=command_env()):,} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--shared", default=os.environ.get("TRUEBLEU_SHARED", DEFAULT_SHARED))
    parser.add_argument("--repeat", type=int, default=5, help="truebleu runs (best is kept)")
    parser.add_argument("--commands", action="store_true",
                        help="also time the whole command lines (fresh processes)")
    parser.add_argument("--commands-only", action="store_true",
                        help="only time the whole command lines")
    parser.add_argument("--command-repeat", type=int, default=3,
                        help="runs per tool of each command line")
    parser.add_argument("--before", default=None, metavar="TRUEBLEU",
                        help="another install's truebleu executable, timed alongside "
                             "(with --commands/--commands-only)")
    parser.add_argument("--with-par", action="store_true",
                        help="include -par in the command lines (sacreBLEU takes minutes on a busy machine)")
    parser.add_argument("--systems", type=int, default=9,
                        help="system files of the command lines, the first in name order "
                             "(default: %(default)s, issue 25's row; 20 is all)")
    parser.add_argument("--quick", action="store_true",
                        help="--commands-only --command-repeat 1: a sanity check")
    parser.add_argument("--callgrind", action="store_true",
                        help="also count the instructions of the whole -pbs command and of "
                             "`python -c pass` (callgrind)")
    add_ratio_flag(parser)
    args = parser.parse_args()
    if args.quick:
        args.commands_only, args.command_repeat = True, 1
    if args.commands_only:
        command_lines(Path(args.shared), args.command_repeat, args.with_par, args.before,
                      args.systems, args.ratios)
        if args.callgrind:
            callgrind_instructions(Path(args.shared), args.systems)
        return

    import numpy
    import sacrebleu
    from sacrebleu.metrics import BLEU as SacreBLEU
    from sacrebleu.significance import PairedTest

    import truebleu
    from truebleu.io import read_lines
    from truebleu.metrics.bleu import BLEUBatchScorer
    from truebleu.significance import compare_all, paired_cells

    wmt = Path(args.shared) / "data" / "wmt21"
    refs = [read_lines(wmt / "references" / "newstest2021.en-de.ref.A.de")]
    paths = sorted((wmt / "system-outputs").glob("newstest2021.en-de.hyp.*.de"))
    named = [(("Baseline: " if k == 0 else "") + p.name, read_lines(p)) for k, p in enumerate(paths)]
    os.environ.pop("SACREBLEU_SEED", None)
    rows = []

    for test, n in (("bs", 1000), ("ar", 10000)):
        t_sacre, oracle = best_of(lambda test=test, n=n: PairedTest(
            named, {"BLEU": SacreBLEU(references=refs)}, None, test_type=test, n_samples=n)(), 1)
        t_true, (_, cells) = best_of(
            lambda test=test, n=n: paired_cells(named, truebleu.BLEU(references=refs), test, n),
            args.repeat)
        same = [vars(c) for c in cells] == [vars(r) for r in oracle[1]["BLEU"]]
        flag = "-pbs" if test == "bs" else "-par"
        rows.append((f"`{flag}`: {len(named) - 1} systems vs baseline, {n} "
                     f"{'resamples' if test == 'bs' else 'trials'}", t_sacre, t_true, same))

    hyps = named[1][1]
    t_sacre, s_score = best_of(lambda: SacreBLEU().corpus_score(hyps, refs, n_bootstrap=1000), 1)
    t_true, t_score = best_of(lambda: truebleu.BLEU().corpus_score(hyps, refs, n_bootstrap=1000),
                            args.repeat)
    same = (s_score._mean, s_score._ci) == (t_score._mean, t_score._ci)
    rows.append(("`-ci`: one system, 1000 resamples", t_sacre, t_true, same))

    metric = truebleu.BLEU(references=refs)
    t_stats, stats = best_of(lambda: [(name, metric.corpus_statistics(h).to_numpy())
                                    for name, h in named], 1)
    scorer = BLEUBatchScorer.from_metric(metric)
    extra = []
    for test, n in (("bs", 1000), ("ar", 10000)):
        t_all, result = best_of(lambda test=test, n=n: compare_all(stats, scorer, test, n),
                              args.repeat)
        extra.append((f"all {len(result.pairs)} pairs + clusters, `{test}` {n}", t_all))

    print(f"Python {platform.python_version()}, NumPy {numpy.__version__}, "
          f"sacreBLEU {sacrebleu.__version__}, truebleu {truebleu.__version__} "
          f"(statistics backend: {metric.backend}), {os.cpu_count()} CPUs\n")
    print("| task | sacreBLEU 2.6.0 (s) | truebleu (s) | speed-up | identical results |")
    print("|---|---:|---:|---:|:---:|")
    for label, t_sacre, t_true, same in rows:
        print(f"| {label} | {t_sacre:.2f} | {t_true:.3f} | {t_sacre / t_true:.0f}x | "
              f"{'yes' if same else 'NO'} |")
    print(f"\nBeyond sacreBLEU (statistics of the {len(named)} systems precomputed "
          f"in {t_stats:.2f} s):\n")
    print("| task | truebleu (s) |")
    print("|---|---:|")
    for label, t in extra:
        print(f"| {label} | {t:.3f} |")
    if args.commands:
        print()
        command_lines(Path(args.shared), args.command_repeat, args.with_par, args.before,
                      args.systems, args.ratios)
    if args.callgrind:
        callgrind_instructions(Path(args.shared), args.systems)


if __name__ == "__main__":
    main()
