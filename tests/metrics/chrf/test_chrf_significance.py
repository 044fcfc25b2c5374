"""chrF's -ci, -pbs and -par numbers against sacreBLEU 2.6.0's API, exactly (``==``).

sacreBLEU resamples chrF's statistics as float32 and scores them in float32;
truebleu's generic path (``scorer_for`` -> ``RowScorer``) must reproduce it.
"""

from __future__ import annotations

import pytest

np = pytest.importorskip("numpy")
sacrebleu = pytest.importorskip("sacrebleu")
from sacrebleu.metrics import CHRF as SacreCHRF  # noqa: E402
from sacrebleu.significance import PairedTest  # noqa: E402

from _significance_data import REFERENCE, needs_wmt21, system_path  # noqa: E402
from truebleu.io import read_lines  # noqa: E402
from truebleu.metrics.chrf import CHRF  # noqa: E402
from truebleu.significance import paired_cells  # noqa: E402
from truebleu.significance.multi import compare_systems  # noqa: E402

pytestmark = needs_wmt21

SYSTEMS = ["Facebook-AI", "WeChat-AI", "UEdin"]
# the first 400 segments keep sacreBLEU's Python loops short
N_SEGMENTS = 400


@pytest.fixture(scope="module")
def refs():
    return [read_lines(REFERENCE)[:N_SEGMENTS]]


@pytest.fixture(scope="module")
def systems():
    return [(("Baseline: " if k == 0 else "") + name, read_lines(system_path(name))[:N_SEGMENTS])
            for k, name in enumerate(SYSTEMS)]


@pytest.mark.parametrize("options", [{}, {"word_order": 2}, {"eps_smoothing": True}], ids=str)
def test_confidence_interval(refs, systems, monkeypatch, options):
    monkeypatch.delenv("SACREBLEU_SEED", raising=False)
    hyps = systems[0][1]
    expected = SacreCHRF(**options).corpus_score(hyps, refs, n_bootstrap=300)
    ours = CHRF(**options).corpus_score(hyps, refs, n_bootstrap=300)
    assert (ours.score, ours._mean, ours._ci) == (expected.score, expected._mean, expected._ci)
    assert ours.format() == expected.format()


@pytest.mark.parametrize("test_type,n_samples,seed", [("bs", 200, None), ("bs", 150, 7),
                                                      ("ar", 300, None)])
def test_paired_tests(refs, systems, monkeypatch, test_type, n_samples, seed):
    if seed is None:
        monkeypatch.delenv("SACREBLEU_SEED", raising=False)
    else:
        monkeypatch.setenv("SACREBLEU_SEED", str(seed))
    test = PairedTest(systems, {"chrF2++": SacreCHRF(word_order=2, references=refs)}, None,
                      test_type=test_type, n_samples=n_samples)
    _, scores = test()
    expected = [vars(cell) for cell in scores["chrF2++"]]
    _, cells = paired_cells(systems, CHRF(word_order=2, references=refs), test_type, n_samples)
    assert [vars(cell) for cell in cells] == expected


def test_compare_ranks_chrf(refs, systems):
    metric = CHRF(references=refs)
    result = compare_systems(systems, metric, n_samples=100)
    scores = {s.name: s.score for s in result.systems}
    for name, hyps in systems:
        assert scores[name] == metric.corpus_score(hyps).score
    assert [s.score for s in result.systems] == sorted(scores.values(), reverse=True)
