"""The ``truebleu`` command's entry point: which sub-command runs, and how the process ends.

``truebleu REF... -i HYP...`` scores (:mod:`.score`); a first argument naming a
sub-command (explain, compare, report, serve) always runs it, even when a file
of that name exists: write ``./explain`` to score a reference file called
``explain``. ``--dialect NAME`` (other than sacrebleu) scores as another tool
does (:mod:`.dialect`), with that tool's flags.

Output to a pipe that closes early (``| head``) ends quietly with status 141,
as for a program stopped by SIGPIPE, and Ctrl-C ends with one line on standard
error and status 130, as for a program stopped by SIGINT (no traceback); this
module handles both once, for every sub-command and path. The library itself
lets ``KeyboardInterrupt`` through: only the command turns it into a status.
"""

from __future__ import annotations

import gc
import io
import os
import sys

from .output import EXIT_INTERRUPTED

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: imported before cli.run turns the collector off
if TYPE_CHECKING:
    from typing import Optional, Sequence

SUBCOMMANDS = ("explain", "compare", "report", "serve")
#: the sub-commands that keep the cyclic garbage collector on (:func:`run`): a server, and
#: the viewer's page of every segment's tokens and buckets
COLLECTING = ("report", "serve")
#: Exit status after the reader of our output went away (``| head``): 128 + SIGPIPE, what a
#: shell reports for ``cat`` or ``yes`` there, so ``set -o pipefail`` scripts see the same.
EXIT_BROKEN_PIPE = 141


def main(argv: Optional[Sequence[str]] = None) -> int:
    """The ``truebleu`` command; returns the exit status.

    One place handles a closed output pipe and Ctrl-C for every sub-command and path
    (scores, ``-sl`` lines, dialects, ``compare``, ``explain``, ``report``, ``serve``,
    the test-set requests, ``--help``).
    """
    try:
        status = dispatch(list(sys.argv[1:] if argv is None else argv))
        sys.stdout.flush()
    except BrokenPipeError:
        return _stdout_closed()
    except KeyboardInterrupt:
        print("truebleu: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except SystemExit:  # argparse's --help / usage errors: flush here, not at interpreter exit
        try:
            sys.stdout.flush()
        except BrokenPipeError:
            return _stdout_closed()
        raise
    return status


def run() -> int:
    """The process: :func:`main`, then what is alive is left to the operating system.

    ``python -m truebleu`` calls this; :func:`main` is for callers that go on running.
    At exit the interpreter walks every object that is left (every module's functions and
    classes) in several collections while it takes the modules apart. Here one collection
    first frees what is already garbage, running its finalizers as at exit; then
    ``gc.freeze()`` takes what is alive out of those walks. The teardown still drops every
    module's objects by reference count (files are closed and flushed as before). Callgrind:
    about 10 M instructions fewer for any command (a 9-system ``-pbs`` run 355 M -> 345 M).

    Until then the collector is off, except in the sub-commands that run long or hold
    large object graphs (:data:`COLLECTING`): a command's imports, its parser and its work
    make almost no reference cycles, yet every 700 allocations the collector walked the
    objects made since, and its older generations every tenth time. Cycles made anyway
    are freed by the collection above. What is imported before this function runs (this
    module and :mod:`.output`) imports no typing (nor does the scoring command after it:
    :mod:`truebleu.core.typing_stubs`).
    Callgrind, whole process: ``-pbs`` on 9 systems 336.4 M -> 330.8 M, one system on
    files (121,842 lines) 807.1 M -> 803.8 M.
    """
    if not set(sys.argv[1:2]) & set(COLLECTING):
        gc.disable()
    sys.unraisablehook = _unraisable
    status = main()
    if status == EXIT_INTERRUPTED:
        _forget_caught_interrupt()
    gc.collect()
    gc.freeze()
    return status


def _forget_caught_interrupt() -> None:
    """Keep the status 130 of a Ctrl-C that :func:`main` caught under ``python -m truebleu``.

    CPython notes, in a process-wide flag, every ``KeyboardInterrupt`` that leaves code run
    from a source string (``eval``/``exec`` of text, as ``collections.namedtuple`` and
    ``dataclasses`` build their methods while a module is imported), even when it is caught
    later. ``python -m`` reads that flag after the interpreter's finalization and then kills
    the process with SIGINT: a parent saw it killed by the signal (status -2 in
    ``subprocess``) instead of the status 130 it was given, when Ctrl-C came during such an
    import (CPython 3.10-3.13). Each evaluation of a string starts by clearing the flag, so
    evaluating one here clears it. The console script ``truebleu`` ends by ``sys.exit``
    before the flag is read, and is unaffected.
    """
    eval("None")  # a constant: what counts is that a string is evaluated


def _unraisable(unraisable: sys.UnraisableHookArgs) -> None:
    """The process's ``sys.unraisablehook``: a Ctrl-C that Python could not raise is raised again.

    A signal handler runs wherever the main thread is, and a ``KeyboardInterrupt`` raised in a
    weak reference's callback or a finalizer cannot propagate: Python prints "Exception
    ignored in ..." with its traceback and goes on (an import's module-lock callback is one
    such place). ``serve`` then served on, as if Ctrl-C had not been pressed. Here that
    interrupt is delivered again, silently: ``_thread.interrupt_main`` trips SIGINT as a new
    signal would, from a thread of its own, because the handler runs at the main thread's next
    check, which here would still be inside this hook (a callback again); by the time that
    thread has the GIL, the main thread is back in ordinary code (were it in another callback,
    this hook would deliver it once more). Anything else is reported as Python reports it.
    """
    if issubclass(unraisable.exc_type, KeyboardInterrupt):
        import _thread

        _thread.start_new_thread(_thread.interrupt_main, ())
        return
    sys.__unraisablehook__(unraisable)


def explain_command() -> int:
    """The ``truebleu-explain`` command: ``truebleu explain``, with the same output handling."""
    sys.unraisablehook = _unraisable
    return main(["explain", *sys.argv[1:]])


def dispatch(argv: list[str]) -> int:
    """Run the sub-command that ``argv`` asks for; its exit status."""
    if argv and argv[0] in SUBCOMMANDS:  # always the sub-command; ./explain is a file
        if argv[0] in ("report", "serve"):
            from .viewer import main as viewer_main

            return viewer_main(argv)
        if argv[0] == "explain":
            from .explain import main as explain_main

            return explain_main(argv[1:])
        from .compare import main as compare_main

        return compare_main(argv[1:])
    if _names_a_dialect(argv):
        from .dialect import requested_dialect

        if requested_dialect(argv) not in (None, "sacrebleu"):
            # each tool's own flags (-c, --brevity-penalty, ...) are parsed there
            from .dialect import main as dialect_main

            return dialect_main(argv)
    from .score import main as score_main

    return score_main(argv)


def _names_a_dialect(argv: Sequence[str]) -> bool:
    """Whether ``argv`` may ask for a dialect: the dialects are loaded only then."""
    return any(arg == "--dialect" or arg.startswith("--dialect=") for arg in argv)


def _stdout_closed() -> int:
    """Point standard output at /dev/null so that the interpreter's final flush stays quiet."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError, io.UnsupportedOperation):
        pass
    return EXIT_BROKEN_PIPE


if __name__ == "__main__":
    sys.exit(main())
