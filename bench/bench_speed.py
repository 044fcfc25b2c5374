"""truebleu (native core) vs sacreBLEU 2.6.0 vs bleuscore, side by side, one run.

    python bench/bench_speed.py [--data ../shared/data/wmt21] [--repeat 5] [--quick]
    python bench/bench_speed.py --callgrind-only     # the instruction counts alone (before/after)

Data: every into-English system output of WMT21 (``*.X-en.hyp.*``) against
its first reference (``*.X-en.ref.A.en``): ``corpus`` scores each system with
its own ``corpus_bleu`` call (as one would; nothing is kept between calls, so
``truebleu-cold`` is the same loop, kept for comparison with older runs),
``truebleu-cached`` uses ``BLEU(references=...)``, and ``corpus-onecall``
scores everything as one corpus in one call. Each measurement runs in its own
subprocess, so each tool's peak RSS (VmHWM, ``peak_memory.py``; Linux) is its own; the table also
shows the RSS after loading the text, before scoring ("base"). Times are the
median and the best (fastest) of ``--repeat`` runs (sacreBLEU loops: fewer, they
are slow; also in each worker's JSON line, ``median_s`` and ``best_s``) and include
everything a user call does (tokenizing, counting, scoring); the ratios divide
medians, or best runs with ``--ratios best``.
Scores are compared: truebleu must equal sacreBLEU bit for bit.

Every truebleu and bleuscore measurement is made twice: with the default
threads (as many as the process may use) and on one core (the child process
pinned to one CPU with ``sched_setaffinity``, so truebleu's default is
``threads=1`` and bleuscore's thread pool has one core too). The one-core
column is the headline: another process on the machine cannot take half of it
away. sacreBLEU is single-threaded; its one run is the base of both ratios.
The table is followed by the number of instructions the native core executes
for each in-memory task (valgrind's callgrind, ``threads=1``, counting inside
the ``_native_core`` entry points only) and by the whole command-line process's
count (interpreter start-up, reading and the core): unlike a time, a count
does not move when the machine is busy, so a regression shows as a larger count.

Prints markdown tables. Not a test: nothing fails because a machine is slow.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from callgrind import count_instructions, one_core, user_env
from peak_memory import current_rss_kib, own_peak_kib, run_python
from timing import add_ratio_flag, times_note, with_spread
from wmt21 import first_segment_pairs, into_english, read_lines

REPO = Path(__file__).resolve().parents[1]
DEFAULT_DATA = Path(os.environ.get("TRUEBLEU_SHARED") or REPO.parent / "shared") / "data" / "wmt21"


def tokenizer_sets(data: Path, tok: str) -> list[tuple[list[str], list[str]]]:
    if tok == "zh":
        prefix, ref_name, limit = "newstest2021.en-zh", "newstest2021.en-zh.ref.A.zh", 10
    else:
        prefix, ref_name, limit = "newstest2021.de-en", "newstest2021.de-en.ref.A.en", 19
    ref = read_lines(data / "references" / ref_name)
    hyps = sorted((data / "system-outputs").glob(f"{prefix}.hyp.*"))[:limit]
    return [(read_lines(p), ref) for p in hyps]


# ---------------------------------------------------------------- workers


def worker(task: str, tool: str, data: Path, repeat: int) -> dict:
    logging.getLogger("sacrebleu").setLevel(logging.ERROR)
    if task.startswith("corpus") or task.startswith("tok-"):
        tok = task[4:] if task.startswith("tok-") else "13a"
        systems = list(into_english(data)) if task.startswith("corpus") else tokenizer_sets(data, tok)
        if task == "corpus-onecall":  # the whole set as one corpus: one call, one score
            systems = [([h for hyps, _ in systems for h in hyps], [r for _, ref in systems for r in ref])]
        base = current_rss_kib()
        if tool == "sacrebleu":
            import sacrebleu

            def run():
                return [sacrebleu.corpus_bleu(h, [r], tokenize=tok).score for h, r in systems]
        elif tool == "bleuscore":
            import bleuscore

            def run():
                return [bleuscore.compute(references=[[x] for x in r], predictions=h)["bleu"] * 100
                        for h, r in systems]
        elif tool == "truebleu-cached":
            import truebleu

            def run():
                scores, metric, last = [], None, None
                for h, r in systems:
                    if r is not last:  # one BLEU(references=...) per test set
                        metric, last = truebleu.BLEU(references=[r], tokenize=tok), r
                    scores.append(metric.corpus_score(h).score)
                return scores
        else:  # truebleu, truebleu-cold: corpus_bleu keeps nothing between calls
            import truebleu

            def run():
                return [truebleu.corpus_bleu(h, [r], tokenize=tok).score for h, r in systems]
        segments = sum(len(h) for h, _ in systems)
    elif task == "sentence":
        pairs = first_segment_pairs(data, 20000)
        base = current_rss_kib()
        if tool == "sacrebleu":
            import sacrebleu

            def run():
                return [sacrebleu.sentence_bleu(h, [r]).score for h, r in pairs]
        else:
            from truebleu.metrics.bleu.batch import sentence_scores

            hyps = [h for h, _ in pairs]
            refs = [[r] for _, r in pairs]

            def run():
                return sentence_scores(hyps, refs)
        segments = len(pairs)
    elif task == "matrix":
        hyps, ref = next(into_english(data))
        a, b = hyps[:100], ref[:100]
        base = current_rss_kib()
        if tool == "sacrebleu":
            import sacrebleu

            def run():
                return [sacrebleu.sentence_bleu(x, [y]).score for x in a for y in b]
        else:
            from truebleu.metrics.bleu.batch import pairwise_matrix

            def run():
                return [x for row in pairwise_matrix(a, b) for x in row]
        segments = len(a) * len(b)
    else:
        raise ValueError(task)
    times, scores = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        scores = run()
        times.append(time.perf_counter() - start)
    peak = own_peak_kib()
    return with_spread({"times": times, "peak_kb": peak, "base_kb": base, "segments": segments,
                        "scores": [float(s).hex() for s in scores]})


def measure(task: str, tool: str, data: Path, repeat: int, single: bool = False) -> dict:
    """A worker's measurement in its own process: its JSON (times with their median and best)."""
    cmd = [sys.executable, __file__, "--worker", task, tool, "--data", str(data), "--repeat", str(repeat)]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True, env=user_env(),
                         preexec_fn=one_core() if single else None).stdout
    return json.loads(out.strip().splitlines()[-1])


