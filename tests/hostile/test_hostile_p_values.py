"""p-values that never contradict the significance mark (issue 26, item 13).

``compare`` printed ``p = 0.0500 *`` for p = 0.04995: rounded to the threshold, yet marked
significant (an AR test's 500 / 10,001 is such a value). Every text output now prints p
with four decimals when they are on the same side of alpha as p, and with more otherwise:
``compare``'s text (JSON and TSV carry p itself, LaTeX shows none), the scoring command's
``-pbs``/``-par`` tables (text and LaTeX), and the page, whose ``formatPValue`` is held
equal to the Python function on a grid of values around every usual alpha.
"""

from __future__ import annotations

import math
from dataclasses import replace

import pytest

from browser import browser, open_page  # noqa: F401  (fixtures)
from truebleu.reports.color import Color
from truebleu.reports.table import results_table
from truebleu.significance.compat import PairedCell
from truebleu.significance.formats import render
from truebleu.significance.multi import Cluster, MultiComparison, PairResult, SystemSummary
from truebleu.significance.pvalues import format_p_value

ALPHAS = [0.1, 0.05, 0.01, 0.005, 0.001, 0.01234]


def grid() -> list[tuple[float, float]]:
    """(p, alpha) pairs on both sides of each alpha, at every distance that rounding can hide."""
    pairs = []
    for alpha in ALPHAS:
        near = [alpha, math.nextafter(alpha, 0), math.nextafter(alpha, 1)]
        for k in range(3, 18):
            near += [alpha - 10.0 ** -k, alpha + 10.0 ** -k, alpha - 5 * 10.0 ** -k,
                     alpha + 5 * 10.0 ** -k]
        for n in (99, 199, 999, 1000, 9999, 10000, 100000):  # the tests' (c + 1) / (n + 1)
            c = round(alpha * (n + 1))
            near += [(c + d) / (n + 1) for d in range(-2, 3)]
        pairs += [(p, alpha) for p in near if 0 < p <= 1]
    return pairs


@pytest.mark.parametrize("alpha", ALPHAS)
def test_the_text_is_on_the_side_of_alpha_that_p_is(alpha):
    for p, a in grid():
        if a != alpha:
            continue
        text = format_p_value(p, alpha)
        assert text.startswith("p = ")
        shown = text[4:]
        assert (float(shown) < alpha) == (p < alpha), (p, alpha, text)
        decimals = len(shown.split(".")[1])
        assert decimals >= 4
        if decimals > 4:  # more digits only where four would contradict the decision
            assert (float(f"{p:.{decimals - 1}f}") < alpha) != (p < alpha), (p, alpha, text)


def test_the_issue_cases():
    assert format_p_value(0.04995) == "p = 0.04995"
    assert format_p_value(500 / 10001) == "p = 0.049995"
    assert format_p_value(0.05) == "p = 0.0500"  # not significant: p < 0.05 is the decision
    assert format_p_value(1 / 1001) == "p = 0.0010"
    assert format_p_value(0.012345, 0.01234) == "p = 0.01235"


def comparison(p: float, holm: bool = False) -> MultiComparison:
    systems = (SystemSummary("A", 30.0, 30.0, 1.0, 1, 1), SystemSummary("B", 29.0, 29.0, 1.0, 2, 2))
    adjusted = min(1.0, 3 * p) if holm else p
    pair = PairResult("A", "B", 30.0, 29.0, p, adjusted, adjusted < 0.05)
    return MultiComparison("BLEU", "ar", 10000, 12345, 0.05, holm, systems, (pair,),
                           (Cluster(1, ("A",)), Cluster(2, ("B",))))


def test_compare_text_never_contradicts_its_mark():
    text = render(comparison(500 / 10001), "text")
    assert "p = 0.049995 *" in text and "0.0500" not in text
    text = render(comparison(0.05), "text")
    assert "p = 0.0500" in text and "*" not in text.split("p = 0.0500")[1].splitlines()[0]
    holm = replace(comparison(0.0166), pairs=(PairResult("A", "B", 30.0, 29.0, 0.0166, 0.04998,
                                                         True),), holm=True)
    assert "p = 0.0166  p (Holm) = 0.04998 *" in render(holm, "text")
    for fmt in ("json", "tsv"):  # p itself, and the decision
        out = render(comparison(500 / 10001), fmt)
        assert repr(500 / 10001) in out


@pytest.mark.parametrize("fmt", ["text", "latex"])
def test_paired_table_never_contradicts_its_mark(monkeypatch, fmt):
    monkeypatch.setattr(Color, "enabled", False)
    scores = {"System": ["Baseline: a", "b", "c", "d"],
              "BLEU": [PairedCell(30.0), PairedCell(29.0, 500 / 10001), PairedCell(28.0, 0.05),
                       PairedCell(27.0, 0.001)]}
    text = results_table(scores, {"BLEU": "sig"}, fmt=fmt, width=1, paired="ar", n_samples=10000)
    assert "(p = 0.049995)*" in text
    assert "(p = 0.0500)" in text and "(p = 0.0500)*" not in text  # the legend: p < 0.05
    assert "(p = 0.0010)*" in text


def test_the_page_formats_p_values_as_python_does(browser, open_page, tmp_path):
    from truebleu.viewer import report as make_report

    rep = make_report([["a b c", "d e f"]], {"x": ["a b c", "d e"], "y": ["a b", "d e f"]},
                      n_samples=20)
    path = tmp_path / "r.html"
    rep.save(path)
    page = open_page(path.as_uri())
    cases = grid()
    shown = page.evaluate("(cases) => cases.map(([p, a]) => window.truebleuViewer.formatPValue(p, a))",
                          cases)
    assert shown == [format_p_value(p, a) for p, a in cases]
