"""The viewer with hostile inputs, in real headless Chromium (file mode and serve mode).

Every text of the report (outputs, references, source, system names, document
ids, the title) carries markup, script URLs, template syntax, bidi overrides,
lone surrogates and control characters. In every view the test asserts: no
dialog opened, no payload script ran (they all try to set ``window.__pwned``),
no element or attribute from a payload exists, no CSP violation, no page error,
and the hostile text is shown literally (invisible characters as ⟨U+XXXX⟩
marks, as static/js/00-util.js's markInvisible does). Screenshots are saved
in a temporary folder whose path is printed.

A positive control first proves that the watchers see an injection when one
happens, so the other tests cannot pass by looking at nothing.
"""

from __future__ import annotations

import re
import urllib.parse

import pytest

pytest.importorskip("numpy")

from browser import browser, open_page, screenshot_dir, show_view, wait_until  # noqa: E402,F401  (fixtures)
from hostile_text import NAMES, PAYLOADS, PWN  # noqa: E402  (the security corpus)
from serving import running_server  # noqa: E402
from truebleu.viewer import report as make_report  # noqa: E402

TITLE = f"</title><script>{PWN}</script>\u202e{{{{7*7}}}}"

INVISIBLE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2060-\u2069"
                       "\ufeff\ufff9-\ufffb\ud800-\udfff]")


def shown(text: str) -> str:
    """What the page must show for ``text``: invisible characters as ⟨U+XXXX⟩ marks."""
    return INVISIBLE.sub(lambda m: f"\u27e8U+{ord(m.group()):04X}\u27e9", text)


def hostile_corpus():
    n = len(PAYLOADS)
    reference = list(PAYLOADS)
    reference2 = [p.upper() if k % 2 else p for k, p in enumerate(PAYLOADS)]
    systems = {
        NAMES[0]: list(PAYLOADS),
        NAMES[1]: [PAYLOADS[(k + 1) % n] for k in range(n)],
        NAMES[2]: [p[::-1].replace("\udfff\udbff", "") for p in PAYLOADS],  # never a valid pair
    }
    source = [f"source {k}: {p}" for k, p in enumerate(PAYLOADS)]
    doc_ids = [f"doc<img src=x onerror={PWN}>{k // 5}\u202e" for k in range(n)]
    return [reference, reference2], systems, source, doc_ids


@pytest.fixture(scope="module")
def hostile_report():
    refs, systems, source, doc_ids = hostile_corpus()
    return make_report(refs, systems, source=source, doc_ids=doc_ids, title=TITLE,
                       reference_names=[f"<b>ref</b><img src=x onerror={PWN}>", "ref\u202e2"],
                       n_samples=100, seed=3)


@pytest.fixture(scope="module")
def file_url(hostile_report, tmp_path_factory):
    path = tmp_path_factory.mktemp("hostile") / "report.html"
    hostile_report.save(path)
    return path.as_uri()


@pytest.fixture(scope="module")
def serve_url(hostile_report):
    with running_server(hostile_report) as server:
        yield server.url


@pytest.fixture(params=["file", "serve"])
def hostile_page(request, open_page, file_url):
    url = file_url if request.param == "file" else request.getfixturevalue("serve_url")
    page = open_page(url)
    page.mode = request.param
    return page


# -- what every view must satisfy ----------------------------------------------------------

INTRUSIONS = """() => {
  const found = [];
  const scripts = document.querySelectorAll("script");
  if (scripts.length !== 2) found.push(scripts.length + " script elements");
  for (const sel of ["iframe", "object", "embed", "img", "base", "meta[http-equiv=refresh]", "link",
                     "style:not(head > style)", "form", "textarea"]) {
    const n = document.querySelectorAll(sel).length;
    if (n) found.push(n + " " + sel);
  }
  for (const node of document.querySelectorAll("*")) {
    for (const attr of node.attributes) {
      const name = attr.name.toLowerCase();
      if (name.startsWith("on")) found.push(node.tagName + "[" + name + "]");
      if (["href", "src", "action", "formaction", "xlink:href", "srcdoc"].includes(name))
        found.push(node.tagName + "[" + name + "=" + attr.value + "]");
    }
  }
  return found;
}"""


