"""Flags that more than one command takes, each defined once, with their checks.

A command assembles its parser from these builders and its own flags, so that a
shared flag has the same spelling, help, default and choices everywhere:

- inputs: ``--encoding``, ``--language-pair``, ``--wmt-xml``, ``--max-line-length``;
- metrics: ``-m`` with the names of :data:`truebleu.metrics.METRICS` (the scoring
  command's and ``compare``'s), and the
  flags of every registered metric (its ``add_arguments``), checked by its
  ``check_args`` and turned into the metric by its ``from_args``;
- running: ``--backend`` and ``--threads``;
- reporting: the scoring command's ``-q -sh -b -w -nc -f`` (with ``--backend``
  and ``--threads``) and ``--version``.

A builder takes the parser or argument group to add to; the order of the calls
is the order of the usage line and of ``--help``.
"""

from __future__ import annotations

from ..core.kernels import check_threads as check_thread_count
from ..io import DEFAULT_MAX_LINE_LENGTH
from ..metrics import METRICS

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: importing typing costs about 16 M instructions
if TYPE_CHECKING:
    from argparse import ArgumentParser, Namespace, _ArgumentGroup
    from typing import Any, Callable, Iterable, Mapping, Optional

    from ..metrics.base import Metric

    Parser = ArgumentParser | _ArgumentGroup

#: the scoring command's output formats (``-f``; ``$SACREBLEU_FORMAT`` too)
OUTPUT_FORMATS = ("json", "text", "latex")

__all__ = ["OUTPUT_FORMATS", "UsageError", "add_backend_argument",
           "add_encoding_argument", "add_language_pair_argument", "add_max_line_length_argument",
           "add_metric_flags", "add_metrics_option",
           "add_reporting_arguments", "add_threads_argument", "add_version_argument",
           "add_wmt_xml_arguments", "check_max_line_length", "check_metric_flags",
           "check_threads", "make_metric", "make_metrics"]


class UsageError(Exception):
    """A command line that cannot be run; exit status 1, as sacreBLEU."""


# -- inputs -------------------------------------------------------------------------

def add_encoding_argument(parser: Parser) -> None:
    """``--encoding/-e``: the encoding of the input files."""
    parser.add_argument("--encoding", "-e", type=str, default="utf-8",
                        help="Encoding of the input files (default: %(default)s).")


def add_language_pair_argument(parser: Parser) -> None:
    """``--language-pair/-l``: its target language picks BLEU's default tokenizer."""
    parser.add_argument("--language-pair", "-l", dest="langpair", default=None,
                        help="Source-target language pair; the target picks the tokenizer.")


def add_wmt_xml_arguments(group: Parser, help_text: str) -> None:
    """``--wmt-xml FILE`` with its choice of references and systems (scoring and the viewer)."""
    group.add_argument("--wmt-xml", default=None, metavar="FILE", help=help_text)
    group.add_argument("--wmt-ref", nargs="+", default=None, metavar="TRANSLATOR",
                       help="With --wmt-xml: only these references (default: all).")
    group.add_argument("--wmt-system", nargs="+", default=None, metavar="NAME",
                       help="With --wmt-xml: only these systems (default: all).")


def add_max_line_length_argument(group: Parser) -> None:
    """``--max-line-length N``: the longest line any reader accepts (memory stays bounded)."""
    group.add_argument("--max-line-length", type=int, default=DEFAULT_MAX_LINE_LENGTH,
                       metavar="N", help="Longest line accepted, in characters; a longer line is "
                                         "an error naming file and line (default: %(default)s).")


def check_max_line_length(value: int) -> None:
    """A ValueError, which every sub-command reports as one line."""
    if value < 1:
        raise ValueError(f"--max-line-length must be >= 1, got {value}")


# -- metrics ------------------------------------------------------------------------

def add_metrics_option(parser: Parser) -> None:
    """The scoring command's ``--metrics/-m NAME [NAME ...]`` (sacreBLEU's flag), from
    the registered metrics."""
    parser.add_argument("--metrics", "-m", nargs="+", default=["bleu"], choices=list(METRICS),
                        type=str.lower, help="Metrics to compute (default: bleu).")


