"""``truebleu ... --dialect NAME``: options, output formats and errors."""

from __future__ import annotations

import json

import pytest

from truebleu.cli.dialect import main, requested_dialect
from truebleu.dialects import get_dialect

HYPS = ["The cat sat on the mat.", "A dog barked &amp; ran!", "Hello World"]
REF_A = ["The cat is on the mat.", "A dog barked and ran!", "Hello world"]
REF_B = ["There is a cat on the mat.", "The dog barked & ran.", "hello World !"]


@pytest.fixture
def files(tmp_path):
    paths = {}
    for name, lines in (("hyp", HYPS), ("ref_a", REF_A), ("ref_b", REF_B)):
        path = tmp_path / name
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        paths[name] = str(path)
    return paths


def run(capsys, argv):
    status = main(argv)
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_requested_dialect():
    assert requested_dialect(["r", "-i", "h", "--dialect", "nltk"]) == "nltk"
    assert requested_dialect(["r", "--dialect=mteval-v14"]) == "mteval-v14"
    assert requested_dialect(["r", "-i", "h"]) is None


def test_mteval_json_and_flags(files, capsys):
    status, out, _ = run(capsys, [files["ref_a"], files["ref_b"], "-i", files["hyp"],
                                  "--dialect", "mteval-v13a", "-c",
                                  "--brevity-penalty", "shortest"])
    assert status == 0
    record = json.loads(out)
    expected = get_dialect("mteval-v13a", lowercase=False, brevity_penalty="shortest") \
        .corpus_score(HYPS, [REF_A, REF_B])
    assert record["exact_score"] == expected.score
    assert record["score"] == round(expected.score, 4)
    assert record["nist"] == expected.nist
    assert "dialect:mteval-v13a" in record["signature"] and "bp:shortest" in record["signature"]


def test_score_only_and_nist(files, capsys):
    status, out, _ = run(capsys, [files["ref_a"], "-i", files["hyp"], "--dialect", "mteval-v14",
                                  "--international-tokenization", "--nist", "-b", "-w", "6"])
    expected = get_dialect("mteval-v14", international_tokenization=True).corpus_score(
        HYPS, [REF_A]).nist
    assert status == 0 and out.strip() == f"{expected:.6f}"


def test_multi_bleu_text(files, capsys):
    status, out, _ = run(capsys, [files["ref_a"], "-i", files["hyp"], "--dialect", "multi-bleu",
                                  "-lc", "-f", "text"])
    expected = get_dialect("multi-bleu", lowercase=True).corpus_score(HYPS, [REF_A])
    assert status == 0
    assert out.startswith(f"{expected.signature} = {expected.score:.2f} ")


@pytest.mark.parametrize("argv,options", [
    (["--dialect", "nltk", "--smoothing", "method3", "--weights", "0.5", "0.5"],
     {"smoothing": "method3", "weights": (0.5, 0.5)}),
    (["--dialect", "tf-nmt", "--smooth", "--max-order", "3", "-tok", "whitespace"],
     {"smooth": True, "max_order": 3, "tokenize": "whitespace"}),
    (["--dialect", "torchmetrics", "--smooth"], {"smooth": True}),
    (["--dialect", "multi-bleu-detok"], {}),
])
def test_tool_options_reach_the_dialect(files, capsys, argv, options):
    status, out, _ = run(capsys, [files["ref_a"], "-i", files["hyp"], "-b", "-w", "10", *argv])
    name = argv[1]
    expected = get_dialect(name, **options).corpus_score(HYPS, [REF_A]).score
    assert status == 0 and out.strip() == f"{expected:.10f}"


def test_sentence_level_and_several_systems(files, capsys):
    status, out, _ = run(capsys, [files["ref_a"], "-i", files["hyp"], "--dialect", "tf-nmt",
                                  "--smooth", "-sl", "-b"])
    assert status == 0 and len(out.split()) == len(HYPS)
    status, out, _ = run(capsys, [files["ref_a"], "-i", files["hyp"], files["ref_b"],
                                  "--dialect", "multi-bleu", "-f", "text"])
    assert status == 0 and len(out.strip().splitlines()) == 2


@pytest.mark.parametrize("argv", [
    ["--dialect", "nltk", "-c"],
    ["--dialect", "multi-bleu", "--nist"],
    ["--dialect", "tf-nmt", "--brevity-penalty", "shortest"],
])
def test_options_of_other_tools_are_refused(files, capsys, argv):
    status, _, err = run(capsys, [files["ref_a"], "-i", files["hyp"], *argv])
    assert status == 1 and "does not apply" in err


def test_length_mismatch_and_tool_errors(files, tmp_path, capsys):
    short = tmp_path / "short"
    short.write_text("one line\n", encoding="utf-8")
    status, _, err = run(capsys, [str(short), "-i", files["hyp"], "--dialect", "multi-bleu"])
    assert status == 1 and "lines" in err
    empty = tmp_path / "empty"
    empty.write_text("\n\n\n", encoding="utf-8")
    status, _, err = run(capsys, [files["ref_a"], "-i", str(empty), "--dialect", "tf-nmt"])
    assert status == 1 and "divides by zero" in err


def test_main_cli_hands_over(files, capsys):
    """The lead's ``truebleu`` entry point passes dialect command lines through."""
    from truebleu.cli import main as truebleu_main

    status = truebleu_main([files["ref_a"], "-i", files["hyp"], "--dialect", "multi-bleu",
                            "-lc", "-b"])
    expected = get_dialect("multi-bleu", lowercase=True).corpus_score(HYPS, [REF_A]).score
    assert status == 0 and capsys.readouterr().out.strip() == f"{expected:.2f}"
