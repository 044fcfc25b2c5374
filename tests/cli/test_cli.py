"""The ``truebleu`` command against the ``sacrebleu`` command: same flags, same output."""

from __future__ import annotations

import bz2
import gzip
import lzma
import os
import subprocess
import sys
from pathlib import Path

import pytest

import truebleu

sacrebleu = pytest.importorskip("sacrebleu")

ENV = {**os.environ, "NO_COLOR": "1", "PYTHONIOENCODING": "utf-8"}
ENV.pop("SACREBLEU_FORMAT", None)
ENV.pop("TRUEBLEU_FORMAT", None)

HYP_A = ["The cat sat on the mat.", "It costs 3.5 dollars, or 1,000 cents!", "",
         "\"Quoted\" text &amp; more", "Der Hund bellt laut.", "short"]
HYP_B = ["A cat is on the mat.", "It costs 3 dollars.", "nothing", "Quoted text and more",
         "Der Hund bellte.", "a much longer hypothesis than the reference"]
REF_1 = ["The cat is sitting on the mat.", "It costs 3.5 dollars, or 1,000 cents.", "",
         "\"Quoted\" text & more", "Der Hund bellt.", "short one"]
REF_2 = ["A cat sat on the mat.", "The price is 3.5 dollars!", "empty",
         "Quoted text &amp; more", "Der Hund bellt sehr laut.", "short"]


def run(tool: str, args, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", tool, *args], input=stdin, capture_output=True,
                          text=True, encoding="utf-8", env=ENV, timeout=120)


def ours_expected(text: str) -> str:
    """sacreBLEU's output with truebleu's version in the signatures."""
    v = sacrebleu.__version__
    ours = f"truebleu-{truebleu.__version__}"
    return (text.replace(f"version:{v}", f"version:{ours}").replace(f"v:{v}", f"v:{ours}")
            .replace(f'"version": "{v}"', f'"version": "{ours}"'))


@pytest.fixture
def files(tmp_path: Path) -> dict:
    def write(name, lines, newline="\n"):
        path = tmp_path / name
        path.write_text("".join(line + newline for line in lines), encoding="utf-8")
        return str(path)

    return {
        "hyp_a": write("hyp_a.txt", HYP_A),
        "hyp_b": write("hyp_b.txt", HYP_B),
        "ref_1": write("ref_1.txt", REF_1),
        "ref_2": write("ref_2.txt", REF_2),
        "ref_tab": write("ref_tab.txt", [f"{a}\t{b}" for a, b in zip(REF_1, REF_2)]),
        "hyp_crlf": write("hyp_crlf.txt", HYP_A, newline="\r\n"),
        "ref_crlf": write("ref_crlf.txt", REF_1, newline="\r\n"),
        "hyp_gz": _compressed(tmp_path / "hyp_a.txt.gz", gzip.open, HYP_A),
    }


def _compressed(path: Path, opener, lines) -> str:
    with opener(path, "wt", encoding="utf-8") as handle:
        handle.write("".join(line + "\n" for line in lines))
    return str(path)


SINGLE_FLAGS = [
    [], ["-f", "text"], ["-b"], ["-b", "-f", "text"], ["-w", "3"], ["-sh", "-f", "text"],
    ["-lc"], ["-tok", "intl"], ["-tok", "zh"], ["-tok", "char"], ["-tok", "none"],
    ["-s", "floor"], ["-s", "floor", "-sv", "0.2"], ["-s", "add-k"], ["-s", "add-k", "-sv", "2"],
    ["-s", "none"], ["-sl"], ["-sl", "-b"], ["-sl", "-sh", "-w", "4"], ["-m", "bleu"],
    ["-l", "en-zh"], ["-l", "de-en", "-tok", "intl"], ["--force"], ["-f", "latex"],
]


@pytest.mark.parametrize("flags", SINGLE_FLAGS, ids=lambda f: " ".join(f) or "default")
def test_single_system(files, flags):
    args = [files["ref_1"], files["ref_2"], "-i", files["hyp_a"], *flags]
    theirs, ours = run("sacrebleu", args), run("truebleu", args)
    assert theirs.returncode == 0, theirs.stderr
    assert ours.returncode == 0, ours.stderr
    assert ours.stdout == ours_expected(theirs.stdout)


