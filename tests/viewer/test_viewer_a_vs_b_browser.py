"""A vs B for every metric, in headless Chromium: WMT21 ru-en (its WMT XML file: two
references, real documents) with -m bleu chrf ter and an external score file.

The page's numbers are compared with the API's: each metric's corpus score on the rows
with one segment left out (``metric.corpus_score``), per document, and the paired
bootstrap's interval and p-value of ``significance.compare_metrics``; the bars are in
A's and B's colours.
"""

from __future__ import annotations

import random

import pytest

np = pytest.importorskip("numpy")

import truebleu  # noqa: E402
from browser import browser, open_page, screenshot_dir, show_view  # noqa: E402,F401  (fixtures)
from conftest import needs_wmt21, wmt21_dir  # noqa: E402
from truebleu import BLEU, CHRF, TER  # noqa: E402
from truebleu.significance import compare_metrics  # noqa: E402
from truebleu.viewer import report as make_report  # noqa: E402

SYSTEMS = 4
SAMPLES = 200
SEED = 7
COLOR_A, COLOR_B = "#d1722e", "#4a9b5a"  # app.css's --a and --b


@pytest.fixture(scope="module")
def ru_en(tmp_path_factory):
    path = wmt21_dir() / "xml" / "newstest2021.ru-en.all.xml"
    if not path.is_file():
        pytest.skip(f"WMT21 XML not found at {path}")
    from truebleu.io.wmt_xml import keep_referenced, read_wmt_xml

    testset = keep_referenced(read_wmt_xml(path))
    refs = [list(testset.references[t]) for t in testset.references]
    systems = {name: [h or "" for h in testset.systems[name]]
               for name in list(testset.systems)[:SYSTEMS]}
    docs = testset.documents()
    doc_ids = [""] * len(refs[0])
    for doc, rows in docs.items():
        for i in rows:
            doc_ids[i] = doc
    rng = random.Random(3)
    comet = {name: [truebleu.sentence_chrf(h, [r[i] for r in refs]).score / 100
                    + rng.gauss(0, 0.05) for i, h in enumerate(hyps)]
             for name, hyps in systems.items()}
    rep = make_report(refs, systems, metrics=["bleu", "chrf", "ter"], scores={"COMET": comet},
                      doc_ids=doc_ids, n_samples=SAMPLES, seed=SEED)
    out = tmp_path_factory.mktemp("a-vs-b") / "ru-en.html"
    rep.save(out)
    return {"refs": refs, "systems": systems, "comet": comet, "docs": docs, "report": rep,
            "url": out.as_uri()}


def api_metrics(refs):
    return [BLEU(references=refs), CHRF(references=refs), TER(references=refs)]


def api_score(k: int, metric, hyps: list[str], refs, comet: list[float], rows) -> float:
    """The API's corpus score of ``rows`` (metric k: BLEU, chrF, TER, then COMET's mean)."""
    if k == 3:
        return float(np.mean([comet[i] for i in rows]))
    return metric.corpus_score([hyps[i] for i in rows], [[r[i] for i in rows] for r in refs]).score


def pick_metric(page, k: int) -> None:
    page.select_option("select[data-control=compare-metric]", str(k))
    page.wait_for_selector(f"#contributions[data-metric='{['BLEU', 'chrF2', 'TER', 'COMET'][k]}']")
    page.wait_for_selector("body[data-ready]", state="attached")


@needs_wmt21
def test_every_metric_delta_interval_and_p_value_are_the_apis(open_page, ru_en):
    names = list(ru_en["systems"])
    page = open_page(ru_en["url"] + "#view=compare&a=0&b=2")
    rows = page.eval_on_selector_all("table.metric-deltas tbody tr",
                                     "(rs) => rs.map((r) => [...r.cells].map((c) => c.textContent))")
    assert [r[0] for r in rows] == ["BLEU \u2191", "chrF2 \u2191", "TER \u2193", "COMET \u2191"]
    api = compare_metrics(ru_en["systems"], api_metrics(ru_en["refs"]),
                          scores={"COMET": ru_en["comet"]}, n_samples=SAMPLES, seed=SEED)
    a, b = names[0], names[2]
    for row, name in zip(rows, api.metrics):
        ranking = api.ranking(name)
        scores = {s.name: s.score for s in ranking.systems}
        digits = 4 if name == "COMET" else 2
        pair = next(p for p in ranking.pairs if {p.a, p.b} == {a, b})
        sign = 1 if pair.a == b else -1  # the interval is of better − worse; shown: B − A
        mean, half = pair.delta_interval
        low, high = sign * mean - half, sign * mean + half
        assert row[1] == f"{scores[a]:.{digits}f}" and row[2] == f"{scores[b]:.{digits}f}"
        delta = scores[b] - scores[a]
        assert float(row[3]) == pytest.approx(round(delta, digits), abs=10 ** -digits / 2)
        assert row[4] == f"[{low:+.{digits}f}, {high:+.{digits}f}]".replace("+-", "-")
        assert row[5] == f"{pair.p_value:.4f}"
        better_b = delta > 0 if name != "TER" else delta < 0
        assert row[6] == ("B" if better_b else "A")
    assert page.watch.page_errors == [] and page.watch.console_errors == []


