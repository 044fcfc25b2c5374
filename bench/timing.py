"""What the benchmarks share about times (``python bench/X.py`` puts this folder on
``sys.path``, so a script imports it as ``from timing import best_of``): the best-of-N timer
of the in-process benches, one child process's own wall and CPU time (``run_child``), and the
median and best of N runs that the tables print."""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import tempfile
import time
from typing import Any, Callable, Optional, Sequence


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


class ChildRun:
    """One finished child: wall and CPU seconds (user + system), exit code, stdout, stderr."""

    def __init__(self, wall_s: float, cpu_s: float, exit_code: int, stdout: bytes,
                 stderr: bytes) -> None:
        self.wall_s, self.cpu_s, self.exit_code = wall_s, cpu_s, exit_code
        self.stdout, self.stderr = stdout, stderr


def run_child(argv: Sequence[str], env: Optional[dict[str, str]] = None,
              preexec_fn: Optional[Callable[[], None]] = None) -> ChildRun:
    """Run ``argv`` to its end and return its wall time and the CPU time of that one child.

    The CPU time is the child's own resource usage, from ``os.wait4`` on its pid: the growth
    of this process's ``RUSAGE_CHILDREN`` totals around the run would also count any other
    child reaped meanwhile (a ``Popen`` dropped earlier is reaped by the next one). Its output
    goes to files, not pipes, so that a long output cannot block the child before it ends.
    ``preexec_fn`` as ``subprocess.Popen``'s (e.g. pinning to a core)."""
    with tempfile.TemporaryFile() as output, tempfile.TemporaryFile() as errors:
        start = time.perf_counter()
        child = subprocess.Popen(list(argv), stdout=output, stderr=errors, env=env,
                                 preexec_fn=preexec_fn)
        _, status, usage = os.wait4(child.pid, 0)
        wall = time.perf_counter() - start
        child.returncode = os.waitstatus_to_exitcode(status)  # reaped here, not by Popen
        output.seek(0)
        errors.seek(0)
        return ChildRun(wall, usage.ru_utime + usage.ru_stime, child.returncode,
                        output.read(), errors.read())


#: what the ratio columns of a table divide: each tool's median run (the default) or its best
RATIO_BASES = ("median", "best")


def spread(times: Sequence[float], name: str = "") -> dict[str, float]:
    """The median and the best (minimum) of a tool's runs, as ``{name}median_s`` and
    ``{name}best_s``. On a busy machine the median moves between runs of the bench (15-25%
    here); printed beside it, the best shows how far the median is from an undisturbed run."""
    return {f"{name}median_s": statistics.median(times), f"{name}best_s": min(times)}


def with_spread(result: dict) -> dict:
    """A measurement (a worker's JSON: ``times``, and ``cpu`` where CPU time is measured) with
    the spread of each: ``median_s``, ``best_s``, ``cpu_median_s``, ``cpu_best_s``."""
    result = {**result, **spread(result["times"])}
    if "cpu" in result:
        result.update(spread(result["cpu"], "cpu_"))
    return result


def add_ratio_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--ratios", choices=RATIO_BASES, default="median",
                        help="the time each ratio divides: every tool's median run (default) "
                             "or its best run")


def times_note(ratios: str, runs: str) -> str:
    """The line under a table that says which times it shows and which ones the ratios use."""
    return (f"Times: the median and the best (fastest) of {runs}; ratios of "
            + ("medians (--ratios best: of best runs)." if ratios == "median" else "best runs."))
