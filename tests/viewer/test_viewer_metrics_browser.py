"""Every metric in the page, in headless Chromium: WMT21 en-de with -m bleu chrf ter and
two score files made elsewhere, and the security corpus as metric and file names.

The external scores are noisy functions of sentence chrF (one higher-is-better, one
lower-is-better error count), so their ordering is known; the numbers the page shows
are compared with the API's (sacreBLEU 2.6.0 for chrF and TER, compare_metrics for
intervals, clusters and agreement, NumPy for external means).
"""

from __future__ import annotations

import random
from contextlib import ExitStack

import pytest

np = pytest.importorskip("numpy")
sacrebleu = pytest.importorskip("sacrebleu")

import truebleu  # noqa: E402
from browser import browser, open_page, screenshot_dir, show_view  # noqa: E402,F401  (fixtures)
from conftest import needs_wmt21, wmt21_dir  # noqa: E402
from hostile_text import NAMES, PAYLOADS, PWN  # noqa: E402  (the security corpus)
from serving import running_server  # noqa: E402
from truebleu.cli.inputs import system_names  # noqa: E402
from truebleu.cli.viewer import build_parser, build_report  # noqa: E402
from truebleu.viewer import report as make_report  # noqa: E402

#: the en-de systems shown (a third of them: the page is the same for twenty)
SYSTEMS = 7


def write_scores(path, values: dict[str, list[float]]) -> None:
    """mt-metrics-eval's layout: SYSTEM<TAB>SCORE, each system's segments in order."""
    path.write_text("".join(f"{name}\t{value!r}\n" for name, scores in values.items()
                            for value in scores), encoding="utf-8")


@pytest.fixture(scope="module")
def en_de(tmp_path_factory):
    if not (wmt21_dir() / "system-outputs").is_dir():
        pytest.skip(f"WMT21 data not found at {wmt21_dir()}")
    folder = tmp_path_factory.mktemp("metrics")
    data = wmt21_dir()
    refs = [str(data / "references" / f"newstest2021.en-de.ref.{k}.de") for k in "ACD"]
    hyps = sorted(str(p) for p in (data / "system-outputs").glob("newstest2021.en-de.hyp.*.de"))
    hyps = hyps[:SYSTEMS]
    names = system_names(hyps)  # as the command names the -i files
    ref_lines = [open(r, encoding="utf-8").read().split("\n")[:-1] for r in refs]
    systems = {name: open(p, encoding="utf-8").read().split("\n")[:-1]
               for name, p in zip(names, hyps)}
    rng = random.Random(5)
    chrf = {name: [truebleu.sentence_chrf(h, list(r)).score
                   for h, r in zip(lines, zip(*ref_lines))] for name, lines in systems.items()}
    comet = {name: [c / 100 + rng.gauss(0, 0.05) for c in scores] for name, scores in chrf.items()}
    mqm = {name: [max(0.0, (100 - c) / 10 + rng.gauss(0, 1)) for c in scores]
           for name, scores in chrf.items()}
    write_scores(folder / "COMET.seg.score", comet)
    write_scores(folder / "MQM.seg.score", mqm)
    out = folder / "report.html"
    args = build_parser("report").parse_args(
        [*refs, "-i", *hyps, "-o", str(out), "-m", "bleu", "chrf", "ter",
         "--scores", f"COMET={folder / 'COMET.seg.score'}",
         "--scores", f"MQM={folder / 'MQM.seg.score'}", "--lower-is-better", "MQM",
         "--gold", "MQM", "--n-samples", "200"])
    rep = build_report(args)
    rep.save(out)
    return {"refs": ref_lines, "systems": systems, "comet": comet, "mqm": mqm, "report": rep,
            "url": out.as_uri()}


def cells(page, selector: str) -> list[list[str]]:
    return page.eval_on_selector_all(
        selector + " tbody tr", "(rows) => rows.map((r) => [...r.cells].map((c) => c.textContent))")


def headers(page, selector: str) -> list[str]:
    return page.eval_on_selector_all(selector + " thead th", "(hs) => hs.map((h) => h.textContent)")


