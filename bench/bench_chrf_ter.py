"""truebleu vs sacreBLEU 2.6.0 for chrF (and TER), side by side, one run.

    python bench/bench_chrf_ter.py [--metric chrf|chrf++|ter] [--systems 20] [--repeat 5] [--quick]
    python bench/bench_chrf_ter.py --callgrind-only     # chrF's instruction counts alone (before/after)

Data: WMT21 into-English system outputs (``*.X-en.hyp.*``) against their first
reference (``*.X-en.ref.A.en``), the first ``--systems`` of them in file order
(sacreBLEU needs about 1.4 s per system for chrF, 4 s for TER).

Tasks:
``corpus``         one corpus score per system, one call each (``corpus_chrf``);
``corpus-cached``  truebleu's ``CHRF(references=...)`` per test set, reused;
``sentence``       20,000 sentence scores (the first 20,000 segment pairs):
                   a sacreBLEU loop against truebleu's batched call.
``corpus-normalized``  (TER only) ``corpus`` with ``normalized=True``.
``matrix``         (chrF only) the MBR matrix of 512 x 512 WMT21 en-de lines (the first
                   512 of the first en-de system output, as candidates and pseudo-references):
                   fastChrF 0.2.1's ``pairwise_chrf`` (Rust) against ``truebleu.chrf_matrix``
                   at the default threads and at ``threads=1``; every cell must equal
                   fastChrF's, and the first rows sacreBLEU's ``sentence_chrf``.
                   ``--matrix`` measures this task alone.
``truebleu-1thread`` (the matrix task's row, and the ``--callgrind-only`` runs) is
``threads=1`` in every task it runs, not only the matrix.
Each measurement runs in its own subprocess, so each peak RSS (VmHWM, ``peak_memory.py``; Linux)
is the tool's own; "RSS after loading" is the RSS once the text is read.
Times are the median and the best (fastest) of ``--repeat`` runs (sacreBLEU:
fewer, it is slow; also in each worker's JSON line: ``median_s``, ``best_s``,
``cpu_median_s``, ``cpu_best_s``), as wall time and as CPU time of the process
(all threads; on a shared machine the CPU-time ratio is the steadier one). The
speed-ups divide medians, or best runs with ``--ratios best``.
Scores are compared: truebleu must equal sacreBLEU bit for bit.

``--callgrind-only`` prints the instructions valgrind's callgrind counts for
truebleu's chrF ``corpus`` (chrF and chrF++) and ``matrix`` tasks (one run,
``threads=1``, pinned to one core): inside the native core's entry points, and
for the whole worker process (interpreter, reading, Python around the core).
Unlike a time, a count does not move when the machine is busy.

``--metric ter`` measures ``truebleu.metrics.ter`` (when installed) the same
way. Prints a markdown table. Not a test: nothing fails because a machine is slow.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import resource
import subprocess
import sys
import time
from itertools import islice
from pathlib import Path

import wmt21
from peak_memory import current_rss_kib, own_peak_kib
from timing import add_ratio_flag, times_note, with_spread
from wmt21 import first_segment_pairs, read_lines

REPO = Path(__file__).resolve().parents[1]
DEFAULT_DATA = Path(os.environ.get("TRUEBLEU_SHARED") or REPO.parent / "shared") / "data" / "wmt21"
N_SENTENCES = 20000
MATRIX_SIZE = 512
MATRIX_ROWS_CHECKED = 4  # rows of the matrix compared with sacreBLEU (its 262,144 cells take minutes)


def into_english(data: Path, limit: int | None = None) -> list[tuple[list[str], list[str]]]:
    """[(hypothesis lines, reference A lines)] for the first ``limit`` X-en system outputs (all
    when ``limit`` is 0 or None), in file order: only their files are read."""
    return list(islice(wmt21.into_english(data), limit or None))


def mbr_candidates(data: Path) -> list[str]:
    """The matrix task's lines: the first MATRIX_SIZE of the first en-de system output."""
    path = sorted((data / "system-outputs").glob("newstest2021.en-de.hyp.*"))[0]
    return read_lines(path)[:MATRIX_SIZE]