#: The tasks whose native-core instructions are counted (callgrind, threads=1). corpus-onecall
#: repeats each test set's references once per system (the core tokenizes them about once);
#: corpus, one call per system, counts the same text with no reference repeated.
CALLGRIND_TASKS = ("corpus-onecall", "corpus", "sentence", "matrix", "tok-intl", "tok-zh", "tok-char")
#: The whole command-line process on the concatenated files, every instruction counted.
CALLGRIND_COMMAND = "command line (files), whole process"


def callgrind_instructions(data: Path) -> dict[str, int] | None:
    """Instructions of each CALLGRIND_TASKS task inside the native core (truebleu, one
    run, one thread) and of the whole command line on the concatenated files; None
    without valgrind. Unlike a time, no other process can move these numbers."""
    if shutil.which("valgrind") is None:
        return None
    counts = {}
    for task in CALLGRIND_TASKS:
        counts[task] = count_instructions([sys.executable, __file__, "--worker", task, "truebleu",
                                           "--data", str(data), "--repeat", "1"], core_only=True)
    with tempfile.TemporaryDirectory() as tmp:
        hyp, ref = Path(tmp) / "hyp.en", Path(tmp) / "ref.en"
        write_concatenated(data, hyp, ref)
        command = [sys.executable, "-m", "truebleu", str(ref), "-i", str(hyp), "-b", "-q", "-w", "10"]
        # (count_instructions runs it once first: the count does not include compiling
        # every module's bytecode, about 230 M more on a fresh checkout)
        counts[CALLGRIND_COMMAND] = count_instructions(command)
    return counts


