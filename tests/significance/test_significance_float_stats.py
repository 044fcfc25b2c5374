"""The generic significance path on float statistics (TER's), against sacreBLEU 2.6.0.

sacreBLEU's own TER is wrapped in truebleu's metric interface
(``corpus_statistics`` -> float64 RowTable, ``score_from_statistics``), so
these tests need no truebleu TER: they check that -ci, -pbs and -par sum and
score float rows exactly as sacreBLEU does.
"""

from __future__ import annotations

import pytest

np = pytest.importorskip("numpy")
sacrebleu = pytest.importorskip("sacrebleu")
from sacrebleu.metrics import TER as SacreTER  # noqa: E402
from sacrebleu.significance import PairedTest  # noqa: E402

from _significance_data import REFERENCE, needs_wmt21, system_path  # noqa: E402
from truebleu.core.statistics import RowTable  # noqa: E402
from truebleu.io import read_lines  # noqa: E402
from truebleu.significance import bootstrap_confidence, paired_cells  # noqa: E402

pytestmark = needs_wmt21

SYSTEMS = ["Facebook-AI", "WeChat-AI", "UEdin"]
N_SEGMENTS = 25  # sacreBLEU's TER is slow (long WMT segments)


class SacreTERMetric:
    """sacreBLEU's TER behind truebleu's metric interface."""

    name = "TER"

    def __init__(self, references):
        self.ter = SacreTER(references=references)
        self._tables = {}

    def corpus_statistics(self, hypotheses, references=None):
        key = tuple(hypotheses)
        if key not in self._tables:  # sacreBLEU's TER is slow: once per system
            table = RowTable(2, typecode="d")
            for row in self.ter._extract_corpus_statistics(hypotheses, references):
                table.append([float(x) for x in row])
            self._tables[key] = table
        return self._tables[key]

    def score_from_statistics(self, row):
        return self.ter._compute_score_from_stats(row)

    def get_signature(self):
        return self.ter.get_signature()


@pytest.fixture(scope="module")
def data():
    refs = [read_lines(REFERENCE)[:N_SEGMENTS], read_lines(REFERENCE)[1:N_SEGMENTS + 1]]
    systems = [(("Baseline: " if k == 0 else "") + name, read_lines(system_path(name))[:N_SEGMENTS])
               for k, name in enumerate(SYSTEMS)]
    return refs, systems


@pytest.fixture(scope="module")
def metric(data):
    return SacreTERMetric(data[0])


def test_float_table_sum_is_sacrebleus_order(data, metric):
    refs, systems = data
    table = metric.corpus_statistics(systems[0][1])
    expected = sacrebleu.utils.sum_of_lists(metric.ter._extract_corpus_statistics(systems[0][1], None))
    assert table.sum() == [float(x) for x in expected]


def test_confidence_interval(data, metric, monkeypatch):
    monkeypatch.delenv("SACREBLEU_SEED", raising=False)
    refs, systems = data
    hyps = systems[0][1]
    expected = SacreTER(references=refs).corpus_score(hyps, None, n_bootstrap=200)
    _, mean, ci = bootstrap_confidence(metric.corpus_statistics(hyps), metric, 200)
    assert (mean, ci) == (expected._mean, expected._ci)


@pytest.mark.parametrize("test_type,n_samples", [("bs", 150), ("ar", 250)])
def test_paired(data, metric, monkeypatch, test_type, n_samples):
    monkeypatch.delenv("SACREBLEU_SEED", raising=False)
    refs, systems = data
    test = PairedTest(systems, {"TER": SacreTER(references=refs)}, None,
                      test_type=test_type, n_samples=n_samples)
    _, scores = test()
    _, cells = paired_cells(systems, metric, test_type, n_samples)
    assert [vars(cell) for cell in cells] == [vars(cell) for cell in scores["TER"]]
