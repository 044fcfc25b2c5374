"""chrF's matches in the segment detail, in headless Chromium.

The page finds one segment's matches with the twin of ``CHRF.sentence_matches``
(57-chrf-matches.js): on generated text (every whitespace and case rule of the test
strategies, every chrF setting), on WMT21 en-de lines and on the security corpus it
must give the Python's best reference, statistics row, n-grams, counts and spans; the
detail draws them (the counts shown, the characters highlighted) and switches orders; the
security corpus in the matches and in the A vs B view of every metric runs nothing.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import truebleu
from browser import browser, open_page, screenshot_dir, show_view  # noqa: F401  (fixtures)
from conftest import needs_wmt21, wmt21_dir
from hostile_text import NAMES, PAYLOADS, PWN
from strategies import segments
from truebleu.viewer import report as make_report

SETTINGS = st.fixed_dictionaries({
    "char_order": st.sampled_from([6, 3, 1, 0]), "word_order": st.sampled_from([0, 2, 1]),
    "beta": st.sampled_from([2, 1, 3]), "lowercase": st.booleans(), "whitespace": st.booleans(),
    "eps_smoothing": st.booleans()}).filter(lambda o: o["char_order"] + o["word_order"] > 0)



def python_matches(hyp: str, refs: list[str], options: dict) -> dict:
    """``sentence_matches`` as the page's function returns it (spans in code points: a
    Python str index is one)."""
    result = truebleu.CHRF(**options).sentence_matches(hyp, refs)
    return {"best": result.best_reference, "orders": [
        {"kind": o.kind, "n": o.n, "hyp": o.hypothesis_count, "ref": o.reference_count,
         "matches": o.matches,
         "ngrams": [{"ngram": g.ngram, "count": g.count,
                     "hypSpans": [list(s) for s in g.hypothesis_spans],
                     "refSpans": [list(s) for s in g.reference_spans]} for g in o.ngrams]}
        for o in result.orders]}


PAGE_MATCHES = """([hyp, refs, cfg]) => {
  const r = window.truebleuViewer.chrfMatches(hyp, refs, cfg);
  return {best: r.best, orders: r.orders};
}"""


@pytest.fixture(scope="module")
def tiny_page(browser, tmp_path_factory):
    """One page for the generated inputs (a report of two systems, chrF++ chosen)."""
    rep = make_report([["the cat sat on the mat", "a dog"]],
                      {"A": ["the cat sat", "dog"], "B": ["a cat on the mat", "a dog"]},
                      metrics=["chrf"], n_samples=20)
    out = tmp_path_factory.mktemp("chrf") / "tiny.html"
    rep.save(out)
    context = browser.new_context()
    page = context.new_page()
    page.goto(out.as_uri())
    page.wait_for_selector("body[data-ready]", state="attached")
    yield page
    context.close()


def page_matches(page, hyp: str, refs: list[str], options: dict) -> dict:
    cfg = {k: options.get(k, v) for k, v in (("char_order", 6), ("word_order", 0), ("beta", 2),
                                             ("lowercase", False), ("whitespace", False),
                                             ("eps_smoothing", False))}
    return page.evaluate(PAGE_MATCHES, [hyp, refs, cfg])


@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(hyp=segments(), refs=st.lists(segments(), min_size=1, max_size=3), options=SETTINGS)
def test_the_page_finds_the_matches_of_sentence_matches(tiny_page, hyp, refs, options):
    assert page_matches(tiny_page, hyp, refs, options) == python_matches(hyp, refs, options)


def test_the_security_corpus_and_case_mappings(tiny_page):
    cases = [(p, [q]) for p in PAYLOADS for q in PAYLOADS[:4]]
    cases += [("ΣΟΦΟΣ σοφος İstanbul", ["σοφος ΣΟΦΟΣ istanbul"]),
              ("a\x1cb\x85c\ufeffd", ["a b c\ufeffd"]), ("😀𠀀 e\u0301", ["😀 𠀀e\u0301"])]
    for hyp, refs in cases:
        for options in ({"word_order": 2}, {"lowercase": True, "word_order": 1},
                        {"whitespace": True}):
            assert page_matches(tiny_page, hyp, refs, options) == python_matches(hyp, refs, options)


@pytest.fixture(scope="module")
def en_de(tmp_path_factory):
    if not (wmt21_dir() / "system-outputs").is_dir():
        pytest.skip(f"WMT21 data not found at {wmt21_dir()}")
    data = wmt21_dir()
    n = 120
    refs = [(data / "references" / f"newstest2021.en-de.ref.{k}.de").read_text(
        encoding="utf-8").split("\n")[:n] for k in "ACD"]
    files = sorted((data / "system-outputs").glob("newstest2021.en-de.hyp.*.de"))[:3]
    systems = {f.name.split(".")[3]: f.read_text(encoding="utf-8").split("\n")[:n] for f in files}
    chrf_pp = truebleu.CHRF(word_order=2, references=refs)
    rep = make_report(refs, systems, metrics=["chrf", chrf_pp, "ter"], n_samples=50,
                      reference_names=["A", "C", "D"])
    out = tmp_path_factory.mktemp("chrf") / "en-de.html"
    rep.save(out)
    return {"refs": refs, "systems": systems, "url": out.as_uri()}


@needs_wmt21
def test_wmt21_lines(tiny_page, en_de):
    for hyps in en_de["systems"].values():
        for i in range(0, 120, 3):
            refs = [r[i] for r in en_de["refs"]]
            for options in ({}, {"word_order": 2}):
                assert page_matches(tiny_page, hyps[i], refs, options) == python_matches(
                    hyps[i], refs, options), i


@needs_wmt21
def test_the_detail_draws_the_matches(open_page, en_de, screenshot_dir):
    names = list(en_de["systems"])
    i = 17
    page = open_page(en_de["url"] + f"#view=segments&a=0&b=1&seg={i}")
    blocks = page.locator(".chrf-matches")
    assert blocks.count() == 2  # chrF and chrF++
    refs = [r[i] for r in en_de["refs"]]
    for b, options in enumerate(({}, {"word_order": 2})):
        block = blocks.nth(b)
        orders = 6 + options.get("word_order", 0)
        assert block.locator("button[data-chrf-order]").count() == orders
        for order in (1, 4, orders):
            block.locator(f"button[data-chrf-order='{order}']").click()
            block = page.locator(".chrf-matches").nth(b)
            assert block.locator(f"button[data-chrf-order='{order}'].active").count() == 1
            for which, k in (("A", 0), ("B", 1)):
                hyp = en_de["systems"][names[k]][i]
                result = truebleu.CHRF(**options).sentence_matches(hyp, refs)
                o = result.orders[order - 1]
                part = block.locator(f".chrf-system[data-system={which}]")
                counts = part.locator("[data-value=chrf-counts]").inner_text()
                assert counts.startswith(f"{o.matches} of {o.hypothesis_count} ")
                assert f"of the reference's {o.reference_count}" in counts
                assert f"against reference {'ACD'[result.best_reference]}" in part.inner_text()
                covered = set()
                for g in o.ngrams:
                    for start, end in g.hypothesis_spans:
                        covered |= {p for p in range(start, end)
                                    if o.kind == "word" or not hyp[p].isspace()}
                want = "".join(hyp[p] for p in sorted(covered))
                shown = "".join(part.locator("[data-field=chrf-hypothesis] .chrf-hit").all_inner_texts())
                assert shown == want, (which, order)
    assert page.evaluate("window.truebleuViewer.state.corder") == 8
    page.screenshot(path=str(screenshot_dir / "chrf-matches.png"), full_page=True)
    assert page.watch.page_errors == [] and page.watch.console_errors == []


@pytest.fixture(scope="module")
def hostile(tmp_path_factory):
    """The security corpus as outputs, references, document ids and an external metric's name."""
    import random

    n = len(PAYLOADS)
    systems = {NAMES[0]: list(PAYLOADS), NAMES[1]: [PAYLOADS[(k + 1) % n] for k in range(n)]}
    rng = random.Random(4)
    name = f"<img src=x onerror={PWN}>\u202e"
    refs = [list(PAYLOADS), [p[::-1] for p in PAYLOADS]]
    rep = make_report(refs, systems,
                      metrics=["chrf", truebleu.CHRF(word_order=2, references=refs), "ter"],
                      scores={name: {s: [rng.random() for _ in range(n)] for s in systems}},
                      doc_ids=[f"doc<b>{k // 4}</b>\u202e" for k in range(n)], n_samples=30,
                      n_permutations=10)
    path = tmp_path_factory.mktemp("hostile-chrf") / "report.html"
    rep.save(path)
    return path.as_uri(), name


def test_hostile_text_in_the_matches_and_a_vs_b(open_page, hostile, screenshot_dir):
    """Every hostile segment's chrF matches (each order), and A vs B for every metric."""
    from test_viewer_security import assert_clean, shown

    url, name = hostile
    page = open_page(url)
    for i in range(len(PAYLOADS)):
        show_view(page, f"view=segments&seg={i}&corder={1 + i % 8}")
        assert page.locator("#detail .chrf-matches").count() == 2
        page.locator("#detail .chrf-matches").nth(1).locator("button[data-chrf-order]").last.click()
        assert_clean(page, f"chrF matches of segment {i}")
    for k in range(4):
        show_view(page, f"view=compare&cm={k}")
        assert_clean(page, f"A vs B by metric {k}")
        assert page.locator("table.documents tbody tr").count() > 0
    assert shown(name) in page.locator("select[data-control=compare-metric]").inner_text()
    assert page.locator("#contributions h2").inner_text().endswith(f"({shown(name)})")
    page.screenshot(path=str(screenshot_dir / "hostile-a-vs-b.png"), full_page=True)
