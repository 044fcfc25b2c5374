"""sacreBLEU 2.6.0 as the oracle for -ci, -pbs and -par on WMT21 en-de systems.

Equality is exact: p-values, means and intervals compare with ``==``.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

np = pytest.importorskip("numpy")
sacrebleu = pytest.importorskip("sacrebleu")
from sacrebleu.metrics import BLEU as SacreBLEU  # noqa: E402
from sacrebleu.significance import PairedTest  # noqa: E402

from _significance_data import REFERENCE, needs_wmt21, system_path  # noqa: E402
from truebleu import BLEU  # noqa: E402
from truebleu.io import read_lines  # noqa: E402
from truebleu.metrics.bleu import BLEUBatchScorer  # noqa: E402
from truebleu.reports.color import Color  # noqa: E402
from truebleu.reports.paired import paired_test_report  # noqa: E402
from truebleu.significance import bootstrap_confidence, paired_bootstrap, paired_cells, paired_randomization  # noqa: E402

pytestmark = needs_wmt21

# close and distant scores, so that p-values are not all at their minimum
BASELINE = "Facebook-AI"
OTHERS = ["WeChat-AI", "VolcTrans-GLAT", "UEdin", "NVIDIA-NeMo"]


@pytest.fixture(scope="module")
def refs():
    return [read_lines(REFERENCE)]


@pytest.fixture(scope="module")
def systems():
    names = [BASELINE] + OTHERS
    return [(("Baseline: " if k == 0 else "") + str(system_path(n)), read_lines(system_path(n)))
            for k, n in enumerate(names)]


def oracle_cells(systems, refs, test_type, n_samples, monkeypatch, seed=None):
    if seed is None:
        monkeypatch.delenv("SACREBLEU_SEED", raising=False)
    else:
        monkeypatch.setenv("SACREBLEU_SEED", str(seed))
    test = PairedTest(systems, {"BLEU": SacreBLEU(references=refs)}, None,
                      test_type=test_type, n_samples=n_samples)
    signatures, scores = test()
    return signatures["BLEU"], [vars(r) for r in scores["BLEU"]]


@pytest.mark.parametrize("seed,n_samples", [(None, 1000), (7, 300), (2024, 120)])
def test_paired_bootstrap_identical(systems, refs, monkeypatch, seed, n_samples):
    signature, expected = oracle_cells(systems, refs, "bs", n_samples, monkeypatch, seed)
    monkeypatch.delenv("SACREBLEU_SEED", raising=False)
    seed_text, cells = paired_cells(systems, BLEU(references=refs), "bs", n_samples, seed)
    assert [vars(c) for c in cells] == expected
    assert seed_text == signature.info["seed"]
    assert any(0.05 < c["p_value"] < 1 for c in expected[1:] if c["p_value"])  # a real test


@pytest.mark.parametrize("seed,n_samples", [(None, 1000), (31, 400)])
def test_paired_randomization_identical(systems, refs, monkeypatch, seed, n_samples):
    _, expected = oracle_cells(systems[:4], refs, "ar", n_samples, monkeypatch, seed)
    monkeypatch.delenv("SACREBLEU_SEED", raising=False)
    _, cells = paired_cells(systems[:4], BLEU(references=refs), "ar", n_samples, seed)
    assert [vars(c) for c in cells] == expected


def test_paired_randomization_default_trials(systems, refs, monkeypatch):
    """The default 10000 trials, on three systems (sacreBLEU takes a few seconds)."""
    _, expected = oracle_cells(systems[:3], refs, "ar", 0, monkeypatch)
    _, cells = paired_cells(systems[:3], BLEU(references=refs), "ar")
    assert [vars(c) for c in cells] == expected


def test_seed_from_environment(systems, refs, monkeypatch):
    _, expected = oracle_cells(systems[:3], refs, "bs", 200, monkeypatch, seed=99)
    # SACREBLEU_SEED is still set to 99: truebleu honours it when no seed is given
    assert [vars(c) for c in paired_cells(systems[:3], BLEU(references=refs), "bs", 200)[1]] \
        == expected


def test_non_default_metric_configuration(systems, refs, monkeypatch):
    config = dict(tokenize="intl", lowercase=True, smooth_method="floor", smooth_value=0.2)
    monkeypatch.setenv("SACREBLEU_SEED", "5")
    test = PairedTest(systems[:3], {"BLEU": SacreBLEU(references=refs, **config)}, None,
                      test_type="bs", n_samples=150)
    expected = [vars(r) for r in test()[1]["BLEU"]]
    _, cells = paired_cells(systems[:3], BLEU(references=refs, **config), "bs", 150, seed=5)
    assert [vars(c) for c in cells] == expected


@pytest.mark.parametrize("seed,n", [(None, 1000), ("17", 250)])
def test_confidence_interval_identical(systems, refs, monkeypatch, seed, n):
    if seed is None:
        monkeypatch.delenv("SACREBLEU_SEED", raising=False)
    else:
        monkeypatch.setenv("SACREBLEU_SEED", seed)
    hyps = systems[1][1]
    oracle = SacreBLEU()
    expected = oracle.corpus_score(hyps, refs, n_bootstrap=n)
    metric = BLEU()
    got = metric.corpus_score(hyps, refs, n_bootstrap=n)
    assert (got.score, got._mean, got._ci) == (expected.score, expected._mean, expected._ci)
    assert metric.seed == oracle.seed
    ours = metric.get_signature().format().rsplit("|version:", 1)[0]
    theirs = oracle.get_signature().format().rsplit("|version:", 1)[0]
    assert ours == theirs


def test_confidence_explicit_seed_overrides_environment(systems, refs, monkeypatch):
    monkeypatch.setenv("SACREBLEU_SEED", "1")
    metric = BLEU(references=refs)
    stats = metric.corpus_statistics(systems[1][1])
    monkeypatch.setenv("SACREBLEU_SEED", "8")
    assert bootstrap_confidence(stats, metric, 100, seed=8) == \
        bootstrap_confidence(stats, metric, 100)
    assert bootstrap_confidence(stats, metric, 100, seed=1) != \
        bootstrap_confidence(stats, metric, 100)


def sacrebleu_stdout(args, env_seed=None):
    env = dict(os.environ, NO_COLOR="1")
    env.pop("SACREBLEU_SEED", None)
    if env_seed is not None:
        env["SACREBLEU_SEED"] = str(env_seed)
    done = subprocess.run([sys.executable, "-m", "sacrebleu", *args], capture_output=True,
                          text=True, env=env, check=True)
    return done.stdout


def normalise_version(text: str) -> str:
    """truebleu names itself in the signature's version field; the rest must match."""
    return re.sub(r"(version|v):[^\s|\"]+", r"\1:X", text)