def truebleu_threads(tool: str) -> dict:
    """truebleu's ``threads`` option for a tool label: ``truebleu-1thread`` is ``threads=1`` in
    every task (corpus, cached, sentence, matrix); ``truebleu`` the default (the cores)."""
    return {"threads": 1} if tool == "truebleu-1thread" else {}


def matrix_call(tool: str):
    """The MBR matrix of a tool: candidates -> rows of floats (Python lists, as both return)."""
    if tool == "fastchrf":
        import fastchrf

        return lambda cands: fastchrf.pairwise_chrf([cands], [cands])[0]
    import truebleu

    threads = truebleu_threads(tool)
    return lambda cands: truebleu.chrf_matrix(cands, cands, **threads)


def matrix_digest(matrix) -> str:
    """Every cell's bits, in one string to compare."""
    import hashlib
    from array import array

    return hashlib.sha256(array("d", [x for row in matrix for x in row]).tobytes()).hexdigest()


# ---------------------------------------------------------------- the metrics


def metric_calls(metric: str, tool: str, normalized: bool = False):
    """(corpus(h, refs), sentence batch(hyps, refs per hyp), cached metric(refs)) of a tool;
    ``normalized``: TER's ``normalized=True`` (tercom's normalization)."""
    options = {"chrf": {}, "chrf++": {"word_order": 2}, "ter": {}}[metric]
    ter_options = {"normalized": True} if normalized else {}
    if tool.startswith("truebleu"):
        options = {**options, **truebleu_threads(tool)}
        ter_options = {**ter_options, **truebleu_threads(tool)}
    if tool == "sacrebleu":
        import sacrebleu

        if metric == "ter":
            return (lambda h, r: sacrebleu.corpus_ter(h, r, **ter_options).score,
                    lambda hs, rs: [sacrebleu.sentence_ter(h, r, **ter_options).score
                                    for h, r in zip(hs, rs)],
                    None)
        return (lambda h, r: sacrebleu.corpus_chrf(h, r, **options).score,
                lambda hs, rs: [sacrebleu.sentence_chrf(h, r, **options).score
                                for h, r in zip(hs, rs)],
                None)
    if metric == "ter":
        from truebleu.metrics.ter import TER

        return (lambda h, r: TER(**ter_options).corpus_score(h, r).score,
                lambda hs, rs: TER(**ter_options).sentence_scores(hs, rs),
                lambda refs: TER(references=refs, **ter_options))
    import truebleu

    return (lambda h, r: truebleu.corpus_chrf(h, r, **options).score,
            lambda hs, rs: truebleu.sentence_chrf_scores(hs, rs, **options),
            lambda refs: truebleu.CHRF(references=refs, **options))


def worker(metric: str, task: str, tool: str, data: Path, n_systems: int, repeat: int) -> dict:
    logging.getLogger("sacrebleu").setLevel(logging.ERROR)
    if task == "matrix":
        return matrix_worker(tool, data, repeat)
    corpus, batch, cached = metric_calls(metric, tool, normalized=task == "corpus-normalized")
    if task in ("corpus", "corpus-cached", "corpus-normalized"):
        systems = into_english(data, n_systems)
        base = current_rss_kib()
        if task == "corpus-cached":
            def run():
                scores, scorer, last = [], None, None
                for h, r in systems:
                    if r is not last:  # one metric object per test set
                        scorer, last = cached([r]), r
                    scores.append(scorer.corpus_score(h).score)
                return scores
        else:
            def run():
                return [corpus(h, [r]) for h, r in systems]
        segments = sum(len(h) for h, _ in systems)
    elif task == "sentence":
        pairs = first_segment_pairs(data, N_SENTENCES)
        hyps, refs = [h for h, _ in pairs], [[r] for _, r in pairs]
        base = current_rss_kib()

        def run():
            return batch(hyps, refs)
        segments = len(pairs)
    else:
        raise ValueError(task)
    times, cpu_times, scores = [], [], None
    for _ in range(repeat):
        start, cpu_start = time.perf_counter(), cpu_seconds()
        scores = run()
        times.append(time.perf_counter() - start)
        cpu_times.append(cpu_seconds() - cpu_start)
    peak = own_peak_kib()
    return with_spread({"times": times, "cpu": cpu_times, "peak_kb": peak, "base_kb": base,
                        "segments": segments, "scores": [float(s).hex() for s in scores]})


