"""truebleu's own significance API: sanity, error rates, bad input, reports, CLI."""

from __future__ import annotations

import json
import math
import sys

import pytest

np = pytest.importorskip("numpy")

from _significance_data import REFERENCE, needs_wmt21, system_path  # noqa: E402
from truebleu import BLEU  # noqa: E402
from truebleu.cli import compare as cli  # noqa: E402
from truebleu.io import read_lines  # noqa: E402
from truebleu.metrics.bleu import BLEUBatchScorer  # noqa: E402
from truebleu.reports.paired import paired_test_report  # noqa: E402
from truebleu.significance import (  # noqa: E402
    RowScorer,
    bootstrap_ci,
    compare_all,
    compare_sentences,
    formats,  # noqa: E402
    holm,
    paired_bootstrap,
    paired_cells,
    paired_randomization,
)
from truebleu.significance.multi import clusters_from  # noqa: E402
from truebleu.significance.sentence import sign_test  # noqa: E402

NAMES = ["Facebook-AI", "WeChat-AI", "UEdin", "HuaweiTSC", "Online-B", "ICL"]


@pytest.fixture(scope="module")
def metric():
    if not REFERENCE.is_file():
        pytest.skip("WMT21 data absent")
    return BLEU(references=[read_lines(REFERENCE)])


@pytest.fixture(scope="module")
def stats(metric):
    return {name: metric.corpus_statistics(read_lines(system_path(name))).to_numpy()
            for name in NAMES}


@pytest.fixture(scope="module")
def scorer(metric):
    return BLEUBatchScorer.from_metric(metric)


# -- statistical sanity --------------------------------------------------------

@needs_wmt21
@pytest.mark.parametrize("test", [paired_bootstrap, paired_randomization])
def test_system_against_itself_is_never_significant(stats, scorer, test):
    for name in NAMES[:3]:
        result = test(stats[name], stats[name].copy(), scorer, 300, seed=1)
        assert result.p_value == 1.0 and not result.significant()


@needs_wmt21
@pytest.mark.parametrize("test", [paired_bootstrap, paired_randomization])
def test_clearly_better_system_is_significant(stats, scorer, test):
    result = test(stats["ICL"], stats["Facebook-AI"], scorer, 500, seed=1)
    assert result.delta > 5 and result.p_value == 1 / 501


def binomial_bounds(n: int, p: float, coverage: float = 0.999) -> tuple[int, int]:
    """Smallest interval [lo, hi] holding a Binomial(n, p) count with >= ``coverage``."""
    pmf = [math.comb(n, k) * p ** k * (1 - p) ** (n - k) for k in range(n + 1)]
    tail = (1 - coverage) / 2
    lo = next(k for k in range(n + 1) if sum(pmf[:k + 1]) > tail)
    hi = next(k for k in range(n, -1, -1) if sum(pmf[k:]) > tail)
    return lo, hi


@needs_wmt21
def test_type_one_error_rate_of_randomization_is_nominal(stats, scorer):
    """Under H0 (outputs of two systems swapped per segment at random, so the
    two pseudo-systems are exchangeable) the AR test rejects at rate alpha:
    with 199 trials and alpha = 0.05 exactly 10/200 = 0.05. The count of
    rejections over R splits must lie in the 99.9% binomial interval."""
    rng = np.random.default_rng(20240601)
    x, y = stats["UEdin"], stats["HuaweiTSC"]
    splits, alpha, rejected = 300, 0.05, 0
    for _ in range(splits):
        coin = rng.integers(2, size=x.shape[0]).astype(bool)[:, None]
        a, b = np.where(coin, x, y), np.where(coin, y, x)
        rejected += paired_randomization(a, b, scorer, 199, seed=rng).p_value <= alpha
    lo, hi = binomial_bounds(splits, alpha)
    assert lo <= rejected <= hi, (rejected, lo, hi)


@needs_wmt21
def test_type_one_error_rate_of_bootstrap_is_near_nominal(stats, scorer):
    """The (centred) paired bootstrap is approximate: its rejection count under
    the same null must lie in the 99.9% binomial interval around alpha."""
    rng = np.random.default_rng(7)
    x, y = stats["UEdin"], stats["HuaweiTSC"]
    splits, alpha, rejected = 300, 0.05, 0
    for _ in range(splits):
        coin = rng.integers(2, size=x.shape[0]).astype(bool)[:, None]
        a, b = np.where(coin, x, y), np.where(coin, y, x)
        rejected += paired_bootstrap(a, b, scorer, 199, seed=rng).p_value <= alpha
    lo, hi = binomial_bounds(splits, alpha)
    assert lo <= rejected <= hi, (rejected, lo, hi)


