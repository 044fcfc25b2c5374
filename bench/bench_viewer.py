"""The viewer, measured in headless Chromium: build, size, first paint, sort, filter, scroll.

(a) WMT21 en-de: the 20 systems, references A, C and D, and the source.
(a') The same with every metric: ``-m bleu chrf ter`` and two external score files
    (mt-metrics-eval's layout, read as ``--scores`` reads them: a noisy function of
    each segment's chrF, and another of its TER), beside (a), today's BLEU-only report.
(b) A synthetic corpus of ``--segments`` segments (200,000 by default) and 2
    systems: the WMT21 en-de text repeated, written under a temporary folder.
(c) On (b)'s files, the command line in a fresh child process each (wall clock and CPU
    time from ``os.wait4``; peak RSS: the child's own VmHWM, Linux only, see
    ``peak_memory.py``): ``truebleu report REF -i A B --source SRC -o FILE``
    (tokens, buckets, bootstrap, page) against ``sacrebleu REF -i A B -b`` (BLEU of the
    two systems, nothing else).

For each: the Python time of ``truebleu.viewer.report(...)`` and of
``Report.save`` (best of ``--repeat``), the file's size, and in Chromium (fresh
context per load, the file opened from disk) the first contentful paint and the
time until the viewer sets ``body[data-ready]`` (both from navigation start,
Performance API), then the time of sorting and filtering the segment list (a
synchronous ``change`` dispatched in the page, timed with ``performance.now()``
until the handler returns and until the next frame after the list's redraw),
programmatic scrolling of the list, opening the A vs B view (``#view=compare``:
until the viewer has drawn it, and until its n-gram tables, counted over every
segment, are filled), and the longest main-thread task (``PerformanceObserver``,
``longtask``) once the page is loaded.

    python bench/bench_viewer.py [--shared PATH] [--segments 200000] [--repeat 3] [--keep DIR]
    python bench/bench_viewer.py --command-only [--segments 50000 100000 200000]

``--command-only`` runs (c) alone, for each ``--segments`` size, without Chromium and
without the WMT21 reports; the scores of the page (its payload) are checked identical to
sacreBLEU's (``-w 16``, which only widens what ``-b`` prints).

Prints markdown tables with the issue's targets. Not a test: nothing fails
because a machine is slow; on a shared 2-core machine the numbers are noisy.
"""

from __future__ import annotations

import argparse
import atexit
import os
import platform
import shutil
import statistics
import tempfile
import time
from pathlib import Path

from peak_memory import run_python

DEFAULT_SHARED = Path(__file__).resolve().parents[1].parent / "shared"
CHROMIUM = os.environ.get("TRUEBLEU_CHROMIUM", "/usr/bin/chromium")

#: run in every page before its own script: when the viewer became ready, and long tasks
PROBES = """
window.__readyAt = null;
window.__longTasks = [];
new MutationObserver(() => {
  if (window.__readyAt === null && document.body && document.body.dataset.ready)
    window.__readyAt = performance.now();
}).observe(document, {attributes: true, subtree: true, attributeFilter: ["data-ready"]});
try {
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) window.__longTasks.push([e.startTime, e.duration]);
  }).observe({type: "longtask", buffered: true});
} catch (e) { window.__longTasks = null; }
"""

#: dispatch a change on a control and time it: [handler returned, next frame after the redraw]
TIMED_CHANGE = """async ([selector, value]) => {
  const control = document.querySelector(selector);
  if (!control) throw new Error("no " + selector);
  const t0 = performance.now();
  control.value = value;
  control.dispatchEvent(new Event("change", {bubbles: true}));
  const handler = performance.now() - t0;
  await new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));
  return [handler, performance.now() - t0, document.querySelectorAll("#segment-list .segrow").length];
}"""

SCROLL = """async (steps) => {
  const list = document.getElementById("segment-list");
  const frames = [];
  const end = list.scrollHeight - list.clientHeight;
  for (let k = 1; k <= steps; k++) {
    const t0 = performance.now();
    list.scrollTop = Math.round(end * k / steps);
    await new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)));
    frames.push(performance.now() - t0);
  }
  const shown = Array.from(list.querySelectorAll(".segrow")).filter((r) => r.style.display !== "none").length;
  return {frames, shown, scrollTop: list.scrollTop, end};
}"""


