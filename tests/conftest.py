"""Shared test fixtures: where the shared WMT data lives, and the backends (and the page's
deflaters) to test."""

from __future__ import annotations

import os
import zlib
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def shared_dir() -> Path:
    """``../shared`` beside the checkout, or ``$TRUEBLEU_SHARED``."""
    return Path(os.environ.get("TRUEBLEU_SHARED", REPO.parent / "shared"))


def wmt21_dir() -> Path:
    return shared_dir() / "data" / "wmt21"


needs_wmt21 = pytest.mark.skipif(
    not (wmt21_dir() / "system-outputs").is_dir(),
    reason=f"WMT21 data not found at {wmt21_dir()}: set TRUEBLEU_SHARED to the shared folder "
           "(CONTRIBUTING.md says where its data comes from)")


def available_backends() -> list[str]:
    names = ["python"]
    try:
        import truebleu.metrics.bleu.native  # noqa: F401

        names.append("native")
    except ImportError:
        pass
    return names


@pytest.fixture(params=available_backends())
def backend(request) -> str:
    return request.param


@pytest.fixture(params=["zlib", "isal"])
def deflater(request, monkeypatch):
    """The report page's stream made by each deflater (``viewer.parallel_gzip.DEFLATER``):
    zlib's, and ISA-L's where the ``isal`` extra is installed (the test extra installs it)."""
    from truebleu.viewer import parallel_gzip

    if request.param == "isal":
        module = pytest.importorskip("isal.isal_zlib", reason="the isal extra is not installed")
    else:
        module = zlib
    monkeypatch.setattr(parallel_gzip, "DEFLATER", module)
    return module


# --- CI: a skipped oracle is a failure -------------------------------------------------------
# A test skips with a reason when an optional tool or data is missing, which is right on a
# plain clone. In CI everything is installed, so a skip there means an install step is
# missing and the oracle silently did not run: with TRUEBLEU_NO_SKIP=1 the run fails instead,
# except for the skips listed here, which are expected on every machine.
EXPECTED_SKIPS: tuple[str, ...] = ()
_skipped: list[tuple[str, str]] = []


def pytest_runtest_logreport(report):
    if report.skipped and os.environ.get("TRUEBLEU_NO_SKIP") == "1":
        reason = str(report.longrepr[-1]) if isinstance(report.longrepr, tuple) else str(report.longrepr)
        if not any(expected in reason for expected in EXPECTED_SKIPS):
            _skipped.append((report.nodeid, reason))


def pytest_sessionfinish(session, exitstatus):
    if _skipped and exitstatus == 0:
        session.exitstatus = 1


def pytest_terminal_summary(terminalreporter):
    if _skipped:
        terminalreporter.section("TRUEBLEU_NO_SKIP=1: skipped tests count as failures")
        for nodeid, reason in _skipped:
            terminalreporter.line(f"{nodeid}: {reason}")
