"""``-m chrf`` (with BLEU, and TER once it exists) against the ``sacrebleu`` command, byte for byte."""

from __future__ import annotations

import pytest
from test_cli import files, ours_expected, run  # noqa: F401 (files is a fixture)

from conftest import needs_wmt21, wmt21_dir

pytest.importorskip("sacrebleu")

# (flags, reference files): the usual cases with two references, some with one
CHRF_FLAGS = [
    (["-m", "chrf"], 1), (["-m", "chrf"], 2), (["-m", "chrf", "-f", "text"], 2),
    (["-m", "chrf", "-b"], 1), (["-m", "chrf", "-cw", "2", "-f", "text", "-w", "4"], 2),
    (["-m", "chrf", "-sl"], 2), (["-m", "chrf", "-sl", "-cw", "2", "-b"], 1),
    (["-m", "chrf", "-sh", "-f", "text"], 2),
    (["-m", "chrf", "--chrf-lowercase", "--chrf-whitespace", "--chrf-eps-smoothing",
      "--chrf-beta", "3", "-cc", "4", "-cw", "1"], 2),
    (["-m", "chrf", "bleu"], 2), (["-m", "bleu", "chrf", "-f", "text"], 1),
    (["-m", "chrf", "bleu", "-f", "latex"], 2), (["-m", "chrf", "chrf", "-b"], 2),
    (["-m", "chrf", "-ci", "-cin", "200"], 2),
    (["-m", "bleu", "chrf", "-ci", "-cin", "200", "-f", "text"], 1),
]


@pytest.mark.parametrize("flags,n_refs", CHRF_FLAGS, ids=lambda v: v if isinstance(v, int) else " ".join(v))
def test_single_system(files, flags, n_refs):  # noqa: F811
    refs = ["ref_1", "ref_2"][:n_refs]
    args = [*(files[r] for r in refs), "-i", files["hyp_a"], *flags]
    theirs, ours = run("sacrebleu", args), run("truebleu", args)
    assert theirs.returncode == 0, theirs.stderr
    assert ours.returncode == 0, ours.stderr
    assert ours.stdout == ours_expected(theirs.stdout)


@pytest.mark.parametrize("flags", [
    ["-m", "chrf", "bleu"], ["-m", "chrf", "bleu", "-f", "text"], ["-m", "chrf", "-f", "latex"],
    ["-m", "chrf", "bleu", "-pbs", "-pbsn", "200", "-f", "text"],
    ["-m", "bleu", "chrf", "-pbs", "-pbsn", "200", "-f", "text"],
    ["-m", "chrf", "bleu", "-cw", "2", "-par", "-parn", "300", "-f", "text", "-w", "3"],
    ["-m", "chrf", "-par", "-parn", "300", "-f", "latex"],
], ids=" ".join)
def test_several_systems(files, flags):  # noqa: F811
    args = [files["ref_1"], files["ref_2"], "-i", files["hyp_a"], files["hyp_b"], *flags]
    theirs, ours = run("sacrebleu", args), run("truebleu", args)
    assert theirs.returncode == 0, theirs.stderr
    assert ours.returncode == 0, ours.stderr
    assert ours.stdout == ours_expected(theirs.stdout)


def test_paired_bootstrap_json_where_sacrebleu_crashes(files):  # noqa: F811
    # sacreBLEU 2.6.0 fails on `-m chrf -pbs -f json` (its float32 means are not JSON
    # serializable); truebleu writes them, with the numbers of the text table
    import json

    args = [files["ref_1"], "-i", files["hyp_a"], files["hyp_b"], "-m", "bleu", "chrf",
            "-pbs", "-pbsn", "200"]
    assert run("sacrebleu", args).returncode != 0  # remove this line once sacreBLEU is fixed
    ours = run("truebleu", args)
    assert ours.returncode == 0, ours.stderr
    records = json.loads(ours.stdout)
    text = run("truebleu", [*args, "-f", "text", "-w", "4"]).stdout
    for record in records:
        chrf = record["chrF2"]
        assert set(chrf) == {"score", "p_value", "mean", "ci"}
        assert f"{chrf['mean']:.4f} ± {chrf['ci']:.4f}" in text


def test_sentence_level_takes_one_metric(files):  # noqa: F811
    result = run("truebleu", [files["ref_1"], "-i", files["hyp_a"], "-m", "bleu", "chrf", "-sl"])
    assert result.returncode == 1 and "Only one metric" in result.stderr


def test_unknown_metric_is_a_usage_error(files):  # noqa: F811
    result = run("truebleu", [files["ref_1"], "-i", files["hyp_a"], "-m", "meteor"])
    assert result.returncode == 2 and "invalid choice" in result.stderr


@needs_wmt21
@pytest.mark.parametrize("flags", [
    ["-m", "bleu", "chrf", "-f", "text"],
    ["-m", "chrf", "bleu", "-pbs", "-pbsn", "100", "-f", "text"],
    ["-m", "chrf", "-cw", "2", "-par", "-parn", "200"],
], ids=" ".join)
def test_wmt21_systems(flags):
    data = wmt21_dir()
    ref = data / "references" / "newstest2021.de-en.ref.A.en"
    systems = sorted((data / "system-outputs").glob("newstest2021.de-en.hyp.*"))[:3]
    args = [str(ref), "-i", *map(str, systems), *flags]
    theirs, ours = run("sacrebleu", args), run("truebleu", args)
    assert theirs.returncode == 0, theirs.stderr
    assert ours.returncode == 0, ours.stderr
    assert ours.stdout == ours_expected(theirs.stdout)


TER_FLAGS = [
    ["-m", "ter"], ["-m", "ter", "-f", "text", "--ter-case-sensitive"],
    ["-m", "bleu", "chrf", "ter"], ["-m", "ter", "chrf", "bleu", "-f", "text"],
    ["-m", "ter", "--ter-normalized", "--ter-no-punct", "--ter-asian-support", "-sl"],
    ["-m", "ter", "chrf", "-ci", "-cin", "100", "-f", "text"],
]


@pytest.mark.parametrize("flags", TER_FLAGS, ids=" ".join)
def test_ter_single_system(files, flags):  # noqa: F811
    pytest.importorskip("truebleu.metrics.ter")
    args = [files["ref_1"], files["ref_2"], "-i", files["hyp_a"], *flags]
    theirs, ours = run("sacrebleu", args), run("truebleu", args)
    assert ours.returncode == 0, ours.stderr
    assert ours.stdout == ours_expected(theirs.stdout)


@pytest.mark.parametrize("flags", [
    ["-m", "bleu", "chrf", "ter", "-f", "text"],
    ["-m", "ter", "chrf", "-pbs", "-pbsn", "100", "-f", "text"],
    ["-m", "ter", "-par", "-parn", "200"],
], ids=" ".join)
def test_ter_several_systems(files, flags):  # noqa: F811
    pytest.importorskip("truebleu.metrics.ter")
    args = [files["ref_1"], "-i", files["hyp_a"], files["hyp_b"], *flags]
    theirs, ours = run("sacrebleu", args), run("truebleu", args)
    assert ours.returncode == 0, ours.stderr
    assert ours.stdout == ours_expected(theirs.stdout)
