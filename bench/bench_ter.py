"""Corpus TER: truebleu (native core) vs sacreBLEU 2.6.0, side by side, one run.

    python bench/bench_ter.py [--data ../shared/data/wmt21] [--systems 7] [--repeat 3]

Data: WMT21 into-English system outputs against their reference A. sacreBLEU
needs seconds per system, so by default the comparison uses one system per
language pair (``--systems 0``: all 100). Each tool runs in its own
subprocess and reports its own peak RSS (VmHWM, ``peak_memory.py``; Linux:
not ``ru_maxrss``, which keeps the peak of the bench that started it) and its
RSS after loading the text, before scoring. Tools:

* ``sacrebleu``: ``sacrebleu.corpus_ter(hyp, [ref])`` per system;
* ``truebleu``: ``truebleu.corpus_ter(hyp, [ref])`` per system (tokenizes the
  reference every call, as sacreBLEU does);
* ``truebleu-cached``: ``TER(references=[ref]).corpus_score(hyp)``, the
  references prepared once per pair.

Times are medians over ``--repeat`` runs (sacreBLEU: one run) and include
everything a user call does. Scores must be equal to the last bit. Prints a
markdown table. Not a test: nothing fails because a machine is slow.

``--cpu PAIR,PAIR``: on a machine too busy for wall-clock times, compare the
CPU time (``time.process_time``) of sacreBLEU and of truebleu on one thread,
one system per listed pair (e.g. ``cs-en,ja-en``), in this process.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from peak_memory import current_rss_kib, own_peak_kib

REPO = Path(__file__).resolve().parents[1]
DEFAULT_DATA = Path(os.environ.get("TRUEBLEU_SHARED") or REPO.parent / "shared") / "data" / "wmt21"


def read_lines(path: Path) -> list[str]:
    lines = path.read_text(encoding="utf-8").split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def systems(data: Path, count: int) -> list[tuple[str, list[str], list[str]]]:
    """[(name, hypothesis lines, reference A lines)]: ``count`` per pair (0 = all)."""
    out = []
    for ref_path in sorted((data / "references").glob("*-en.ref.A.en")):
        prefix = ref_path.name.split(".ref.")[0]
        ref = read_lines(ref_path)
        hyp_paths = sorted((data / "system-outputs").glob(f"{prefix}.hyp.*"))
        for hyp_path in hyp_paths[:count] if count else hyp_paths:
            out.append((hyp_path.name, read_lines(hyp_path), ref))
    return out


def child(tool: str, data: Path, count: int, repeat: int, threads: int | None) -> None:
    work = systems(data, count)
    base_mib = current_rss_kib() / 1024
    if tool == "sacrebleu":
        import sacrebleu

        def run():
            return [sacrebleu.corpus_ter(hyp, [ref]).score for _, hyp, ref in work]
    elif tool == "truebleu":
        import truebleu

        def run():
            return [truebleu.corpus_ter(hyp, [ref], threads=threads).score for _, hyp, ref in work]
    else:
        import truebleu

        def run():
            scores, metric, last_ref = [], None, None
            for _, hyp, ref in work:
                if ref is not last_ref:
                    metric, last_ref = truebleu.TER(references=[ref], threads=threads), ref
                scores.append(metric.corpus_score(hyp).score)
            return scores
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        scores = run()
        times.append(time.perf_counter() - start)
    print(json.dumps({"seconds": statistics.median(times), "scores": scores, "base": base_mib,
                      "peak": own_peak_kib() / 1024, "segments": sum(len(h) for _, h, _ in work),
                      "systems": len(work)}))


def measure(tool: str, args) -> dict:
    repeat = 1 if tool == "sacrebleu" else args.repeat
    cmd = [sys.executable, __file__, "--child", tool, "--data", str(args.data),
           "--systems", str(args.systems), "--repeat", str(repeat)]
    if args.threads:
        cmd += ["--threads", str(args.threads)]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def cpu_times(args) -> None:
    import sacrebleu

    import truebleu

    print("| system | segments | sacreBLEU CPU s | truebleu CPU s (1 thread) | ratio | identical |")
    print("|---|---|---|---|---|---|")
    for name, hyp, ref in systems(args.data, 1):
        if not any(f".{pair}." in name for pair in args.cpu.split(",")):
            continue
        start = time.process_time()
        theirs = sacrebleu.corpus_ter(hyp, [ref])
        sacre = time.process_time() - start
        start = time.process_time()
        ours = truebleu.corpus_ter(hyp, [ref], threads=1)
        mine = time.process_time() - start
        same = "yes" if ours.score == theirs.score else "NO"
        print(f"| {name} | {len(hyp)} | {sacre:.2f} | {mine:.3f} | {sacre / mine:.0f}x | {same} |",
              flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--systems", type=int, default=1, help="systems per language pair (0: all)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--child", default=None)
    parser.add_argument("--cpu", default=None, help="pairs for the CPU-time comparison")
    args = parser.parse_args()
    if args.cpu:
        cpu_times(args)
        return
    if args.child:
        child(args.child, args.data, args.systems, args.repeat, args.threads)
        return
    results = {tool: measure(tool, args) for tool in ("sacrebleu", "truebleu", "truebleu-cached")}
    sacre = results["sacrebleu"]
    print(f"Corpus TER, {sacre['systems']} WMT21 into-English systems "
          f"({sacre['segments']} segments), reference A; `python bench/bench_ter.py "
          f"--systems {args.systems} --repeat {args.repeat}`\n")
    print("| tool | seconds (median) | seconds per system | speed-up vs sacreBLEU | RSS after loading (MiB) "
          "| peak RSS (MiB) | scores identical |")
    print("|---|---|---|---|---|---|---|")
    for tool, r in results.items():
        same = "yes" if r["scores"] == sacre["scores"] else "NO"
        print(f"| {tool} | {r['seconds']:.3f} | {r['seconds'] / r['systems']:.4f} | "
              f"{sacre['seconds'] / r['seconds']:.0f}x | {r['base']:.0f} | {r['peak']:.0f} | {same} |")


if __name__ == "__main__":
    main()