def add_metric_flags(parser: ArgumentParser,
                     after: Optional[Mapping[str, Callable[[ArgumentParser], None]]] = None
                     ) -> None:
    """Every registered metric's own flags (its ``add_arguments``), in the registry's order.

    ``after[name](parser)``, if given, adds a command's own flag right after metric
    ``name``'s flags, where that command's usage line has always shown it.
    """
    after = after or {}
    for name in METRICS:
        METRICS.command_line(name).add_arguments(parser)  # loads no metric not yet loaded
        if name in after:
            after[name](parser)


def check_metric_flags(args: Namespace, names: Iterable[str]) -> None:
    """The flags of the metrics ``names`` (those that will run; the flags of the
    others stay unchecked, as in sacreBLEU), checked in the registry's order, with
    errors naming the flag (``--smooth-value``), not the metric's Python parameter."""
    chosen = set(names)
    try:
        for name in METRICS:
            if name in chosen:
                METRICS.command_line(name).check_args(args)
    except ValueError as exc:
        raise UsageError(str(exc)) from None


def make_metric(name: str, args: Namespace, references: Optional[Any]) -> Metric:
    """The registered metric ``name`` of the parsed flags, holding ``references``
    (prepared once; None: references are given with each call)."""
    return METRICS[name].from_args(args, references)


def make_metrics(args: Namespace, references: Optional[Any]) -> dict[str, Metric]:
    """The metric objects of ``-m``, by sacreBLEU's names (BLEU, CHRF, TER, ...), in ``-m``
    order (a name given twice once), each holding ``references`` (prepared once)."""
    metrics = {}
    for name in args.metrics:
        if name.upper() not in metrics:
            metrics[name.upper()] = make_metric(name, args, references)
    return metrics


# -- running ------------------------------------------------------------------------

def add_backend_argument(group: Parser) -> None:
    """``--backend native|python``: which kernel computes the statistics."""
    group.add_argument("--backend", choices=("native", "python"), default=None,
                       help="Statistics backend (default: native when built).")


def add_threads_argument(group: Parser) -> None:
    """``--threads N``: worker threads of the native kernel."""
    group.add_argument("--threads", type=int, default=None,
                       help="Worker threads of the native backend (default: all cores).")


def check_threads(threads: Optional[int]) -> None:
    """A UsageError naming ``--threads`` when it is outside 1..1024 (every metric's rule)."""
    try:
        check_thread_count(threads, "--threads")
    except ValueError as exc:
        raise UsageError(str(exc)) from None


# -- reporting ----------------------------------------------------------------------

def add_reporting_arguments(parser: ArgumentParser) -> None:
    """sacreBLEU's "Reporting related arguments", with truebleu's ``--backend`` and
    ``--threads`` (the scoring command)."""
    report = parser.add_argument_group("Reporting related arguments")
    report.add_argument("--quiet", "-q", action="store_true", help="Suppress verbose messages.")
    report.add_argument("--short", "-sh", action="store_true", help="Shorter signature.")
    report.add_argument("--score-only", "-b", action="store_true", help="Print only the score.")
    report.add_argument("--width", "-w", type=int, default=1,
                        help="Floating point width (default: %(default)s).")
    report.add_argument("--no-color", "-nc", action="store_true", help="No terminal colours.")
    report.add_argument("--format", "-f", default="json", choices=OUTPUT_FORMATS,
                        help="Output format (default: %(default)s; $SACREBLEU_FORMAT overrides).")
    add_backend_argument(report)
    add_threads_argument(report)


def add_version_argument(parser: ArgumentParser) -> None:
    """``--version/-V``: truebleu's version, backend, build and features (``cli/version.py``)."""
    from .version import VersionAction

    parser.add_argument("--version", "-V", action=VersionAction,
                        help="Print the version, the backend, the build and the optional features.")