def build(refs, ref_names, systems, source, path: Path, repeat: int, **options):
    """(report, build s, save s, bytes) of the fastest of ``repeat`` fresh build + save runs.

    The first save of a report encodes its payload (JSON + gzip), so each run
    builds a new report: a second save of the same one would skip that work.
    """
    from truebleu.viewer import report

    best = None
    for _ in range(repeat):
        start = time.perf_counter()
        rep = report(refs, systems, source=source, reference_names=ref_names, **options)
        built = time.perf_counter()
        rep.save(path)
        saved = time.perf_counter()
        run = (rep, built - start, saved - built)
        if best is None or run[1] + run[2] < best[1] + best[2]:
            best = run
    return best[0], best[1], best[2], path.stat().st_size


def external_score_files(folder: Path, refs, systems) -> dict[str, Path]:
    """Two external metrics in mt-metrics-eval's layout (``SYSTEM<TAB>SCORE`` a line, each
    system's segments in order): a noisy function of sentence chrF, and one of TER."""
    import random

    from truebleu.metrics import CHRF, TER

    rng = random.Random(22)
    segment_refs = [[stream[i] for stream in refs] for i in range(len(refs[0]))]
    files = {}
    for name, metric, sign in (("COMET", CHRF(), 1.0), ("MQM", TER(), -1.0)):
        path = folder / f"{name}.seg.score"
        with path.open("w", encoding="utf-8") as out:
            for system, hyps in systems.items():
                for hyp, segment in zip(hyps, segment_refs):
                    value = metric.sentence_score(hyp, segment).score
                    out.write(f"{system}\t{sign * value / 100 + rng.gauss(0, 0.05):.6f}\n")
        files[name] = path
    return files


def run_command(target: list[str]) -> tuple[float, float, float, str]:
    """(wall s, CPU s of the child, its own peak RSS in MB, its standard output) of ``python
    TARGET...`` (``["-m", "truebleu", ...]``) in a fresh process.

    The peak is the child's VmHWM (``peak_memory.py``; Linux), not ``ru_maxrss``, which on
    Linux keeps the peak of this parent at fork time: after a 200k report built here, a 50k
    child would show about what 200k shows."""
    measured = run_python(target)
    return measured.wall_s, measured.cpu_s, measured.peak_kib / 1024, measured.stdout


def page_scores(path: Path) -> list[float]:
    """Each system's corpus BLEU as the saved page's payload holds it."""
    import base64
    import re

    from truebleu.viewer.page import decode_payload

    text = path.read_text(encoding="utf-8")
    data = re.search(r'id="truebleu-payload">([^<]*)</script>', text).group(1)
    payload = decode_payload(base64.b64decode(data))
    return [system["corpus"]["score"] for system in payload["systems"]]


def command_table(folder: Path, names: list[str], n: int, out: Path) -> list[str]:
    """Issue 25's row: the whole report from the command line against sacreBLEU's BLEU alone
    (the scores the page shows checked identical to sacreBLEU's)."""
    import json

    ref, hyps = str(folder / "ref.txt"), [str(folder / f"{s}.txt") for s in names]
    page = out / f"command-{n}.html"
    truebleu_run = run_command(["-m", "truebleu", "report", ref, "-i", *hyps,
                                "--source", str(folder / "src.txt"), "-o", str(page), "--quiet"])
    sacrebleu_run = run_command(["-m", "sacrebleu", ref, "-i", *hyps, "-b", "-w", "16"])
    printed = sacrebleu_run[3]  # several systems: a JSON list after a line of its own
    theirs = [float(row["BLEU"]) for row in json.loads(printed[printed.index("["):])]
    ours = [float(f"{score:.16f}") for score in page_scores(page)]
    if ours != theirs:
        raise RuntimeError(f"the page's BLEU {ours} is not sacreBLEU's {theirs}")
    rows = [("`truebleu report REF -i A B --source SRC -o FILE`", truebleu_run[:3]),
            ("`sacrebleu REF -i A B -b`", sacrebleu_run[:3])]
    lines = [f"### The report from the command line: {n} segments, 2 systems (issue 25)", "",
             "| command | wall | CPU | peak RSS |", "|---|---|---|---|"]
    lines += [f"| {name} | {w:.1f} s | {c:.1f} s | {m:.0f} MB |" for name, (w, c, m) in rows]
    lines += ["", f"sacreBLEU / truebleu: {sacrebleu_run[0] / truebleu_run[0]:.1f}x wall clock, "
              f"{sacrebleu_run[1] / truebleu_run[1]:.1f}x CPU time (target: 15x); "
              f"BLEU identical ({', '.join(map(str, theirs))})", ""]
    return lines