@pytest.mark.parametrize("test_type,n,fmt,width,short,seed", [
    ("bs", 1000, "text", 1, False, None),
    ("bs", 200, "json", 2, False, 11),
    ("ar", 300, "text", 2, True, None),
    ("ar", 500, "json", 1, False, 3),
])
def test_formatted_output_identical(systems, refs, monkeypatch, test_type, n, fmt, width,
                                    short, seed):
    paths = [str(system_path(name)) for name in [BASELINE] + OTHERS[:2]]
    args = [str(REFERENCE), "-i", *paths, f"-p{test_type}", f"-p{test_type}n", str(n),
            "-f", fmt, "-w", str(width)] + (["--short"] if short else [])
    expected = sacrebleu_stdout(args, seed)
    monkeypatch.setattr(Color, "enabled", False)
    monkeypatch.delenv("SACREBLEU_SEED", raising=False)
    named = [(("Baseline: " if k == 0 else "") + p, read_lines(p)) for k, p in enumerate(paths)]
    got = paired_test_report(named, BLEU(references=refs), test_type, n, fmt, width, short,
                             seed=seed)
    assert normalise_version(got) == normalise_version(expected)


def test_self_comparison_quirk_kept_in_compat_fixed_in_api(systems, refs, monkeypatch):
    """sacreBLEU calls a system significantly different from itself (p = 1/(n+1))."""
    monkeypatch.delenv("SACREBLEU_SEED", raising=False)
    same = [systems[0], ("copy", systems[0][1])]
    _, expected = oracle_cells(same, refs, "ar", 200, monkeypatch)
    _, cells = paired_cells(same, BLEU(references=refs), "ar", 200)
    assert [vars(c) for c in cells] == expected and cells[1].p_value == 1 / 201
    metric = BLEU(references=refs)
    stats = metric.corpus_statistics(systems[0][1])
    scorer = BLEUBatchScorer.from_metric(metric)
    assert paired_randomization(stats, stats, scorer, 200).p_value == 1.0
    assert paired_bootstrap(stats, stats, scorer, 200).p_value == 1.0
