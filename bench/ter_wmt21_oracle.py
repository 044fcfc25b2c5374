"""Every WMT21 into-English system output, TER against sacreBLEU 2.6.0 (not part of CI).

For each system: the per-segment statistics and the corpus score (every
field, ``==``) of ``truebleu.TER`` on the chosen backend against reference A
(``--refs all``: against every reference of the pair). sacreBLEU takes 5-25 s
per system on a 2-core machine, so the whole set takes a while; CI checks a
sample (tests/metrics/ter/test_ter_wmt21.py).

    python bench/ter_wmt21_oracle.py [--backend native] [--refs A|all] [--data DIR]

Exit status 1 if any system differs.
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from collections import defaultdict
from pathlib import Path

from sacrebleu.metrics import TER as SacreTER

import truebleu

NAME = re.compile(r"^(?P<set>[^.]+)\.(?P<pair>[a-z]+-en)\.(?P<kind>hyp|ref)\.(?P<name>.+)\.en$")


def read(path: Path) -> list[str]:
    with open(path, encoding="utf-8", newline="\n") as handle:
        return [line.rstrip("\n") for line in handle]


def into_english(root: Path) -> dict:
    pairs: dict = defaultdict(lambda: {"hyp": [], "ref": []})
    for folder in ("system-outputs", "references"):
        for path in sorted((root / folder).iterdir()):
            match = NAME.match(path.name)
            if match:
                pairs[f"{match['set']}.{match['pair']}"][match["kind"]].append(path)
    return dict(sorted(pairs.items()))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", default="native")
    parser.add_argument("--refs", choices=["A", "all"], default="A")
    parser.add_argument("--data", type=Path,
                        default=Path(__file__).resolve().parents[2] / "shared/data/wmt21")
    args = parser.parse_args()
    failures = systems = 0
    start = time.time()
    for files in into_english(args.data).values():
        ref_paths = files["ref"] if args.refs == "all" else files["ref"][:1]
        refs = [read(path) for path in ref_paths]
        ours = truebleu.TER(references=refs, backend=args.backend)
        for hyp_path in files["hyp"]:
            hyps = read(hyp_path)
            theirs = SacreTER()
            stats = theirs._extract_corpus_statistics(hyps, refs)  # what corpus_score does
            expected_rows = [[float(x) for x in row] for row in stats]
            expected = theirs._aggregate_and_compute(stats)
            rows = list(ours.corpus_statistics(hyps).rows())
            score = ours.corpus_score(hyps)
            same = (rows == expected_rows and score.score == expected.score
                    and score.num_edits == expected.num_edits
                    and score.ref_length == expected.ref_length and str(score) == str(expected))
            systems += 1
            failures += not same
            print(f"{'ok  ' if same else 'DIFF'} {hyp_path.name} ({len(ref_paths)} ref) {score}",
                  flush=True)
    print(f"{systems} systems, {failures} differing, {time.time() - start:.0f} s")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
