"""Each pair's paired bootstrap interval of the difference (``PairResult.delta_interval``),
against a plain NumPy computation on external scores.

A system's bootstrap sample is ``x[idx].mean(axis=1)`` with ``idx`` drawn once for all
systems (``rng.choice(n, (samples, n))`` with the seed); a pair's interval is the mean and
half the central 95% of the sorted differences of two systems' samples, better − worse.
The A vs B view of the viewer shows it beside each metric's Δ.
"""

from __future__ import annotations

import pytest

np = pytest.importorskip("numpy")

from truebleu.core.segment_scores import SegmentScores  # noqa: E402
from truebleu.significance import MeanScorer, compare_all  # noqa: E402

N = 500


@pytest.mark.parametrize("test,higher", [("bs", True), ("ar", True), ("bs", False)])
def test_delta_interval_is_numpys(test, higher):
    rng = np.random.default_rng(4)
    values = {name: rng.normal(0.8 + shift, 0.1, N)
              for name, shift in (("A", 0.0), ("B", 0.01), ("C", -0.02))}
    scores = SegmentScores("COMET", values)
    result = compare_all({name: scores.rows(name) for name in values},
                         MeanScorer("COMET", higher), test=test, n_samples=300, seed=9,
                         ci_samples=400)
    assert len(result.pairs) == 3
    # AR's intervals come from a bootstrap drawn after its trials: the same generator, later
    draws = np.random.default_rng(9)
    if test == "ar":
        draws.integers(2, size=(300, N), dtype=bool)
    samples = 300 if test == "bs" else 400
    idx = draws.choice(N, size=(samples, N))
    for pair in result.pairs:
        a, b = values[pair.a], values[pair.b]
        deltas = np.sort(a[idx].mean(axis=1) - b[idx].mean(axis=1))
        cut = samples // 40
        want = (deltas.mean(), 0.5 * (deltas[samples - cut - 1] - deltas[cut]))
        assert pair.delta_interval == pytest.approx(want, rel=1e-12, abs=1e-15)
    # the better system first: its mean difference has the sign of better − worse
    for pair in result.pairs:
        assert (pair.delta_interval[0] > 0) == higher
