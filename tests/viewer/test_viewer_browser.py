"""The viewer in a real browser (headless Chromium): every view, its numbers against the API.

Screenshots go to ``$TRUEBLEU_SCREENSHOTS`` (default: a temporary folder) so
that a person can look at what a person will see.
"""

from __future__ import annotations

import os
import random
import re
import shutil
import tempfile
from pathlib import Path

import pytest

np = pytest.importorskip("numpy")
sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")

import truebleu  # noqa: E402
from conftest import needs_wmt21, wmt21_dir  # noqa: E402
from truebleu.viewer import report  # noqa: E402

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.skipif(CHROMIUM is None,
                                reason="no chromium on PATH (Debian: apt-get install chromium)")


@pytest.fixture(scope="module")
def browser():
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield b
        b.close()


@pytest.fixture(scope="module")
def shots() -> Path:
    folder = Path(os.environ.get("TRUEBLEU_SCREENSHOTS") or tempfile.mkdtemp(prefix="truebleu-shots-"))
    folder.mkdir(parents=True, exist_ok=True)
    return folder


class Page:
    """A loaded report page; collects console errors and dialogs (none may happen)."""

    def __init__(self, browser, url: str) -> None:
        self.page = browser.new_page(viewport={"width": 1400, "height": 900}, accept_downloads=True)
        self.errors: list[str] = []
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        self.page.on("dialog", lambda d: (self.errors.append("dialog: " + d.message), d.dismiss()))
        self.goto(url)

    def goto(self, url: str) -> None:
        self.page.goto(url)
        self.page.wait_for_selector("body[data-ready='1']", timeout=60000)

    def state(self) -> dict:
        return self.page.evaluate("window.truebleuViewer.state")

    def wait_for_text(self, selector: str, fragment: str, seconds: float = 60) -> None:
        """Poll (the page's CSP forbids the evaluated predicates of wait_for_function)."""
        for _ in range(int(seconds * 10)):
            if fragment in self.page.locator(selector).first.inner_text():
                return
            self.page.wait_for_timeout(100)
        raise AssertionError(f"{fragment!r} never appeared in {selector}")

    def text(self, selector: str) -> str:
        return self.page.locator(selector).first.inner_text()

    def close(self) -> None:
        assert self.errors == []
        self.page.close()


def lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").split("\n")[:-1]


@pytest.fixture(scope="module")
def en_de(tmp_path_factory):
    """WMT21 en-de: 20 systems, references A, C, D, and the source."""
    if not (wmt21_dir() / "system-outputs").is_dir():
        pytest.skip(f"WMT21 data not found at {wmt21_dir()}")
    data = wmt21_dir()
    refs = [lines(data / "references" / f"newstest2021.en-de.ref.{k}.de") for k in "ACD"]
    systems = {p.name.split(".")[3]: lines(p)
               for p in sorted((data / "system-outputs").glob("newstest2021.en-de.hyp.*.de"))}
    source = lines(data / "sources" / "newstest2021.en-de.src.en")
    rep = report(refs, systems, source=source, reference_names=list("ACD"), title="WMT21 en-de")
    path = rep.save(tmp_path_factory.mktemp("viewer") / "en-de.html")
    return {"refs": refs, "systems": systems, "source": source, "report": rep, "url": path.as_uri()}


