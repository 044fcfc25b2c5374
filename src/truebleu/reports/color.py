"""Terminal colours, only where a person is looking.

sacreBLEU colours through colorama, which strips the codes when standard
output is not a terminal; truebleu writes them only to a terminal, and never
with ``NO_COLOR`` set or ``--no-color``.
"""

from __future__ import annotations

import os
import sys

_CODES = {"red": "\033[31m", "green": "\033[32m", "yellow": "\033[33m", "cyan": "\033[36m"}
_RESET = "\033[0m"


class Color:
    enabled: bool | None = None  # None: decide from the terminal

    @classmethod
    def active(cls) -> bool:
        if cls.enabled is not None:
            return cls.enabled
        return not os.environ.get("NO_COLOR") and sys.stdout.isatty()

    @classmethod
    def format(cls, text: str, color: str) -> str:
        if not cls.active() or color not in _CODES:
            return text
        return f"{_CODES[color]}{text}{_RESET}"
