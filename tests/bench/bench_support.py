"""The benchmark scripts as modules: ``bench/`` on ``sys.path``, as ``python bench/X.py`` has it
(the scripts import their shared helpers, ``timing`` and ``peak_memory``, by name)."""

from __future__ import annotations

import importlib
import sys
from types import ModuleType

from conftest import REPO

BENCH = REPO / "bench"


def bench_module(name: str) -> ModuleType:
    if str(BENCH) not in sys.path:
        sys.path.insert(0, str(BENCH))
    return importlib.import_module(name)
