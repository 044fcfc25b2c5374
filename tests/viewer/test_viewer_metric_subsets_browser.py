"""A page of any metrics, in headless Chromium (WMT21 ru-en, three systems, one score file
made here as a noisy function of sentence chrF):

- with ``-m`` not naming bleu, no BLEU number or BLEU view anywhere; the first metric
  chosen ranks the systems and picks A and B;
- on a filter, every metric's score of A and B equals the API's on those segments
  (``metric.corpus_score`` of the subset; the external metric's mean), in the page;
- in ``serve``, the page's paired test of the filter, by every metric, is
  :func:`truebleu.significance.paired_bootstrap` on the same rows, subset and seed.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

np = pytest.importorskip("numpy")

import truebleu  # noqa: E402
from browser import browser, open_page, screenshot_dir, show_view, wait_until  # noqa: E402,F401
from conftest import needs_wmt21, wmt21_dir  # noqa: E402
from serving import running_server  # noqa: E402
from truebleu.cli.inputs import system_names  # noqa: E402
from truebleu.cli.viewer import build_parser, build_report  # noqa: E402
from truebleu.metrics import CHRF, TER  # noqa: E402
from truebleu.significance import paired_bootstrap  # noqa: E402
from truebleu.significance.external import MeanScorer  # noqa: E402
from truebleu.significance.paired import score_of  # noqa: E402

SYSTEMS = 3
SAMPLES = 120


def lines(path) -> list[str]:
    return open(path, encoding="utf-8").read().split("\n")[:-1]


@pytest.fixture(scope="module")
def ru_en(tmp_path_factory):
    data = wmt21_dir()
    if not (data / "system-outputs").is_dir():
        pytest.skip(f"WMT21 data not found at {data}")
    folder = tmp_path_factory.mktemp("subsets")
    ref = str(data / "references" / "newstest2021.ru-en.ref.A.en")
    hyps = sorted(str(p) for p in (data / "system-outputs").glob("newstest2021.ru-en.hyp.*.en"))[:SYSTEMS]
    names = system_names(hyps)
    refs = lines(ref)
    systems = {name: lines(p) for name, p in zip(names, hyps)}
    rng = random.Random(3)
    comet = {name: [truebleu.sentence_chrf(h, [r]).score / 100 + rng.gauss(0, 0.05)
                    for h, r in zip(hyp, refs)] for name, hyp in systems.items()}
    scores = folder / "COMET.seg.score"
    scores.write_text("".join(f"{n}\t{v!r}\n" for n, vs in comet.items() for v in vs), encoding="utf-8")

    def report(out: str, *metrics: str):
        args = build_parser("report").parse_args(
            [ref, "-i", *hyps, "-o", str(folder / out), "-m", *metrics,
             "--scores", f"COMET={scores}", "--n-samples", str(SAMPLES)])
        rep = build_report(args)
        rep.save(folder / out)
        return rep, (folder / out).as_uri()

    without_bleu = report("no-bleu.html", "ter", "chrf")
    with_bleu = report("every.html", "chrf", "bleu", "ter")
    return {"refs": refs, "systems": systems, "names": names, "comet": comet,
            "without_bleu": without_bleu, "with_bleu": with_bleu}


@needs_wmt21
def test_a_page_without_bleu_shows_no_bleu(open_page, ru_en, screenshot_dir):
    rep, url = ru_en["without_bleu"]
    page = open_page(url)
    ter = rep.data.metrics["list"][0]
    assert ter["name"] == "TER"
    best, second = sorted(range(SYSTEMS), key=lambda k: ter["rank"][k])[:2]
    # the primary metric (the first chosen, TER) picks A and B: its best and runner-up
    assert page.evaluate("[window.truebleuViewer.state.a, window.truebleuViewer.state.b]") == [best, second]
    views = {"overview": "view=overview", "segments": "view=segments&seg=4",
             "compare": "view=compare", "filtered": "view=segments&fcol=m0d&fmin=5"}
    for name, fragment in views.items():
        show_view(page, fragment)
        shown = page.inner_text("body")
        assert "BLEU" not in shown and "n-gram" not in shown, name
        page.screenshot(path=str(screenshot_dir / f"no-bleu-{name}.png"), full_page=True)
    show_view(page, "view=overview")
    assert page.locator("#metric-chart h2").inner_text() == "TER and confidence intervals"
    assert page.locator("table.metrics input[name=pick-a]").count() == SYSTEMS
    show_view(page, "view=segments&seg=4")
    assert page.locator("#metric-scores").count() == 1       # every metric's sentence scores
    assert page.inner_text("[data-field=output-a]") == ru_en["systems"][ru_en["names"][best]][4]
    assert page.watch.page_errors == [] and page.watch.console_errors == []


def subset_cells(page) -> dict[str, list[str]]:
    rows = page.eval_on_selector_all("#metric-subset table tbody tr",
                                     "(rows) => rows.map((r) => [...r.cells].map((c) => c.textContent))")
    return {row[0].split(" ")[0]: row[1:4] for row in rows}


@needs_wmt21
@pytest.mark.parametrize("threshold", [0.55, 0.8])
def test_subset_scores_of_every_metric_are_the_apis(open_page, ru_en, threshold):
    """Filter on COMET of A ≥ threshold: each metric's score of A and B on those segments."""
    rep, url = ru_en["with_bleu"]
    metrics = rep.data.metrics["list"]
    assert [m["name"] for m in metrics] == ["chrF2", "BLEU", "TER", "COMET"]
    page = open_page(url)
    a, b = (page.evaluate(f"window.truebleuViewer.state.{x}") for x in "ab")
    names, refs = ru_en["names"], ru_en["refs"]
    keep = [i for i, v in enumerate(ru_en["comet"][names[a]]) if v >= threshold]
    assert 10 < len(keep) < len(refs)
    show_view(page, f"view=segments&fcol=m3a&fmin={threshold}")
    assert page.inner_text("#subset-summary [data-value=count]") == f"{len(keep)} of {len(refs)} segments"
    shown = subset_cells(page)
    sub_refs = [[refs[i] for i in keep]]
    rows_of = {row.name: row for row in rep.data.metric_rows}
    for j, m in enumerate(metrics):
        want = []
        for k in (a, b):
            hyps = [ru_en["systems"][names[k]][i] for i in keep]
            if m["name"] == "COMET":
                api = float(np.mean([ru_en["comet"][names[k]][i] for i in keep]))
            else:
                metric = {"chrF2": CHRF, "BLEU": truebleu.BLEU, "TER": TER}[m["name"]]()
                api = metric.corpus_score(hyps, sub_refs).score
            page_value = page.evaluate(
                "([j, k, keep]) => window.truebleuViewer.metricSubsetScore(j, k, keep)", [j, k, keep])
            rows = rows_of[m["name"]]
            exact = score_of(rows.rows[k][keep], rows.scorer)
            if m["name"] == "BLEU":  # the browser's exp and log may differ in the last bit
                assert page_value == pytest.approx(exact, rel=1e-13)
            else:  # the same sums and operations as the API's
                assert page_value == exact, (m["name"], k)
            assert page_value == pytest.approx(api, rel=1e-12, abs=1e-12)
            want.append(api)
        digits = 4 if m["external"] else 2
        label = m["name"]
        assert shown[label][:2] == [f"{want[0]:.{digits}f}", f"{want[1]:.{digits}f}"], label
    # the static page says where the paired test of a filter runs
    assert "truebleu serve" in page.inner_text("[data-value=needs-serve]")


