"""A tiny progress bar on standard error, shown only when a person is watching.

Nothing is written when stderr is not a terminal (pipes, files, CI logs), so
redirected output stays byte-identical with sacreBLEU's.
"""

from __future__ import annotations

import sys
import time
from typing import IO, Optional


class Progress:
    """``with Progress(total, "bootstrap") as bar: bar.update(k)``."""

    def __init__(self, total: int, label: str, stream: Optional[IO[str]] = None,
                 enabled: Optional[bool] = None, width: int = 30) -> None:
        self.total = max(int(total), 1)
        self.label = label
        self.stream = sys.stderr if stream is None else stream
        if enabled is None:
            isatty = getattr(self.stream, "isatty", None)
            enabled = bool(isatty and isatty())
        self.enabled = enabled
        self.width = width
        self.done = 0
        self._last_draw = 0.0

    def update(self, step: int = 1) -> None:
        self.done = min(self.done + step, self.total)
        if not self.enabled:
            return
        now = time.monotonic()
        if self.done < self.total and now - self._last_draw < 0.1:
            return  # redraw at most ten times a second
        self._last_draw = now
        filled = self.width * self.done // self.total
        bar = "#" * filled + "-" * (self.width - filled)
        self.stream.write(f"\r{self.label} [{bar}] {self.done}/{self.total}")
        self.stream.flush()

    def __enter__(self) -> "Progress":
        return self

    def __exit__(self, *exc) -> None:
        if self.enabled and self.done:
            self.stream.write("\n")
            self.stream.flush()