def synthetic_corpus(folder: Path, n: int, refs, source, systems) -> list[str]:
    """(b)'s files: the WMT21 en-de text repeated to ``n`` segments; the 2 systems' names."""
    repeat = lambda lines_: [lines_[k % len(lines_)] for k in range(n)]  # noqa: E731
    folder.mkdir(parents=True, exist_ok=True)
    names = sorted(systems)[:2]
    texts = {"ref": repeat(refs[0]), "src": repeat(source), **{s: repeat(systems[s]) for s in names}}
    for name, text in texts.items():               # the corpus as files, read back as a user would
        (folder / f"{name}.txt").write_text("\n".join(text) + "\n", encoding="utf-8")
    return names


def long_tasks_since(page, since: float) -> float:
    tasks = page.evaluate("window.__longTasks")
    if tasks is None:
        return float("nan")
    return max([duration for start, duration in tasks if start >= since], default=0.0)


def now(page) -> float:
    return page.evaluate("performance.now()")


def open_report(browser, url: str):
    """A fresh context and page at ``url``; (page, first contentful paint ms, ready ms)."""
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    context.add_init_script(PROBES)
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(url, timeout=120_000)
    page.wait_for_selector("body[data-ready]", state="attached", timeout=300_000)
    if errors or page.evaluate("document.body.dataset.ready") != "1":
        raise RuntimeError(f"the report did not open: {errors}")
    paints = {e["name"]: e["startTime"] for e in page.evaluate(
        "performance.getEntriesByType('paint').map((e) => ({name: e.name, startTime: e.startTime}))")}
    return page, paints.get("first-contentful-paint", float("nan")), page.evaluate("window.__readyAt")


def show(page, fragment: str) -> None:
    page.evaluate("delete document.body.dataset.ready")
    page.evaluate("(f) => { location.hash = f; }", fragment)
    page.wait_for_selector("body[data-ready]", state="attached", timeout=300_000)


def timed_changes(page, selector: str, values: list[str], repeat: int):
    """Alternate the control between ``values`` (so no cached result is reused); ms lists."""
    handler, frame = [], []
    for k in range(repeat * len(values)):
        h, f, rows = page.evaluate(TIMED_CHANGE, [selector, values[k % len(values)]])
        handler.append(h)
        frame.append(f)
    return handler, frame


#: the sorts timed on the BLEU-only page
BLEU_SORTS = ["delta", "bleuA", "contribution", "length"]


def measure_page(browser, path: Path, loads: int, interactions: int, scroll_steps: int,
                 every_metric: bool = False):
    url = path.resolve().as_uri()
    fcps, readies = [], []
    page = None
    for _ in range(loads):
        if page is not None:
            page.context.close()
        page, fcp, ready = open_report(browser, url)
        fcps.append(fcp)
        readies.append(ready)
    loaded_at = now(page)
    results = {"fcp": fcps, "ready": readies}
    show(page, "view=segments")
    results["segments view"] = long_tasks_since(page, loaded_at)
    sort_from = now(page)
    sorts = BLEU_SORTS
    if every_metric:  # each metric's difference and sentence score, and the disagreement
        offered = page.evaluate("Array.from(document.querySelectorAll("
                                "'select[data-control=sort] option'), (o) => o.value)")
        sorts = ["delta"] + [v for v in offered if v[:1] == "m" and v[-1:] in "ad"][:4]
        sorts += [v for v in offered if v == "disagree"]
    results["sort"] = timed_changes(page, "select[data-control=sort]", sorts, interactions)
    results["sort long task"] = long_tasks_since(page, sort_from)
    show(page, "view=segments")
    filter_from = now(page)
    results["filter"] = timed_changes(page, "input[data-filter=hyp]",
                                      ["die", "Haus", "^Die .* ist", "zu"], interactions)
    page.evaluate(TIMED_CHANGE, ["input[data-filter=hyp]", ""])
    results["filter long task"] = long_tasks_since(page, filter_from)
    length_from = now(page)
    results["length filter"] = timed_changes(page, "input[data-filter=minLen]", ["10", "30", "5"],
                                             interactions)
    page.evaluate(TIMED_CHANGE, ["input[data-filter=minLen]", ""])
    results["length long task"] = long_tasks_since(page, length_from)
    scroll_from = now(page)
    scrolled = page.evaluate(SCROLL, scroll_steps)
    results["scroll"] = scrolled
    results["scroll long task"] = long_tasks_since(page, scroll_from)
    compare_from = now(page)
    show(page, "view=compare")
    results["compare drawn"] = now(page) - compare_from
    page.wait_for_selector("#ngram-diffs .halves", state="attached", timeout=300_000)
    results["compare"] = now(page) - compare_from
    results["compare long task"] = long_tasks_since(page, compare_from)
    results["after load long task"] = long_tasks_since(page, loaded_at)
    page.context.close()
    return results