def print_instructions(counts: dict[str, int] | None) -> None:
    if counts is None:
        print("\ninstructions (callgrind): not measured, valgrind is not installed")
        return
    print("\n| instructions (callgrind, threads=1, one core) | count |")
    print("|---|---:|")
    for task, count in counts.items():
        scope = "" if task == CALLGRIND_COMMAND else ", native core"
        print(f"| {task}{scope} | {count:,} |")


def write_concatenated(data: Path, hyp_out: Path, ref_out: Path) -> int:
    """All into-English outputs and their reference A, one system at a time.

    The parent process must stay small: a child's peak RSS on Linux includes
    what it inherited at fork, before exec.
    """
    n_lines = 0
    with open(hyp_out, "w", encoding="utf-8") as hyp_file, \
            open(ref_out, "w", encoding="utf-8") as ref_file:
        for hyps, ref in into_english(data):
            hyp_file.write("".join(h + "\n" for h in hyps))
            ref_file.write("".join(r + "\n" for r in ref))
            n_lines += len(hyps)
    return n_lines


BLEUSCORE_SCRIPT = """
import sys, bleuscore
def lines(p):
    with open(p, encoding="utf-8", newline="\\n") as f:
        return [l.rstrip() for l in f]
h, r = lines(sys.argv[2]), lines(sys.argv[1])
print(f"{bleuscore.compute(references=[[x] for x in r], predictions=h)['bleu'] * 100:.10f}")
"""


def measure_cli(tool: str, ref: Path, hyp: Path, repeat: int, single: bool = False) -> dict:
    """A whole command-line run on files, in a child process: wall time and its own peak RSS
    (VmHWM, through ``peak_memory.run_python``)."""
    if tool == "bleuscore":
        target = ["-c", BLEUSCORE_SCRIPT, str(ref), str(hyp)]
    else:
        target = ["-m", tool, str(ref), "-i", str(hyp), "-b", "-q", "-w", "10"]
    runs = [run_python(target, env=user_env(), preexec_fn=one_core() if single else None)
            for _ in range(repeat)]
    return with_spread({"times": [run.wall_s for run in runs], "peak_kb": max(run.peak_kib for run in runs),
                        "base_kb": 0, "scores": [runs[-1].stdout.strip()]})


def import_time(runs: int) -> tuple[float, float, float]:
    """Medians of a bare interpreter, one importing truebleu, and one with no site
    directories (``-S``: what start-up costs before any ``.pth`` file runs)."""
    def once(*flags: str, code: str) -> float:
        start = time.perf_counter()
        subprocess.run([sys.executable, *flags, "-c", code], check=True, env=user_env())
        return time.perf_counter() - start

    bare, imp, no_site = [], [], []
    for _ in range(runs):
        bare.append(once(code="pass"))
        imp.append(once(code="import truebleu"))
        no_site.append(once("-S", code="pass"))
    return statistics.median(bare), statistics.median(imp), statistics.median(no_site)


def startup_hooks() -> list[str]:
    """The ``.pth`` files of this interpreter's site directories that run code at every
    start-up (an ``import`` line), except the ones pip writes for editable installs."""
    import site

    dirs = [*site.getsitepackages(), site.getusersitepackages()]
    hooks = []
    for directory in dict.fromkeys(dirs):
        for pth in sorted(Path(directory).glob("*.pth")):  # (none in a missing directory)
            if pth.name.startswith("__editable__") or pth.name == "distutils-precedence.pth":
                continue
            lines = pth.read_text(errors="replace").splitlines()
            if any(line.startswith(("import ", "import\t")) for line in lines):
                hooks.append(str(pth))
    return hooks