@pytest.fixture(scope="module")
def served(ru_en):
    rep, _ = ru_en["with_bleu"]
    with running_server(rep, request_timeout=10.0) as srv:
        yield srv


@needs_wmt21
def test_serve_runs_the_paired_test_of_the_filter_by_every_metric(open_page, ru_en, served, screenshot_dir):
    rep, _ = ru_en["with_bleu"]
    page = open_page(served.url + "#view=segments&fcol=m0d&fmin=3")
    a, b = (page.evaluate(f"window.truebleuViewer.state.{x}") for x in "ab")
    metrics = rep.data.metrics["list"]
    chrf = metrics[0]["sentence"]
    keep = [i for i in range(len(ru_en["refs"])) if chrf[b][i] - chrf[a][i] >= 3]
    page.click("[data-control=run-metric-tests]")
    wait_until(page, "() => document.querySelectorAll('#metric-subset [data-p]').length === 4", timeout=120)
    got = page.eval_on_selector_all(
        "#metric-subset [data-p]", "(xs) => xs.map((x) => [Number(x.dataset.p), Number(x.dataset.delta)])")
    for (p, delta), rows in zip(got, rep.data.metric_rows):
        want = paired_bootstrap(rows.rows[a][keep], rows.rows[b][keep], rows.scorer,
                                n_samples=SAMPLES, seed=rep.data.metrics["seed"])
        assert (p, delta) == (want.p_value, want.delta), rows.name
    assert isinstance(rep.data.metric_rows[3].scorer, MeanScorer)
    page.screenshot(path=str(screenshot_dir / "serve-metric-tests.png"), full_page=True)


