"""The segment list's order in Chromium equals Python's sort of the same keys.

The page sorts with a radix sort on the keys' bits (static/js/40-segments.js
sortByKey); the oracle is ``sorted`` on the report's payload with the same
tie rule (segment index). Ties are common (sentence BLEU 0 and 100, equal
lengths), so the tie rule is exercised."""

from __future__ import annotations

import math

import pytest

pytest.importorskip("numpy")

from page_tokens import joined_tokens  # noqa: E402
from test_viewer_server import generated_corpus  # noqa: E402

from browser import browser, open_page, show_view, wait_until  # noqa: E402,F401  (fixtures)
from truebleu.viewer import report as make_report  # noqa: E402

N = 60


@pytest.fixture(scope="module")
def small_report():
    refs, systems, source, docs = generated_corpus(N, 3, seed=11)
    systems["sys2"][5] = refs[0][5]         # some exact matches and empty-ish outputs for ties
    systems["sys2"][6] = ""
    return make_report(refs, systems, source=source, doc_ids=docs, n_samples=50)


@pytest.fixture(scope="module")
def report_url(small_report, tmp_path_factory):
    path = tmp_path_factory.mktemp("sort") / "report.html"
    small_report.save(path)
    return path.as_uri()


def expected_order(payload, sort, direction, a, b):
    A, B = payload["systems"][a], payload["systems"][b]
    width = 2 + 2 * payload["max_order"]
    delta = B["corpus"]["score"] - A["corpus"]["score"]
    ref0 = payload["references"][0]

    def ref_len(i):
        tokens = joined_tokens(ref0["text"][i], ref0["tokens"][i])
        return len(tokens.split(" ")) if tokens else 0

    def key(i):
        hyp_len = A["stats"][i * width]
        return {
            "bleuA": A["sentence_bleu"][i], "bleuB": B["sentence_bleu"][i],
            "delta": B["sentence_bleu"][i] - A["sentence_bleu"][i],
            "contribution": delta - (B["bleu_without"][i] - A["bleu_without"][i]),
            "length": ref_len(i), "hypLength": hyp_len,
            "ratio": hyp_len / ref_len(i) if ref_len(i) else math.inf,
        }[sort]

    return sorted(range(N), key=lambda i: (key(i) * direction + 0.0, i))


SORTS = ["bleuA", "bleuB", "delta", "contribution", "length", "hypLength", "ratio"]


def test_segment_order_equals_python_sorted(open_page, report_url):
    page = open_page(report_url, viewport=(1400, N * 46 + 400))   # the list is 100vh - 205px: every row drawn
    payload = page.evaluate("""() => { const d = window.truebleuViewer.data;
      return {max_order: d.max_order, references: d.references.map((r) => ({text: r.text, tokens: r.tokens})),
              systems: d.systems.map((s) => ({corpus: s.corpus, stats: s.stats,
                                               sentence_bleu: s.sentence_bleu,
                                               bleu_without: s.bleu_without}))}; }""")
    for sort in SORTS:
        for direction in (1, -1):
            for a, b in ((0, 1), (2, 0)):
                show_view(page, f"view=segments&a={a}&b={b}&sort={sort}&dir={direction}")
                wait_until(page, "(n) => document.querySelectorAll('#segment-list .segrow').length >= n",
                           arg=N)
                rows = page.eval_on_selector_all(
                    "#segment-list .segrow", "(rs) => rs.filter((r) => r.style.display !== 'none')"
                    ".map((r) => [Number(r.dataset.pos), Number(r.dataset.segment)])")
                shown = [segment for _, segment in sorted(rows)]
                assert shown == expected_order(payload, sort, direction, a, b), (sort, direction, a, b)