@needs_wmt21
def test_every_metric_shows_the_api_numbers(open_page, en_de, screenshot_dir):
    page = open_page(en_de["url"])
    show_view(page, "view=overview")
    data = en_de["report"].data.payload()
    metrics = data["metrics"]["list"]
    assert [m["name"] for m in metrics] == ["BLEU", "chrF2", "TER", "COMET", "MQM"]
    assert headers(page, "table.metrics")[1].startswith("BLEU \u2191")
    assert headers(page, "table.metrics")[7].startswith("TER \u2193")
    rows = cells(page, "table.metrics")
    assert len(rows) == SYSTEMS
    names = [s["name"] for s in data["systems"]]
    refs = en_de["refs"]
    for r, row in enumerate(rows):
        name = row[0]
        k = names.index(name)
        hyps = en_de["systems"][name]
        # the API's scores (truebleu's corpus functions); sacreBLEU's own for the first row
        # (its TER takes seconds per system here; the model tests compare every one)
        api = sacrebleu if r == 0 else truebleu
        assert row[1] == f"{api.corpus_bleu(hyps, refs).score:.2f}"
        assert row[4] == f"{api.corpus_chrf(hyps, refs).score:.2f}"
        assert row[7] == f"{api.corpus_ter(hyps, refs).score:.2f}"
        assert row[10] == f"{np.mean(en_de['comet'][name]):.4f}"
        assert row[13] == f"{np.mean(en_de['mqm'][name]):.4f}"
        for j, m in enumerate(metrics):
            digits = 4 if m["external"] else 2
            assert row[2 + 3 * j] == f"{m['ci'][k]:.{digits}f}"
            assert row[3 + 3 * j] == str(m["cluster"][k])
    # sorted by BLEU, best first, by default
    bleu = [float(r[1]) for r in rows]
    assert bleu == sorted(bleu, reverse=True)
    page.screenshot(path=str(screenshot_dir / "metrics-overview.png"), full_page=True)


@needs_wmt21
def test_sorting_by_any_metric_column(open_page, en_de):
    page = open_page(en_de["url"])
    show_view(page, "view=overview")
    titles = headers(page, "table.metrics")
    mqm = next(i for i, t in enumerate(titles) if t.startswith("MQM \u2193"))
    page.locator("table.metrics thead th").nth(mqm).click()
    page.wait_for_selector("body[data-ready]", state="attached")
    values = [float(r[mqm]) for r in cells(page, "table.metrics")]
    assert values == sorted(values)  # lower is better: best first
    assert page.evaluate("window.truebleuViewer.state.mSort") == "m4"
    page.locator("table.metrics thead th").nth(mqm).click()
    values = [float(r[mqm]) for r in cells(page, "table.metrics")]
    assert values == sorted(values, reverse=True)
    ter_ci = titles.index("TER 95% CI \u00b1")
    page.locator("table.metrics thead th").nth(ter_ci).click()
    values = [float(r[ter_ci]) for r in cells(page, "table.metrics")]
    assert values == sorted(values, reverse=True)
    assert page.watch.page_errors == [] and page.watch.console_errors == []


@needs_wmt21
def test_the_agreement_panel_is_compare_metrics(open_page, en_de, screenshot_dir):
    page = open_page(en_de["url"])
    show_view(page, "view=overview")
    agreement = en_de["report"].data.payload()["metrics"]["agreement"]
    rows = cells(page, "table.agreement")
    assert len(rows) == 10  # every pair of five metrics
    for row, pair in zip(rows, agreement["pairs"]):
        assert row[:2] == [pair["a"], pair["b"]]
        assert row[2] == f"{pair['accuracy']:.3f}"
        assert row[3] == f"{pair['agreeing']}/{pair['system_pairs']}"
        assert row[4] == f"{pair['tau']:.3f}"
    gold = cells(page, "table.gold")
    assert [r[0] for r in gold] == ["BLEU", "chrF2", "TER", "COMET"]
    for row, g in zip(gold, agreement["against_gold"]):
        assert row[1] == f"{g['accuracy_significant']:.3f}"
        assert row[5] == f"{g['segment_tau']:.3f}" and row[6] == f"{g['acc23']:.3f}"
    # COMET is sentence chrF plus small noise: the two order the systems alike
    chrf_comet = next(p for p in agreement["pairs"] if (p["a"], p["b"]) == ("chrF2", "COMET"))
    assert chrf_comet["tau"] > 0.6
    page.locator("#agreement").screenshot(path=str(screenshot_dir / "metric-agreement.png"))
    # the TSV export is the table as shown
    tsv = page.evaluate("""() => new Promise((resolve) => {
        const real = URL.createObjectURL;
        URL.createObjectURL = (blob) => { blob.text().then(resolve); return real.call(URL, blob); };
        document.querySelector("#agreement .exports button").click();
    })""")
    lines = tsv.rstrip("\n").split("\n")
    assert lines[0].split("\t") == headers(page, "table.agreement")
    assert [line.split("\t") for line in lines[1:]] == rows


