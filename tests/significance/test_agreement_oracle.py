"""Agreement statistics against mt-metrics-eval, the code of WMT's metrics shared task.

The oracle is ``mt_metrics_eval.stats`` in ``../shared/oracles/mt-metrics-eval`` (its
README: added to ``sys.path``, it needs numpy and scipy). On generated scores, where a
gold with ties (quantised, as MQM scores are) and metrics that are noisy functions of
the same latent quality: system-level pairwise accuracy and Kendall's tau, segment-level
tau-b and WMT23's tie-calibrated acc23 for every grouping, and the pairwise permutation
test (its observed difference exactly; its p-value within Monte Carlo error, the random
streams being different).
"""

from __future__ import annotations

import math
import sys

import pytest

np = pytest.importorskip("numpy")
pytest.importorskip("scipy", reason="mt-metrics-eval's statistics need scipy (the test extra)")

from conftest import shared_dir  # noqa: E402
from truebleu.significance import agreement  # noqa: E402

ORACLE = shared_dir() / "oracles" / "mt-metrics-eval"


@pytest.fixture(scope="module")
def stats():
    if not (ORACLE / "mt_metrics_eval" / "stats.py").is_file():
        pytest.skip(f"mt-metrics-eval's statistics not found at {ORACLE} (set TRUEBLEU_SHARED)")
    sys.path.insert(0, str(ORACLE))
    try:
        from mt_metrics_eval import stats as oracle
    finally:
        sys.path.remove(str(ORACLE))
    return oracle


def generated(n_systems: int, n_segments: int, seed: int, noise=(0.6, 0.9, 2.5)):
    """(gold, metrics): oriented (systems, segments) matrices; the gold has ties."""
    rng = np.random.default_rng(seed)
    quality = rng.normal(0, 1, n_segments)[None, :] + rng.normal(0, 0.7, (n_systems, 1))
    latent = quality + rng.normal(0, 0.5, (n_systems, n_segments))
    gold = np.round(latent * 2) / 2  # half-point steps: many ties
    metrics = {f"m{k}": latent + rng.normal(0, level, latent.shape)
               for k, level in enumerate(noise)}
    metrics["tied"] = np.round(metrics["m0"], 1)  # a metric with ties of its own
    return gold, metrics


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_system_level_accuracy_and_tau(stats, seed):
    gold, metrics = generated(9, 30, seed)
    gold_sys = gold.mean(axis=1)
    for scores in metrics.values():
        metric_sys = scores.mean(axis=1)
        counts = agreement.pair_counts(gold_sys, metric_sys)
        agree, pairs = stats.Agreement(gold_sys.tolist(), metric_sys.tolist())
        assert (counts.concordant + counts.ties_both, counts.pairs) == (agree, pairs)
        tau, _, _ = stats.Correlation(9, gold_sys.tolist(), metric_sys.tolist()).Kendall()
        assert counts.tau_b == pytest.approx(tau, abs=1e-15)
    ties = np.array([1.0, 1.0, 2.0, 3.0, 3.0, 0.5])
    other = np.array([2.0, 2.0, 1.0, 3.0, 4.0, 4.0])
    assert agreement.pairwise_accuracy(ties, other) == \
        stats.Agreement(ties.tolist(), other.tolist())[0] / 15
    assert agreement.kendall_tau(ties, other) == pytest.approx(
        stats.Correlation(6, ties.tolist(), other.tolist()).Kendall()[0], abs=1e-15)


@pytest.mark.parametrize("grouping", ["item", "sys", "none"])
def test_segment_level_tau(stats, grouping):
    gold, metrics = generated(6, 25, 4)
    gold_pairs = agreement.segment_pairs(gold, grouping)
    for name, scores in metrics.items():
        ours = agreement.segment_tau(gold_pairs, agreement.segment_pairs(scores, grouping))
        theirs = stats.Correlation(6, gold.ravel().tolist(), scores.ravel().tolist()).Kendall(
            average_by=grouping)[0]
        assert ours == pytest.approx(theirs, abs=1e-12), name


