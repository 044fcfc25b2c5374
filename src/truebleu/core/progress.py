"""Progress of long work (resampling, reports, downloads) on standard error, drawn by tqdm.

A bar is drawn only when a person is watching: standard error is a terminal
and the command was not asked to be quiet (``-q``: :func:`set_quiet`). Pipes,
files and CI logs get nothing, so redirected output stays byte-identical with
sacreBLEU's. Bars are transient (``leave=False``): once the work is done the
line is cleared, and the terminal keeps only the results and the messages.

tqdm is imported only when a bar is drawn (it costs tens of milliseconds of
start-up), and a missing tqdm draws no bar rather than failing the work.
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: imported before cli.run turns the collector off
if TYPE_CHECKING:
    from typing import IO, Any, Optional

__all__ = ["Progress", "set_quiet", "is_quiet"]

_quiet = False


def set_quiet(quiet: bool = True) -> None:
    """No bars in this process (the command line's ``-q``), or bars again."""
    global _quiet
    _quiet = bool(quiet)


def is_quiet() -> bool:
    return _quiet


def _is_terminal(stream: IO[str]) -> bool:
    isatty = getattr(stream, "isatty", None)
    try:
        return bool(isatty and isatty())
    except ValueError:  # a closed stream
        return False


class Progress:
    """``with Progress(total, "paired bootstrap", unit="samples") as bar: bar.update(k)``.

    ``total`` may be None (unknown, e.g. a download without a length);
    ``in_bytes`` counts bytes and shows them in KiB/MiB. ``enabled`` forces the
    bar on or off (default: a terminal, and not quiet).
    """

    def __init__(self, total: Optional[int], label: str, unit: str = "it", *,
                 in_bytes: bool = False, stream: Optional[IO[str]] = None,
                 enabled: Optional[bool] = None) -> None:
        self.total, self.label = total, label
        self.done = 0
        stream = sys.stderr if stream is None else stream
        if enabled is None:
            enabled = not _quiet and _is_terminal(stream)
        self._bar: Any = None
        if enabled:
            try:
                from tqdm import tqdm  # type: ignore[import-untyped]
            except ImportError:  # pragma: no cover - tqdm is a dependency
                return
            options: dict[str, Any] = (
                {"unit": "B", "unit_scale": True, "unit_divisor": 1024} if in_bytes else {"unit": unit})
            self._bar = tqdm(total=total, desc=label, file=stream, leave=False,
                             dynamic_ncols=True, mininterval=0.1, **options)

    @property
    def enabled(self) -> bool:
        """Whether a bar is drawn."""
        return self._bar is not None

    def update(self, step: int = 1) -> None:
        self.done += step
        if self._bar is not None:
            self._bar.update(step)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