# -- agreement with the sacreBLEU-compatible path ---------------------------------

@needs_wmt21
@pytest.mark.parametrize("test,n", [("bs", 400), ("ar", 600)])
def test_all_pairs_agree_with_baseline_tests(metric, stats, scorer, test, n):
    """compare_all's pairs with the first system are sacreBLEU's -pbs/-par numbers."""
    named = [(name, read_lines(system_path(name))) for name in NAMES[:4]]
    _, cells = paired_cells(named, metric, test, n, seed=3)
    result = compare_all([(name, stats[name]) for name in NAMES[:4]], scorer, test, n, seed=3,
                         statistic="sacrebleu")
    for cell, name in zip(cells[1:], NAMES[1:4]):
        assert result.p_value(NAMES[0], name, adjusted=False) == cell.p_value
    if test == "bs":
        by_name = {s.name: s for s in result.systems}
        assert [(by_name[n].mean, by_name[n].ci) for n in NAMES[:4]] == \
            [(c.mean, c.ci) for c in cells]


@needs_wmt21
def test_fast_randomization_counts_equal_exact_counts(stats, scorer):
    """AR scores trials with NumPy's log/exp and rescores near-ties exactly:
    its p-values must equal those of scoring every trial with math.log/exp."""
    from truebleu.significance.paired import randomization_p_values
    from truebleu.significance.resampling import swap_masks

    for seed in (1, 2):
        masks = swap_masks(np.random.default_rng(seed), stats["UEdin"].shape[0], 2000)
        others = [stats[n] for n in NAMES[1:]]
        first = stats[NAMES[0]]
        s0 = scorer.score_rows(first.sum(0)[None])[0]
        observed = [abs(s0 - scorer.score_rows(m.sum(0)[None])[0]) for m in others]
        for strict in (True, False):
            fast = randomization_p_values(masks, first, others, scorer, observed, strict=strict)
            exact = randomization_p_values(masks, first, others, scorer, observed,
                                           strict=strict, exact=True)
            assert fast == exact


@needs_wmt21
def test_explicit_generator_and_inputs_untouched(stats, scorer):
    before = {k: v.copy() for k, v in stats.items()}
    first = paired_bootstrap(stats["UEdin"], stats["HuaweiTSC"], scorer, 100,
                             seed=np.random.default_rng(5))
    second = paired_bootstrap(stats["UEdin"], stats["HuaweiTSC"], scorer, 100, seed=5)
    assert first == second
    assert all(np.array_equal(before[k], stats[k]) for k in stats)


@needs_wmt21
def test_any_metric_plugs_in_through_a_row_scorer(stats):
    """A dialect only needs statistics and a "summed row -> score" function:
    wrapped in RowScorer it gives the same results as the vectorised scorer."""
    from truebleu.metrics.bleu.score import score_from_row

    scalar = RowScorer(lambda hyps: None, lambda row: score_from_row(row, 4).score)
    for test in (paired_bootstrap, paired_randomization):
        assert test(stats["UEdin"], stats["Online-B"], scalar, 100, seed=2) == \
            test(stats["UEdin"], stats["Online-B"], BLEUBatchScorer(), 100, seed=2)
    unigram = RowScorer(lambda hyps: None, lambda row: 100.0 * row[2] / max(row[6], 1), "P1")
    result = paired_randomization(stats["UEdin"], stats["ICL"], unigram, 100, seed=2)
    assert 0 < result.score_b < result.score_a < 100


@needs_wmt21
def test_bootstrap_statistics(stats, scorer, metric):
    """statistic="sacrebleu" is sacreBLEU's -pbs p-value; an unknown one is an error."""
    named = [(name, read_lines(system_path(name))) for name in ("UEdin", "HuaweiTSC")]
    _, cells = paired_cells(named, metric, "bs", 300, seed=9)
    ours = paired_bootstrap(stats["UEdin"], stats["HuaweiTSC"], scorer, 300, seed=9,
                            statistic="sacrebleu")
    assert (ours.p_value, ours.mean_b, ours.ci_b) == (cells[1].p_value, cells[1].mean, cells[1].ci)
    centered = paired_bootstrap(stats["UEdin"], stats["HuaweiTSC"], scorer, 300, seed=9)
    assert centered.p_value != ours.p_value and 0 < centered.p_value <= 1
    with pytest.raises(ValueError, match="statistic"):
        paired_bootstrap(stats["UEdin"], stats["HuaweiTSC"], scorer, 10, statistic="abs")


