"""Resource limits: refuse, before any work starts, an option that would exhaust the machine.

A number of samples is a user's choice, and a careless one (``--n-samples 1000000``
on a large test set) used to run for minutes and die with NumPy's ``MemoryError``,
or take gigabytes. Every command and every API function that resamples
estimates what it will cost before it starts, as a :class:`Cost`, and calls
:func:`check_cost` once with the option that drives the cost; a cost above a
limit is one :class:`ResourceLimitError` (a ``ValueError``) naming the option
(a command-line flag, or an API argument), the estimate and the limit.

Two quantities are limited, because either can run away:

- **memory** (bytes held at once): by default half of this machine's physical
  memory (or of the container's limit, when a cgroup sets a smaller one), a
  figure that does not change from run to run, so a command line that runs
  today runs tomorrow; half, because the estimates count the resampling's own
  arrays, not the inputs, the statistics and the interpreter beside them.
  Where the system does not say how much memory there is, 4 GiB.
  ``$TRUEBLEU_MAX_MEMORY`` (bytes, or with a unit: ``512M``, ``8G``) overrides it.
- **resampled rows** (the work: samples x segments x systems; each bootstrap
  sample draws every segment's row of every system, each randomization trial
  swaps them): a fixed ceiling of 10**11, about 25 minutes of NumPy resampling
  at the 7e7 rows per CPU second measured on 100,000 WMT-like segments (the
  compiled ``-pbs`` is about seven times faster). The largest WMT-style
  evaluations (20 systems, 3,000 segments, 10,000 randomization trials of every
  pair) stay below a tenth of it. ``$TRUEBLEU_MAX_RESAMPLED_ROWS`` overrides it.

Either variable set to ``none`` lifts its limit. The variables are read at each
check, so a test or a long-lived process can change them (the machine's memory
is read once).
"""

from __future__ import annotations

import os
from functools import lru_cache

from .config import FrozenFields

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: importing typing costs about 16 M instructions
if TYPE_CHECKING:
    from typing import Optional

__all__ = ["Cost", "ResourceLimitError", "check_cost", "memory_limit", "resampling_limit",
           "MEMORY_VARIABLE", "ROWS_VARIABLE", "DEFAULT_RESAMPLED_ROWS"]

MEMORY_VARIABLE = "TRUEBLEU_MAX_MEMORY"
ROWS_VARIABLE = "TRUEBLEU_MAX_RESAMPLED_ROWS"
#: the work ceiling (see the module docstring for how it was chosen)
DEFAULT_RESAMPLED_ROWS = 10 ** 11
#: the memory limit where the system does not report its memory
FALLBACK_MEMORY = 4 * 2 ** 30
_UNITS = {"": 1, "K": 2 ** 10, "M": 2 ** 20, "G": 2 ** 30, "T": 2 ** 40}
_CGROUP_LIMITS = ("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes")


class Cost(FrozenFields):
    """What a computation will take: bytes held at once, and rows resampled in all.

    Frozen, compared and hashed by its two fields (:class:`~.config.FrozenFields`: not a
    ``@dataclass``, whose import costs ``truebleu REF -i SYS... -pbs``, which checks a cost,
    about 43 M instructions).
    """

    __match_args__ = ("memory", "rows")
    memory: int
    rows: int

    def __init__(self, memory: int = 0, rows: int = 0) -> None:
        self._set(memory=memory, rows=rows)

    def __add__(self, other: Cost) -> Cost:
        """Both at once: the memory and the work add."""
        return Cost(self.memory + other.memory, self.rows + other.rows)

    def then(self, other: Cost) -> Cost:
        """One after the other: the larger memory, the work of both."""
        return Cost(max(self.memory, other.memory), self.rows + other.rows)

    def repeated(self, times: int) -> Cost:
        """The same computation ``times`` times, one after the other."""
        return Cost(self.memory, self.rows * times)


