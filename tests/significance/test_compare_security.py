"""The comparison reports with hostile names (the security corpus), in every format.

Metric names (``--scores NAME=FILE``) and system names (file names) come from users.
With every payload of ``tests/hostile_text.py`` as a metric or system name: the text
report holds no control, bidi or invisible character (each is a visible ⟨U+XXXX⟩ mark);
LaTeX runs no command but the report's own and keeps every special character escaped;
JSON parses and gives every name back exactly (lone surrogates included) and encodes as
UTF-8; TSV keeps one row per line and its columns.
"""

from __future__ import annotations

import json
import re

import pytest

np = pytest.importorskip("numpy")

from hostile_text import LATEX, NAMES, PAYLOADS  # noqa: E402
from truebleu.significance import compare_metrics  # noqa: E402
from truebleu.significance.formats import latex_escape, render, shown  # noqa: E402
from truebleu.significance.metric_formats import _label, render_metrics  # noqa: E402

SYSTEM_NAMES = list(dict.fromkeys(NAMES + PAYLOADS[:6] + LATEX[:1]))  # each once
METRIC_NAMES = PAYLOADS[6:] + LATEX
N = 12
SAFE_SYSTEMS = [f"QZS{k}Q" for k in range(len(SYSTEM_NAMES))]
SAFE_METRICS = [f"QZM{k}Q" for k in range(len(METRIC_NAMES))]

#: the control sequences the reports write themselves
OWN_COMMANDS = {"begin", "end", "centering", "toprule", "midrule", "bottomrule", "caption",
                "label", "small", "pm", "tau", "textbackslash", "textasciitilde",
                "textasciicircum"}
HIDDEN = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2060-\u2069"
                    "\ufeff\ufff9-\ufffb\ud800-\udfff]")


def comparison(systems, metrics):
    rng = np.random.default_rng(0)
    scores = {name: {system: rng.normal(k % 3, 1, N).tolist()
                     for k, system in enumerate(systems)} for name in metrics}
    return compare_metrics(systems, scores=scores, gold=metrics[0], n_samples=50,
                           n_permutations=20, sentences=True)


@pytest.fixture(scope="module")
def result():
    return comparison(SYSTEM_NAMES, METRIC_NAMES)


@pytest.fixture(scope="module")
def safe():
    """The same comparison with harmless names (the numbers do not depend on names)."""
    return comparison(SAFE_SYSTEMS, SAFE_METRICS)


def substituted(text: str, escape) -> str:
    """The safe report with each harmless name replaced by the escaped hostile one."""
    for placeholder, name in zip(SAFE_SYSTEMS + SAFE_METRICS, SYSTEM_NAMES + METRIC_NAMES):
        text = text.replace(placeholder, escape(name))
        text = text.replace(_label(placeholder), _label(name))
    return text


def test_text_shows_every_name_and_nothing_hidden(result, safe):
    """Columns are aligned to the names, so the check is: no hidden character, every name
    shown, and as many lines as with harmless names (no name breaks a line)."""
    single = render(result.rankings[0], "text", 2, result.sentences[0])
    for text, harmless in ((render_metrics(result, "text"), render_metrics(safe, "text")),
                           (single, render(safe.rankings[0], "text", 2, safe.sentences[0]))):
        assert not HIDDEN.search(text)
        assert len(text.splitlines()) == len(harmless.splitlines())
    text = render_metrics(result, "text")
    for name in SYSTEM_NAMES + METRIC_NAMES:
        assert shown(name) in text


def test_latex_is_the_report_with_every_name_escaped(result, safe):
    for hostile, harmless in ((render_metrics(result, "latex"), render_metrics(safe, "latex")),
                              (render(result.rankings[0], "latex"),
                               render(safe.rankings[0], "latex"))):
        assert set(re.findall(r"\\([A-Za-z]+)", hostile)) <= OWN_COMMANDS
        assert not HIDDEN.search(hostile)
        assert hostile == substituted(harmless, latex_escape)


def test_latex_escapes_every_special_character():
    assert latex_escape(LATEX[1]) == (r"50\% \& \$x\textasciicircum{}2\$ \#1 \_a "
                                      r"\textasciitilde{}b \{c\} \textbackslash{}")
    assert latex_escape("a\u202eb\x1b") == "a[U+202E]b[U+001B]"


def test_json_gives_every_name_back(result):
    for text in (render_metrics(result, "json"), render(result.rankings[0], "json")):
        text.encode("utf-8")  # no lone surrogate left raw
        assert json.loads(text)
    record = json.loads(render_metrics(result, "json"))
    assert [m["metric"] for m in record["metrics"]] == METRIC_NAMES
    assert {s["name"] for s in record["metrics"][0]["systems"]} == set(SYSTEM_NAMES)
    assert record["agreement"]["gold"] == METRIC_NAMES[0]


def test_tsv_keeps_its_rows_and_columns(result):
    text = render_metrics(result, "tsv")
    tables = text.rstrip("\n").split("\n\n")
    assert len(tables[0].splitlines()) == 1 + len(METRIC_NAMES) * len(SYSTEM_NAMES)
    for table in tables:
        widths = {len(line.split("\t")) for line in table.splitlines()}
        assert len(widths) == 1, table.splitlines()[0]
