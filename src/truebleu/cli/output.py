"""Where a command's output goes: standard output as UTF-8, and how messages look.

Scores are written as UTF-8 with ``\\n`` newlines whatever the locale, and
sentence-level lines as they are made (the output is never held whole).
Messages go to standard error through :mod:`truebleu.core.log`: prefixed
``truebleu:`` unless ``-q``; ``-nc`` turns the colours off.
"""

from __future__ import annotations

import sys

from ..core.log import configure as configure_logging
from ..core.progress import set_quiet

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: imported before cli.run turns the collector off
if TYPE_CHECKING:
    from typing import Any, Iterable

#: Exit status after Ctrl-C: 128 + SIGINT, what a shell reports for a program it interrupted
#: (:mod:`.entry` turns ``KeyboardInterrupt`` into it, with one line on standard error).
EXIT_INTERRUPTED = 130


def configure_output(args: Any) -> None:
    """Colours (``--no-color``), messages and progress bars (``--quiet``) of the parsed
    scoring command."""
    set_quiet(args.quiet)
    if args.no_color:
        from ..reports.color import Color

        Color.enabled = False
    if not args.quiet:
        configure_logging(level="INFO", format="truebleu: %(message)s")  # logging.INFO


def write_output(text: str) -> None:
    """Write to standard output as UTF-8 with ``\\n`` newlines, whatever the locale."""
    buffer = getattr(sys.stdout, "buffer", None)
    if buffer is None:  # replaced by a text-only stream (tests)
        sys.stdout.write(text)
        return
    sys.stdout.flush()
    buffer.write(text.encode("utf-8"))


def write_lines(lines: Iterable[str], batch: int = 1000) -> None:
    """Write lines as they are made (``-sl``): the output is never held whole."""
    pending: list[str] = []
    for line in lines:
        pending.append(line)
        if len(pending) >= batch:
            write_output("\n".join(pending) + "\n")
            pending.clear()
    if pending:
        write_output("\n".join(pending) + "\n")