class ResourceLimitError(ValueError):
    """An option whose estimated cost is above a limit; the message is one line."""

    def __init__(self, option: str, value: int, activity: str, estimate: str, limit: str,
                 variable: str, unit: str) -> None:
        self.option, self.value = option, value
        super().__init__(
            f"{option} {value:,}: {activity} would {estimate}, more than the limit of {limit}; "
            f"use fewer {unit}, or raise the limit with ${variable} ('none' lifts it)")


@lru_cache(maxsize=1)
def _machine_memory() -> Optional[int]:
    """Physical memory in bytes, or a container's smaller limit; None where unknown.

    Read once per process: it does not change, and a server checking each request
    opens no file to check it.
    """
    try:
        total: Optional[int] = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):  # pragma: no cover - non-POSIX
        total = None
    for path in _CGROUP_LIMITS:
        try:
            with open(path, "rb") as handle:  # bytes: no codec to load for a number
                text = handle.read().strip()
        except OSError:
            continue
        if text.isdigit():  # "max": no limit
            total = int(text) if total is None else min(total, int(text))
    return total


def _read_variable(variable: str, default: int, units: bool) -> Optional[int]:
    """The limit set by ``$variable`` (None: lifted), else ``default``."""
    text = os.environ.get(variable, "").strip()
    if not text:
        return default
    if text.lower() == "none":
        return None
    unit = text[-1].upper() if units and text[-1].upper() in _UNITS else ""
    number = text[:len(text) - len(unit)].strip()
    try:
        value = float(number) * _UNITS[unit]
    except ValueError:
        value = -1.0
    if not value >= 1 or value == float("inf"):
        example = "8G, 512M, a number of bytes" if units else "5e10, a whole number"
        raise ValueError(f"${variable} must be a positive amount ({example}) or 'none', "
                         f"got {text!r}")
    return int(value)


def memory_limit() -> Optional[int]:
    """The memory a computation may hold, in bytes; None when ``$TRUEBLEU_MAX_MEMORY=none``."""
    machine = _machine_memory()
    default = FALLBACK_MEMORY if machine is None else machine // 2
    return _read_variable(MEMORY_VARIABLE, default, units=True)


def resampling_limit() -> Optional[int]:
    """The rows a computation may resample in all; None when lifted."""
    return _read_variable(ROWS_VARIABLE, DEFAULT_RESAMPLED_ROWS, units=False)


def _bytes(n: float) -> str:
    for unit in ("bytes", "kB", "MB", "GB", "TB", "PB"):
        if n < 1000 or unit == "PB":
            return f"{n:,.0f} {unit}" if unit == "bytes" else f"{n:,.1f} {unit}"
        n /= 1000
    raise AssertionError("unreachable")  # pragma: no cover


def _count(n: int) -> str:
    return f"{n:,}" if n < 10 ** 7 else f"{n:.1e}"


def check_cost(cost: Cost, option: str, value: int, activity: str, unit: str = "samples") -> None:
    """A :class:`ResourceLimitError` when ``cost`` is above a limit, else nothing.

    ``option`` names what the user set (``--n-samples``, ``n_samples``) and
    ``value`` its value; ``activity`` says what would run ("the paired bootstrap
    over 100,000 segments and 2 systems"); ``unit`` is what to ask fewer of.
    """
    memory = memory_limit()
    if memory is not None and cost.memory > memory:
        machine = "" if os.environ.get(MEMORY_VARIABLE, "").strip() else " (half this machine's)"
        raise ResourceLimitError(option, value, activity,
                                 f"need about {_bytes(cost.memory)} of memory",
                                 _bytes(memory) + machine, MEMORY_VARIABLE, unit)
    rows = resampling_limit()
    if rows is not None and cost.rows > rows:
        raise ResourceLimitError(option, value, activity,
                                 f"resample {_count(cost.rows)} rows (samples x segments x systems)",
                                 _count(rows), ROWS_VARIABLE, unit)