@needs_wmt21
def test_overview_shows_the_api_numbers(browser, en_de, shots):
    page = Page(browser, en_de["url"])
    rows = page.page.locator("table.systems tbody tr")
    assert rows.count() == 20
    names = list(en_de["systems"])
    data = en_de["report"].data.payload()
    clusters = {s["name"]: s["corpus"]["cluster"] for s in data["systems"]}
    for r in range(20):
        cells = rows.nth(r).locator("td").all_inner_texts()
        name = cells[1].strip()
        score = truebleu.corpus_bleu(en_de["systems"][name], en_de["refs"])
        assert cells[2] == f"{score.score:.2f}"
        assert cells[4] == "/".join(f"{p:.1f}" for p in score.precisions)
        assert cells[5] == f"{score.bp:.3f}" and cells[6] == f"{score.ratio:.3f}"
        assert (cells[7], cells[8]) == (str(score.sys_len), str(score.ref_len))
        assert cells[9] == str(clusters[name])
    # sorted by BLEU, best first; the signature is the API's
    shown = [float(t) for t in rows.locator("td:nth-child(3)").all_inner_texts()]
    assert shown == sorted(shown, reverse=True)
    assert page.text("#signature") == en_de["report"].data.signature
    page.page.screenshot(path=str(shots / "overview.png"))
    # sort by system name, then pick A and B with the radio buttons
    page.page.locator("th", has_text="System").click()
    by_name = sorted(names, key=lambda n: (n.lower(), n))
    assert [t.strip() for t in rows.locator("td:nth-child(2)").all_inner_texts()] == by_name
    page.page.locator("input[name=pick-a]").nth(3).check()
    page.page.locator("input[name=pick-b]").nth(5).check()
    state = page.state()
    assert (names[state["a"]], names[state["b"]]) == (by_name[3], by_name[5])
    # the URL keeps the view: reopening it shows the same choice
    url = page.page.url
    page.goto(url.replace("#", "#x=1&"))
    assert (page.state()["a"], page.state()["b"]) == (state["a"], state["b"])
    page.close()


@needs_wmt21
def test_page_bleu_and_formatting_replicate_python(browser, en_de):
    """The page's own compute_bleu (filtered subsets) and number formatting against Python's."""
    page = Page(browser, en_de["url"])
    rng = random.Random(4)
    metric = truebleu.BLEU(references=en_de["refs"])
    names = list(en_de["systems"])
    subsets, want = [], []
    for _ in range(200):
        k = rng.randrange(20)
        rows = sorted(rng.sample(range(1002), rng.randint(1, 60)))
        subsets.append([k, rows])
        stats = metric.corpus_statistics(en_de["systems"][names[k]])
        want.append(metric.score_from_statistics(
            [sum(col) for col in zip(*(stats.row(i) for i in rows))]).score)
    got = page.page.evaluate("""(subsets) => subsets.map(([k, rows]) => {
        const v = window.truebleuViewer, d = v.data;
        const sums = new Float64Array(d.width);
        for (const i of rows)
          for (let c = 0; c < d.width; c++) sums[c] += d.systems[k].statsArr[i * d.width + c];
        return v.computeBleu(sums, d.max_order, d.smoothing, false,
                             d.python_sum === "compensated").score; })""",
                             subsets)
    exact = sum(g == w for g, w in zip(got, want))
    assert all(f"{g:.2f}" == f"{w:.2f}" for g, w in zip(got, want))
    assert all(abs(g - w) <= 4e-15 * max(1.0, abs(w)) for g, w in zip(got, want))
    print(f"page compute_bleu bit-identical to Python on {exact} of {len(want)} random subsets")
    values = [0.125, 0.375, 2.675, 1.005, 0.5, 1.5, 2.5, 99.995, 100.0, 0.0, 1e-9, 12.345, 64.32675]
    values += [rng.uniform(0, 100) for _ in range(300)] + [rng.randint(0, 800) / 8 for _ in range(200)]
    for digits in (0, 1, 2, 3, 4):
        shown = page.page.evaluate("([xs, d]) => xs.map((x) => window.truebleuViewer.pyFixed(x, d))",
                                   [values, digits])
        assert shown == [f"{x:.{digits}f}" for x in values]
    page.close()


