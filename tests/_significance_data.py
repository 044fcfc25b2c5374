"""Shared fixtures for the significance tests: where the WMT21 data lives."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import shared_dir  # noqa: E402

SHARED = shared_dir()
WMT21 = SHARED / "data" / "wmt21"
REFERENCE = WMT21 / "references" / "newstest2021.en-de.ref.A.de"


def system_path(name: str) -> Path:
    return WMT21 / "system-outputs" / f"newstest2021.en-de.hyp.{name}.de"


def all_system_paths() -> list[Path]:
    return sorted((WMT21 / "system-outputs").glob("newstest2021.en-de.hyp.*.de"))


needs_wmt21 = pytest.mark.skipif(
    not REFERENCE.is_file(),
    reason=f"WMT21 en-de data not found at {WMT21} (set TRUEBLEU_SHARED to the shared folder)")


def bleu_stats(n_segments: int, seed: int, order: int = 4, shortest: int = 0):
    """A plausible BLEU statistics matrix (lengths >= ``shortest``, matches <= totals)."""
    import numpy as np

    rng = np.random.default_rng(seed)
    hyp = rng.integers(shortest, 40, size=n_segments)
    ref = np.maximum(hyp + rng.integers(-5, 6, size=n_segments), shortest)
    totals = [np.maximum(hyp - k, 0) for k in range(order)]
    matches = [t - rng.integers(0, 12, size=n_segments).clip(max=t) for t in totals]
    return np.column_stack([hyp, ref, *matches, *totals]).astype(np.int64)