def ms(values) -> str:
    if isinstance(values, (int, float)):
        return f"{values:.0f} ms"
    return f"{statistics.median(values):.0f} ms (max {max(values):.0f})"


def verdict(value: float, target: float) -> str:
    return "yes" if value < target else "**no**"


def report_table(title: str, n_segments: int, n_systems: int, built, page_results,
                 size_target: int = 15) -> list[str]:
    _, t_report, t_save, size = built
    r = page_results
    sort_h, sort_f = r["sort"]
    filt_h, filt_f = r["filter"]
    len_h, len_f = r["length filter"]
    frames = r["scroll"]["frames"]
    rows = [
        ("report built (Python; fastest build + save run)", f"{t_report:.2f} s", "", ""),
        ("report saved (payload JSON + gzip + file)", f"{t_save:.2f} s", "", ""),
        ("build + save", f"{t_report + t_save:.2f} s", "< 3 s", verdict(t_report + t_save, 3)),
        ("file size", f"{size / 1e6:.1f} MB", f"< {size_target} MB", verdict(size / 1e6, size_target)),
        ("first contentful paint", ms(r["fcp"]), "< 1.5 s", verdict(statistics.median(r["fcp"]) / 1000, 1.5)),
        ("viewer ready (data-ready)", ms(r["ready"]), "", ""),
        ("sort (handler / next frame)", f"{ms(sort_h)} / {ms(sort_f)}", "< 100 ms",
         verdict(statistics.median(sort_f), 100)),
        ("regex filter on outputs (handler / frame)", f"{ms(filt_h)} / {ms(filt_f)}", "< 100 ms",
         verdict(statistics.median(filt_f), 100)),
        ("length filter (handler / frame)", f"{ms(len_h)} / {ms(len_f)}", "< 100 ms",
         verdict(statistics.median(len_f), 100)),
        (f"scroll, {len(frames)} jumps to the end (per frame)", ms(frames), "", ""),
        ("open A vs B (#view=compare): drawn / n-gram tables filled", f"{ms(r['compare drawn'])} / "
         f"{ms(r['compare'])}", "< 2 s", verdict(r["compare"], 2000)),
        ("longest task: segments view opened", ms(r["segments view"]), "", ""),
        ("longest task: sorting", ms(r["sort long task"]), "", ""),
        ("longest task: filtering", ms(max(r["filter long task"], r["length long task"])), "", ""),
        ("longest task: scrolling", ms(r["scroll long task"]), "< 200 ms",
         verdict(r["scroll long task"], 200)),
        ("longest task: A vs B view", ms(r["compare long task"]), "", ""),
        ("longest task once loaded (all of the above)", ms(r["after load long task"]), "< 200 ms",
         verdict(r["after load long task"], 200)),
    ]
    lines = [f"### {title}: {n_segments} segments, {n_systems} systems", "",
             "| measure | value | target | met |", "|---|---|---|---|"]
    lines += [f"| {a} | {b} | {c} | {d} |" for a, b, c, d in rows]
    return lines + [""]