# -- exports ------------------------------------------------------------------------------

def downloaded(page, selector: str) -> str:
    with page.expect_download() as download:
        page.locator(selector).first.click()
    return Path(download.value.path()).read_text(encoding="utf-8")


@pytest.fixture
def download_page(browser):
    pages = []

    def opener(url: str):
        page = browser.new_page(viewport={"width": 1400, "height": 900}, accept_downloads=True)
        pages.append(page)
        page.goto(url)
        page.wait_for_selector("body[data-ready]", state="attached")
        return page

    yield opener
    for page in pages:
        page.close()


@needs_wmt21
def test_every_metric_chart_and_the_agreement_map_export_as_svg(download_page, ru_en):
    rep, url = ru_en["without_bleu"]
    page = download_page(url + "#view=overview")
    metrics = rep.data.metrics["list"]
    svg = downloaded(page, "#metric-chart button:text('SVG')")
    assert svg.startswith("<svg") and "TER with 95% interval" in svg
    for k in range(SYSTEMS):
        assert f">{metrics[0]['score'][k]:.2f}</text>" in svg
    page.select_option("[data-control=metric-chart]", "2")   # COMET
    page.wait_for_selector("body[data-ready]", state="attached")
    assert "mChart=2" in page.url
    svg = downloaded(page, "#metric-chart button:text('SVG')")
    for k in range(SYSTEMS):
        assert f">{metrics[2]['score'][k]:.4f}</text>" in svg
    pairs = rep.data.metrics["agreement"]["pairs"]
    svg = downloaded(page, "#agreement .toolbar:has-text('pairwise accuracy') button:text('SVG')")
    shown = sorted(svg.split('data-value="accuracy">')[1:])
    assert len(shown) == 2 * len(pairs) == 6
    assert sorted(x.split("<")[0] for x in shown) == sorted(2 * [f"{p['accuracy']:.3f}" for p in pairs])


@needs_wmt21
def test_the_segment_list_and_the_subset_table_export(download_page, ru_en):
    rep, url = ru_en["with_bleu"]
    page = download_page(url + "#view=segments&fcol=m0d&fmin=3&sort=m2d&dir=-1")
    a, b = (page.evaluate(f"window.truebleuViewer.state.{x}") for x in "ab")
    metrics = rep.data.metrics["list"]
    chrf, ter = metrics[0]["sentence"], metrics[2]["sentence"]
    keep = [i for i in range(len(ru_en["refs"])) if chrf[b][i] - chrf[a][i] >= 3]
    keep.sort(key=lambda i: (-(ter[b][i] - ter[a][i]), i))   # sorted by ΔTER, descending
    tsv = downloaded(page, ".segment-exports button:text('TSV')").splitlines()
    head = tsv[0].split("\t")
    assert head[:6] == ["segment", "BLEU A", "BLEU B", "\u0394BLEU", "contribution", "reference length"]
    assert head[6:9] == ["chrF2 A", "chrF2 B", "\u0394chrF2"] and head[-2:] == ["output A", "output B"]
    assert [int(line.split("\t")[0]) - 1 for line in tsv[1:]] == keep
    first = dict(zip(head, tsv[1].split("\t")))
    i = keep[0]
    assert first["TER A"] == f"{ter[a][i]:.1f}"
    assert first["output B"] == ru_en["systems"][ru_en["names"][b]][i]
    subset = downloaded(page, "#metric-subset button:text('TSV')").splitlines()
    assert subset[0] == "Metric\tA\tB\t\u0394 (B \u2212 A)"
    shown = page.eval_on_selector_all(
        "#metric-subset table tbody tr",
        "(rows) => rows.map((r) => [...r.cells].slice(0, 4).map((c) => c.textContent))")
    assert [line.split("\t") for line in subset[1:]] == shown