@needs_wmt21
def test_segments_view_sort_filter_detail(browser, en_de, shots):
    rep = en_de["report"]
    data = rep.data
    names = list(en_de["systems"])
    a, b = names.index("Online-W"), names.index("Facebook-AI")
    page = Page(browser, en_de["url"] + f"#view=segments&a={a}&b={b}&sort=delta&dir=-1")
    rows = page.page.locator(".segrow:visible")
    first = int(rows.nth(0).locator("span").first.inner_text()) - 1
    sa, sb = data.systems[a].sentence_bleu, data.systems[b].sentence_bleu
    best = max(range(1002), key=lambda i: (sb[i] - sa[i], -i))
    assert first == best
    # the row shows segment, A, B, Δ, contribution, length and the two outputs (no document column)
    cells = rows.nth(0).locator(":scope > span").all_inner_texts()
    assert len(cells) == 7 and "null" not in rows.nth(0).inner_text()
    assert cells[1:4] == [f"{sa[best]:.1f}", f"{sb[best]:.1f}", f"+{sb[best] - sa[best]:.1f}"]
    # the subset summary: every segment, the API's corpus BLEU and the API's paired test
    summary = page.page.locator("#subset-summary")
    assert summary.locator("[data-value=count]").inner_text() == "1002 of 1002 segments"
    assert summary.locator("[data-value=bleu-a]").inner_text() == f"{data.systems[a].corpus.score:.2f}"
    assert "truebleu API" in summary.locator("[data-value=test]").inner_text()
    # a regex filter on the outputs and a length filter: the counts and BLEU of Python's own filter
    page.page.fill("input[data-filter=hyp]", "Trump")
    page.page.dispatch_event("input[data-filter=hyp]", "change")
    page.page.fill("input[data-filter=minLen]", "20")
    page.page.dispatch_event("input[data-filter=minLen]", "change")
    pattern = re.compile("Trump", re.I)
    ref_len = [len(toks) for toks in data.reference_tokens[0]]
    keep = [i for i in range(1002) if ref_len[i] >= 20 and (pattern.search(en_de["systems"][names[a]][i])
                                                         or pattern.search(en_de["systems"][names[b]][i]))]
    summary = page.page.locator("#subset-summary")
    assert summary.locator("[data-value=count]").inner_text() == f"{len(keep)} of 1002 segments"
    subset = truebleu.corpus_bleu([en_de["systems"][names[a]][i] for i in keep],
                                  [[r[i] for i in keep] for r in en_de["refs"]])
    assert summary.locator("[data-value=bleu-a]").inner_text() == f"{subset.score:.2f}"
    summary.locator("[data-control=run-test]").click()
    page.wait_for_text("[data-value=test]", "p =")
    assert "in-page resampling" in summary.locator("[data-value=test]").inner_text()
    assert page.state()["hyp"] == "Trump" and "hyp=Trump" in page.page.url
    # open a segment: its sentence BLEU and its n-gram counts are the statistics row's
    rows.nth(0).click()
    seg = page.state()["seg"]
    assert seg in keep
    block = page.page.locator(".system-block[data-system=A]")
    assert block.locator("[data-value=sentence-bleu]").inner_text() == f"{sa[seg]:.2f}"
    row = data.systems[a].statistics.row(seg)
    explain = block.locator("table.explain tbody tr").all_inner_texts()
    for n in range(1, 5):
        assert f"{row[1 + n]} / {row[5 + n]}" in explain[n - 1]
        assert "page counted" not in explain[n - 1]
    assert page.page.locator(".system-block[data-system=A] .tok.matched").count() > 0
    page.page.locator("button[data-order='2']").click()
    page.page.screenshot(path=str(shots / "segments-filtered.png"))
    page.close()


@needs_wmt21
def test_page_ngram_counts_equal_the_statistics_for_every_segment(browser, en_de):
    """The highlighting comes from the page's own n-gram analysis: it must count what truebleu counted."""
    page = Page(browser, en_de["url"])
    mismatches = page.page.evaluate("""() => {
        const v = window.truebleuViewer, d = v.data, bad = [];
        for (let k = 0; k < d.systems.length; k += 3) {
          const s = d.systems[k];
          for (let i = 0; i < d.n_segments; i++) {
            const a = v.ngramAnalysis(v.tokensOf(s, i), v.referenceTokenLists(d, i), d.max_order);
            const base = i * d.width;
            if (s.statsArr[base] !== v.tokensOf(s, i).length) bad.push([k, i, "len"]);
            for (let n = 1; n <= d.max_order; n++) {
              if (a[n - 1].matches !== s.statsArr[base + 1 + n]
                  || a[n - 1].total !== s.statsArr[base + 1 + d.max_order + n]) bad.push([k, i, n]);
            }
          }
        }
        return bad; }""")
    assert mismatches == []
    page.close()


