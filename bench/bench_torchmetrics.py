"""truebleu.torchmetrics vs torchmetrics 1.9, side by side, one run.

    python bench/bench_torchmetrics.py [--segments 20000] [--batch 64] [--metric NAME ...]

Data: WMT21 en-de system outputs in file order against reference A, the first
``--segments`` segment pairs (20 systems of 1002 segments give 20,000). Each metric
(``BLEUScore``, ``SacreBLEUScore``, ``CHRFScore``, ``TranslationEditRate``) is updated
batch by batch (``--batch``, 64 as in a validation loop) and computed once, by
torchmetrics' class and by truebleu's class of the same name, in this process, one
after the other; the text is read before the clock starts. Times are wall and CPU
time of the process (all threads: truebleu's core uses the available cores); on a
shared machine the CPU-time ratio is the steadier one. The results must be equal
(``torch.equal``): the run stops otherwise. Prints a markdown table.
Not a test: nothing fails because a machine is slow.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DEFAULT_DATA = Path(os.environ.get("TRUEBLEU_SHARED") or REPO.parent / "shared") / "data" / "wmt21"
METRICS = ("SacreBLEUScore", "CHRFScore", "TranslationEditRate", "BLEUScore")


def read_lines(path: Path) -> list[str]:
    lines = path.read_text(encoding="utf-8").split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def en_de(data: Path, segments: int) -> tuple[list[str], list[list[str]]]:
    """The first ``segments`` (prediction, [reference A]) pairs of the en-de systems."""
    reference = read_lines(data / "references" / "newstest2021.en-de.ref.A.de")
    preds: list[str] = []
    for path in sorted((data / "system-outputs").glob("newstest2021.en-de.hyp.*.de")):
        preds += read_lines(path)
        if len(preds) >= segments:
            break
    preds = preds[:segments]
    return preds, [[reference[i % len(reference)]] for i in range(len(preds))]


def timed(metric, preds: list[str], target: list[list[str]], batch: int):
    wall, cpu = time.perf_counter(), time.process_time()
    for start in range(0, len(preds), batch):
        metric.update(preds[start:start + batch], target[start:start + batch])
    result = metric.compute()
    return result, time.perf_counter() - wall, time.process_time() - cpu


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--segments", type=int, default=20000)
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--metric", nargs="+", choices=METRICS, default=list(METRICS))
    args = parser.parse_args(argv)

    import torch
    import torchmetrics.text as theirs

    sys.path.insert(0, str(REPO / "src"))
    import truebleu.torchmetrics as ours

    preds, target = en_de(args.data, args.segments)
    print(f"{len(preds)} segments of WMT21 en-de, batches of {args.batch}; "
          f"torch {torch.__version__}, {os.cpu_count()} CPUs\n")
    print("| metric | torchmetrics wall | truebleu wall | wall ratio | CPU ratio | result |")
    print("|---|---:|---:|---:|---:|---|")
    for name in args.metric:
        expected, their_wall, their_cpu = timed(getattr(theirs, name)(), preds, target, args.batch)
        actual, our_wall, our_cpu = timed(getattr(ours, name)(), preds, target, args.batch)
        if actual.dtype != expected.dtype or not torch.equal(actual, expected):
            print(f"{name}: truebleu {actual!r} != torchmetrics {expected!r}", file=sys.stderr)
            return 1
        print(f"| {name} | {their_wall:.2f} s | {our_wall:.3f} s | {their_wall / our_wall:.0f}x "
              f"| {their_cpu / our_cpu:.0f}x | {expected.item():.6f} (equal) |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