def matrix_worker(tool: str, data: Path, repeat: int) -> dict:
    cands = mbr_candidates(data)
    base = current_rss_kib()
    run = matrix_call(tool)
    times, cpu_times, matrix = [], [], None
    for _ in range(repeat):
        start, cpu_start = time.perf_counter(), cpu_seconds()
        matrix = run(cands)
        times.append(time.perf_counter() - start)
        cpu_times.append(cpu_seconds() - cpu_start)
    peak = own_peak_kib()
    result = {"times": times, "cpu": cpu_times, "peak_kb": peak, "base_kb": base,
              "segments": len(cands) ** 2, "scores": [matrix_digest(matrix)]}
    if tool == "truebleu":  # the first rows against sacreBLEU itself (not timed)
        import sacrebleu

        result["sacrebleu_rows_equal"] = all(
            matrix[i][j] == sacrebleu.sentence_chrf(cands[i], [cands[j]]).score
            for i in range(MATRIX_ROWS_CHECKED) for j in range(len(cands)))
    return with_spread(result)


def cpu_seconds() -> float:
    """CPU time of this process (all threads): less sensitive than wall time to a busy machine."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def measure(metric: str, task: str, tool: str, args) -> dict:
    """A worker's measurement in its own process: its JSON (times with their median and best)."""
    cmd = [sys.executable, __file__, "--worker", task, tool, "--metric", metric,
           "--data", str(args.data), "--systems", str(args.systems), "--repeat", str(args.repeat)]
    if tool in ("sacrebleu", "fastchrf"):
        cmd[-1] = str(1 if args.quick else min(args.repeat, 3))
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


#: (label, metric, task) of the counted runs: truebleu, one run, threads=1
CALLGRIND_RUNS = (("corpus chrF", "chrf", "corpus"), ("corpus chrF++", "chrf++", "corpus"),
                  ("matrix chrF (512 x 512)", "chrf", "matrix"))


def callgrind_table(args) -> None:
    """Instructions of CALLGRIND_RUNS, in the core and in the whole process (the benches'
    one counter, ``callgrind.py``: the whole process after an uncounted run)."""
    from callgrind import count_instructions

    print("| instructions (callgrind, threads=1, one core) | native core | whole process |")
    print("|---|---:|---:|")
    for label, metric, task in CALLGRIND_RUNS:
        cmd = [sys.executable, __file__, "--worker", task, "truebleu-1thread", "--metric", metric,
               "--data", str(args.data), "--systems", str(args.systems), "--repeat", "1"]
        core, whole = (count_instructions(cmd, core_only=flag) for flag in (True, False))
        print(f"| {label} | {core:,} | {whole:,} |")


