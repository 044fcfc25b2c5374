"""TER on real WMT21 into-English output, against sacreBLEU 2.6.0, on every backend.

A sample, to keep CI short (sacreBLEU needs 5-25 s per full system): for each
into-English pair, the first 60 segments of one system (a different one per
pair) against reference A, and against every reference where there are
several (native backend). bench/ter_wmt21_oracle.py checks every system in full.
"""

from __future__ import annotations

import functools
import re
from collections import defaultdict

import pytest

import truebleu
from conftest import available_backends, needs_wmt21, wmt21_dir

sacrebleu = pytest.importorskip("sacrebleu")
from sacrebleu.metrics import TER as SacreTER  # noqa: E402

pytestmark = needs_wmt21

NAME = re.compile(r"^(?P<set>[^.]+)\.(?P<pair>[a-z]+-en)\.(?P<kind>hyp|ref)\.(?P<name>.+)\.en$")
SEGMENTS = 60


def _pairs() -> dict:
    root = wmt21_dir()
    if not root.is_dir():
        return {}
    pairs: dict = defaultdict(lambda: {"hyp": [], "ref": []})
    for folder in ("system-outputs", "references"):
        for path in sorted((root / folder).iterdir()):
            match = NAME.match(path.name)
            if match:
                pairs[match["pair"]][match["kind"]].append(path)
    return dict(sorted(pairs.items()))


PAIRS = _pairs()
# every pair with reference A on both backends; with all references on the native one only
# (the Python backend is as slow as sacreBLEU, and both backends give the same rows)
CASES = ([(name, pair, "A") for name in available_backends() for pair in PAIRS]
         + [("native", pair, "all") for pair in PAIRS if len(PAIRS[pair]["ref"]) > 1
            if "native" in available_backends()])


def read(path) -> list[str]:
    with open(path, encoding="utf-8", newline="\n") as handle:
        return [line.rstrip("\n") for line in handle][:SEGMENTS]


@functools.lru_cache(maxsize=None)
def sample(pair: str, refs: str):
    files = PAIRS[pair]
    index = sorted(PAIRS).index(pair) % len(files["hyp"])  # a different system per pair
    hyps = read(files["hyp"][index])
    references = [read(path) for path in (files["ref"] if refs == "all" else files["ref"][:1])]
    theirs = SacreTER()
    stats = theirs._extract_corpus_statistics(hyps, references)
    expected_rows = [[float(x) for x in row] for row in stats]
    return hyps, references, expected_rows, theirs._aggregate_and_compute(stats)


@pytest.mark.parametrize("backend,pair,refs", CASES)
def test_wmt21_sample_matches_sacrebleu(backend, pair, refs):
    hyps, references, expected_rows, expected = sample(pair, refs)
    ours = truebleu.TER(references=references, backend=backend)
    assert list(ours.corpus_statistics(hyps).rows()) == expected_rows
    score = ours.corpus_score(hyps)
    assert (score.score, score.num_edits, score.ref_length) == \
        (expected.score, expected.num_edits, expected.ref_length)
    assert str(score) == str(expected)
