"""The scoring command's ``ArgumentParser``: it asks for the terminal's width only to print help.

``argparse`` checks each new argument's metavar by formatting it with a fresh help formatter
(``add_argument`` calls ``_get_formatter()._format_args``), and every formatter asks for the
terminal's width when it is made: ``import shutil`` (with ``fnmatch`` and ``bz2``) and a
``get_terminal_size`` per argument, for a width nothing reads. Here that check gets one
formatter of a fixed width, made once; help, usage and error messages still get argparse's
own formatter, made when they are printed (the same text, byte for byte). Callgrind, whole
process, ``-pbs`` on 9 systems: see the commit that added this module.
"""

from __future__ import annotations

import argparse

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: importing typing costs about 16 M instructions
if TYPE_CHECKING:
    from typing import Any

#: The width of the formatter that only checks metavars (it formats no line, so any width).
_CHECK_WIDTH = 80


class CommandParser(argparse.ArgumentParser):
    """An ``ArgumentParser`` whose ``add_argument`` makes no formatter of its own per argument."""

    _checking = False
    _check_formatter: argparse.HelpFormatter | None = None

    def add_argument(self, *args: Any, **kwargs: Any) -> argparse.Action:
        self._checking = True
        try:
            return super().add_argument(*args, **kwargs)
        finally:
            self._checking = False

    def _get_formatter(self) -> argparse.HelpFormatter:
        if not self._checking:
            return super()._get_formatter()
        if self._check_formatter is None:  # _format_args reads the action only: one serves all
            self._check_formatter = self.formatter_class(  # type: ignore[call-arg]
                prog=self.prog, width=_CHECK_WIDTH)  # (every HelpFormatter takes a width)
        return self._check_formatter
