"""Shared test fixtures: where the shared WMT data lives, and the backends to test."""

from __future__ import annotations

import os
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
    reason=f"WMT21 data not found at {wmt21_dir()} (set TRUEBLEU_SHARED to the shared folder)")


def available_backends() -> list[str]:
    names = ["python"]
    try:
        import truebleu._native_backend  # noqa: F401

        names.append("native")
    except ImportError:
        pass
    return names


@pytest.fixture(params=available_backends())
def backend(request) -> str:
    return request.param
