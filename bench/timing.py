"""The best-of-N timer the in-process benchmarks share (``python bench/X.py`` puts this folder
on ``sys.path``, so a script imports it as ``from timing import best_of``)."""

from __future__ import annotations

import time
from typing import Any, Callable, Optional


def best_of(fn: Callable[[], Any], repeat: int,
            warm_up: Optional[Callable[[], Any]] = None) -> tuple[float, Any]:
    """(best wall seconds of ``repeat`` calls of ``fn``, the last call's result), after one
    untimed ``warm_up()`` call where given (the imports and first-use set-up, which each path
    pays once per process)."""
    if warm_up is not None:
        warm_up()
    best, result = float("inf"), None
    for _ in range(repeat):
        start = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - start)
    return best, result
