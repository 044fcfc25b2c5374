"""One precondition for every significance test (issue 26, item 10: "compare calls one segment
significant").

``truebleu compare ref -i a b`` on a one-line test set printed ``p = 0.0010 *``: resampling
one segment draws the same corpus every time, so every resampled difference equals the
observed one and the test reports its smallest p-value. ``serve`` refused fewer than two
segments, nothing else did. Now every test (the API, ``compare``, ``-pbs``/``-par``,
``-ci``) refuses in one line, and the report, which is useful without tests, says that it
has none.
"""

from __future__ import annotations

import pytest

np = pytest.importorskip("numpy")

from resampling_calls import NAMES, resampling_calls  # noqa: E402

from browser import browser, open_page  # noqa: E402,F401  (fixtures)
from truebleu import BLEU  # noqa: E402
from truebleu.cli import main as truebleu_main  # noqa: E402
from truebleu.metrics.bleu import BLEUBatchScorer  # noqa: E402
from truebleu.significance import paired_bootstrap  # noqa: E402
from truebleu.viewer import report as make_report  # noqa: E402

REF, A, B = "the cat sat on the mat", "the cat sat on a mat", "a dog"
NO_POWER = "needs at least 2 segments, got 1: resampling fewer gives the same corpus every time"


@pytest.fixture
def one_line(tmp_path):
    paths = {}
    for name, text in (("ref", REF), ("a", A), ("b", B)):
        paths[name] = tmp_path / name
        paths[name].write_text(text + "\n", encoding="utf-8")
    return {k: str(v) for k, v in paths.items()}


@pytest.mark.parametrize("argv", [
    ["compare", "{ref}", "-i", "{a}", "{b}"],
    ["compare", "{ref}", "-i", "{a}", "{b}", "--test", "ar"],
    ["{ref}", "-i", "{a}", "{b}", "-pbs"],
    ["{ref}", "-i", "{a}", "{b}", "-par"],
    ["{ref}", "-i", "{a}", "-ci"],
    ["{ref}", "-i", "{a}", "{b}", "-pbs", "-m", "bleu", "chrf", "ter"],
])
def test_the_commands_refuse_one_segment(one_line, capsys, argv):
    status = truebleu_main([a.format(**one_line) for a in argv])
    captured = capsys.readouterr()
    assert status == 1 and captured.out == ""
    assert NO_POWER in captured.err and captured.err.count("\n") == 1, captured.err
    assert "p = " not in captured.err


#: the report is useful without tests: it says it has none (test_the_report_says_it_has_no_tests)
REFUSING = [name for name in NAMES if name != "viewer.report"]


@pytest.mark.parametrize("name", REFUSING)
def test_the_api_refuses_one_segment(name):
    _, call = resampling_calls(BLEU(references=[[REF]]), [REF], {"a": [A], "b": [B], "c": [B]})[name]
    with pytest.raises(ValueError, match=NO_POWER):
        call(1000)


def test_two_segments_are_enough():
    metric = BLEU(references=[[REF, REF]])
    a, b = metric.corpus_statistics([A, B]), metric.corpus_statistics([B, A])
    assert 0 < paired_bootstrap(a, b, BLEUBatchScorer.from_metric(metric), 50).p_value <= 1


def test_the_report_says_it_has_no_tests(one_line, tmp_path, capsys):
    rep = make_report([[REF]], {"a": [A], "b": [B]}, n_samples=100)
    significance = rep.data.payload()["significance"]
    assert significance["test"] is None and significance["pairs"] == []
    assert significance["note"] == ("No confidence intervals or significance tests: they need "
                                    "at least 2 segments to resample, and this report has 1.")
    systems = rep.data.payload()["systems"]
    assert [s["corpus"]["ci"] for s in systems] == [None, None]
    assert [s["corpus"]["rank"] for s in systems] == [1, 2]
    assert all(ci is None for row in rep.data.payload()["buckets"]["length"]["ci"] for ci in row)
    with pytest.raises(ValueError, match=NO_POWER):
        rep.paired_test(0, 1)
    # the command writes the report, and says nothing is wrong with it
    out = tmp_path / "r.html"
    assert truebleu_main(["report", one_line["ref"], "-i", one_line["a"], one_line["b"],
                          "-o", str(out)]) == 0
    assert out.is_file()


def test_a_bucket_of_one_segment_has_no_interval():
    refs = ["a b c d e f g h i j k l", "x y", "x z"]  # lengths 12, 2, 2: bucket 10-19 holds one
    rep = make_report([refs], {"s": ["a b c d e f g h i j k", "x y", "x"]}, n_samples=50)
    length = rep.data.payload()["buckets"]["length"]
    assert length["segments"][:2] == [2, 1]
    assert length["ci"][0][0] is not None and length["ci"][0][1] is None
    assert length["bleu"][0][1] is not None


def test_the_page_says_it_has_no_tests(browser, open_page, tmp_path):
    path = tmp_path / "r.html"
    make_report([[REF]], {"a": [A], "b": [B]}, n_samples=100).save(path)
    page = open_page(path.as_uri())
    note = page.locator("#significance-note").inner_text()
    assert note.startswith("No confidence intervals or significance tests")
    assert page.watch.page_errors == []