@pytest.fixture(scope="module")
def hostile_metrics(tmp_path_factory):
    """The security corpus as system names, segments and external metric names."""
    n = len(PAYLOADS)
    systems = {NAMES[0]: list(PAYLOADS), NAMES[1]: [PAYLOADS[(k + 1) % n] for k in range(n)]}
    rng = random.Random(1)
    scores = {f"<img src=x onerror={PWN}>\u202e": {s: [rng.random() for _ in range(n)] for s in systems},
              "COMET\x85row\u2028break\x00": {s: [rng.random() for _ in range(n)] for s in systems}}
    rep = make_report([list(PAYLOADS)], systems, metrics=["chrf", "ter"], scores=scores,
                      gold="COMET\x85row\u2028break\x00", n_samples=50, n_permutations=20)
    path = tmp_path_factory.mktemp("hostile-metrics") / "report.html"
    rep.save(path)
    return rep, path.as_uri(), list(scores)


@pytest.mark.parametrize("mode", ["file", "serve"])
def test_hostile_metric_names(open_page, hostile_metrics, screenshot_dir, mode):
    from test_viewer_security import assert_clean, shown

    rep, url, external = hostile_metrics
    with ExitStack() as stack:
        if mode == "serve":
            url = stack.enter_context(running_server(rep)).url
        page = open_page(url)
        show_view(page, "view=overview")
        assert_clean(page, f"{mode} metrics overview")
        heads = " ".join(headers(page, "table.metrics"))
        for name in external:
            assert shown(name) in heads
        assert [r[0] for r in cells(page, "table.metrics")] == [shown(n) for n in NAMES[:2]]
        pairs = [r[:2] for r in cells(page, "table.agreement")]
        assert [shown(external[0]), shown(external[1])] in pairs
        tsv = page.evaluate("""() => new Promise((resolve) => {
            const real = URL.createObjectURL;
            URL.createObjectURL = (blob) => { blob.text().then(resolve); return real.call(URL, blob); };
            document.querySelector("#metrics-card .exports button").click();
        })""")
        lines = tsv.rstrip("\n").split("\n")
        assert len(lines) == 3 and all("\x85" not in line and "\u2028" not in line for line in lines)
        assert_clean(page, f"{mode} metrics export")
        show_view(page, "view=segments&disagree=1")
        assert_clean(page, f"{mode} metrics segments")
        heads = page.eval_on_selector_all("#segment-list .seghead span",
                                          "(s) => s.map((e) => e.textContent)")
        for name in external:
            assert shown(name) in heads
        options = page.eval_on_selector_all("[data-filter=fcol] option",
                                            "(s) => s.map((e) => e.textContent)")
        assert f"\u0394{shown(external[0])} (B \u2212 A)" in options
        # every hostile segment's detail: metric scores and TER's edits of hostile words
        for i in range(len(PAYLOADS)):
            show_view(page, f"view=segments&seg={i}")
            assert page.locator("#detail .ter-alignment").count() == 2
            assert_clean(page, f"{mode} metrics detail of segment {i}")
        heads = page.eval_on_selector_all("#metric-scores tbody tr td:first-child",
                                          "(s) => s.map((e) => e.textContent)")
        assert shown(external[0]) + " \u2191" in heads
        page.screenshot(path=str(screenshot_dir / f"hostile-metrics-{mode}.png"), full_page=True)


