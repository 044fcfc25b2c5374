"""An install without the compiled core says so (issue 11 item 15, last part)."""

from __future__ import annotations

import sys
import warnings

import pytest

from truebleu.core import kernels as core_kernels
from truebleu.metrics.bleu.kernels import kernels


@pytest.fixture
def no_core(monkeypatch):
    """As if the extension had not been built: importing it fails."""
    monkeypatch.setitem(sys.modules, "truebleu.metrics.bleu.native", None)
    monkeypatch.setitem(sys.modules, "truebleu._native_core", None)
    monkeypatch.setattr(core_kernels, "_core", None)
    monkeypatch.delenv("TRUEBLEU_BACKEND", raising=False)


def test_falling_back_to_python_warns(no_core):
    with pytest.warns(RuntimeWarning, match="compiled core is not available.*pure-Python"):
        assert kernels.load().name == "python"


def test_choosing_python_does_not_warn(no_core, monkeypatch):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert kernels.load("python").name == "python"
        monkeypatch.setenv("TRUEBLEU_BACKEND", "python")
        assert kernels.load().name == "python"


def test_the_scores_still_come_and_version_says_why(no_core, capsys):
    import truebleu
    from truebleu.cli.version import version_text

    with pytest.warns(RuntimeWarning):
        got = truebleu.corpus_bleu(["a b c d", "e f"], [["a b c d", "e g"]])
    import sacrebleu

    assert got.score == sacrebleu.corpus_bleu(["a b c d", "e f"], [["a b c d", "e g"]]).score
    assert "(backend: python (compiled core not available: " in version_text()


def test_version_names_the_native_backend():
    pytest.importorskip("truebleu._native_core")
    from truebleu.cli.version import version_text

    first = version_text().splitlines()[0]
    assert first.endswith("(backend: native)") or "TRUEBLEU_BACKEND" in first