def assert_clean(page, where: str) -> None:
    watch = page.watch
    assert watch.dialogs == [], f"{where}: dialogs opened: {watch.dialogs}"
    assert page.evaluate("window.__pwned") is None, f"{where}: a payload ran"
    assert page.evaluate(INTRUSIONS) == [], f"{where}: payload elements or attributes in the DOM"
    assert watch.csp_violations(page) == [], f"{where}: CSP violations"
    assert watch.page_errors == [], f"{where}: page errors: {watch.page_errors}"


def text_of(page, selector: str) -> str:
    return page.eval_on_selector(selector, "(e) => e.textContent")


def texts_of(page, selector: str) -> list[str]:
    return page.eval_on_selector_all(selector, "(es) => es.map((e) => e.textContent)")


# -- the tests -----------------------------------------------------------------------------

def test_the_watchers_see_an_injection(open_page, file_url):
    """Positive control: an injected handler is blocked by the CSP and every watcher notices."""
    page = open_page(file_url)
    page.evaluate("""() => {
      const box = document.createElement("div");
      box.innerHTML = '<img src="https://evil.example/x.png" onerror="window.__pwned=1">';
      document.body.appendChild(box);
    }""")
    wait_until(page, "() => window.__cspViolations.length > 0")
    assert page.evaluate(INTRUSIONS) != []
    assert page.evaluate("window.__pwned") is None           # the CSP stopped the handler
    violations = page.watch.csp_violations(page)
    assert any(v.startswith("img-src") for v in violations), violations


def test_the_file_has_no_markup_from_the_inputs(hostile_report):
    html = hostile_report.html("file")
    assert html.count("<script") == 2 and html.lower().count("</script") == 2
    assert "<img" not in html and "<svg" not in html and "<iframe" not in html
    assert "&lt;/title&gt;&lt;script&gt;" in html                  # the title, escaped
    assert "\ud800" not in html and "\x00" not in html


def test_overview(hostile_page, hostile_report, screenshot_dir):
    page = hostile_page
    show_view(page, "view=overview")
    assert_clean(page, f"{page.mode} overview")
    names = [shown(n) for n in hostile_report.system_names]
    options = texts_of(page, "select[data-control=system-a] option")
    assert options == names
    cells = " ".join(texts_of(page, "table.systems td"))
    for name in names:
        assert name in cells
    assert text_of(page, "header .title b") == shown(TITLE)
    assert page.title() == TITLE  # document.title is plain text
    path = screenshot_dir / f"hostile-{page.mode}-overview.png"
    page.screenshot(path=str(path), full_page=True)
    print(f"screenshot: {path}")


def test_every_hostile_segment_in_detail(hostile_page, hostile_report, screenshot_dir):
    page = hostile_page
    data = hostile_report.data
    a, b = (page.evaluate("window.truebleuViewer.state")[k] for k in ("a", "b"))
    for k in range(len(PAYLOADS)):
        show_view(page, f"view=segments&a={a}&b={b}&seg={k}")
        where = f"{page.mode} segment {k}"
        assert_clean(page, where)
        assert text_of(page, "#detail [data-field=source]") == shown(data.inputs.source[k]), where
        refs = texts_of(page, "#detail [data-field=reference]")
        expected = ["".join(shown(t) + " " for t in tokens[k]) for tokens in data.reference_tokens]
        assert refs == expected, where
        outputs = texts_of(page, "#detail [data-field=output]")
        assert outputs == ["".join(shown(t) + " " for t in data.systems[s].tokens[k]) for s in (a, b)], where
        row = f"#segment-list .segrow[data-segment='{k}']"
        assert text_of(page, row + " .texts .a") == shown(data.inputs.systems[a][k]), where
        assert text_of(page, row + " .texts .b") == shown(data.inputs.systems[b][k]), where
        assert text_of(page, row + " .doc") == shown(data.inputs.doc_ids[k]), where
        assert shown(data.inputs.doc_ids[k]) in text_of(page, "#detail h2")
        if k in (1, 16, 17, 18):
            path = screenshot_dir / f"hostile-{page.mode}-segment-{k}.png"
            page.screenshot(path=str(path), full_page=True)
            print(f"screenshot: {path}")


