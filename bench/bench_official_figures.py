"""Every official-style BLEU figure this machine can reproduce offline, end to end.

Issue 25 times "the 801 official WMT22/23 BLEU figures end to end"; WMT22/23 are
not on this machine, so this runs the same kind of job on what is: every WMT21
system output in ``../shared/data/wmt21`` (255 systems, 20 pairs) against its
pair's reference A, with the default BLEU and the target language's tokenizer as
sacreBLEU's command line picks it (``zh``, ``ja-mecab``, else ``13a``). End to end
through the API from files: reading every file (``truebleu.io.read_lines``), one
``truebleu.BLEU(trg_lang=...)`` per pair holding its references, one
``corpus_score`` per system.

Before the time is reported, every figure is checked equal to sacreBLEU 2.6.0's on
the same lines (``--no-check`` skips that: sacreBLEU takes minutes here).

    python bench/bench_official_figures.py [--shared PATH] [--repeat 3] [--no-check]
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import defaultdict
from pathlib import Path

DEFAULT_SHARED = Path(__file__).resolve().parents[1].parent / "shared"


def jobs(shared: Path) -> dict[tuple[str, str], tuple[Path, list[Path]]]:
    """(test set, pair) -> (reference A, system outputs), in name order."""
    data = shared / "data" / "wmt21"
    systems: dict[tuple[str, str], list[Path]] = defaultdict(list)
    for path in sorted((data / "system-outputs").iterdir()):
        testset, pair = path.name.split(".")[:2]
        systems[testset, pair].append(path)
    found = {}
    for (testset, pair), paths in systems.items():
        ref = data / "references" / f"{testset}.{pair}.ref.A.{pair.split('-')[1]}"
        if ref.is_file():
            found[testset, pair] = (ref, paths)
    if not found:
        raise SystemExit(f"no WMT21 systems found under {data}")
    return found


def truebleu_figures(work) -> dict[str, float]:
    from truebleu import BLEU
    from truebleu.io import read_lines

    figures = {}
    for (_, pair), (ref, paths) in work.items():
        bleu = BLEU(trg_lang=pair.split("-")[1], references=[read_lines(ref)])
        for path in paths:
            figures[path.name] = bleu.corpus_score(read_lines(path)).score
    return figures


def sacrebleu_figures(work) -> dict[str, float]:
    from sacrebleu.metrics import BLEU

    def lines(path: Path) -> list[str]:
        with open(path, encoding="utf-8") as handle:
            return [line.rstrip("\n") for line in handle]

    figures = {}
    for (_, pair), (ref, paths) in work.items():
        bleu = BLEU(trg_lang=pair.split("-")[1], references=[lines(ref)])
        for path in paths:
            figures[path.name] = bleu.corpus_score(lines(path), None).score
    return figures


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--shared", type=Path, default=DEFAULT_SHARED)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--no-check", action="store_true")
    args = parser.parse_args(argv)
    work = jobs(args.shared)
    truebleu_figures({key: (ref, paths[:1]) for key, (ref, paths) in list(work.items())[:1]})
    best, figures = float("inf"), {}
    for _ in range(args.repeat):
        start = time.perf_counter()
        figures = truebleu_figures(work)
        best = min(best, time.perf_counter() - start)
    checked = "not checked (--no-check)"
    if not args.no_check:
        start = time.perf_counter()
        expected = sacrebleu_figures(work)
        sacrebleu_time = time.perf_counter() - start
        wrong = [name for name in expected if expected[name] != figures[name]]
        if wrong or expected.keys() != figures.keys():
            raise SystemExit(f"figures differ from sacreBLEU's: {wrong[:5]}")
        checked = f"all equal to sacreBLEU 2.6.0's ({sacrebleu_time:.1f} s there, one run)"
    print(f"{len(figures)} WMT21 figures ({len(work)} pairs, reference A; WMT22/23 are not on "
          f"this machine): {best:.3f} s end to end from files, best of {args.repeat}; {checked}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