@needs_wmt21
def test_compare_view_contributions_ngrams_buckets_exports(browser, en_de, shots):
    rep = en_de["report"]
    data = rep.data
    names = list(en_de["systems"])
    a, b = names.index("VolcTrans-GLAT"), names.index("Online-W")
    page = Page(browser, en_de["url"] + f"#view=compare&a={a}&b={b}")
    delta = data.systems[b].corpus.score - data.systems[a].corpus.score
    assert page.text("[data-value=corpus-delta]") == ("+" if delta > 0 else "") + f"{delta:.2f}"
    # the contribution of each segment, from corpus BLEU with and without it
    with page.page.expect_download() as download:
        (page.page.locator("section", has_text="move the corpus difference")
         .locator("button", has_text="TSV").click())
    tsv = Path(download.value.path()).read_text(encoding="utf-8").splitlines()
    assert tsv[0].split("\t")[:2] == ["segment", "contribution to Δ"]
    top = int(tsv[1].split("\t")[0]) - 1
    keep = [j for j in range(1002) if j != top]
    without = [truebleu.corpus_bleu([en_de["systems"][names[k]][j] for j in keep],
                                    [[r[j] for j in keep] for r in en_de["refs"]]).score for k in (a, b)]
    contribution = delta - (without[1] - without[0])
    assert tsv[1].split("\t")[1] == ("+" if contribution > 0 else "") + f"{contribution:.4f}"
    # n-gram differences: recompute the top unigram of A's side in Python
    page.page.wait_for_selector("table.ngrams-a tbody tr")
    first = page.page.locator("table.ngrams-a tbody tr").first.locator("td").all_inner_texts()
    from collections import Counter

    def clipped(hyp_tokens, ref_lists):
        hyp = Counter(hyp_tokens)
        best = Counter()
        for ref in ref_lists:
            for g, c in Counter(ref).items():
                best[g] = max(best[g], c)
        return {g: min(c, best[g]) for g, c in hyp.items() if best[g]}

    surplus, segments = Counter(), Counter()
    for i in range(1002):
        refs = [data.reference_tokens[k][i] for k in range(3)]
        ma = clipped(data.systems[a].tokens[i], refs)
        mb = clipped(data.systems[b].tokens[i], refs)
        for g, c in ma.items():
            if c > mb.get(g, 0):
                surplus[g] += c - mb.get(g, 0)
                segments[g] += 1
    gram, count = sorted(surplus.items(), key=lambda kv: (-kv[1], kv[0]))[0]
    assert first == [gram, str(count), str(segments[gram])]
    # buckets: the tables show the payload's API numbers
    length = data.buckets["length"]
    cells = page.page.locator("#buckets-length table tbody tr").first.locator("td").all_inner_texts()
    assert cells[2 + a] == f"{length['bleu'][a][0]:.2f} ± {length['ci'][a][0]:.2f}"
    page.page.screenshot(path=str(shots / "compare.png"), full_page=True)
    # click-through: the n-gram opens the segments where A matches it more often than B
    page.page.locator("table.ngrams-a tbody tr").first.locator("button").click()
    page.page.wait_for_selector("main[data-view=segments]")
    assert page.text("#subset-summary [data-value=count]") == f"{segments[gram]} of 1002 segments"
    # SVG export of a chart is a standalone SVG document
    page.goto(en_de["url"] + "#view=overview")
    with page.page.expect_download() as download:
        page.page.locator("button", has_text="SVG").first.click()
    svg = Path(download.value.path()).read_text(encoding="utf-8")
    assert svg.startswith("<svg") and 'xmlns="http://www.w3.org/2000/svg"' in svg
    with page.page.expect_download() as download:
        page.page.locator("button", has_text="LaTeX").first.click()
    latex = Path(download.value.path()).read_text(encoding="utf-8")
    assert "\\begin{tabular}" in latex and "VolcTrans-GLAT" in latex
    page.close()


