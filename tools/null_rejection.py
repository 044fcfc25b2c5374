"""How often each paired test rejects a true null hypothesis (type-I error), reproducibly.

Two experiments, both with 199 resamples/trials per test and rejection on
``p < alpha`` (``alpha = 0.05``), as truebleu and sacreBLEU decide:

1. **Gaussian model.** The observed difference is ``delta ~ N(0, 1)`` (H0:
   no true difference; the unit is the standard error) and the bootstrap
   differences are ``d_i ~ N(delta, 1)``, which is what the paired bootstrap
   approximates. Approximate randomization is modelled by what makes it exact:
   under H0 the observed and the trial statistics are exchangeable.
2. **WMT21 en-de** (when the data are present): UEdin and HuaweiTSC, their
   outputs swapped per segment by a fair coin, so that H0 holds exactly; each
   split is tested with both bootstrap statistics on the same samples and
   with approximate randomization.

    python tools/null_rejection.py [--replications 9000] [--splits 800] [--shared PATH]

The output is quoted in docs/significance.md.
"""

from __future__ import annotations

import argparse
import math
import os
from pathlib import Path

import numpy as np

N, ALPHA = 199, 0.05
DEFAULT_SHARED = Path(__file__).resolve().parents[1].parent / "shared"


def p_value(null_stats, observed, strict: bool) -> float:
    count = np.count_nonzero(null_stats > observed if strict else null_stats >= observed)
    return (count + 1) / (len(null_stats) + 1)


def sacrebleu_p(d, delta):
    """sacreBLEU 2.6.0: ``|d_i| - mean|d| > |delta|``."""
    folded = np.abs(d)
    return p_value(folded - folded.mean(), abs(delta), strict=True)


def one_tail_p(d, delta):
    """The signed differences, centred, compared with |delta| in one tail only."""
    return p_value(d - d.mean(), abs(delta), strict=True)


def centred_p(d, delta):
    """truebleu's default: ``|d_i - mean d| >= |delta|`` (both tails)."""
    return p_value(np.abs(d - d.mean()), abs(delta), strict=False)


def binomial_interval(k: int, n: int) -> str:
    """A 95% Wilson interval for a rejection rate, in percent."""
    z, p = 1.959964, k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return f"[{100 * (centre - half):.1f}%, {100 * (centre + half):.1f}%]"


def line(name: str, k: int, n: int) -> str:
    return f"  {name:<44} {k:>5}/{n} = {100 * k / n:5.2f}%  95% CI {binomial_interval(k, n)}"


def _normal_cdf(x: float) -> float:
    return 0.5 * (1 + math.erf(x / math.sqrt(2)))


def sacrebleu_limit_p(delta: float) -> float:
    """sacreBLEU's p-value with infinitely many resamples, ``d ~ N(delta, 1)``, ``delta >= 0``.

    ``E|d| = delta (1 - 2 Phi(-delta)) + 2 phi(delta)``; it rejects when
    ``|d| > delta + E|d|`` has probability below alpha.
    """
    mean_abs = (delta * (1 - 2 * _normal_cdf(-delta))
                + 2 * math.exp(-delta * delta / 2) / math.sqrt(2 * math.pi))
    cut = delta + mean_abs
    return (1 - _normal_cdf(cut - delta)) + _normal_cdf(-cut - delta)


def sacrebleu_threshold() -> float:
    """The |delta| (in standard errors) above which sacreBLEU's statistic rejects, in the limit."""
    low, high = 0.0, 10.0
    for _ in range(100):
        mid = (low + high) / 2
        low, high = (mid, high) if sacrebleu_limit_p(mid) > ALPHA else (low, mid)
    return low