# -- the segments view ---------------------------------------------------------------------

def signed(x: float, digits: int) -> str:
    """As the page's signed(): a + before a positive number that does not show as zero."""
    shown = f"{x:.{digits}f}"
    return "+" + shown if x > 0 and shown != f"{0:.{digits}f}" else shown


def visible_rows(page) -> list[dict]:
    """The rows the list has drawn, in list order: segment, and the metric cells' texts."""
    return page.eval_on_selector_all("#segment-list .segrow", """(rows) => rows
        .filter((r) => r.style.display !== "none")
        .map((r) => ({pos: Number(r.dataset.pos), segment: Number(r.dataset.segment),
                      cells: [...r.children].map((c) => c.textContent)}))
        .sort((x, y) => x.pos - y.pos)""")


def count_shown(page) -> int:
    return int(page.inner_text("#subset-summary [data-value=count]").split()[0])


def oriented_matrix(metric: dict):
    values = np.array([[np.nan if v is None else v for v in row] for row in metric["sentence"]])
    return values if metric["higher_is_better"] else -values


def disagreement(data: dict, a: int, b: int):
    """The page's documented measure, recomputed from the API's numbers."""
    z = np.stack([(oriented_matrix(m)[b] - oriented_matrix(m)[a]) / m["spread"]
                  for m in data["metrics"]["list"]])
    for_b = np.maximum(np.nan_to_num(z, nan=0.0).max(axis=0), 0.0)
    for_a = np.maximum(np.nan_to_num(-z, nan=0.0).max(axis=0), 0.0)
    return np.minimum(for_a, for_b)


@needs_wmt21
def test_segments_show_every_metric_of_a_and_b(open_page, en_de, screenshot_dir):
    data = en_de["report"].data.payload()
    metrics = data["metrics"]["list"]
    page = open_page(en_de["url"])
    show_view(page, "view=segments&a=0&b=1")
    heads = page.eval_on_selector_all("#segment-list .seghead span", "(s) => s.map((e) => e.textContent)")
    listed = [m for m in metrics if not m["own_bleu"]]
    assert [m["name"] for m in metrics if m["own_bleu"]] == ["BLEU"]
    assert [h for h in heads if h in {m["name"] for m in metrics}] == [m["name"] for m in listed]
    first = heads.index(listed[0]["name"])
    rows = visible_rows(page)
    assert len(rows) > 5
    for row in rows:
        i = row["segment"]
        for j, m in enumerate(listed):
            digits = 3 if m["external"] else 1
            a, b = m["sentence"][0][i], m["sentence"][1][i]
            assert row["cells"][first + 2 * j] == f"{a:.{digits}f}{b:.{digits}f}"
            assert row["cells"][first + 2 * j + 1] == signed(b - a, digits)
    page.screenshot(path=str(screenshot_dir / "metrics-segments.png"), full_page=True)


@needs_wmt21
def test_sort_and_filter_by_any_metric(open_page, en_de):
    data = en_de["report"].data.payload()
    metrics = data["metrics"]["list"]
    j = next(k for k, m in enumerate(metrics) if m["name"] == "TER")
    ter = np.array(metrics[j]["sentence"])
    delta = ter[2] - ter[0]
    page = open_page(en_de["url"])
    show_view(page, f"view=segments&a=0&b=2&sort=m{j}d&dir=-1")
    expected = sorted(range(data["n_segments"]), key=lambda i: (-delta[i], i))
    assert [r["segment"] for r in visible_rows(page)] == expected[:len(visible_rows(page))]
    # a range filter on the sentence TER of A
    show_view(page, f"view=segments&a=0&b=2&fcol=m{j}a&fmin=20&fmax=40")
    assert count_shown(page) == int(((ter[0] >= 20) & (ter[0] <= 40)).sum())
    assert all(20 <= ter[0][r["segment"]] <= 40 for r in visible_rows(page))
    assert page.watch.page_errors == [] and page.watch.console_errors == []