@needs_wmt21
def test_os_entropy_seed(metric, monkeypatch):
    monkeypatch.setenv("SACREBLEU_SEED", "None")
    named = [(name, read_lines(system_path(name))) for name in ("UEdin", "HuaweiTSC", "ICL")]
    for test in ("bs", "ar"):
        seed_text, cells = paired_cells(named, metric, test, 50)
        assert seed_text == "none" and all(0 < c.p_value <= 1 for c in cells[1:])
    assert "seed:none" in paired_test_report(named, metric, "bs", 20, "text", 1, False)


# -- multi-system ---------------------------------------------------------------

def test_holm_matches_the_definition():
    p = [0.01, 0.04, 0.03, 0.005]
    assert holm(p) == pytest.approx([0.03, 0.06, 0.06, 0.02])
    assert holm([0.5, 0.9]) == [1.0, 1.0] and holm([0.01, 0.9]) == [0.02, 0.9]
    assert holm([]) == []


def test_clusters_never_hold_a_significant_pair():
    significant = {("a", "c"), ("b", "d"), ("a", "d")}

    def different(x, y):
        return (x, y) in significant or (y, x) in significant

    clusters = clusters_from(["a", "b", "c", "d"], different)
    assert clusters == [["a", "b"], ["c", "d"]] or clusters == [["a", "b"], ["c"], ["d"]]
    for cluster in clusters:
        assert not any(different(x, y) for x in cluster for y in cluster)


@needs_wmt21
@pytest.mark.parametrize("test", ["bs", "ar"])
def test_compare_all_clusters_are_consistent(stats, scorer, test):
    result = compare_all(stats, scorer, test, 300 if test == "bs" else 400, seed=4,
                         holm_correction=True, alpha=0.05)
    scores = [s.score for s in result.systems]
    assert scores == sorted(scores, reverse=True)
    for cluster in result.clusters:
        for i, x in enumerate(cluster.members):
            for y in cluster.members[i + 1:]:
                assert result.p_value(x, y) >= 0.05
    assert result.systems[-1].name == "ICL" and result.systems[-1].cluster > 1
    assert len(result.pairs) == len(NAMES) * (len(NAMES) - 1) // 2


@needs_wmt21
def test_reports_in_every_format(stats, scorer):
    result = compare_all(stats, scorer, "bs", 200, seed=1)
    text = formats.render(result, "text")
    assert "Rank" in text and "ICL" in text
    record = json.loads(formats.render(result, "json"))
    assert record["test"] == "bs" and len(record["systems"]) == len(NAMES)
    latex = formats.render(result, "latex", width=1)
    assert latex.count(r"\midrule") == len(result.clusters) and r"\toprule" in latex
    tsv = formats.render(result, "tsv").split("\n")
    assert tsv[0].split("\t")[:3] == ["rank", "cluster", "system"]
    assert len(tsv[1].split("\t")) == 6
    with pytest.raises(ValueError, match="unknown format"):
        formats.render(result, "html")


def test_latex_escapes_system_names():
    assert formats.latex_escape("a_b & 50%") == r"a\_b \& 50\%"


# -- segment level --------------------------------------------------------------

def test_sign_test_exact_values():
    assert sign_test(0, 0) == 1.0
    assert sign_test(5, 5) == 1.0
    assert sign_test(9, 1) == pytest.approx(2 * 11 / 1024)


@needs_wmt21
def test_sentence_comparison(stats, metric):
    sentence = BLEUBatchScorer.from_metric(metric, effective_order=True)
    result = compare_sentences(stats["ICL"], stats["Facebook-AI"], sentence, 200, seed=1)
    assert result.wins_b + result.wins_a + result.ties == result.n_segments
    assert result.share_b > 0.5 and result.sign_test_p < 1e-6
    assert result.delta_low <= result.mean_delta <= result.delta_high
    same = compare_sentences(stats["ICL"], stats["ICL"], sentence, 50, seed=1)
    assert same.ties == same.n_segments and same.sign_test_p == 1.0


# -- bad input ------------------------------------------------------------------

@needs_wmt21
def test_systems_of_different_lengths(stats, scorer, metric):
    with pytest.raises(ValueError, match="differ in length"):
        paired_bootstrap(stats["UEdin"], stats["ICL"][:-1], scorer, 10)
    with pytest.raises(ValueError, match="differ in length"):
        compare_all({"a": stats["UEdin"], "b": stats["ICL"][:10]}, scorer)
    hyps = read_lines(system_path("UEdin"))
    with pytest.raises(ValueError):
        paired_cells([("Baseline: a", hyps), ("b", hyps[:-1])], metric, "bs", 10)


