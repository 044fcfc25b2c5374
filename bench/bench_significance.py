"""Significance tests: truebleu against sacreBLEU 2.6.0, side by side, one process.

On the 20 WMT21 en-de systems (the first file is the baseline, as sacreBLEU's
``-i`` takes it): paired bootstrap (``-pbs``, 1000 resamples), paired
approximate randomization (``-par``, 10000 trials) and a single-system
bootstrap interval (``-ci``, 1000). Both tools start from the same lines in
memory and compute their statistics themselves (tokenizing included); the
results are checked to be identical before the times are reported.

    python bench/bench_significance.py [--shared PATH] [--repeat 5]

Prints a markdown table. Not a test: nothing fails because a machine is slow.
"""

from __future__ import annotations

import argparse
import os
import platform
import time
from pathlib import Path

DEFAULT_SHARED = Path(__file__).resolve().parents[1].parent / "shared"


def timed(fn, repeat: int):
    best, result = float("inf"), None
    for _ in range(repeat):
        start = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - start)
    return best, result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--shared", default=os.environ.get("TRUEBLEU_SHARED", DEFAULT_SHARED))
    parser.add_argument("--repeat", type=int, default=5, help="truebleu runs (best is kept)")
    args = parser.parse_args()

    import numpy
    import sacrebleu
    from sacrebleu.metrics import BLEU as SacreBLEU
    from sacrebleu.significance import PairedTest

    import truebleu
    from truebleu.io import read_lines
    from truebleu.significance import BLEUBatchScorer, compare_all, paired_cells

    wmt = Path(args.shared) / "data" / "wmt21"
    refs = [read_lines(wmt / "references" / "newstest2021.en-de.ref.A.de")]
    paths = sorted((wmt / "system-outputs").glob("newstest2021.en-de.hyp.*.de"))
    named = [(("Baseline: " if k == 0 else "") + p.name, read_lines(p)) for k, p in enumerate(paths)]
    os.environ.pop("SACREBLEU_SEED", None)
    rows = []

    for test, n in (("bs", 1000), ("ar", 10000)):
        t_sacre, oracle = timed(lambda: PairedTest(
            named, {"BLEU": SacreBLEU(references=refs)}, None, test_type=test, n_samples=n)(), 1)
        t_true, (_, cells) = timed(
            lambda: paired_cells(named, truebleu.BLEU(references=refs), test, n), args.repeat)
        same = [vars(c) for c in cells] == [vars(r) for r in oracle[1]["BLEU"]]
        flag = "-pbs" if test == "bs" else "-par"
        rows.append((f"`{flag}`: {len(named) - 1} systems vs baseline, {n} "
                     f"{'resamples' if test == 'bs' else 'trials'}", t_sacre, t_true, same))

    hyps = named[1][1]
    t_sacre, s_score = timed(lambda: SacreBLEU().corpus_score(hyps, refs, n_bootstrap=1000), 1)
    t_true, t_score = timed(lambda: truebleu.BLEU().corpus_score(hyps, refs, n_bootstrap=1000),
                            args.repeat)
    same = (s_score._mean, s_score._ci) == (t_score._mean, t_score._ci)
    rows.append(("`-ci`: one system, 1000 resamples", t_sacre, t_true, same))

    metric = truebleu.BLEU(references=refs)
    t_stats, stats = timed(lambda: [(name, metric.corpus_statistics(h).to_numpy())
                                    for name, h in named], 1)
    scorer = BLEUBatchScorer.from_metric(metric)
    extra = []
    for test, n in (("bs", 1000), ("ar", 10000)):
        t_all, result = timed(lambda: compare_all(stats, scorer, test, n), args.repeat)
        extra.append((f"all {len(result.pairs)} pairs + clusters, `{test}` {n}", t_all))

    print(f"Python {platform.python_version()}, NumPy {numpy.__version__}, "
          f"sacreBLEU {sacrebleu.__version__}, truebleu {truebleu.__version__} "
          f"(statistics backend: {metric.backend}), {os.cpu_count()} CPUs\n")
    print("| task | sacreBLEU 2.6.0 (s) | truebleu (s) | speed-up | identical results |")
    print("|---|---:|---:|---:|:---:|")
    for label, t_sacre, t_true, same in rows:
        print(f"| {label} | {t_sacre:.2f} | {t_true:.3f} | {t_sacre / t_true:.0f}x | "
              f"{'yes' if same else 'NO'} |")
    print(f"\nBeyond sacreBLEU (statistics of the {len(named)} systems precomputed "
          f"in {t_stats:.2f} s):\n")
    print("| task | truebleu (s) |")
    print("|---|---:|")
    for label, t in extra:
        print(f"| {label} | {t:.3f} |")


if __name__ == "__main__":
    main()
