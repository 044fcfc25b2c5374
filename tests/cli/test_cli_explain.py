"""``truebleu explain -m bleu chrf ter``: every metric explained with its sentence-level
settings, its flags those of the scoring command, its numbers sacreBLEU 2.6.0's."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from truebleu.cli.explain import main

sacrebleu = pytest.importorskip("sacrebleu")
from sacrebleu.metrics import CHRF as SacreCHRF  # noqa: E402
from sacrebleu.metrics import TER as SacreTER  # noqa: E402

HYP, REFS = "On the mat, the cat sat.", ["The cat sat on the mat.", "A cat was sitting on the mat!"]


def run(capsys, *argv: str) -> tuple[int, str, str]:
    args = ["--hyp", HYP]
    for ref in REFS:
        args += ["--ref", ref]
    status = main([*args, *argv])
    out, err = capsys.readouterr()
    return status, out, err


def test_every_metric_with_its_sentence_score(capsys):
    status, out, _ = run(capsys, "-m", "bleu", "chrf", "ter")
    assert status == 0
    bleu = sacrebleu.sentence_bleu(HYP, REFS)
    chrf = sacrebleu.sentence_chrf(HYP, REFS)
    ter = sacrebleu.sentence_ter(HYP, REFS)
    assert out.startswith(f"Hypothesis:  {HYP}\nReference 1: {REFS[0]}\nReference 2: {REFS[1]}\n\n"
                          "== BLEU ==")
    assert out.count("Hypothesis:") == 1
    parts = out.split("\n== ")
    assert [part.split(" ", 1)[0] for part in parts[1:]] == ["BLEU", "chrF2", "TER"]
    assert f"(sacreBLEU scale: {bleu.score:.2f})" in parts[1]
    assert parts[2].rstrip().endswith(f"= {chrf.score:.2f}")
    assert parts[3].rstrip().endswith(f"= {ter.score:.2f}")
    assert "eff:yes|tok:13a|smooth:exp" in parts[1]  # sentence BLEU's settings, named
    assert "nrefs:2|case:mixed|eff:yes|nc:6|nw:0|space:no" in parts[2]
    assert "nrefs:2|case:lc|tok:tercom|norm:no|punct:yes|asian:no" in parts[3]
    assert "moved from position" in parts[3]  # the reordering is a shift


def test_the_scoring_commands_flags(capsys):
    status, out, _ = run(capsys, "-m", "chrf", "ter", "-cw", "2", "-cb", "1", "--chrf-lowercase",
                         "--ter-case-sensitive", "--ter-no-punct", "--ter-normalized", "-f", "json")
    assert status == 0
    chrf, ter = json.loads(out)
    expected_chrf = SacreCHRF(word_order=2, beta=1, lowercase=True).sentence_score(HYP, REFS)
    assert (chrf["metric"], chrf["name"], chrf["score"]) == ("chrf", "chrF1++", expected_chrf.score)
    theirs = SacreTER(case_sensitive=True, no_punct=True, normalized=True)
    expected_ter = theirs.sentence_score(HYP, REFS)
    assert (ter["metric"], ter["score"], ter["num_edits"]) == \
        ("ter", expected_ter.score, expected_ter.num_edits)
    assert "case:mixed|tok:tercom|norm:yes|punct:no" in ter["signature"]


def test_one_metric_is_one_json_object_as_before(capsys):
    status, out, _ = run(capsys, "-f", "json")
    data = json.loads(out)
    assert status == 0 and data["metric"] == "bleu"
    assert data["score"] == sacrebleu.sentence_bleu(HYP, REFS).score
    status, out, _ = run(capsys, "-m", "ter")
    assert out.startswith(f"Hypothesis:  {HYP}\n") and "== TER" not in out


def test_bad_settings_name_the_flag(capsys):
    status, _, err = run(capsys, "-m", "chrf", "-cc", "0", "-cw", "0")
    assert status == 1
    assert err == ("truebleu explain: error: --chrf-char-order + --chrf-word-order must be "
                   "at least 1\n")
    status, _, err = run(capsys, "-m", "bleu", "chrf", "-cb", "-1")
    assert status == 1 and "--chrf-beta" in err
    with pytest.raises(SystemExit):
        run(capsys, "-m", "rouge")


def test_the_command_and_its_help():
    done = subprocess.run([sys.executable, "-m", "truebleu", "explain", "--hyp", "a b c", "--ref",
                           "c a b", "-m", "ter", "chrf"], capture_output=True, text=True, check=True)
    assert "== TER" in done.stdout and "== chrF2" in done.stdout
    assert done.stdout.index("== TER") < done.stdout.index("== chrF2")  # in the order asked
    help_text = subprocess.run([sys.executable, "-m", "truebleu", "explain", "--help"],
                               capture_output=True, text=True, check=True).stdout
    for flag in ("--metrics", "--chrf-word-order", "--ter-normalized", "--smooth-method"):
        assert flag in help_text