@needs_wmt21
def test_a_one_system_page_of_several_metrics(open_page, ru_en, tmp_path):
    """Refused before: one system, three metrics; its scores and intervals, no A vs B."""
    from truebleu.viewer import report as make_report

    name = ru_en["names"][0]
    rep = make_report([ru_en["refs"]], {name: ru_en["systems"][name]}, metrics=["ter", "chrf"],
                      n_samples=100)
    rep.save(tmp_path / "one.html")
    page = open_page((tmp_path / "one.html").as_uri())
    tabs = page.eval_on_selector_all("nav button.tab", "(bs) => bs.map((b) => b.dataset.view)")
    assert tabs == ["overview", "segments"]
    row = page.eval_on_selector_all(
        "table.metrics tbody tr", "(rs) => rs.map((r) => [...r.cells].map((c) => c.textContent))")
    hyps = ru_en["systems"][name]
    ter, chrf = rep.data.metrics["list"]
    refs = [ru_en["refs"]]
    assert row == [[name, f"{truebleu.corpus_ter(hyps, refs).score:.2f}", f"{ter['ci'][0]:.2f}", "1",
                    f"{truebleu.corpus_chrf(hyps, refs).score:.2f}", f"{chrf['ci'][0]:.2f}", "1"]]
    # the segment list: each metric's sentence score of the one system, no B and no Δ
    show_view(page, "view=segments&fcol=m1a&fmin=60")
    heads = page.eval_on_selector_all("#segment-list .seghead span", "(s) => s.map((e) => e.textContent)")
    assert heads == ["#", "len", "TER", "chrF2", "output"]
    keep = [i for i, v in enumerate(chrf["sentence"][0]) if v >= 60]
    table = page.eval_on_selector_all(
        "#metric-subset tr", "(rows) => rows.map((r) => [...r.cells].map((c) => c.textContent))")
    sub_hyps, sub_refs = [hyps[i] for i in keep], [[ru_en["refs"][i] for i in keep]]
    assert table == [["Metric", "Score"],
                     ["TER \u2193", f"{truebleu.corpus_ter(sub_hyps, sub_refs).score:.2f}"],
                     ["chrF2 \u2191", f"{truebleu.corpus_chrf(sub_hyps, sub_refs).score:.2f}"]]
    show_view(page, "view=compare")      # no such view with one system: the systems view
    assert page.evaluate("window.truebleuViewer.state.view") == "overview"
    assert "BLEU" not in page.inner_text("body")


@needs_wmt21
def test_the_list_heads_sort_by_any_metric_and_its_difference(open_page, ru_en):
    """A click on a head sorts by its column (largest first), a second click reverses;
    the order is in the URL, as the sort menu's."""
    rep, url = ru_en["with_bleu"]
    page = open_page(url + "#view=segments")
    a, b = (page.evaluate(f"window.truebleuViewer.state.{x}") for x in "ab")
    ter = rep.data.metrics["list"][2]["sentence"]
    delta = [ter[b][i] - ter[a][i] for i in range(len(ru_en["refs"]))]

    def first_row() -> int:
        return int(page.get_attribute("#segment-list .segrow[data-pos='0']", "data-segment"))

    page.click("#segment-list .seghead [data-sort=m2d]")
    page.wait_for_selector("#segment-list .seghead [data-sort=m2d][aria-sort=descending]")
    assert "sort=m2d" in page.url and "dir=-1" in page.url
    assert first_row() == min(range(len(delta)), key=lambda i: (-delta[i], i))
    page.click("#segment-list .seghead [data-sort=m2d]")
    page.wait_for_selector("#segment-list .seghead [data-sort=m2d][aria-sort=ascending]")
    assert first_row() == min(range(len(delta)), key=lambda i: (delta[i], i))
    page.click("#segment-list .seghead [data-sort=m0a]")      # chrF of A, best first
    page.wait_for_selector("#segment-list .seghead [data-sort=m0a][aria-sort=descending]")
    chrf_a = rep.data.metrics["list"][0]["sentence"][a]
    assert first_row() == min(range(len(chrf_a)), key=lambda i: (-chrf_a[i], i))