@needs_wmt21
def test_contributions_are_leave_one_out_corpus_scores(open_page, ru_en, screenshot_dir):
    """For each metric: the leave-one-out scores in the page equal metric.corpus_score on
    the rows without that segment (a sample of segments, A and B), and each bar's number is
    Δ(all) − Δ(all but the segment) of those API scores."""
    names = list(ru_en["systems"])
    refs, comet = ru_en["refs"], ru_en["comet"]
    n = len(refs[0])
    page = open_page(ru_en["url"] + "#view=compare&a=1&b=0")
    assert page.locator("select[data-control=compare-metric]").input_value() == "0"  # the first
    metrics = api_metrics(refs)
    rng = random.Random(11)
    for k, metric in enumerate([*metrics, None]):
        pick_metric(page, k)
        m = page.evaluate(f"window.truebleuViewer.data.metrics.list[{k}]")
        if m["without"] is None:  # the page's own BLEU: its systems hold them
            assert m["own_bleu"]
            m["without"] = page.evaluate(
                "window.truebleuViewer.data.systems.map((s) => s.bleu_without)")
        all_rows = range(n)
        for system in (1, 0):
            hyps = ru_en["systems"][names[system]]
            want = api_score(k, metric, hyps, refs, comet[names[system]], all_rows)
            assert m["rows_score"][system] == pytest.approx(want, rel=1e-12)
            for i in rng.sample(range(n), 3):
                rest = [j for j in all_rows if j != i]
                want = api_score(k, metric, hyps, refs, comet[names[system]], rest)
                if k < 2:  # integer statistics: exact
                    assert m["without"][system][i] == want, (k, i)
                else:      # float statistics: a subtraction's last bit
                    assert m["without"][system][i] == pytest.approx(want, rel=1e-12), (k, i)
        digits = 4 if k == 3 else 2
        bars = page.eval_on_selector_all(
            "#contributions svg text.value",
            "(ts) => ts.map((t) => [Number(t.dataset.segment), t.textContent])")
        fills = page.eval_on_selector_all("#contributions svg rect[data-segment]",
                                          "(rs) => rs.map((r) => r.getAttribute('fill'))")
        assert len(bars) == 24 and set(fills) <= {COLOR_A, COLOR_B} and len(set(fills)) == 2
        for i, shown in bars[:2] + bars[-2:]:
            score = {s: api_score(k, metric, ru_en["systems"][names[s]], refs,
                                  comet[names[s]], [j for j in range(n) if j != i])
                     for s in (0, 1)}
            full = m["rows_score"]
            c = (full[0] - full[1]) - (score[0] - score[1])  # B is system 0, A system 1
            assert float(shown) == pytest.approx(c, abs=0.6 * 10 ** -(digits + 1)), (k, i)
        if k == 2:
            page.screenshot(path=str(screenshot_dir / "a-vs-b-ter.png"), full_page=True)
    assert page.watch.page_errors == [] and page.watch.console_errors == []


@needs_wmt21
def test_documents_ranked_by_the_chosen_metric(open_page, ru_en):
    names = list(ru_en["systems"])
    refs, comet, docs = ru_en["refs"], ru_en["comet"], ru_en["docs"]
    page = open_page(ru_en["url"] + "#view=compare&a=0&b=1")
    metrics = api_metrics(refs)
    for k in (1, 2, 3):  # chrF, TER, COMET (BLEU's: test_viewer_browser.py)
        pick_metric(page, k)
        rows = page.eval_on_selector_all(
            "table.documents tbody tr", "(rs) => rs.map((r) => [...r.cells].map((c) => c.textContent))")
        assert len(rows) == len(docs)
        digits = 4 if k == 3 else 2
        shown_deltas = [abs(float(r[4])) for r in rows]
        assert shown_deltas == sorted(shown_deltas, reverse=True)
        for row in rows[:2] + rows[-1:]:
            doc = row[0]
            a, b = (api_score(k, metrics[k] if k < 3 else None, ru_en["systems"][names[s]],
                              refs, comet[names[s]], docs[doc]) for s in (0, 1))
            assert row[1] == str(len(docs[doc]))
            assert row[2] == f"{a:.{digits}f}" and row[3] == f"{b:.{digits}f}", (k, doc)
    assert page.locator("#ngram-diffs").count() == 0  # BLEU's n-grams: with BLEU chosen
    pick_metric(page, 0)
    assert page.locator("#ngram-diffs").count() == 1
    assert page.watch.page_errors == [] and page.watch.console_errors == []
