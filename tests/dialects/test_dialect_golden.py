"""Every row of the golden figures printed by the reference tools, reproduced.

* ``wmt21-perl-tools.tsv``: mteval-v13a/v14 (BLEU and NIST) and
  multi-bleu(-detok).perl, to a relative difference below 1e-12 (mteval sums
  floats in Perl's random hash order, so the last bits may differ);
* ``wmt21-tfnmt.tsv``: tensorflow/nmt ``compute_bleu``, exactly (``repr``).

The shared folder is ``../shared`` beside the repository, or ``$TRUEBLEU_SHARED``.
All rows are scored once per module (systems in turn, so that the dialects'
caches of prepared references are reused) and each row is its own test.
"""

from __future__ import annotations

import csv
from functools import lru_cache
from pathlib import Path

import pytest

from conftest import shared_dir  # noqa: E402
from truebleu.dialects import get_dialect

SHARED = shared_dir()
GOLDEN = SHARED / "golden"
WMT21 = SHARED / "data" / "wmt21"
HAVE_DATA = (GOLDEN / "wmt21-perl-tools.tsv").is_file() and (WMT21 / "system-outputs").is_dir()
pytestmark = pytest.mark.skipif(
    not HAVE_DATA, reason=f"golden figures or WMT21 data not found under {SHARED} "
                          "(set TRUEBLEU_SHARED to the shared folder)")

REL_TOLERANCE = 1e-12


def _rows(name: str) -> list[dict]:
    if not HAVE_DATA:
        return []
    with open(GOLDEN / name, encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle, delimiter="\t"))


def _lines(path: Path) -> list[str]:
    lines = path.read_text(encoding="utf-8").split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines


@lru_cache(maxsize=None)
def hypotheses(pair: str, system: str) -> tuple:
    target = pair.split("-")[1]
    return tuple(_lines(WMT21 / "system-outputs" / f"newstest2021.{pair}.hyp.{system}.{target}"))


@lru_cache(maxsize=None)
def references(pair: str, which: str) -> tuple:
    """``all``: every reference of the pair in name order (A, B, ...); else the named one."""
    target = pair.split("-")[1]
    paths = sorted((WMT21 / "references").glob(f"newstest2021.{pair}.ref.*.{target}"))
    if which != "all":
        paths = [p for p in paths if p.name.split(".")[3] == which]
    if not paths:
        raise FileNotFoundError(f"no reference {which} for {pair}")
    return tuple(tuple(_lines(p)) for p in paths)


def perl_dialect(tool_and_flags: str):
    tool, *flags = tool_and_flags.split()
    if tool.startswith("mteval"):
        return get_dialect(
            "mteval-v13a" if tool == "mteval-v13a" else "mteval-v14",
            lowercase="-c" not in flags,
            brevity_penalty="shortest" if "shortest" in flags else "closest",
            international_tokenization="--international-tokenization" in flags)
    name = {"multi-bleu.perl": "multi-bleu", "multi-bleu-detok.perl": "multi-bleu-detok"}[tool]
    return get_dialect(name, lowercase="-lc" in flags)


def tfnmt_dialect(tool_and_flags: str):
    settings = dict(part.split("=") for part in tool_and_flags.split()[2:])
    return get_dialect("tf-nmt", tokenize=settings["tokens"], smooth=settings["smooth"] == "True")


def _score_all(rows: list[dict], make) -> dict:
    dialects: dict = {}
    results = {}
    order = sorted(range(len(rows)), key=lambda i: (
        rows[i]["pair"], rows[i]["references"], rows[i]["system"], rows[i]["tool_and_flags"]))
    for i in order:
        row = rows[i]
        dialect = dialects.get(row["tool_and_flags"])
        if dialect is None:
            dialect = dialects[row["tool_and_flags"]] = make(row["tool_and_flags"])
        results[i] = dialect.corpus_score(
            list(hypotheses(row["pair"], row["system"])),
            [list(r) for r in references(row["pair"], row["references"])])
    return results


PERL_ROWS = _rows("wmt21-perl-tools.tsv")
TFNMT_ROWS = _rows("wmt21-tfnmt.tsv")


def _row_id(row: dict) -> str:
    return f"{row['tool_and_flags']}|{row['pair']}|{row['system']}|{row['references']}"


@pytest.fixture(scope="module")
def perl_results() -> dict:
    return _score_all(PERL_ROWS, perl_dialect)


@pytest.fixture(scope="module")
def tfnmt_results() -> dict:
    return _score_all(TFNMT_ROWS, tfnmt_dialect)


def _relative(got: float, expected: float) -> float:
    return abs(got - expected) / abs(expected) if expected else abs(got)


@pytest.mark.parametrize("index", range(len(PERL_ROWS)),
                         ids=[_row_id(row) for row in PERL_ROWS])
def test_perl_tool_row(perl_results, index):
    row = PERL_ROWS[index]
    score = perl_results[index]
    assert _relative(score.score, float(row["bleu"])) < REL_TOLERANCE, (score.score, row["bleu"])
    if row["nist"]:
        assert _relative(score.nist, float(row["nist"])) < REL_TOLERANCE, (score.nist, row["nist"])
    else:
        assert score.nist is None


@pytest.mark.parametrize("index", range(len(TFNMT_ROWS)),
                         ids=[_row_id(row) for row in TFNMT_ROWS])
def test_tfnmt_row(tfnmt_results, index):
    row = TFNMT_ROWS[index]
    assert repr(tfnmt_results[index].score) == row["bleu"]


def test_golden_files_are_complete():
    """Guard against a truncated golden file silently shrinking the suite."""
    assert len(PERL_ROWS) == 480
    assert len(TFNMT_ROWS) == 720
    assert {row["tool_and_flags"] for row in PERL_ROWS} == {
        "mteval-v13a", "mteval-v13a -c", "mteval-v13a -c --brevity-penalty shortest",
        "mteval-v13a -c --international-tokenization",
        "mteval-v14 -c --international-tokenization",
        "multi-bleu.perl", "multi-bleu.perl -lc", "multi-bleu-detok.perl"}
