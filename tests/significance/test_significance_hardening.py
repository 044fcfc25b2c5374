"""Issue 11, significance part: ties with sacreBLEU's statistic (22), option checks and
memory bounds before allocating (6), ``compare -l`` (15), and the statements of
docs/significance.md checked against tools/null_rejection.py."""

from __future__ import annotations

import importlib.util
import json

import pytest

np = pytest.importorskip("numpy")
sacrebleu = pytest.importorskip("sacrebleu")

from _significance_data import bleu_stats  # noqa: E402
from conftest import REPO  # noqa: E402
from truebleu import BLEU  # noqa: E402
from truebleu.cli import main as truebleu_main  # noqa: E402
from truebleu.cli.compare import main as compare_main
from truebleu.cli.inputs import system_names  # noqa: E402
from truebleu.core.resources import ResourceLimitError  # noqa: E402
from truebleu.metrics.bleu import BLEUBatchScorer  # noqa: E402
from truebleu.significance import compare_all, paired_bootstrap, paired_cells  # noqa: E402
from truebleu.significance.preconditions import check_test, randomization_cost  # noqa: E402

ROOT = REPO

REFS = ["the cat sat on the mat .", "a dog barked at the moon tonight", "it rained all day long",
        "we walked to the old station", "nobody knew the answer to that", "the end is near ,"
        " they said"] * 5
SYS_A = ["the cat sat on a mat .", "a dog barked at moon tonight", "it rained all the day",
         "we walked to the station", "nobody knew that answer", "the end is near they said"] * 5
SYS_B = ["a cat is on the mat", "the dog barks at the moon", "rain all day long",
         "we went to the old station", "no one knew the answer to that",
         "the end is close , they said"] * 5




@pytest.fixture
def files(tmp_path):
    paths = {}
    for name, lines in (("ref", REFS), ("sysA", SYS_A), ("sysB", SYS_B), ("copyA", SYS_A)):
        paths[name] = tmp_path / f"{name}.txt"
        paths[name].write_text("\n".join(lines) + "\n", encoding="utf-8")
    return {k: str(v) for k, v in paths.items()}


# -- 22: ties count with sacreBLEU's statistic in truebleu's own API ---------------

def test_identical_copy_with_sacrebleu_statistic_is_not_significant():
    a, b = bleu_stats(300, 1, shortest=1), bleu_stats(300, 2, shortest=1)
    scorer = BLEUBatchScorer()
    assert paired_bootstrap(a, a.copy(), scorer, 200, statistic="sacrebleu").p_value == 1.0
    result = compare_all([("A", a), ("A-copy", a.copy()), ("B", b)], scorer, "bs", 200,
                         statistic="sacrebleu")
    assert result.p_value("A", "A-copy") == 1.0
    cluster_of = {s.name: s.cluster for s in result.systems}
    assert cluster_of["A"] == cluster_of["A-copy"]


def test_compare_command_keeps_an_identical_copy_in_its_cluster(files, capsys):
    status = compare_main([files["ref"], "-i", files["sysA"], files["copyA"], files["sysB"],
                           "-n", "200", "-f", "json", "--bootstrap-statistic", "sacrebleu"])
    assert status == 0
    report = json.loads(capsys.readouterr().out)
    pair = next(p for p in report["pairs"] if {p["a"], p["b"]} == {"sysA", "copyA"})
    assert pair["p_value"] == 1.0 and not pair["significant"]
    clusters = {s["name"]: s["cluster"] for s in report["systems"]}
    assert clusters["sysA"] == clusters["copyA"]


def test_sacrebleu_compatible_path_keeps_its_strict_count():
    """-pbs stays bit-identical to sacreBLEU, including p = 1/(n+1) for a copy."""
    from sacrebleu.metrics import BLEU as SacreBLEU
    from sacrebleu.significance import PairedTest

    named = [("Baseline: a", SYS_A), ("copy", SYS_A), ("b", SYS_B)]
    _, cells = paired_cells(named, BLEU(references=[REFS]), "bs", 200, seed=12345)
    _, expected = PairedTest(named, {"BLEU": SacreBLEU(references=[REFS])}, None,
                             test_type="bs", n_samples=200)()
    assert [vars(c) for c in cells] == [vars(c) for c in expected["BLEU"]]
    assert cells[1].p_value == 1 / 201


