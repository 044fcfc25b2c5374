"""The security corpus in every field of the metric subset views, the exports and serve's
paired tests by metric: hostile metric names (external scores) and system names on a page
without BLEU, in the file and in ``serve``. Nothing may run, no element or attribute of a
payload may reach the DOM, no CSP violation, and no line break may split an exported row.
"""

from __future__ import annotations

import random
from contextlib import ExitStack

import pytest

pytest.importorskip("numpy")

from browser import browser, open_page, show_view, wait_until  # noqa: E402,F401  (fixtures)
from hostile_text import NAMES, PAYLOADS, PWN  # noqa: E402  (the security corpus)
from serving import running_server  # noqa: E402
from truebleu.viewer import report as make_report  # noqa: E402

#: what one export gives, read in the page (the blob handed to the download link)
CAPTURE = """(selector) => new Promise((resolve) => {
    const real = URL.createObjectURL;
    URL.createObjectURL = (blob) => {
        URL.createObjectURL = real; blob.text().then(resolve); return real.call(URL, blob); };
    document.querySelector(selector).click();
})"""


@pytest.fixture(scope="module")
def hostile(tmp_path_factory):
    n = len(PAYLOADS)
    systems = {NAMES[0]: list(PAYLOADS), NAMES[1]: [PAYLOADS[(k + 1) % n] for k in range(n)],
               NAMES[2]: [PAYLOADS[(k + 2) % n] for k in range(n)]}
    rng = random.Random(2)
    names = [f"<svg onload={PWN}>\u202e", "X\x85row\u2028break\x00\ttab"]
    scores = {name: {s: [rng.random() for _ in range(n)] for s in systems} for name in names}
    rep = make_report([list(PAYLOADS)], systems, metrics=["chrf", "ter"], scores=scores,
                      n_samples=40, n_permutations=10)
    path = tmp_path_factory.mktemp("hostile-subsets") / "report.html"
    rep.save(path)
    return rep, path.as_uri(), names


@pytest.mark.parametrize("mode", ["file", "serve"])
def test_hostile_names_in_the_subset_views_exports_and_tests(open_page, hostile, mode):
    from test_viewer_security import assert_clean, shown

    rep, url, names = hostile
    with ExitStack() as stack:
        if mode == "serve":
            url = stack.enter_context(running_server(rep)).url
        page = open_page(url + "#view=overview")
        assert_clean(page, f"{mode} overview")
        for k in range(4):   # every metric's chart, the hostile names among them
            show_view(page, f"view=overview&mChart={k}")
            svg = page.evaluate(CAPTURE, "#metric-chart .toolbar button")
            assert svg.startswith("<svg") and "<svg onload" not in svg
            assert_clean(page, f"{mode} chart {k}")
        heatmap = page.evaluate(CAPTURE, "#agreement .toolbar:last-of-type button")
        assert "<svg onload" not in heatmap and "&lt;svg onload" in heatmap
        show_view(page, "view=segments&fcol=m2d&fmin=0")
        assert_clean(page, f"{mode} filtered segments")
        labels = page.eval_on_selector_all("#metric-subset tbody tr td:first-child",
                                           "(c) => c.map((x) => x.textContent)")
        assert labels[2:] == [shown(name) + " \u2191" for name in names]
        for selector in ("#metric-subset .exports button", ".segment-exports .exports button"):
            tsv = page.evaluate(CAPTURE, selector)
            rows = tsv.rstrip("\n").split("\n")
            assert all(len(row.split("\t")) == len(rows[0].split("\t")) for row in rows), selector
            assert_clean(page, f"{mode} export {selector}")
        if mode == "serve":   # every metric's paired test, the hostile names sent and answered
            page.click("[data-control=run-metric-tests]")
            wait_until(page, "() => document.querySelectorAll('#metric-subset [data-p]').length === 4",
                       timeout=120)
            assert page.inner_text("#metric-subset").count("truebleu API") == 4
        show_view(page, "view=compare")
        assert_clean(page, f"{mode} A vs B")
        show_view(page, "view=segments&seg=3")
        assert_clean(page, f"{mode} segment detail")
        assert "BLEU" not in page.inner_text("body")