@needs_wmt21
def test_where_the_metrics_disagree(open_page, en_de, screenshot_dir):
    data = en_de["report"].data.payload()
    strength = disagreement(data, 3, 1)
    page = open_page(en_de["url"])
    show_view(page, "view=segments&a=3&b=1")
    page.locator("[data-filter=disagree]").check()
    page.wait_for_selector("body[data-ready]", state="attached")
    assert page.evaluate("window.truebleuViewer.state.sort") == "disagree"
    chosen = [i for i in range(data["n_segments"]) if strength[i] > 0]
    assert 0 < len(chosen) < data["n_segments"]
    assert count_shown(page) == len(chosen)
    expected = sorted(chosen, key=lambda i: (-strength[i], i))
    rows = visible_rows(page)
    assert [r["segment"] for r in rows] == expected[:len(rows)]
    for r in rows:
        assert r["cells"][-2] == f"{strength[r['segment']]:.2f}"
    # each shown segment has a metric preferring A and another preferring B
    for r in rows:
        i = r["segment"]
        prefs = [oriented_matrix(m)[1][i] - oriented_matrix(m)[3][i] for m in data["metrics"]["list"]]
        assert max(prefs) > 0 > min(prefs)
    page.screenshot(path=str(screenshot_dir / "metrics-disagree.png"))


# -- the segment detail ----------------------------------------------------------------------

@needs_wmt21
def test_detail_shows_every_metric_and_ters_edits(open_page, en_de, screenshot_dir):
    """Each metric's sentence scores of A and B, and TER's shifts and edit path as
    TER().sentence_alignment returns them (the exact search), on segments with shifts."""
    from truebleu.metrics import TER

    data = en_de["report"].data.payload()
    metrics = data["metrics"]["list"]
    ter = next(m for m in metrics if m["name"] == "TER")
    refs, systems = en_de["refs"], list(en_de["systems"].values())
    a, b = 0, 1
    shifted = [i for i, s in enumerate(ter["alignment"]["systems"][b]["shifts"]) if s and len(s) > 1]
    assert shifted, "no segment of B with two shifts"
    page = open_page(en_de["url"])
    for i in (shifted[0], shifted[-1], 0):
        show_view(page, f"view=segments&a={a}&b={b}&seg={i}")
        rows = page.eval_on_selector_all("#metric-scores tbody tr",
                                         "(rs) => rs.map((r) => [...r.cells].map((c) => c.textContent))")
        assert [r[0].split(" ")[0] for r in rows] == [m["name"] for m in metrics]
        for row, m in zip(rows, metrics):
            digits = 4 if m["external"] else 2
            assert row[1:3] == [f"{m['sentence'][a][i]:.{digits}f}", f"{m['sentence'][b][i]:.{digits}f}"]
        for which, k in (("A", a), ("B", b)):
            expected = TER().sentence_alignment(systems[k][i], [r[i] for r in refs])
            box = f"#detail .ter-alignment[data-system={which}]"
            ops = page.eval_on_selector_all(box + " .ter-path span[data-op]",
                                            "(s) => s.map((e) => [e.dataset.op, e.textContent])")
            words = {"match": lambda e: e.hypothesis_word,
                     "substitute": lambda e: f"{e.hypothesis_word} \u2192 {e.reference_word}",
                     "delete": lambda e: e.hypothesis_word,
                     "insert": lambda e: "+" + e.reference_word}
            assert ops == [[e.operation, words[e.operation](e)] for e in expected.edits]
            shifts = page.eval_on_selector_all(box + " .ter-shifts li", """(s) => s.map((e) =>
                [e.querySelector(".shifted").textContent, Number(e.dataset.start), Number(e.dataset.to)])""")
            assert shifts == [[" ".join(s.words), s.start, s.to] for s in expected.shifts]
            label = page.inner_text(box + " [data-value=ter-counts]")
            assert (f"{expected.num_edits} edits" if expected.num_edits != 1 else "1 edit;") in label
            assert f"reference {'ACD'[expected.reference_index]}" in page.inner_text(box + " .label")
    assert page.watch.page_errors == [] and page.watch.console_errors == []
    page.locator("#detail .ter-alignment").first.scroll_into_view_if_needed()
    page.screenshot(path=str(screenshot_dir / "ter-alignment.png"))
