"""A vs B's n-gram differences on a mid-size report (20,000 segments), in headless Chromium.

The page counts each segment's clipped n-gram matches of A and B on token ids
(60-compare.js) instead of joined strings; the tables it draws (every order, both
sides: n-gram, surplus matches, segments) must equal a plain Python count on the
report's own tokens, and clicking an n-gram must select exactly its segments. The
corpus is random text over a small vocabulary, so n-grams repeat within a segment and
across references (clipping by the largest count in any one reference), with empty
outputs, a missing second reference, tokens outside the BMP (the page sorts by UTF-16
code units) and names of JavaScript object properties. How fast this is: bench_viewer.py.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest

from browser import browser, open_page, show_view, wait_until  # noqa: F401  (fixtures)
from truebleu.viewer import report as make_report

N_SEGMENTS = 20_000
ORDERS = 4
ROWS = 25  # the page shows each side's first 25 n-grams
WORDS = ["the", "a", "cat", "sat", "on", "mat", "dog", "ran", "__proto__", "constructor",
         "ünï", "😀x", "x😀", "0", "toString", "hasOwnProperty"]


def sentence(rng: random.Random) -> str:
    length = rng.choice([0, 1, 2, 3, 5, 8, 12, 20, 30])
    return " ".join(rng.choice(WORDS[:rng.choice([4, 8, len(WORDS)])]) for _ in range(length))


@pytest.fixture(scope="module")
def mid_size(tmp_path_factory):
    rng = random.Random(25)
    refs = [[sentence(rng) or "the" for _ in range(N_SEGMENTS)],
            [sentence(rng) if i % 7 else None for i in range(N_SEGMENTS)]]
    systems = {"A": [sentence(rng) for _ in range(N_SEGMENTS)],
               "B": [sentence(rng) for _ in range(N_SEGMENTS)]}
    rep = make_report(refs, systems, n_samples=50, seed=3)
    out = tmp_path_factory.mktemp("ngram-diffs") / "mid.html"
    rep.save(out)
    return rep, out.as_uri()


def grams(tokens: list[str], n: int) -> Counter:
    return Counter(" ".join(tokens[k:k + n]) for k in range(len(tokens) - n + 1))


def expected_tables(rep) -> list[dict[str, list[tuple[str, int, list[int]]]]]:
    """Per order, each side's n-grams sorted as the page sorts them, from the report's tokens."""
    data = rep.data
    a_tokens, b_tokens = data.systems[0].tokens, data.systems[1].tokens
    surplus = [{"a": Counter(), "b": Counter()} for _ in range(ORDERS)]
    segments: list[dict[str, dict[str, list[int]]]] = [{"a": {}, "b": {}} for _ in range(ORDERS)]
    for i in range(N_SEGMENTS):
        refs = [list(stream[i]) for stream in data.reference_tokens if stream[i] is not None]
        hyp_a, hyp_b = list(a_tokens[i] or []), list(b_tokens[i] or [])
        for n in range(1, ORDERS + 1):
            best: Counter = Counter()
            for ref in refs:
                for g, c in grams(ref, n).items():
                    best[g] = max(best[g], c)
            ca, cb = grams(hyp_a, n), grams(hyp_b, n)
            for g in set(ca) | set(cb):
                diff = min(ca[g], best[g]) - min(cb[g], best[g])
                if diff:
                    side = "a" if diff > 0 else "b"
                    surplus[n - 1][side][g] += abs(diff)
                    segments[n - 1][side].setdefault(g, []).append(i)
    return [{side: sorted(((g, c, segments[n][side][g]) for g, c in surplus[n][side].items()),
                          key=lambda e: (-e[1], e[0].encode("utf-16-be")))
             for side in ("a", "b")} for n in range(ORDERS)]


def shown_rows(page, side: str) -> list[list[str]]:
    return page.eval_on_selector_all(
        f"#ngram-diffs table.ngrams-{side} tbody tr",
        "rows => rows.map(r => Array.from(r.cells, c => c.textContent))")


def test_ngram_differences_equal_pythons_count(open_page, mid_size):
    rep, url = mid_size
    want = expected_tables(rep)
    assert all(len(want[n][side]) >= ROWS for n in (1, 2) for side in "ab")  # full tables
    page = open_page(url + "#view=compare&a=0&b=1", timeout=120_000)
    page.wait_for_selector("#ngram-diffs .halves", state="attached", timeout=120_000)
    for n in range(1, ORDERS + 1):
        if n > 1:
            page.click(f"#ngram-diffs button[data-ngram-order='{n}']")
            wait_until(page, "(n) => document.querySelector("
                       "`#ngram-diffs button[data-ngram-order='${n}'].active`) !== null", arg=n)
        for side in "ab":
            expected = [[g, str(c), str(len(s))] for g, c, s in want[n - 1][side][:ROWS]]
            assert shown_rows(page, side) == expected, (n, side)
    assert page.watch.page_errors == [] and page.watch.console_errors == []


def test_an_ngram_selects_exactly_its_segments(open_page, mid_size):
    rep, url = mid_size
    gram, count, segments = expected_tables(rep)[1]["b"][0]
    page = open_page(url + "#view=compare&a=0&b=1", timeout=120_000)
    page.wait_for_selector("#ngram-diffs .halves", state="attached", timeout=120_000)
    page.click("#ngram-diffs button[data-ngram-order='2']")
    wait_until(page, "() => document.querySelector(\"#ngram-diffs button[data-ngram-order='2']"
                     ".active\") !== null")
    page.locator("table.ngrams-b tbody tr").first.locator("button").click()
    page.wait_for_selector("main[data-view=segments]")
    wait_until(page, "() => !!document.querySelector('#subset-summary [data-value=count]')")
    assert page.locator("#subset-summary [data-value=count]").inner_text() == (
        f"{len(segments)} of {N_SEGMENTS} segments")
    assert page.evaluate("window.truebleuViewer.state.ngram") == gram