def test_null_rejection_tool_threshold():
    """The documented cut of sacreBLEU's statistic (1.60 standard errors, ~11%) is what
    the tool computes, and a direct simulation with many resamples agrees."""
    spec = importlib.util.spec_from_file_location("null_rejection", ROOT / "tools" / "null_rejection.py")
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    threshold = tool.sacrebleu_threshold()
    assert round(threshold, 2) == 1.60
    d = threshold + np.random.default_rng(0).standard_normal(400_000)
    assert abs(tool.sacrebleu_p(d, threshold) - 0.05) < 0.002
    assert tool.sacrebleu_limit_p(1.96) < 0.05 < tool.sacrebleu_limit_p(1.5)


# -- 6: clear errors, no traceback, nothing huge allocated --------------------------

def test_compare_negative_width_is_a_usage_error(files, capsys):
    assert compare_main([files["ref"], "-i", files["sysA"], files["sysB"], "-w", "-3"]) == 2
    assert "-w/--width: must be >= 0, got -3" in capsys.readouterr().err


@pytest.mark.parametrize("option,value", [("-n", "0"), ("-n", "-5"), ("-n", "x")])
def test_compare_bad_sample_count_is_a_usage_error(files, capsys, option, value):
    assert compare_main([files["ref"], "-i", files["sysA"], files["sysB"], option, value]) == 2
    assert "-n/--samples" in capsys.readouterr().err


@pytest.mark.parametrize("argv", [
    ["--test", "bs", "-n", str(10**12)],
    ["--test", "ar", "-n", str(10**11)],
])
def test_compare_huge_sample_count_fails_before_allocating(files, capsys, argv):
    assert compare_main([files["ref"], "-i", files["sysA"], files["sysB"], *argv]) == 1
    err = capsys.readouterr().err
    assert err.startswith("truebleu compare: error: -n/--samples ") and "more than the limit" in err
    assert "Traceback" not in err and err.count("\n") == 1


@pytest.mark.parametrize("argv", [
    ["-pbs", "-pbsn", str(10**12)],
    ["-par", "-parn", str(10**11)],
    ["-ci", "-cin", str(10**12)],
])
def test_scoring_command_huge_sample_count_fails_before_allocating(files, capsys, argv):
    systems = [files["sysA"]] if "-ci" in argv else [files["sysA"], files["sysB"]]
    assert truebleu_main([files["ref"], "-i", *systems, *argv]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"truebleu: error: {argv[1]}/") and "more than the limit" in err


def test_memory_check_states_both_amounts(monkeypatch):
    monkeypatch.setenv("TRUEBLEU_MAX_MEMORY", "100M")
    check_test(randomization_cost(10, 1000, 2, 1), "n_trials", 10, "ar", 1000, 2)  # fits
    with pytest.raises(ResourceLimitError, match=r"^n_trials 1,000: approximate randomization over "
                       r"1,000,000 segments and 2 systems would need about 9\.0 GB of memory, "
                       r"more than the limit of 104\.9 MB; use fewer trials"):
        check_test(randomization_cost(1000, 1_000_000, 2, 1), "n_trials", 1000, "ar", 1_000_000, 2)


# -- 15: compare -l picks the target language's tokenizer ---------------------------

ZH_REFS = ["我们今天去公园散步。", "他说这本书很有意思，值得一读。", "天气预报说明天会下雨。"] * 4
ZH_A = ["我们今天去公园散步了。", "他说这本书有意思，值得读。", "天气预报说明天下雨。"] * 4
ZH_B = ["今天我们去公园。", "他说这书很有趣。", "明天会下雨。"] * 4


def test_compare_language_pair_picks_the_tokenizer(tmp_path, capsys):
    paths = []
    for name, lines in (("ref", ZH_REFS), ("a", ZH_A), ("b", ZH_B)):
        path = tmp_path / f"{name}.zh"
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        paths.append(str(path))
    expected = [sacrebleu.BLEU(trg_lang="zh").corpus_score(hyps, [ZH_REFS]).score
                for hyps in (ZH_A, ZH_B)]
    scores = {}
    for extra in ([], ["-l", "en-zh"]):
        assert compare_main([paths[0], "-i", *paths[1:], "-n", "20", "-f", "json", *extra]) == 0
        report = json.loads(capsys.readouterr().out)
        scores[bool(extra)] = [next(s["score"] for s in report["systems"] if s["name"] == n)
                               for n in ("a", "b")]
    assert scores[True] == expected
    assert scores[False] != expected  # 13a keeps each Chinese sentence as one token


def test_system_names_cut_at_separators():
    assert system_names(["x/newstest2021.en-zh.hyp.BUPT_rush.zh",
                         "x/newstest2021.en-zh.hyp.Borderline.zh"]) == ["BUPT_rush", "Borderline"]
    assert system_names(["newstest2021.en-de.hyp.UEdin.de", "y/newstest2021.en-de.hyp.ICL.de"]) == \
        ["UEdin", "ICL"]
