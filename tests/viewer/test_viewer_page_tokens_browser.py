"""The page's token columns, in headless Chromium: each segment's tokens come to the page
as None (the text itself), UTF-16 offsets of spaces to insert into the text, or the joined
tokens (viewer/tokens.py, ``page_token_column``); the page must read back exactly the
tokens truebleu counted, for every stream and segment, outside the BMP and with lone
surrogates too, in a saved file and from ``serve``."""

from __future__ import annotations

import random

import pytest

from browser import browser, open_page  # noqa: F401  (fixtures)
from serving import running_server
from truebleu.viewer import report as make_report

PIECES = ["Hello,", "world.", "x\U0001d11e,", "y\U0001d11e.", "it's", "\ud800", "(été)", "東京。",
          "x\u0301!", "A.B.C", "3.14", "km.", "«quoted»", "U.S.", "e\u00a0f;", "a", "the"]


def line(rng: random.Random) -> str:
    return "".join(rng.choice(PIECES) + rng.choice([" ", "  ", "\t"])
                   for _ in range(rng.randint(0, 9))).rstrip(" ")


@pytest.fixture(scope="module")
def hostile(tmp_path_factory):
    rng = random.Random(32)
    n = 300
    refs = [[line(rng) or "a" for _ in range(n)], [line(rng) if i % 5 else None for i in range(n)]]
    systems = {"A": [line(rng) for _ in range(n)], "B": [line(rng) for _ in range(n)]}
    source = [("\ufeff" if i % 7 == 0 else "") + line(rng) + ("\n" if i % 11 == 0 else "")
              for i in range(n)]  # a leading BOM is text; a newline too
    rep = make_report(refs, systems, source=source, n_samples=20, seed=1)
    path = tmp_path_factory.mktemp("page-tokens") / "tokens.html"
    rep.save(path)
    streams = list(rep.data.reference_tokens) + [s.tokens for s in rep.data.systems]
    want = [[None if t is None else " ".join(t) for t in stream] for stream in streams]
    payload = rep.data.payload()
    forms = [item for s in payload["references"] + payload["systems"] for item in s["tokens"]]
    assert any(isinstance(item, list) for item in forms) and any(isinstance(item, str) for item in forms)
    texts = {"source": source, "streams": refs + list(systems.values())}
    return rep, path, want, texts


READ_BACK = """() => {
    const v = window.truebleuViewer, d = v.data;
    return [...d.references, ...d.systems].map((s) => s.text.map((t, i) =>
        t === null ? null : v.tokensOf(s, i).join(" ")));
}"""


READ_TEXTS = """() => {
    const d = window.truebleuViewer.data;
    return {source: d.source, streams: [...d.references, ...d.systems].map((s) => s.text)};
}"""


def test_the_page_reads_back_every_text(open_page, hostile):  # noqa: F811
    """The texts travel as UTF-8 blocks cut by code-point lengths (viewer/page.py): every
    segment's text comes back, with characters beyond U+FFFF, a leading BOM, None
    (a missing reference) and lone surrogates (sent as JSON strings), file and serve."""
    rep, path, _, texts = hostile
    assert open_page(path.as_uri()).evaluate(READ_TEXTS) == texts
    with running_server(rep) as server:
        assert open_page(server.url).evaluate(READ_TEXTS) == texts


def test_the_page_reads_back_every_segments_tokens(open_page, hostile):  # noqa: F811
    _, path, want, _ = hostile
    page = open_page(path.as_uri())
    assert page.evaluate(READ_BACK) == want
    assert page.evaluate("() => window.truebleuViewer.pageTokens('a😀,b.', [3, 5])") == "a😀 ,b ."
    assert page.watch.page_errors == []


def test_served_page_reads_back_every_segments_tokens(open_page, hostile):  # noqa: F811
    rep, _, want, _ = hostile
    with running_server(rep) as server:
        page = open_page(server.url)
        assert page.evaluate(READ_BACK) == want
