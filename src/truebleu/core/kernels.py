"""Which kernel computes a metric's statistics, and with how many threads.

Every metric has two kernels with the same methods and the same numbers, as
RapidFuzz has a Python and a C++ twin of each scorer: a **python** kernel, the
readable specification, always available; and a **native** kernel over the
compiled core (:mod:`truebleu._native_core`), used by default when it was
built. ``backend=`` on a metric, else ``$TRUEBLEU_BACKEND``, chooses; each
metric loads its own kernel (``metrics/<name>/kernels.py``), so a new metric
adds a kernel without touching any other.

The checks that every metric applies to ``backend`` and ``threads`` live here,
once: one rule for all.
"""

from __future__ import annotations

import os
import warnings

from .settings import is_integral
from .typing_stubs import Generic, TypeVar

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: importing typing costs about 16 M instructions
if TYPE_CHECKING:
    from typing import Any, Callable, Optional

BACKENDS = ("python", "native")
#: Far more than any machine's cores; the compiled core itself uses at most 256 threads.
MAX_THREADS = 1024

NO_CORE_WARNING = (
    "truebleu: the compiled core is not available ({reason}); using the pure-Python backend, "
    "which gives the same numbers 8-27x slower. Reinstall truebleu where a C compiler is "
    "available to build it, or set TRUEBLEU_BACKEND=python to choose the Python backend "
    "(and silence this warning).")

_core: Any = None


def native_core() -> Any:
    """The compiled core module; ImportError (saying why) when it was not built."""
    global _core
    if _core is None:
        from importlib import import_module

        try:
            _native_core = import_module("truebleu._native_core")
        except ImportError as exc:
            raise ImportError(
                "truebleu's compiled core is not available (was it built? a C compiler "
                f"is needed at install time): {exc}; the 'python' backend always is") from exc
        _core = _native_core
    return _core


def native_available() -> bool:
    """Whether the compiled core can be imported."""
    try:
        native_core()
    except ImportError:
        return False
    return True


def check_backend(name: object) -> str:
    """``name`` as one of :data:`BACKENDS` (case-insensitive), or a ValueError."""
    if not isinstance(name, str) or name.lower() not in BACKENDS:
        raise ValueError(f"unknown backend {name!r}; choose 'python' or 'native'")
    return name.lower()


def backend_name(backend: Optional[str] = None, *, stacklevel: int = 3) -> str:
    """The backend to use: ``backend``, else ``$TRUEBLEU_BACKEND``, else the best available.

    Asking for ``native`` where the core was not built is an ImportError. Falling
    back to Python because the core is missing (an install without a C compiler)
    is not silent: a RuntimeWarning says so (shown once per calling location by
    Python's default filter).
    """
    name = backend or os.environ.get("TRUEBLEU_BACKEND") or None
    if name:
        name = check_backend(name)
        if name == "native":
            native_core()
        return name
    try:
        native_core()
    except ImportError as exc:
        warnings.warn(NO_CORE_WARNING.format(reason=exc.__cause__ or exc), RuntimeWarning,
                      stacklevel=stacklevel)
        return "python"
    return "native"


K = TypeVar("K")


class KernelLoader(Generic[K]):
    """A metric's two kernels, each made once, on first use.

    ``load`` returns the kernel of a backend name; the native one is imported
    only when asked for, so a Python-only process never loads the core.
    """

    def __init__(self, python: Callable[[], K], native: Callable[[], K]) -> None:
        self._factories = {"python": python, "native": native}
        self._made: dict[str, K] = {}

    def load(self, backend: Optional[str] = None) -> K:
        name = backend_name(backend, stacklevel=4)
        kernel = self._made.get(name)
        if kernel is None:
            kernel = self._made[name] = self._factories[name]()
        return kernel


def backend_status() -> str:
    """The default backend and why, for ``truebleu --version``."""
    forced = os.environ.get("TRUEBLEU_BACKEND")
    if forced:
        return f"{backend_name()} (TRUEBLEU_BACKEND={forced})"
    try:
        native_core()
    except ImportError as exc:
        return f"python (compiled core not available: {exc.__cause__ or exc})"
    return "native"


def active_backend() -> str:
    """Name of the backend used by default in this process."""
    return backend_name()


def release_scratch() -> int:
    """Frees the scratch memory the compiled core keeps between calls; the bytes freed.

    Each kind of job (BLEU's and chrF's workers, BLEU's grouping of items by their
    references, the gathering of strings) keeps up to four scratches of at most 4 MiB
    between calls, so that a training loop's small calls do not allocate and zero
    their tables again each time. A long-lived process that scored one large corpus
    may call this to give that memory back; the next call allocates afresh, with the
    same numbers. A call running on another thread keeps its scratch until it ends.
    0 when the compiled core is not available (nothing is kept then).
    """
    if not native_available():
        return 0
    return int(native_core().release_scratch())


def check_threads(threads: object, name: str = "threads") -> Optional[int]:
    """``threads`` as None (the available cores) or an int in 1..MAX_THREADS: every metric's rule."""
    if threads is None:
        return None
    if isinstance(threads, bool) or not is_integral(threads):
        raise TypeError(f"{name} must be an int or None, got {type(threads).__name__}")
    count = int(threads)
    if not 1 <= count <= MAX_THREADS:
        raise ValueError(f"{name} must be between 1 and {MAX_THREADS}, got {threads}")
    return count


def default_threads() -> int:
    """The number of cores this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def thread_count(threads: object) -> int:
    """The checked thread count for a kernel call; None means the available cores."""
    checked = check_threads(threads)
    return default_threads() if checked is None else checked
