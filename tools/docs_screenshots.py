"""The viewer's screenshots in docs/img/, made again from the WMT21 data of ``../shared``.

Builds the every-metric report the docs describe (WMT21 en-de, seven systems, references
A, C and D, ``-m bleu chrf ter``, and two score files made here as noisy functions of
sentence chrF: ``COMET`` higher-is-better and ``MQM`` a lower-is-better error count used as
the gold), opens it in headless Chromium and captures:

- ``viewer-agreement.png``: the metric agreement panel of the systems view;
- ``viewer-ter-alignment.png``: a segment's detail with TER's edits and chrF's matches;
- ``viewer-compare-metrics.png``: A vs B, every metric's Δ and the segments behind chrF's.

    python tools/docs_screenshots.py [--shared PATH] [--out docs/img]

Needs Playwright and Debian's Chromium (``TRUEBLEU_CHROMIUM``, default /usr/bin/chromium).
Look at the images before committing them: they are what a reader of the docs sees.
"""

from __future__ import annotations

import argparse
import os
import random
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DEFAULT_SHARED = Path(os.environ.get("TRUEBLEU_SHARED") or REPO.parent / "shared")
CHROMIUM = os.environ.get("TRUEBLEU_CHROMIUM", "/usr/bin/chromium")
SYSTEMS = 7
WIDTH = 1280
#: the segment whose detail is shown: short, with a shift in TER's alignment
SEGMENT = 12


def lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").split("\n")[:-1]


def build(shared: Path, folder: Path) -> Path:
    """Write the report (and its score files) under ``folder``; its path."""
    import truebleu
    from truebleu.cli.inputs import system_names
    from truebleu.cli.viewer import build_parser, build_report

    data = shared / "data" / "wmt21"
    refs = [data / "references" / f"newstest2021.en-de.ref.{k}.de" for k in "ACD"]
    hyps = sorted((data / "system-outputs").glob("newstest2021.en-de.hyp.*.de"))[:SYSTEMS]
    names = system_names([str(p) for p in hyps])
    ref_lines = [lines(r) for r in refs]
    rng = random.Random(5)
    comet, mqm = [], []
    for name, path in zip(names, hyps):
        for hyp, *segment_refs in zip(lines(path), *ref_lines):
            chrf = truebleu.sentence_chrf(hyp, segment_refs).score
            comet.append(f"{name}\t{chrf / 100 + rng.gauss(0, 0.05)!r}\n")
            mqm.append(f"{name}\t{max(0.0, (100 - chrf) / 10 + rng.gauss(0, 1))!r}\n")
    (folder / "COMET.seg.score").write_text("".join(comet), encoding="utf-8")
    (folder / "MQM.seg.score").write_text("".join(mqm), encoding="utf-8")
    out = folder / "report.html"
    args = build_parser("report").parse_args(
        [*map(str, refs), "-i", *map(str, hyps), "-o", str(out), "-m", "bleu", "chrf", "ter",
         "--scores", f"COMET={folder / 'COMET.seg.score'}",
         "--scores", f"MQM={folder / 'MQM.seg.score'}", "--lower-is-better", "MQM",
         "--gold", "MQM"])
    build_report(args).save(out)
    return out


def show(page, fragment: str) -> None:
    """Open a view (the URL fragment) and wait until the viewer has drawn it."""
    page.evaluate("delete document.body.dataset.ready")
    page.evaluate("(f) => { location.hash = f; }", fragment)
    page.wait_for_selector("body[data-ready]", state="attached", timeout=60_000)


def snap(page, selector: str, path: Path, height: float = 0) -> Path:
    """The element as a reader sees it, at most ``height`` pixels tall if given. The
    viewport is first made as tall as the page, so nothing scrolls and the page's sticky
    header covers nothing."""
    tall = page.evaluate("Math.max(document.documentElement.scrollHeight, document.body.scrollHeight)")
    page.set_viewport_size({"width": WIDTH, "height": int(tall) + 50})
    box = page.evaluate("""(s) => { const r = document.querySelector(s).getBoundingClientRect();
        return {x: r.left, y: r.top, width: r.width, height: r.height}; }""", selector)
    if height:
        box["height"] = min(box["height"], height)
    page.screenshot(path=str(path), clip=box)
    page.set_viewport_size({"width": WIDTH, "height": 900})
    return path


def detail(page, path: Path) -> Path:
    """A segment's every-metric part (sentence scores, chrF's matches, TER's edits): the
    detail pane scrolls on its own, so it is made tall and scrolled to that part."""
    page.set_viewport_size({"width": WIDTH, "height": 2000})
    box = page.evaluate("""() => {
        const first = document.querySelector("#metric-scores");
        first.scrollIntoView({block: "start"});
        const alignments = document.querySelectorAll("#detail .ter-alignment");
        const top = first.getBoundingClientRect();
        const pane = document.querySelector("#detail").getBoundingClientRect();
        const last = alignments[alignments.length - 1].getBoundingClientRect();
        const bottom = Math.min(last.bottom, pane.bottom);
        return {x: pane.left, y: top.top - 8, width: pane.width, height: bottom - top.top + 16}; }""")
    page.screenshot(path=str(path), clip=box)
    page.set_viewport_size({"width": WIDTH, "height": 900})
    return path


def capture(report: Path, out: Path) -> list[Path]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": WIDTH, "height": 900}, device_scale_factor=1)
        page.goto(report.as_uri())
        page.wait_for_selector("body[data-ready]", state="attached", timeout=60_000)
        written = []
        show(page, "view=overview")
        written.append(snap(page, "#agreement", out / "viewer-agreement.png", height=790))
        show(page, f"view=segments&seg={SEGMENT}&corder=3")
        written.append(detail(page, out / "viewer-ter-alignment.png"))
        show(page, "view=compare&cm=1")
        written.append(snap(page, "#app", out / "viewer-compare-metrics.png", height=900))
        browser.close()
    return written


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--shared", type=Path, default=DEFAULT_SHARED)
    parser.add_argument("--out", type=Path, default=REPO / "docs" / "img")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as folder:
        report = build(args.shared, Path(folder))
        for path in capture(report, args.out):
            print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