@pytest.mark.parametrize("grouping", ["item", "sys", "none"])
def test_tie_calibrated_acc23(stats, grouping):
    gold, metrics = generated(5, 20, 5)
    gold_pairs = agreement.segment_pairs(gold, grouping)
    for name, scores in metrics.items():
        acc23, epsilon = agreement.calibrated_acc23(gold_pairs,
                                                    agreement.segment_pairs(scores, grouping))
        best, threshold, result = stats.KendallWithTiesOpt(
            gold.ravel().tolist(), scores.ravel().tolist(), variant="acc23", num_sys=5,
            average_by=grouping, sample_rate=1.0)
        assert acc23 == pytest.approx(best, abs=1e-12), name
        # the oracle's running sums may order equal maxima differently by an ulp: our
        # epsilon must be one of its best thresholds
        at_ours = result.taus[result.thresholds.index(epsilon)]
        assert at_ours == pytest.approx(best, abs=1e-12), name
        assert epsilon == threshold or math.isclose(at_ours, best, abs_tol=1e-12)


def oracle_test(stats, gold, better, worse, variant, k, epsilons):
    """mt-metrics-eval's p-value that ``better`` agrees better than ``worse``."""
    n_systems = gold.shape[0]
    corr = [stats.Correlation(n_systems, gold.ravel().tolist(), scores.ravel().tolist())
            for scores in (worse, better)]
    params = stats.PermutationSigDiffParams(block_size=k + 1)  # no early stop
    np.random.seed(0)
    return stats.PairwisePermutationSigDiff(corr[0], corr[1], variant=variant,
                                            average_by="item", k=k, params=params,
                                            epsilon1=epsilons["worse"],
                                            epsilon2=epsilons["better"], sample_rate=1.0)


@pytest.mark.parametrize("statistic,variant", [("acc23", "acc23"), ("tau", "b")])
@pytest.mark.parametrize("noise", [(0.8, 0.95), (0.5, 1.5)])
def test_permutation_test(stats, statistic, variant, noise):
    """Observed delta exactly; p within 4.5 standard errors of the oracle's Monte Carlo p
    (k = 400 there, 20,000 here)."""
    gold, metrics = generated(5, 24, 6, noise=noise)
    gold_pairs = agreement.segment_pairs(gold, "item")
    kinds, epsilons = {}, {}
    for name in ("m0", "m1"):
        pairs = agreement.segment_pairs(metrics[name], "item")
        epsilons[name] = (agreement.calibrated_acc23(gold_pairs, pairs)[1]
                          if statistic == "acc23" else 0.0)
        kinds[name] = agreement.outcomes(gold_pairs, pairs, epsilons[name])
    ours = agreement.permutation_test(kinds["m0"], kinds["m1"], statistic,
                                      n_permutations=20_000, seed=3, names=("m0", "m1"))
    assert {ours.better, ours.worse} == {"m0", "m1"} and ours.delta >= 0
    if noise == (0.5, 1.5):
        assert ours.better == "m0" and ours.p_value < 0.01  # much less noise: clearly better
    k = 400
    p, delta, used, _ = oracle_test(
        stats, gold, metrics[ours.better], metrics[ours.worse], variant, k,
        {"better": epsilons[ours.better], "worse": epsilons[ours.worse]})
    assert used == k
    assert ours.delta == pytest.approx(delta, abs=1e-12)
    error = math.sqrt(max(p * (1 - p), 1 / k) / k)
    assert abs(ours.p_value - p) <= 4.5 * error + 1 / k


def test_permutation_p_value_is_one_for_identical_metrics():
    gold, metrics = generated(4, 10, 7)
    gold_pairs = agreement.segment_pairs(gold, "item")
    kinds = agreement.outcomes(gold_pairs, agreement.segment_pairs(metrics["m0"], "item"))
    test = agreement.permutation_test(kinds, kinds.copy(), "tau", n_permutations=50)
    assert (test.delta, test.p_value, test.significant) == (0.0, 1.0, False)


def test_too_many_pairs_is_an_error_naming_the_grouping():
    with pytest.raises(ValueError, match="grouping 'none' compares 49,995,000 pairs, more than "
                                         "20,000,000; group by 'item'"):
        agreement.segment_pairs(np.zeros((10, 1000)), "none")
    with pytest.raises(ValueError, match="grouping must be one of item, sys, none"):
        agreement.segment_pairs(np.zeros((3, 3)), "system")
