"""What the tests of truebleu.hf share: offline settings, the hub oracles, outcomes to compare.

The oracles are the hub scripts of Hugging Face ``evaluate`` stored in
``../shared/oracles/evaluate`` (see its README); ``evaluate.load`` of a local script
needs no hub. Tests skip, with the reason, where they are absent.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest

from conftest import shared_dir

ORACLES = shared_dir() / "oracles" / "evaluate"
NAMES = ("sacrebleu", "bleu", "chrf", "ter")

needs_oracles = pytest.mark.skipif(
    not all((ORACLES / name / f"{name}.py").is_file() for name in NAMES),
    reason=f"the hub scripts of evaluate are not at {ORACLES} (set TRUEBLEU_SHARED to the shared folder)")

OFFLINE = {"HF_HUB_OFFLINE": "1", "HF_EVALUATE_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1"}


@pytest.fixture
def offline(monkeypatch, tmp_path) -> Path:
    """No hub, and Hugging Face's caches inside ``tmp_path`` (returned: the modules' cache_dir)."""
    for key, value in OFFLINE.items():
        monkeypatch.setenv(key, value)
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf-home"))
    return tmp_path / "metrics-cache"


def hub_module(name: str, cache_dir: Path, **kwargs: Any) -> Any:
    """The hub module ``name``, loaded from the oracle folder. (Its cache files apart from
    truebleu's: a module of the same name would wait a second for the other's lock.)"""
    import evaluate

    return evaluate.load(str(ORACLES / name / f"{name}.py"), cache_dir=str(cache_dir / "hub"),
                         **kwargs)


def our_module(name: str, cache_dir: Path, **kwargs: Any) -> Any:
    import truebleu.hf

    return truebleu.hf.load(name, cache_dir=str(cache_dir / "truebleu"), **kwargs)


def outcome(call) -> tuple:
    """``("ok", result with the type of every value)`` or ``("error", exception)``."""
    try:
        result = call()
    except Exception as exc:  # noqa: BLE001 - compared by the caller
        return ("error", exc)
    return ("ok", typed(result))


def typed(value: Any) -> Any:
    """``value`` with the type of every number beside it, so that 1 != 1.0 and NaN == NaN,
    and a dict as its items in order (the same keys in the same order)."""
    if isinstance(value, dict):
        return ("dict", [(key, typed(item)) for key, item in value.items()])
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, [typed(item) for item in value])
    if isinstance(value, float) and math.isnan(value):
        return ("float", "nan")
    return (type(value).__name__, value)


def assert_same_outcome(ours: tuple, hub: tuple) -> None:
    """Equal dicts (keys, value types, values), or both raise."""
    if hub[0] == "error":
        assert ours[0] == "error", f"the hub module raises {hub[1]!r}, truebleu's returns {ours[1]}"
        return
    assert ours[0] == "ok", f"truebleu's module raises {ours[1]!r}, the hub's returns {hub[1]}"
    assert ours[1] == hub[1]