def measure_existing(path: Path, loads: int, interactions: int) -> None:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        page = measure_page(browser, path, loads, interactions, 60)
        browser.close()
    lines = report_table(f"{path.name} (page only)", 0, 0,
                         (None, float("nan"), float("nan"), path.stat().st_size), page)
    print("\n".join(line for line in lines if "report built" not in line and "report saved" not in line
                    and "build + save" not in line))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--shared", default=os.environ.get("TRUEBLEU_SHARED", DEFAULT_SHARED))
    parser.add_argument("--segments", type=int, nargs="+", default=[200_000],
                        help="segments of the synthetic corpus, one or more sizes (0: skip it)")
    parser.add_argument("--command-only", action="store_true",
                        help="only (c), the command line against sacreBLEU -b, at each size "
                             "(no Chromium, no WMT21 reports)")
    parser.add_argument("--repeat", type=int, default=3, help="builds (best is kept) and page loads (median)")
    parser.add_argument("--interactions", type=int, default=3, help="repetitions of each sort/filter value")
    parser.add_argument("--keep", help="write the reports into this folder (default: a temporary one)")
    parser.add_argument("--page", help="only measure this existing report file in Chromium (no build)")
    args = parser.parse_args()
    if args.page:
        measure_existing(Path(args.page), args.repeat, args.interactions)
        return

    from playwright.sync_api import sync_playwright

    import truebleu
    from truebleu.io import read_lines

    wmt = Path(args.shared) / "data" / "wmt21"
    out = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="truebleu-bench-viewer-"))
    out.mkdir(parents=True, exist_ok=True)
    if not args.keep:  # (the 200k corpora and pages are about 0.5 GB a run)
        atexit.register(shutil.rmtree, out, ignore_errors=True)
    kept = f"reports in {out}" if args.keep else "reports removed (--keep DIR keeps them)"
    ref_names = ["A", "C", "D"]
    refs = [read_lines(wmt / "references" / f"newstest2021.en-de.ref.{r}.de") for r in ref_names]
    source = read_lines(wmt / "sources" / "newstest2021.en-de.src.en")
    paths = sorted((wmt / "system-outputs").glob("newstest2021.en-de.hyp.*.de"))
    systems = {p.name.split(".hyp.")[1][:-3]: read_lines(p) for p in paths}

    lines = [f"truebleu {truebleu.__version__}, Python {platform.python_version()}, "
             f"{os.cpu_count()} CPUs ({platform.machine()}), "
             f"load average {os.getloadavg()[0]:.1f} at start", ""]
    sizes = [n for n in args.segments if n]
    if args.command_only:  # each size's table printed as soon as it is measured
        print("\n".join(lines), flush=True)
        for n in sizes:
            folder = out / f"synthetic-{n}"
            names = synthetic_corpus(folder, n, refs, source, systems)
            print("\n".join(command_table(folder, names, n, out)), flush=True)
        print(f"{kept}\ncommand: python bench/bench_viewer.py --command-only --segments "
              + " ".join(map(str, args.segments)))
        return
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        lines.insert(0, f"Chromium {browser.version} (headless), " + lines.pop(0))

        wmt_path = out / "wmt21-en-de.html"
        built = build(refs, ref_names, systems, source, wmt_path, args.repeat)
        page = measure_page(browser, wmt_path, args.repeat, args.interactions, 40)
        lines += report_table("WMT21 en-de (references A, C, D and the source)", len(refs[0]), len(systems),
                              built, page)

        from truebleu.io.scores import read_segment_scores

        score_files = external_score_files(out, refs, systems)
        every_path = out / "wmt21-en-de-every-metric.html"
        built = build(refs, ref_names, systems, source, every_path, args.repeat,
                      metrics=["bleu", "chrf", "ter"],
                      scores={name: read_segment_scores(path, name, list(systems), len(refs[0]))
                              for name, path in score_files.items()},
                      higher_is_better={"COMET": True, "MQM": True})
        page = measure_page(browser, every_path, args.repeat, args.interactions, 40, every_metric=True)
        lines += report_table("WMT21 en-de, -m bleu chrf ter and two external score files", len(refs[0]),
                              len(systems), built, page, size_target=12)

        for n in sizes:
            folder = out / f"synthetic-{n}"
            names = synthetic_corpus(folder, n, refs, source, systems)
            syn_refs = [read_lines(folder / "ref.txt")]
            syn_systems = {s: read_lines(folder / f"{s}.txt") for s in names}
            syn_source = read_lines(folder / "src.txt")
            syn_path = out / f"synthetic-{n}.html"
            built = build(syn_refs, ["A"], syn_systems, syn_source, syn_path, 1)
            page = measure_page(browser, syn_path, 1, 1, 60)
            lines += report_table("Synthetic (WMT21 en-de text repeated, reference A and the source)", n,
                                  len(syn_systems), built, page)
            lines += command_table(folder, names, n, out)
        browser.close()

    lines.append(kept)
    lines.append("command: python bench/bench_viewer.py " + " ".join(
        f"--{k} {v}" for k, v in (("segments", " ".join(map(str, args.segments))),
                                  ("repeat", args.repeat),
                                  ("interactions", args.interactions))))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
