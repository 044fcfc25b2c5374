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
import os

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: importing typing costs about 16 M instructions
if TYPE_CHECKING:
    from typing import Any

#: The width of the formatter that only checks metavars (it formats no line, so any width).
_CHECK_WIDTH = 80


class CommandParser(argparse.ArgumentParser):
    """An ``ArgumentParser`` whose ``add_argument`` makes no formatter of its own per argument,
    and whose construction looks for no message catalog that cannot exist."""

    _checking = False
    _check_formatter: argparse.HelpFormatter | None = None

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        translate = getattr(argparse, "_", None)
        if translate is None or _catalogs_possible():
            super().__init__(*args, **kwargs)
            return
        argparse._ = str  # type: ignore[attr-defined]  # the titles as gettext leaves them
        try:
            super().__init__(*args, **kwargs)
        finally:
            argparse._ = translate  # type: ignore[attr-defined]

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


def _catalogs_possible() -> bool:
    """Whether ``gettext.gettext`` could translate argparse's messages in this process.

    ``ArgumentParser()`` passes three titles through ``gettext.gettext`` (domain
    ``messages``), which on every call looks for ``<localedir>/<language>/LC_MESSAGES/
    messages.mo`` over the languages of ``$LANGUAGE``/``$LC_ALL``/``$LC_MESSAGES``/``$LANG``,
    importing ``locale`` to normalise their names, and returns the message itself when
    there is none. With the domain and its folder as gettext starts them (no
    ``textdomain``/``bindtextdomain`` call) and that folder absent (Python builds that
    install no catalogs: pyenv, python.org), there can be none: the titles are the messages
    themselves. Callgrind, whole process, ``-pbs`` on 9 systems: see the commit.
    """
    import gettext

    state = vars(gettext)  # (private names: any that is missing counts as a possible catalog)
    domain, folders = state.get("_current_domain"), state.get("_localedirs")
    folder = state.get("_default_localedir")
    if domain != "messages" or not isinstance(folders, dict) or folders.get("messages") is not None:
        return True
    return not isinstance(folder, str) or os.path.isdir(folder)