@needs_wmt21
def test_one_system_and_zero_samples(stats, scorer, metric):
    hyps = read_lines(system_path("UEdin"))
    with pytest.raises(ValueError, match="at least one other system"):
        paired_test_report([("Baseline: a", hyps)], metric, "bs", 1000)
    with pytest.raises(ValueError, match="positive number of samples"):
        paired_test_report([("Baseline: a", hyps), ("b", hyps)], metric, "bs", 0)
    with pytest.raises(ValueError, match="positive number of samples"):
        paired_randomization(stats["UEdin"], stats["ICL"], scorer, 0)
    with pytest.raises(ValueError, match="positive number of samples"):
        bootstrap_ci(stats["UEdin"], scorer, -5)
    with pytest.raises(ValueError, match="at least two"):
        compare_all({"a": stats["UEdin"]}, scorer)
    with pytest.raises(ValueError, match="'bs' or 'ar'"):
        paired_cells([("a", hyps), ("b", hyps)], metric, "xx", 10)
    with pytest.raises(ValueError, match="seed"):
        paired_cells([("a", hyps), ("b", hyps)], metric, "bs", 10, seed="abc")


def test_missing_numpy_names_the_extra(monkeypatch):
    from truebleu.core import lazy_numpy as _np

    monkeypatch.setattr(_np, "_NUMPY", None)
    monkeypatch.setitem(sys.modules, "numpy", None)
    with pytest.raises(ImportError, match=r"truebleu\[stats\]"):
        _np.numpy()


# -- progress and CLI -------------------------------------------------------------

@needs_wmt21
def test_cli_compare(capsys):
    paths = [str(system_path(n)) for n in ("UEdin", "HuaweiTSC", "ICL")]
    assert cli.main([str(REFERENCE), "-i", *paths, "-n", "200", "--holm", "-f", "json"]) == 0
    record = json.loads(capsys.readouterr().out)
    assert [s["name"] for s in record["systems"]] == ["UEdin", "HuaweiTSC", "ICL"]
    assert record["holm"] is True and record["seed"] == 12345
    assert cli.main([str(REFERENCE), "-i", *paths[:2], "--test", "ar", "-n", "100",
                     "--sentence"]) == 0
    assert "Segment-level" in capsys.readouterr().out
    assert cli.main([str(REFERENCE), "-i", paths[0]]) == 1
    assert "at least two systems" in capsys.readouterr().err
    assert cli.main([str(REFERENCE), "-i", *paths, "-n", "0"]) == 2  # a usage error (argparse)
    assert cli.main([str(REFERENCE), "-i", *paths, "--test", "zz"]) == 2


def test_cli_rejects_misaligned_files(tmp_path, capsys):
    ref = tmp_path / "ref.txt"
    ref.write_text("a b c\nd e f\n", encoding="utf-8")
    short = tmp_path / "short.txt"
    short.write_text("a b c\n", encoding="utf-8")
    good = tmp_path / "good.txt"
    good.write_text("a b c\nd e\n", encoding="utf-8")
    assert cli.main([str(ref), "-i", str(good), str(short)]) == 1
    assert "short.txt has 1 lines" in capsys.readouterr().err


@pytest.mark.parametrize("metric_name", ["ter", "bleu", "chrf"])
def test_cli_sentence_comparison_counts_the_better_score_as_a_win(tmp_path, capsys, metric_name):
    """B equals the references: it wins every segment A does not tie, whichever way the
    metric points (TER: lower is better; BLEU, chrF: higher)."""
    words = "the cat sat on a mat while dogs ran fast through green fields at dawn".split()
    refs = [" ".join(words[i:] + words[:i]) for i in range(12)]
    worse = [" ".join(reversed(line.split())) if i % 3 else line for i, line in enumerate(refs)]
    paths = {}
    for name, lines in (("ref", refs), ("A", worse), ("B", refs)):
        paths[name] = tmp_path / name
        paths[name].write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    assert cli.main([str(paths["ref"]), "-i", str(paths["A"]), str(paths["B"]), "-m", metric_name,
                     "-n", "50", "--sentence", "-f", "json"]) == 0
    (record,) = json.loads(capsys.readouterr().out)["sentences"]
    assert (record["name_a"], record["name_b"]) == ("A", "B")
    assert record["wins_b"] == 8 and record["wins_a"] == 0 and record["ties"] == 4
    assert record["share_b"] == pytest.approx(8 / 12)
    assert record["sign_test_p"] < 0.01
    mean_delta_sign = -1 if metric_name == "ter" else 1  # B - A, in the metric's own direction
    assert record["mean_delta"] * mean_delta_sign > 0