@pytest.mark.parametrize("flags", [[], ["-f", "text"], ["-f", "latex"], ["-b"], ["-w", "2", "-sh"]],
                         ids=lambda f: " ".join(f) or "default")
def test_multiple_systems(files, flags):
    args = [files["ref_1"], "-i", files["hyp_a"], files["hyp_b"], *flags]
    theirs, ours = run("sacrebleu", args), run("truebleu", args)
    assert theirs.returncode == 0, theirs.stderr
    assert ours.stdout == ours_expected(theirs.stdout)


@pytest.mark.parametrize("flags", [[], ["-f", "text"], ["-sl"]], ids=lambda f: " ".join(f) or "default")
def test_stdin(files, flags):
    stdin = "".join(line + "\n" for line in HYP_A)
    args = [files["ref_1"], *flags]
    theirs, ours = run("sacrebleu", args, stdin), run("truebleu", args, stdin)
    assert ours.stdout == ours_expected(theirs.stdout)


def test_stdin_tab_separated_systems(files):
    stdin = "".join(f"{a}\t{b}\n" for a, b in zip(HYP_A, HYP_B))
    args = [files["ref_1"], "-f", "text"]
    theirs, ours = run("sacrebleu", args, stdin), run("truebleu", args, stdin)
    assert ours.stdout == ours_expected(theirs.stdout)


def test_stdin_carriage_returns_split_lines_like_sacrebleu(files):
    # stdin is read with universal newlines, files are not: sacreBLEU's behaviour
    stdin = "".join(line + "\r\n" for line in HYP_A)
    theirs, ours = run("sacrebleu", [files["ref_1"]], stdin), run("truebleu", [files["ref_1"]], stdin)
    assert ours.stdout == ours_expected(theirs.stdout)


@pytest.mark.parametrize("flags", [["-nr", "2"], ["-nr", "2", "-sl"]], ids=" ".join)
def test_tab_separated_references(files, flags):
    args = [files["ref_tab"], "-i", files["hyp_a"], *flags]
    theirs, ours = run("sacrebleu", args), run("truebleu", args)
    assert theirs.returncode == 0, theirs.stderr
    assert ours.stdout == ours_expected(theirs.stdout)


def test_crlf_files(files):
    args = [files["ref_crlf"], "-i", files["hyp_crlf"]]
    theirs, ours = run("sacrebleu", args), run("truebleu", args)
    assert ours.stdout == ours_expected(theirs.stdout)


def test_gzip_input(files):
    args = [files["ref_1"], "-i", files["hyp_gz"]]
    theirs, ours = run("sacrebleu", args), run("truebleu", args)
    assert ours.stdout == ours_expected(theirs.stdout)


@pytest.mark.parametrize("suffix,opener", [(".bz2", bz2.open), (".xz", lzma.open)])
def test_bz2_and_xz_inputs(files, tmp_path, suffix, opener):
    compressed = _compressed(tmp_path / f"hyp{suffix}", opener, HYP_A)
    plain = run("truebleu", [files["ref_1"], "-i", files["hyp_a"]])
    packed = run("truebleu", [files["ref_1"], "-i", compressed])
    assert packed.returncode == 0, packed.stderr
    assert packed.stdout == plain.stdout


def test_length_mismatch_names_both_files(files, tmp_path):
    short = tmp_path / "short.txt"
    short.write_text("one line\n", encoding="utf-8")
    result = run("truebleu", [files["ref_1"], "-i", str(short)])
    assert result.returncode == 1
    assert f"{short} has 1 lines but {files['ref_1']} has 6 lines" in result.stderr


def test_invalid_utf8_names_file_and_line(files, tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"fine\nalso fine\nbroken \xff here\n" + b"x\n" * 3)
    result = run("truebleu", [files["ref_1"], "-i", str(bad)])
    assert result.returncode == 1
    assert f"{bad}, line 3: invalid utf-8" in result.stderr


