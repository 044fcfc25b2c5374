"""chrF and chrF++ on real WMT21 into-English system outputs against sacreBLEU 2.6.0.

A sample of systems (several language pairs, each of their references, and
both references at once; the first 500 segments, to keep sacreBLEU's time in
CI short), statistics and scores compared exactly, on both backends. The full
set is in the benchmark (bench/bench_chrf_ter.py compares every score it times).
"""

from __future__ import annotations

import pytest

from conftest import needs_wmt21, wmt21_dir
from truebleu.io import read_lines
from truebleu.metrics.chrf import CHRF

sacrebleu = pytest.importorskip("sacrebleu")

pytestmark = needs_wmt21

# (language pair, system, references): one, the other, and both references
CASES = [("de-en", "Facebook-AI", "B"), ("cs-en", "CUNI-DocTransformer", "AB"),
         ("zh-en", "NiuTrans", "A"), ("ja-en", "HuaweiTSC", "A")]
N_SEGMENTS = 500


def load(pair: str, system: str, refs: str):
    data = wmt21_dir()
    hyp_path = data / "system-outputs" / f"newstest2021.{pair}.hyp.{system}.en"
    references = [read_lines(data / "references" / f"newstest2021.{pair}.ref.{k}.en")[:N_SEGMENTS]
                  for k in refs]
    return read_lines(hyp_path)[:N_SEGMENTS], references


@pytest.mark.parametrize("pair,system,refs", CASES, ids=lambda v: str(v))
@pytest.mark.parametrize("word_order", [0, 2])
def test_wmt21_system(pair, system, refs, word_order):
    hyps, references = load(pair, system, refs)
    theirs = sacrebleu.CHRF(word_order=word_order)
    expected_rows = theirs._extract_corpus_statistics(hyps, references)
    expected = theirs._aggregate_and_compute(expected_rows).score
    for backend in ("python", "native"):
        ours = CHRF(word_order=word_order, backend=backend)
        stats = ours.corpus_statistics(hyps, references)
        assert [list(row) for row in stats.rows()] == expected_rows
        assert ours.score_from_statistics(stats.sum()).score == expected
