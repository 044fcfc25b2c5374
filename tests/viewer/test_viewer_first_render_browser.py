"""The page's first render and its title, in headless Chromium.

- Opened at ``#view=segments``, the page sets ``body[data-ready]`` only once that view has
  been painted: the segment list's rows drawn, "Loading the report…" gone, and at least
  one frame after the view was put in the page (ten loads, recorded from inside the page).
- ``report`` and ``serve`` title the page alike, naming the reference files as a reader
  knows them, whether one reference or several.
"""

from __future__ import annotations

import random
import urllib.request

import pytest

from browser import browser, open_page, screenshot_dir  # noqa: F401  (fixtures)
from serving import running_server  # noqa: E402
from truebleu.cli.viewer import build_parser, build_report, main

#: recorded in the page before its own script: the frames drawn, the frame in which the
#: segments view appeared, and what the page held when data-ready was set
RECORDER = """
window.__firstRender = null;
let frames = 0, viewFrame = null;
const tick = () => { frames++; requestAnimationFrame(tick); };
requestAnimationFrame(tick);
document.addEventListener("DOMContentLoaded", () => {
  new MutationObserver(() => {
    if (viewFrame === null && document.querySelector("main[data-view=segments]")) viewFrame = frames;
  }).observe(document.body, {childList: true, subtree: true});
  new MutationObserver(() => {
    if (window.__firstRender || !document.body.dataset.ready) return;
    const rows = [...document.querySelectorAll(".segrow")]
      .filter((r) => r.style.display !== "none" && r.textContent);
    window.__firstRender = {frames, viewFrame, rows: rows.length,
      loading: document.getElementById("app").textContent.includes("Loading the report")};
  }).observe(document.body, {attributes: true, attributeFilter: ["data-ready"]});
});
"""


def write_lines(path, lines):
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return str(path)


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """Two reference files and three systems of 3000 generated segments."""
    folder = tmp_path_factory.mktemp("first-render")
    rng = random.Random(2)
    words = "the a cat dog sat on mat house tree big small red runs quickly".split()
    refs = [[" ".join(rng.choices(words, k=rng.randint(3, 25))) for _ in range(3000)]
            for _ in range(2)]
    ref_files = [write_lines(folder / f"newstest2099.en-de.ref.{k}.de", lines)
                 for k, lines in zip("AB", refs)]
    systems = []
    for name in ("alpha", "beta", "gamma"):
        lines = [" ".join(w if rng.random() < 0.7 else rng.choice(words) for w in r.split())
                 for r in refs[0]]
        systems.append(write_lines(folder / f"newstest2099.en-de.hyp.{name}.de", lines))
    return {"folder": folder, "refs": ref_files, "systems": systems}


def test_data_ready_comes_after_the_segments_are_painted(browser, files, screenshot_dir):
    out = files["folder"] / "report.html"
    assert main(["report", *files["refs"], "-i", *files["systems"], "-m", "bleu", "chrf",
                 "-o", str(out), "-q", "--n-samples", "50"]) == 0
    for attempt in range(10):
        context = browser.new_context(viewport={"width": 1400, "height": 900})
        context.add_init_script(RECORDER)
        page = context.new_page()
        page.goto(out.as_uri() + "#view=segments")
        page.wait_for_selector("body[data-ready]", state="attached", timeout=60_000)
        seen = page.evaluate("window.__firstRender")
        assert seen is not None, attempt
        assert not seen["loading"] and seen["rows"] > 10, (attempt, seen)
        assert seen["viewFrame"] is not None and seen["frames"] > seen["viewFrame"], (attempt, seen)
        if attempt == 0:
            page.screenshot(path=str(screenshot_dir / "first-render.png"))
        context.close()


def html_title(html: str) -> str:
    return html.split("<title>", 1)[1].split("</title>", 1)[0]


@pytest.mark.parametrize("refs", [1, 2])
def test_report_and_serve_title_the_page_alike(files, refs):
    chosen = files["refs"][:refs]
    out = files["folder"] / f"title-{refs}.html"
    assert main(["report", *chosen, "-i", *files["systems"], "-o", str(out), "-q",
                 "--n-samples", "20"]) == 0
    served = build_report(build_parser("serve").parse_args(
        [*chosen, "-i", *files["systems"], "--n-samples", "20"]))
    with running_server(served) as server, urllib.request.urlopen(server.url, timeout=30) as response:
        page = response.read().decode("utf-8")
    want = {1: "3 systems against newstest2099.en-de.ref.A.de",
            2: "3 systems against newstest2099.en-de.ref.{A,B}.de"}[refs]
    assert html_title(out.read_text(encoding="utf-8")) == want
    assert html_title(page) == want