def test_missing_file(files):
    result = run("truebleu", [files["ref_1"], "-i", "/nonexistent/hyp.txt"])
    assert result.returncode == 1 and "/nonexistent/hyp.txt: no such file" in result.stderr


def test_input_files_are_not_modified(files):
    before = {k: Path(v).read_bytes() for k, v in files.items()}
    run("truebleu", [files["ref_1"], files["ref_2"], "-i", files["hyp_a"], files["hyp_b"]])
    assert {k: Path(v).read_bytes() for k, v in files.items()} == before


def test_sample_runs_anywhere():
    result = run("truebleu", ["--sample", "-b"])
    assert result.returncode == 0 and float(result.stdout) > 0


def test_version_names_backend():
    result = run("truebleu", ["--version"])
    assert result.stdout.startswith(f"truebleu {truebleu.__version__} (backend: ")


@pytest.mark.parametrize("flags", [
    ["-ci", "-cin", "200"], ["-ci", "-cin", "200", "-f", "text"],
    ["-pbs", "-pbsn", "200"], ["-pbs", "-pbsn", "200", "-f", "text"],
    ["-par", "-parn", "300"], ["-par", "-parn", "300", "-f", "text", "-w", "3"],
], ids=" ".join)
def test_significance_flags(files, flags):
    pytest.importorskip("numpy")
    hyps = [files["hyp_a"]] if "-ci" in flags else [files["hyp_a"], files["hyp_b"]]
    args = [files["ref_1"], files["ref_2"], "-i", *hyps, *flags]
    theirs, ours = run("sacrebleu", args), run("truebleu", args)
    assert theirs.returncode == 0, theirs.stderr
    assert ours.returncode == 0, ours.stderr
    assert ours.stdout == ours_expected(theirs.stdout)


def test_seed_flag_is_the_environment_variable_of_sacrebleu(files):
    pytest.importorskip("numpy")
    args = [files["ref_1"], "-i", files["hyp_a"], files["hyp_b"], "-pbs", "-pbsn", "100"]
    theirs = subprocess.run([sys.executable, "-m", "sacrebleu", *args], capture_output=True,
                            text=True, env={**ENV, "SACREBLEU_SEED": "7"})
    ours = run("truebleu", [*args, "--seed", "7"])
    assert ours.stdout == ours_expected(theirs.stdout)


@pytest.mark.parametrize("flags,message", [
    (["-pbs"], "multiple input systems"), (["-pbs", "-pbsn", "0"], "must be >= 1"),
    (["-ci", "-cin", "0"], "must be >= 1")], ids=str)
def test_significance_usage_errors(files, flags, message):
    result = run("truebleu", [files["ref_1"], "-i", files["hyp_a"], *flags])
    assert result.returncode == 1 and message in result.stderr


def test_systems_table_of_several_metrics_with_tokenized_output(tmp_path):
    """The table takes BLEU's statistics of every system in one call: the scores, and the
    tokenized-output warnings (of the two systems whose lines end in " ."), are sacreBLEU's."""
    lines = [f"{h} ." for h in HYP_A + HYP_B] * 10
    paths = []
    for name, hyps in (("ref", [f"{r} ." for r in REF_1 + REF_2] * 10),
                       ("a", [h.rstrip(".") for h in lines]), ("b", lines),
                       ("c", list(reversed(lines)))):
        path = tmp_path / f"{name}.txt"
        path.write_text("".join(line + "\n" for line in hyps), encoding="utf-8")
        paths.append(str(path))
    args = [paths[0], "-i", *paths[1:], "-m", "bleu", "chrf", "ter"]
    theirs, ours = run("sacrebleu", args), run("truebleu", args)
    assert theirs.returncode == 0 == ours.returncode, ours.stderr
    assert ours.stdout == ours_expected(theirs.stdout)
    warned = [line for line in ours.stderr.splitlines() if "tokenized period" in line]
    assert len(warned) == 2 == theirs.stderr.count("tokenized period")
