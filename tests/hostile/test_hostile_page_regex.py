"""A link cannot freeze the report page (issue 26, item 4).

The segment filter read a regular expression from the URL fragment, so a link to
``report.html#view=segments&hyp=(\\w+\\s?)+$`` froze the tab on outputs where that pattern
backtracks catastrophically (``(\\w+\\s?)+$`` on 40 word characters and a ``!``: 2^40 ways to
split them). Now the filters match plain text (a substring, ignoring case) unless the user
switches regular expressions on in this page load (the switch is never read from the URL, and
a link that changes the fragment switches it off); a regular expression runs in a Web Worker
that is stopped when it overruns its budget (200 ms, more for long texts), while the page stays
responsive and says the pattern was too slow.

In headless Chromium, on the file and on ``serve``: the link opens (within the harness's bound)
as a plain-text filter; switching regular expressions on leaves the page answering clicks
within 20 times the time a click takes on the idle page (at least 1 s), and it says "too
slow" within the budget plus the same margin; a fast pattern gives Python's ``re`` count; no
CSP violation anywhere (the worker is allowed by ``worker-src blob:``, nothing more).
"""

from __future__ import annotations

import re
import threading
import time
import urllib.parse

import pytest

pytest.importorskip("numpy")

from browser import browser, open_page, screenshot_dir, show_view, wait_until  # noqa: E402,F401  (fixtures)
from truebleu.viewer import report as make_report  # noqa: E402
from truebleu.viewer.server import make_server  # noqa: E402

CATASTROPHIC = r"(\w+\s?)+$"
LINK = urllib.parse.urlencode({"view": "segments", "hyp": CATASTROPHIC})
N = 60


def corpus():
    """Ordinary sentences, and in both systems every third output 40+ word characters and "!"."""
    words = "the cat sat on a mat and the dog ran to the house".split()
    reference = [" ".join(words[(k + j) % len(words)] for j in range(4 + k % 7)) for k in range(N)]

    def system(change):
        return [("thequickbrownfoxjumpsoverthelazydog" + change * (5 + k % 4) + "!") if k % 3 == 0
                else ref.replace("cat", "cut") if change == "y" and k % 2 else ref
                for k, ref in enumerate(reference)]

    return reference, {"A": system("x"), "B": system("y")}


@pytest.fixture(scope="module")
def regex_report():
    reference, systems = corpus()
    return make_report([reference], systems, source=[f"source {k}" for k in range(N)], n_samples=50)


@pytest.fixture(scope="module", params=["file", "serve"])
def page_url(request, regex_report, tmp_path_factory):
    if request.param == "file":
        path = tmp_path_factory.mktemp("regex") / "report.html"
        regex_report.save(path)
        yield path.as_uri()
        return
    server = make_server(regex_report, "127.0.0.1", 0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server.url
    server.shutdown()
    server.server_close()


def count(page) -> int:
    shown = page.inner_text("#subset-summary [data-value=count]")
    return int(shown.split(" of ")[0])


def click_and_time(page) -> float:
    """Seconds from a click on the sort direction until the page has taken it."""
    before = page.evaluate("window.truebleuViewer.state.dir")
    started = time.monotonic()
    page.click("[data-control=dir]", timeout=60_000)
    wait_until(page, "(d) => window.truebleuViewer.state.dir === d", arg=-before, timeout=60)
    return time.monotonic() - started


def test_a_link_cannot_freeze_the_page(open_page, page_url, regex_report, screenshot_dir):
    reference, systems = corpus()
    page = open_page(page_url + "#" + LINK)
    # the link's pattern is plain text: no output contains it literally
    assert page.input_value("input[data-filter=hyp]") == CATASTROPHIC
    assert not page.is_checked("[data-control=regex]")
    assert count(page) == 0
    assert "plain text" in page.inner_text(".filters-note")
    page.screenshot(path=str(screenshot_dir / f"regex-link-as-plain-text-{page_url.split(':')[0]}.png"))

    baseline = max(click_and_time(page) for _ in range(3))
    bound = max(1.0, 20 * baseline)
    started = time.monotonic()
    page.check("[data-control=regex]")                  # the user asks for regular expressions
    took = click_and_time(page)                          # the page still answers while it runs
    assert took < bound, f"a click took {took:.2f} s while the pattern ran (bound {bound:.2f} s)"
    budget = page.evaluate("window.truebleuViewer.regexBudgetMs()") / 1000
    said = """() => { const e = document.querySelector(".filter-errors");
                      return e && e.textContent.includes("too slow") ? e.textContent : null; }"""
    slow = wait_until(page, said, timeout=budget + bound + 5)
    assert time.monotonic() - started < budget + bound, "the page was late to say the pattern was too slow"
    assert "output A|B" in slow
    shot = screenshot_dir / f"regex-too-slow-{page_url.split(':')[0]}.png"
    page.screenshot(path=str(shot))
    print(f"screenshot: {shot}")
    assert click_and_time(page) < bound
    assert count(page) == N                               # a pattern that did not finish filters nothing

    # a pattern that finishes gives Python's count (case-insensitive, like the plain text)
    page.fill("input[data-filter=hyp]", r"\bc[au]t\b")
    page.press("input[data-filter=hyp]", "Enter")
    want = sum(1 for k in range(N) if any(re.search(r"\bc[au]t\b", s[k], re.I) for s in systems.values()))
    wait_until(page, "(n) => { const c = document.querySelector('#subset-summary [data-value=count]');"
                     " return c && c.textContent.startsWith(n + ' of'); }", arg=want, timeout=bound + 5)
    # plain text again: the same pattern is now literal
    page.uncheck("[data-control=regex]")
    wait_until(page, "() => document.querySelector('#subset-summary [data-value=count]')"
                     ".textContent.startsWith('0 of')", timeout=bound + 5)
    page.fill("input[data-filter=hyp]", "CAT SAT")
    page.press("input[data-filter=hyp]", "Enter")
    wait_until(page, "(n) => document.querySelector('#subset-summary [data-value=count]')"
                     ".textContent.startsWith(n + ' of')", timeout=bound + 5,
               arg=sum(1 for k in range(N) if any("cat sat" in s[k].lower() for s in systems.values())))

    # a link followed in the same page (the fragment changes) switches regular expressions off
    page.check("[data-control=regex]")
    show_view(page, LINK)
    assert not page.is_checked("[data-control=regex]") and count(page) == 0
    assert page.watch.csp_violations(page) == []
    assert page.watch.page_errors == [] and page.watch.console_errors == []