def fmt_s(t: float) -> str:
    return f"{t * 1000:.1f} ms" if t < 1 else f"{t:.2f} s"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--metric", choices=("chrf", "chrf++", "ter"), default="chrf")
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--systems", type=int, default=20,
                        help="number of system outputs scored (default: %(default)s)")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--quick", action="store_true", help="one sacreBLEU (and fastChrF) run per task")
    parser.add_argument("--matrix", action="store_true",
                        help="only the MBR matrix task (chrF): fastChrF against truebleu")
    parser.add_argument("--callgrind-only", action="store_true",
                        help="only chrF's instruction counts (valgrind's callgrind), core and whole process")
    add_ratio_flag(parser)
    parser.add_argument("--worker", nargs=2, metavar=("TASK", "TOOL"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        print(json.dumps(worker(args.metric, *args.worker, args.data, args.systems, args.repeat)))
        return 0
    if not (args.data / "system-outputs").is_dir():
        print(f"no WMT21 data at {args.data}", file=sys.stderr)
        return 2
    if args.callgrind_only:
        callgrind_table(args)
        return 0

    import truebleu

    print(f"truebleu {truebleu.__version__} (backend: {truebleu.active_backend()}), "
          f"Python {sys.version.split()[0]}, {os.cpu_count()} CPUs, metric {args.metric}\n")
    rows, mismatches, sacre_corpus = [], [], None
    tasks = [("corpus", ("sacrebleu", "truebleu")),
             ("corpus-cached", ("truebleu",)),
             ("sentence", ("sacrebleu", "truebleu"))]
    if args.matrix and args.metric != "chrf":
        parser.error("--matrix is chrF's (fastChrF has no word n-grams)")
    if args.metric == "ter":  # tercom's normalization: the tokenizer's heaviest rules
        tasks.insert(1, ("corpus-normalized", ("sacrebleu", "truebleu")))
    if args.matrix:
        tasks = []
    if args.metric == "chrf":
        tasks.append(("matrix", ("fastchrf", "truebleu", "truebleu-1thread")))
    for task, tools in tasks:
        results = {tool: measure(args.metric, task, tool, args) for tool in tools}
        print(f"  measured {task}", file=sys.stderr)
        reference = results.get("sacrebleu") or results.get("fastchrf") or sacre_corpus
        if task == "corpus":
            sacre_corpus = reference  # corpus-cached is compared with it
        for tool in (t for t in tools if t.startswith("truebleu")):
            if results[tool]["scores"] != reference["scores"]:
                mismatches.append(f"{task}: {tool} differs from "
                                  + ("fastChrF" if task == "matrix" else "sacreBLEU"))
        if task == "matrix" and not results["truebleu"]["sacrebleu_rows_equal"]:
            mismatches.append(f"matrix: the first {MATRIX_ROWS_CHECKED} rows differ from sacreBLEU")
        wall, cpu = f"{args.ratios}_s", f"cpu_{args.ratios}_s"  # what the speed-ups divide
        for tool, res in results.items():
            rows.append((task, tool, res, reference[wall] / res[wall], reference[cpu] / res[cpu]))

    print("| task | tool | segments | wall (median) | best | speed-up | CPU (median) | best "
          "| CPU speed-up | peak RSS | RSS after loading |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for task, tool, res, ratio, cpu_ratio in rows:
        print(f"| {task} | {tool} | {res['segments']} | {fmt_s(res['median_s'])} | {fmt_s(res['best_s'])} "
              f"| {ratio:.1f}x | {fmt_s(res['cpu_median_s'])} | {fmt_s(res['cpu_best_s'])} "
              f"| {cpu_ratio:.1f}x | {res['peak_kb'] / 1024:.0f} MiB | {res['base_kb'] / 1024:.0f} MiB |")
    peers = 1 if args.quick else min(args.repeat, 3)
    print("\n" + times_note(args.ratios, f"each tool's runs (--repeat {args.repeat}; "
                                         f"sacreBLEU and fastChrF: {peers})"))
    if any(row[0] == "matrix" for row in rows):
        print(f"matrix: the speed-ups are to fastChrF; every cell compared with it, the first "
              f"{MATRIX_ROWS_CHECKED} rows with sacreBLEU")
    print("scores identical to sacreBLEU: "
          + ("yes" if not mismatches else "NO: " + "; ".join(mismatches)))
    return 1 if mismatches else 0


if __name__ == "__main__":
    sys.exit(main())