@needs_wmt21
def test_detail_lists_every_system_by_sentence_bleu(browser, en_de):
    data = en_de["report"].data
    page = Page(browser, en_de["url"] + "#view=segments&seg=12&allsys=1")
    rows = page.page.locator("table.every-system tbody tr")
    assert rows.count() == 20
    want = sorted(((s.sentence_bleu[12], -k) for k, s in enumerate(data.systems)), reverse=True)
    shown = rows.locator("td:nth-child(1)").all_inner_texts()
    assert shown == [f"{bleu:.2f}" for bleu, _ in want]
    page.page.locator("input[data-control=all-systems]").uncheck()
    assert page.page.locator("table.every-system").count() == 0 and page.state()["allsys"] == 0
    page.close()


@pytest.fixture(scope="module")
def ru_en(tmp_path_factory):
    """WMT21 ru-en from its WMT XML file: references A and B, every system, the documents."""
    path = wmt21_dir() / "xml" / "newstest2021.ru-en.all.xml"
    if not path.is_file():
        pytest.skip(f"WMT21 XML not found at {path}")
    from truebleu.cli.viewer import main

    out = tmp_path_factory.mktemp("viewer") / "ru-en.html"
    assert main(["report", "--wmt-xml", str(path), "-o", str(out), "-q"]) == 0
    from truebleu.io.wmt_xml import keep_referenced, read_wmt_xml

    testset = keep_referenced(read_wmt_xml(path))
    return {"testset": testset, "url": out.as_uri()}


@needs_wmt21
def test_ru_en_documents_from_the_wmt_xml_file(browser, ru_en, shots):
    testset = ru_en["testset"]
    names = list(testset.systems)
    refs = [testset.references[t] for t in testset.references]
    page = Page(browser, ru_en["url"] + "#view=compare&a=0&b=1")
    rows = page.page.locator("table.documents tbody tr")
    docs = testset.documents()
    assert rows.count() == len(docs)

    def doc_bleu(k, rows_):
        hyps = [testset.systems[names[k]][i] or "" for i in rows_]
        return truebleu.corpus_bleu(hyps, [[r[i] for i in rows_] for r in refs]).score

    deltas = {doc: doc_bleu(1, idx) - doc_bleu(0, idx) for doc, idx in docs.items()}
    top = max(docs, key=lambda doc: (abs(deltas[doc]), -list(docs).index(doc)))
    cells = rows.first.locator("td").all_inner_texts()
    assert cells[0] == top and cells[1] == str(len(docs[top]))
    assert cells[2] == f"{doc_bleu(0, docs[top]):.2f}" and cells[3] == f"{doc_bleu(1, docs[top]):.2f}"
    page.page.screenshot(path=str(shots / "ru-en-compare.png"), full_page=True)
    rows.first.locator("button").click()
    page.page.wait_for_selector("main[data-view=segments]")
    assert page.state()["doc"] == top
    assert page.text("#subset-summary [data-value=count]") == f"{len(docs[top])} of {len(testset)} segments"
    want = truebleu.corpus_bleu([testset.systems[names[0]][i] or "" for i in docs[top]],
                                [[r[i] for i in docs[top]] for r in refs]).score
    assert page.text("#subset-summary [data-value=bleu-a]") == f"{want:.2f}"
    first_row = page.page.locator(".segrow").first
    assert first_row.locator(":scope > span").nth(1).inner_text() == top  # the document column
    first_row.click()
    assert page.page.locator(".block", has_text="Reference B").count() == 1
    page.page.screenshot(path=str(shots / "ru-en-document.png"))
    page.close()