def test_compare(hostile_page, hostile_report, screenshot_dir):
    page = hostile_page
    show_view(page, "view=compare")
    page.wait_for_selector("#ngram-diffs .halves")
    assert_clean(page, f"{page.mode} compare")
    docs = texts_of(page, "table.documents td:first-child")
    assert sorted(docs) == sorted({shown(d) for d in hostile_report.data.inputs.doc_ids})
    assert shown(hostile_report.system_names[0]) in text_of(page, "main")
    # click through an n-gram, a document and a bar: still nothing runs
    page.click("#ngram-diffs button.link")
    page.wait_for_selector("main[data-view=segments]")
    assert_clean(page, f"{page.mode} n-gram click-through")
    show_view(page, "view=compare")
    page.click("table.documents button.link")
    page.wait_for_selector("main[data-view=segments]")
    assert_clean(page, f"{page.mode} document click-through")
    path = screenshot_dir / f"hostile-{page.mode}-compare.png"
    show_view(page, "view=compare")
    page.screenshot(path=str(path), full_page=True)
    print(f"screenshot: {path}")


HOSTILE_STATE = [
    {"view": "segments", "hyp": f"<img src=x onerror={PWN}>"},
    {"view": "segments", "src": "(", "ref": "[", "hyp": "(?<"},                 # invalid regexes
    {"view": "segments", "doc": f'"><svg onload={PWN}>', "minLen": "1e999", "maxScore": "NaN"},
    {"view": "segments", "ngram": f"<svg onload={PWN}>", "ngramSide": "b\"><x", "ngramOrder": "9"},
    {"view": "compare\"><img src=x onerror=alert(1)>", "a": "-1", "b": "99999", "seg": "1e9"},
    {"view": "segments", "sort": "__proto__", "dir": "constructor", "seg": "toString"},
]


def test_hostile_view_state_in_the_url(hostile_page):
    """The view state comes from the URL: a crafted link must not inject anything or break the page."""
    page = hostile_page
    for params in HOSTILE_STATE:
        show_view(page, urllib.parse.urlencode(params))
        assert_clean(page, f"{page.mode} state {params}")
        assert page.evaluate("document.body.dataset.ready") == "1"
        for key in ("hyp", "src"):
            if key in params and page.query_selector(f"input[data-filter={key}]"):
                assert page.eval_on_selector(f"input[data-filter={key}]", "(e) => e.value") == params[key]


def test_typing_payloads_into_the_filters(hostile_page):
    page = hostile_page
    show_view(page, "view=segments")
    for payload in (f"<img src=x onerror={PWN}>", "javascript:alert(1)", "(?<=x", "\u202e"):
        page.evaluate("delete document.body.dataset.ready")
        page.fill("input[data-filter=hyp]", payload)
        page.press("input[data-filter=hyp]", "Enter")
        page.wait_for_selector("body[data-ready]", state="attached")
        assert_clean(page, f"{page.mode} filter {payload!r}")
        assert page.eval_on_selector("input[data-filter=hyp]", "(e) => e.value") == payload


def test_serve_mode_paired_test_from_the_page(open_page, serve_url, hostile_report):
    """The real page's POST to api/paired passes the server's Host, Origin and type checks,
    and shows the p-value of Report.paired_test on the filtered segments."""
    page = open_page(serve_url)
    state = page.evaluate("window.truebleuViewer.state")
    lengths = [len(tokens) for tokens in hostile_report.data.reference_tokens[0]]
    threshold = sorted(lengths)[len(lengths) // 2]
    show_view(page, f"view=segments&a={state['a']}&b={state['b']}&minLen={threshold}")
    page.click("[data-control=run-test]")
    shown = wait_until(page, """() => { const t = document.querySelector("[data-value=test]").textContent;
                                        return t.includes("truebleu API") || t.includes("error")
                                          ? t : null; }""")
    rows = [i for i, length in enumerate(lengths) if length >= threshold]
    assert 2 <= len(rows) < len(lengths)
    expected = hostile_report.paired_test(state["a"], state["b"], rows)
    assert f"{len(rows)} segments; truebleu API" in shown, shown
    assert f"p = {expected['p']:.4f}" in shown, shown
    assert_clean(page, "serve paired test")
