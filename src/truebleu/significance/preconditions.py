"""What every resampling test checks before it starts: that it can mean something, and that it fits.

- **Power.** Resampling fewer than two segments draws the same corpus every time:
  every bootstrap sample (or randomization trial) equals the observed one, a
  confidence interval has width 0 and a paired test reports the smallest p-value
  it can (sacreBLEU's ``-pbs`` marks one segment ``p = 0.0010 *``). Every test
  refuses such an input with one line (:func:`require_segments`); the report
  says instead that it has no intervals or tests.
- **Resources.** Each test's :class:`~truebleu.core.resources.Cost` (memory held
  at once, rows resampled) is estimated from its sizes alone, before any
  statistic is computed, and checked against the limits of
  :mod:`truebleu.core.resources` with the option that drives it: an API
  argument (``n_samples``) here, a flag (``--n-samples``) when a command checks
  its own options first.

The memory estimates count what grows with the samples (see each function);
they are lower bounds of the true peak, close enough to refuse what cannot fit
and never to refuse what can.
"""

from __future__ import annotations

from ..core.resources import Cost, check_cost
from .resampling import BLOCK_BYTES, CHUNK

__all__ = ["DEFAULT_SAMPLES", "MIN_SEGMENTS", "check_samples", "require_segments", "bootstrap_cost",
           "randomization_cost",
           "comparison_cost", "paired_cells_cost", "check_test", "activity"]

#: the fewest segments a resampling test can say anything about
MIN_SEGMENTS = 2
#: sacreBLEU's numbers of samples: bootstrap resamples, randomization trials
DEFAULT_SAMPLES = {"bs": 1000, "ar": 10000}
TEST_NAMES = {"bs": "the paired bootstrap", "ar": "approximate randomization",
              "ci": "the bootstrap confidence interval", "sentence": "the segment-level bootstrap"}


def check_samples(n_samples: int, what: str = "n_samples") -> int:
    """``n_samples`` as an int >= 1, else a TypeError/ValueError naming ``what``."""
    if isinstance(n_samples, bool) or not hasattr(n_samples, "__index__"):
        raise TypeError(f"{what} must be an integer, got {n_samples!r}")
    n_samples = n_samples.__index__()
    if n_samples < 1:
        raise ValueError(f"{what} must be a positive number of samples, got {n_samples}")
    return n_samples


def require_segments(n_segments: int, what: str) -> None:
    """A one-line ValueError when ``n_segments`` is too few for ``what`` to have any power."""
    if n_segments < MIN_SEGMENTS:
        raise ValueError(
            f"{what} needs at least {MIN_SEGMENTS} segments, got {n_segments}: resampling "
            f"fewer gives the same corpus every time, so the result would say nothing")


def bootstrap_cost(n_samples: int, n_segments: int, n_systems: int) -> Cost:
    """Bootstrap samples scored for ``n_systems`` systems at once.

    Memory: one block of draws (:data:`~.resampling.BLOCK_BYTES`) and, per sample,
    a float64 score per system with its copies (the table, its parts, a sorted
    column; the compiled path's Python floats take 32 bytes each) and the
    p-value's or interval's work arrays. Work: every sample draws every segment's
    row of every system.
    """
    return Cost(n_samples * (32 * n_systems + 48) + BLOCK_BYTES,
                n_samples * n_segments * n_systems)


def randomization_cost(n_trials: int, n_segments: int, n_systems: int, n_pairs: int) -> Cost:
    """Approximate randomization of ``n_pairs`` pairs among ``n_systems`` systems.

    Memory: the ``(trials, segments)`` swap mask (one byte a cell, as sacreBLEU
    keeps it; the compiled path draws the same bytes), a float copy of one chunk
    of it, and each trial's statistics. Work: every trial swaps every segment of
    every pair.
    """
    return Cost(n_trials * (n_segments + 16 * n_systems) + CHUNK * n_segments * 8,
                n_trials * n_segments * n_pairs)


def comparison_cost(test: str, n_samples: int, n_segments: int, n_systems: int) -> Cost:
    """:func:`~.multi.compare_all`'s test of every pair (its AR intervals apart)."""
    if test == "ar":
        return randomization_cost(n_samples, n_segments, n_systems,
                                  n_systems * (n_systems - 1) // 2)
    return bootstrap_cost(n_samples, n_segments, n_systems)


def paired_cells_cost(test: str, n_samples: int, n_segments: int, n_systems: int) -> Cost:
    """sacreBLEU's ``-pbs``/``-par``: every system against the baseline.

    (With a fixed seed, the default, every system is scored on the same bootstrap
    samples; with fresh entropy each pair draws its own, up to twice the rows.)
    """
    if test == "ar":
        return randomization_cost(n_samples, n_segments, n_systems, n_systems - 1)
    return bootstrap_cost(n_samples, n_segments, n_systems)


def activity(test: str, n_segments: int, n_systems: int) -> str:
    """"the paired bootstrap over 1,002 segments and 3 systems": what a message names."""
    systems = f"{n_systems} system" + ("s" if n_systems != 1 else "")
    return f"{TEST_NAMES.get(test, test)} over {n_segments:,} segments and {systems}"


def check_test(cost: Cost, option: str, value: int, test: str, n_segments: int,
               n_systems: int) -> None:
    """:func:`truebleu.core.resources.check_cost` for one test, worded for it."""
    check_cost(cost, option, value, activity(test, n_segments, n_systems),
               "trials" if test == "ar" else "samples")
