"""Dialects against the installed tools: torchmetrics and NLTK (test dependencies only).

torchmetrics: generated text and a WMT21 sample, ``smooth`` on/off, several
n-gram orders and weights, both float backends (torch, and the pure-Python
float32 emulation). NLTK: the ``nltk`` dialect on text lines equals NLTK's
``corpus_bleu`` on ``str.split`` tokens.
"""

from __future__ import annotations

import random
import warnings

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import shared_dir  # noqa: E402
from truebleu.dialects import get_dialect

SHARED = shared_dir()
WMT21 = SHARED / "data" / "wmt21"
needs_wmt21 = pytest.mark.skipif(not (WMT21 / "system-outputs").is_dir(),
                                 reason=f"WMT21 data not found at {WMT21} (set TRUEBLEU_SHARED)")

# without torch, float32 log/exp are emulated by correctly rounded ones, which can
# differ from torch's vectorised ones in the last bits
FLOAT32_ULPS = 4 * 2.0 ** -23

WORDS = ["the", "cat", "sat", "on", "mat", "a", "The", "dog", ".", ",", "über", "猫"]
line = st.lists(st.sampled_from(WORDS), max_size=10).map(" ".join) | st.text(max_size=8)


@st.composite
def corpus(draw):
    size = draw(st.integers(1, 5))
    nrefs = draw(st.integers(1, 3))
    hyps = draw(st.lists(line, min_size=size, max_size=size))
    refs = [draw(st.lists(line, min_size=size, max_size=size)) for _ in range(nrefs)]
    return hyps, refs


def _wmt_sample(pair: str, count: int, seed: int):
    target = pair.split("-")[1]
    read = lambda p: p.read_text(encoding="utf-8").split("\n")[:-1]  # noqa: E731
    ref_lines = [read(p) for p in sorted(
        (WMT21 / "references").glob(f"newstest2021.{pair}.ref.*.{target}"))]
    systems = sorted((WMT21 / "system-outputs").glob(f"newstest2021.{pair}.hyp.*.{target}"))
    rng = random.Random(seed)
    hyp_lines = read(rng.choice(systems))
    rows = sorted(rng.sample(range(len(hyp_lines)), count))
    return [hyp_lines[i] for i in rows], [[lines[i] for i in rows] for lines in ref_lines]


try:
    from torchmetrics.functional.text import bleu_score as torch_bleu
except ImportError:  # pragma: no cover
    torch_bleu = None
try:
    from nltk.translate import bleu_score as nltk_bleu
except ImportError:  # pragma: no cover
    nltk_bleu = None


@pytest.mark.skipif(torch_bleu is None, reason="torchmetrics is not installed (a test dependency)")
class TestTorchmetrics:
    def expected(self, hyps, refs, n_gram=4, smooth=False, weights=None):
        per_segment = [list(seg) for seg in zip(*refs)]
        return torch_bleu(hyps, per_segment, n_gram=n_gram, smooth=smooth,
                               weights=weights).item()

    @settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(data=corpus(), n_gram=st.integers(1, 4), smooth=st.booleans())
    def test_generated(self, data, n_gram, smooth):
        hyps, refs = data
        expected = self.expected(hyps, refs, n_gram, smooth)
        dialect = get_dialect("torchmetrics", n_gram=n_gram, smooth=smooth, backend="torch")
        assert dialect.corpus_score(hyps, refs).score == expected
        emulated = get_dialect("torchmetrics", n_gram=n_gram, smooth=smooth, backend="python")
        assert emulated.corpus_score(hyps, refs).score == pytest.approx(expected, rel=FLOAT32_ULPS)

    def test_weights(self):
        hyps = ["the cat sat on the mat", "a dog"]
        refs = [["the cat sat on a mat", "a dog ."], ["there is a cat on the mat", "the dog"]]
        for weights in ([0.1, 0.2, 0.3, 0.4], [0.7, 0.1, 0.1, 0.1]):
            expected = self.expected(hyps, refs, weights=weights)
            assert get_dialect("torchmetrics", weights=weights).corpus_score(hyps, refs).score \
                == expected

    def test_ties_go_to_the_first_reference(self):
        # lengths 4 and 2 for a hypothesis of 3: torchmetrics takes the first (4)
        score = get_dialect("torchmetrics", n_gram=1).corpus_score(
            ["a b c"], [["a b c d"], ["a b"]])
        assert score.ref_len == 4
        assert score.score == self.expected(["a b c"], [["a b c d"], ["a b"]], n_gram=1)

    def test_smoothing_cannot_rescue_zero_matches(self):
        assert get_dialect("torchmetrics", smooth=True).corpus_score(
            ["a b c d"], [["a b x y"]]).score == 0.0

    @needs_wmt21
    @pytest.mark.parametrize("pair", ["de-en", "en-zh", "ha-en"])
    def test_wmt21_sample(self, pair):
        hyps, refs = _wmt_sample(pair, 300, seed=7)
        for smooth in (False, True):
            expected = self.expected(hyps, refs, smooth=smooth)
            got = get_dialect("torchmetrics", smooth=smooth, backend="torch")
            assert got.corpus_score(hyps, refs).score == expected
            emulated = get_dialect("torchmetrics", smooth=smooth, backend="python")
            assert emulated.corpus_score(hyps, refs).score == pytest.approx(
                expected, rel=FLOAT32_ULPS)


@pytest.mark.skipif(nltk_bleu is None, reason="nltk is not installed (a test dependency)")
class TestNltkDialect:
    def expected(self, hyps, refs, method="method0", weights=(0.25,) * 4, **params):
        smoother = getattr(nltk_bleu.SmoothingFunction(**params), method)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return nltk_bleu.corpus_bleu([[r.split() for r in seg] for seg in zip(*refs)],
                                              [h.split() for h in hyps], weights, smoother)

    @settings(max_examples=100, deadline=None)
    @given(data=corpus(), method=st.sampled_from([f"method{i}" for i in range(8)]))
    def test_generated(self, data, method):
        hyps, refs = data
        try:
            expected = self.expected(hyps, refs, method)
        except (AssertionError, ZeroDivisionError, ValueError, IndexError) as error:
            with pytest.raises(type(error)), warnings.catch_warnings():
                warnings.simplefilter("ignore")
                get_dialect("nltk", smoothing=method).corpus_score(hyps, refs)
            return
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            got = get_dialect("nltk", smoothing=method).corpus_score(hyps, refs)
        assert got.score == expected

    @needs_wmt21
    def test_wmt21_sample(self):
        hyps, refs = _wmt_sample("cs-en", 250, seed=3)
        for method in ("method1", "method3", "method7"):
            got = get_dialect("nltk", smoothing=method, weights=(0.5, 0.5)).corpus_score(hyps, refs)
            assert got.score == self.expected(hyps, refs, method, (0.5, 0.5))
