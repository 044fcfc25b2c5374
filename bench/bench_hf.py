"""truebleu.hf's evaluate modules vs the hub scripts of ``evaluate``, side by side, one run.

    python bench/bench_hf.py [--systems 10] [--ter-systems 2] [--repeat 5] [--one-core]

Data: WMT21 into-English system outputs (``*.X-en.hyp.*``) against their first
reference (``*.X-en.ref.A.en``), the first ``--systems`` of them in file order
(``--ter-systems`` for TER: the hub's takes seconds per system). The hub modules are
the scripts in ``../shared/oracles/evaluate`` (``evaluate.load`` of a local path,
offline); truebleu's come from ``truebleu.hf.load``. Both run in this process on the
same inputs, each module once per system.

Flows:
``compute``    ``module.compute(predictions=..., references=...)``, one call per system;
``add_batch``  ``add_batch`` in batches of 64 segments, then ``compute()``: both modules
               then pay for ``evaluate``'s storage (an Arrow file written and read back).
Times are medians over ``--repeat`` runs (the hub's: fewer, it is slow) of the time
for all systems, wall and CPU (all threads). Every result dict must be equal (keys,
value types, values bit for bit): the run stops otherwise. ``--one-core`` pins the
process to one CPU first (truebleu then uses one thread). Prints a markdown table.
Not a test: nothing fails because a machine is slow.
"""

from __future__ import annotations

import argparse
import logging
import os
import statistics
import sys
import tempfile
import time
from itertools import islice
from pathlib import Path

import wmt21
from wmt21 import read_lines

REPO = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("TRUEBLEU_SHARED") or REPO.parent / "shared")
DEFAULT_DATA = SHARED / "data" / "wmt21"
ORACLES = SHARED / "oracles" / "evaluate"
NAMES = ("sacrebleu", "bleu", "chrf", "ter")
BATCH = 64


def into_english(data: Path, limit: int) -> list[tuple[list[str], list[list[str]]]]:
    """[(hypothesis lines, references per line)] for the first ``limit`` X-en system outputs,
    in file order: only their files are read (``evaluate``'s shape: one list per line)."""
    return list(islice(wmt21.into_english(data, reference=one_reference_per_line), limit))


def one_reference_per_line(path: Path) -> list[list[str]]:
    return [[line] for line in read_lines(path)]


def run(module, systems, flow: str) -> list[dict]:
    results = []
    for hyps, refs in systems:
        if flow == "compute":
            results.append(module.compute(predictions=hyps, references=refs))
        else:
            for start in range(0, len(hyps), BATCH):
                module.add_batch(predictions=hyps[start:start + BATCH],
                                 references=refs[start:start + BATCH])
            results.append(module.compute())
    return results


def timed(module, systems, flow: str, repeat: int) -> tuple[list[dict], float, float]:
    """(results, median wall seconds, median CPU seconds) of ``repeat`` runs."""
    walls, cpus, results = [], [], []
    for _ in range(repeat):
        wall, cpu = time.perf_counter(), time.process_time()
        results = run(module, systems, flow)
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
    return results, statistics.median(walls), statistics.median(cpus)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--systems", type=int, default=10,
                        help="system outputs scored by sacrebleu, bleu, chrf (default: %(default)s)")
    parser.add_argument("--ter-systems", type=int, default=2,
                        help="system outputs scored by ter (default: %(default)s)")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--hub-repeat", type=int, default=1)
    parser.add_argument("--one-core", action="store_true", help="pin the process to one CPU")
    args = parser.parse_args(argv)
    if not (args.data / "system-outputs").is_dir():
        print(f"no WMT21 data at {args.data}", file=sys.stderr)
        return 2
    if not all((ORACLES / name / f"{name}.py").is_file() for name in NAMES):
        print(f"no hub scripts of evaluate at {ORACLES}", file=sys.stderr)
        return 2
    if args.one_core:
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    for key in ("HF_HUB_OFFLINE", "HF_EVALUATE_OFFLINE", "HF_DATASETS_OFFLINE"):
        os.environ[key] = "1"
    logging.getLogger("sacrebleu").setLevel(logging.ERROR)
    logging.getLogger("truebleu").setLevel(logging.ERROR)

    import evaluate

    import truebleu
    import truebleu.hf

    print(f"truebleu {truebleu.__version__} (backend: {truebleu.active_backend()}), evaluate "
          f"{evaluate.__version__}, Python {sys.version.split()[0]}, "
          f"{len(os.sched_getaffinity(0))} CPUs\n")
    rows = []
    with tempfile.TemporaryDirectory() as cache:
        for name in NAMES:
            systems = into_english(args.data, args.ter_systems if name == "ter" else args.systems)
            segments = sum(len(hyps) for hyps, _ in systems)
            hub = evaluate.load(str(ORACLES / name / f"{name}.py"), cache_dir=f"{cache}/hub")
            ours = truebleu.hf.load(name, cache_dir=f"{cache}/truebleu")
            for flow in ("compute", "add_batch"):
                expected, hub_wall, hub_cpu = timed(hub, systems, flow, args.hub_repeat)
                got, wall, cpu = timed(ours, systems, flow, args.repeat)
                if got != expected or any(
                        type(a[k]) is not type(b[k]) for a, b in zip(got, expected) for k in a):
                    print(f"{name} {flow}: truebleu's results differ from the hub's", file=sys.stderr)
                    return 1
                rows.append((name, flow, len(systems), segments, hub_wall, wall, hub_cpu, cpu))
                print(f"  measured {name} {flow}", file=sys.stderr)

    print("| module | flow | systems | segments | hub (wall) | truebleu (wall) | speed-up "
          "| CPU speed-up |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    for name, flow, n, segments, hub_wall, wall, hub_cpu, cpu in rows:
        print(f"| {name} | {flow} | {n} | {segments} | {hub_wall:.3f} s | {wall * 1000:.1f} ms "
              f"| {hub_wall / wall:.0f}x | {hub_cpu / cpu:.0f}x |")
    print("\nEvery result equal to the hub module's (keys, value types, values).")
    return 0


if __name__ == "__main__":
    sys.exit(main())