def gaussian_model(replications: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    tests = {"sacreBLEU -pbs (|d|-mean|d| > |delta|)": sacrebleu_p,
             "one tail of d-mean(d) against |delta|": one_tail_p,
             "centred, both tails (truebleu default)": centred_p}
    rejected = dict.fromkeys(tests, 0)
    smallest_rejected = float("inf")
    ar_rejected = 0
    for _ in range(replications):
        delta = rng.standard_normal()
        d = delta + rng.standard_normal(N)
        for name, test in tests.items():
            if test(d, delta) < ALPHA:
                rejected[name] += 1
                if test is sacrebleu_p:
                    smallest_rejected = min(smallest_rejected, abs(delta))
        trials = np.abs(rng.standard_normal(N))  # exchangeable with the observed one
        ar_rejected += p_value(trials, abs(rng.standard_normal()), strict=False) < ALPHA
    print(f"Gaussian model: {replications} null replications, {N} resamples each, "
          f"reject when p < {ALPHA} (seed {seed})")
    for name in tests:
        print(line(name, rejected[name], replications))
    print(line("approximate randomization (exchangeable)", ar_rejected, replications))
    print(f"  smallest |delta| that sacreBLEU's statistic rejected: {smallest_rejected:.2f} "
          f"standard errors")
    threshold = sacrebleu_threshold()
    print(f"  with infinitely many resamples sacreBLEU's statistic rejects when |delta| > "
          f"{threshold:.3f} standard errors: level 2(1 - Phi({threshold:.3f})) = "
          f"{200 * (1 - _normal_cdf(threshold)):.1f}%")
    print("  (a one-tailed 5% test rejects above 1.645, i.e. 10% of a two-sided null; "
          "a two-sided 5% test above 1.960)")
    level = math.ceil(ALPHA * (N + 1)) - 1
    print(f"  exact level of a valid Monte Carlo test: p = (c+1)/{N + 1} < {ALPHA} "
          f"<=> c + 1 <= {level}, probability {level}/{N + 1} = {100 * level / (N + 1):.1f}%")


def wmt21(shared: Path, splits: int, seed: int) -> None:
    from truebleu import BLEU
    from truebleu.io import read_lines
    from truebleu.metrics.bleu import BLEUBatchScorer
    from truebleu.significance import paired_randomization
    from truebleu.significance.paired import bootstrap_scores, score_of
    from truebleu.significance.resampling import bootstrap_draws, make_rng

    data = shared / "data" / "wmt21"
    reference = data / "references" / "newstest2021.en-de.ref.A.de"
    if not reference.is_file():
        print(f"\nWMT21 experiment skipped: {reference} not found")
        return
    metric = BLEU(references=[read_lines(reference)])
    a, b = (metric.corpus_statistics(read_lines(
        data / "system-outputs" / f"newstest2021.en-de.hyp.{name}.de")).to_numpy()
        for name in ("UEdin", "HuaweiTSC"))
    scorer = BLEUBatchScorer.from_metric(metric)
    rng = np.random.default_rng(seed)
    counts = {"sacreBLEU -pbs": 0, "centred bootstrap": 0, "approximate randomization": 0}
    for split in range(splits):
        swap = rng.integers(2, size=a.shape[0]).astype(bool)[:, None]
        x, y = np.where(swap, b, a), np.where(swap, a, b)
        delta = score_of(y, scorer) - score_of(x, scorer)
        table = bootstrap_scores(bootstrap_draws(make_rng(split), a.shape[0], N), [x, y], scorer)
        d = table[:, 1] - table[:, 0]
        counts["sacreBLEU -pbs"] += sacrebleu_p(d, delta) < ALPHA
        counts["centred bootstrap"] += centred_p(d, delta) < ALPHA
        counts["approximate randomization"] += \
            paired_randomization(x, y, scorer, N, seed=split).p_value < ALPHA
    print(f"\nWMT21 en-de, UEdin vs HuaweiTSC swapped per segment by a fair coin "
          f"(H0 true): {splits} splits, {N} resamples/trials each (seed {seed})")
    for name, k in counts.items():
        print(line(name, int(k), splits))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--replications", type=int, default=9000)
    parser.add_argument("--splits", type=int, default=800)
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--shared", default=os.environ.get("TRUEBLEU_SHARED", DEFAULT_SHARED))
    args = parser.parse_args()
    gaussian_model(args.replications, args.seed)
    if args.splits > 0:
        wmt21(Path(args.shared), args.splits, args.seed)


if __name__ == "__main__":
    main()