# ---------------------------------------------------------------- report


def fmt_s(t: float) -> str:
    return f"{t * 1000:.1f} ms" if t < 1 else f"{t:.2f} s"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--quick", action="store_true", help="one sacreBLEU run per task")
    parser.add_argument("--callgrind-only", action="store_true",
                        help="print only the native core's instruction count (needs valgrind)")
    add_ratio_flag(parser)
    parser.add_argument("--worker", nargs=2, metavar=("TASK", "TOOL"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        print(json.dumps(worker(*args.worker, args.data, args.repeat)))
        return 0
    if not (args.data / "system-outputs").is_dir():
        print(f"no WMT21 data at {args.data}", file=sys.stderr)
        return 2
    if args.callgrind_only:
        counts = callgrind_instructions(args.data)
        print_instructions(counts)
        return 0 if counts is not None else 2

    import truebleu

    slow = 1 if args.quick else 3
    key = f"{args.ratios}_s"  # the time each ratio divides
    print(f"truebleu {truebleu.__version__} (backend: {truebleu.active_backend()}), "
          f"Python {sys.version.split()[0]}, {os.cpu_count()} CPUs\n")
    rows = []
    mismatches = []

    def add_rows(task, results, single, reference="sacrebleu"):
        """One row per tool: default threads and one core side by side."""
        ref = results[reference]
        for tool, res in [*results.items(), *((t + " (1 core)", r) for t, r in single.items())]:
            if tool.startswith("truebleu") and res["scores"] != ref["scores"]:
                mismatches.append(f"{task}: {tool} differs from {reference}")
        for tool, res in results.items():
            one = single.get(tool)
            rows.append((task, tool, res.get("segments", 0), res, ref[key] / res[key],
                         one, ref[key] / one[key] if one else None, res["peak_kb"], res["base_kb"]))

    def compare(task, tools, reference="sacrebleu"):
        results, single = {}, {}
        for tool, repeat in tools:
            results[tool] = measure(task, tool, args.data, repeat)
            if tool != reference:  # sacreBLEU is single-threaded: one run serves both columns
                single[tool] = measure(task, tool, args.data, repeat, single=True)
            print(f"  measured {task} / {tool}", file=sys.stderr)
        add_rows(task, results, single, reference)
        return results

    corpus = compare("corpus", [("sacrebleu", slow), ("bleuscore", args.repeat),
                                ("truebleu", args.repeat), ("truebleu-cold", args.repeat),
                                ("truebleu-cached", args.repeat)])
    onecall = compare("corpus-onecall", [("sacrebleu", 1), ("bleuscore", 1), ("truebleu", 3)])
    compare("sentence", [("sacrebleu", slow), ("truebleu", args.repeat)])
    compare("matrix", [("sacrebleu", slow), ("truebleu", args.repeat * 4)])
    for tok in ("intl", "zh", "char"):
        compare(f"tok-{tok}", [("sacrebleu", slow), ("truebleu", args.repeat)])

    # the command line on files: all into-English outputs concatenated, against reference A
    with tempfile.TemporaryDirectory() as tmp:
        hyp, ref = Path(tmp) / "hyp.en", Path(tmp) / "ref.en"
        n_lines = write_concatenated(args.data, hyp, ref)
        cli = {tool: measure_cli(tool, ref, hyp, rep) for tool, rep in
               (("sacrebleu", slow), ("bleuscore", slow), ("truebleu", args.repeat))}
        cli_single = {tool: measure_cli(tool, ref, hyp, rep, single=True) for tool, rep in
                      (("bleuscore", slow), ("truebleu", args.repeat))}
        for res in (*cli.values(), *cli_single.values()):
            res["segments"] = n_lines
        add_rows("command line (files)", cli, cli_single)
        print("  measured the command line", file=sys.stderr)
    instructions = callgrind_instructions(args.data)

    print("| task | tool | segments | median time | best | vs sacreBLEU | one core: median | best "
          "| one core: vs sacreBLEU | peak RSS | RSS after loading |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for task, tool, n, res, ratio, one, ratio1, peak, base in rows:
        base_text = f"{base / 1024:.0f} MiB" if base else "-"
        one_text = (f"{fmt_s(one['median_s'])} | {fmt_s(one['best_s'])} | {ratio1:.1f}x" if one
                    else "- | - | -")
        print(f"| {task} | {tool} | {n} | {fmt_s(res['median_s'])} | {fmt_s(res['best_s'])} "
              f"| {ratio:.1f}x | {one_text} | {peak / 1024:.0f} MiB | {base_text} |")
    runs = (f"each tool's runs (--repeat {args.repeat}; {slow} of sacreBLEU's loops and bleuscore's "
            "command line, 1-3 of the one-call corpus, 4 times as many of truebleu's matrix)")
    print("\n" + times_note(args.ratios, runs))
    print_instructions(instructions)

    bs = corpus["bleuscore"][key]
    tb = corpus["truebleu"][key]
    tbc = corpus["truebleu-cached"][key]
    tbcold = corpus["truebleu-cold"][key]
    print(f"\ncorpus: truebleu is {bs / tb:.1f}x faster than bleuscore ({bs / tbc:.1f}x with "
          f"BLEU(references=...), {bs / tbcold:.1f}x when every call re-tokenizes its references)")
    sb_mem = corpus["sacrebleu"]["peak_kb"] - corpus["sacrebleu"]["base_kb"]
    tb_mem = corpus["truebleu"]["peak_kb"] - corpus["truebleu"]["base_kb"]
    print(f"corpus peak memory above the loaded text: sacreBLEU {sb_mem / 1024:.0f} MiB, "
          f"truebleu {tb_mem / 1024:.0f} MiB ({sb_mem / max(tb_mem, 1):.1f}x less); "
          f"total peak ratio {corpus['sacrebleu']['peak_kb'] / corpus['truebleu']['peak_kb']:.1f}x")

    print(f"corpus as one call: peak RSS sacreBLEU {onecall['sacrebleu']['peak_kb'] / 1024:.0f} MiB, "
          f"bleuscore {onecall['bleuscore']['peak_kb'] / 1024:.0f} MiB, "
          f"truebleu {onecall['truebleu']['peak_kb'] / 1024:.0f} MiB "
          f"({onecall['sacrebleu']['peak_kb'] / onecall['truebleu']['peak_kb']:.1f}x less than sacreBLEU)")
    bare, imp, no_site = import_time(31)
    cli_ratio = cli["sacrebleu"]["peak_kb"] / cli["truebleu"]["peak_kb"]
    print(f"command line on files: peak RSS sacreBLEU {cli['sacrebleu']['peak_kb'] / 1024:.0f} MiB, "
          f"truebleu {cli['truebleu']['peak_kb'] / 1024:.0f} MiB ({cli_ratio:.1f}x less)")
    print(f"import truebleu: {(imp - bare) * 1000:.1f} ms above a bare interpreter "
          f"(median of 31: {imp * 1000:.1f} ms vs {bare * 1000:.1f} ms)")
    print(f"interpreter start-up, in both tools' command-line times: {bare * 1000:.1f} ms "
          f"({no_site * 1000:.1f} ms with -S, before any site directory's .pth file runs)")
    hooks = startup_hooks()
    if hooks and bare - no_site > 0.02:
        print("  note: these .pth files run code at every start-up and are not part of either "
              "tool; a virtual environment without system site packages (as the README installs "
              "into) does not run them: " + ", ".join(hooks))
    print("scores identical to sacreBLEU: " + ("yes" if not mismatches else "NO: " + "; ".join(mismatches)))
    return 1 if mismatches else 0


if __name__ == "__main__":
    sys.exit(main())
