"""chrF's command-line flags: sacreBLEU's "chrF related arguments", checked and made a metric.

Reached through :meth:`CHRF.add_arguments`, :meth:`CHRF.check_args` and
:meth:`CHRF.from_args`, which import this module only when a command builds
its parser.
"""

from __future__ import annotations

from ...core.references import ReferenceStreams

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: importing typing costs about 16 M instructions
if TYPE_CHECKING:
    from typing import Any, Callable, Optional

    from ..base import MetricT


def add_arguments(parser: Any) -> None:
    """sacreBLEU's chrF flags, as one argument group."""
    chrf = parser.add_argument_group("chrF related arguments")
    chrf.add_argument("--chrf-char-order", "-cc", type=int, default=6,
                      help="Character n-gram order (default: %(default)s).")
    chrf.add_argument("--chrf-word-order", "-cw", type=int, default=0,
                      help="Word n-gram order (default: %(default)s); 2 gives chrF++.")
    chrf.add_argument("--chrf-beta", "-cb", type=int, default=2,
                      help="Weight of recall against precision (default: %(default)s).")
    chrf.add_argument("--chrf-whitespace", action="store_true",
                      help="Include whitespace in character n-grams.")
    chrf.add_argument("--chrf-lowercase", action="store_true", help="Case-insensitive chrF.")
    chrf.add_argument("--chrf-eps-smoothing", action="store_true",
                      help="Epsilon smoothing as chrF++.py, NLTK and Moses (instead of the "
                           "effective order).")


def check_args(args: Any) -> None:
    """A ValueError naming the flags (``--chrf-char-order + --chrf-word-order``,
    ``--chrf-beta``) for settings chrF cannot use; :class:`CHRF` checks the same but
    names its parameters."""
    from ...core.settings import check_real  # here: a command that does not run chrF skips it
    from .config import BETA_LIMIT, check_orders

    check_orders(args.chrf_char_order, args.chrf_word_order,
                 char_name="--chrf-char-order", word_name="--chrf-word-order")
    check_real("--chrf-beta", args.chrf_beta, 0, BETA_LIMIT)


def from_args(metric: Callable[..., MetricT], args: Any,
              references: Optional[ReferenceStreams]) -> MetricT:
    """``metric`` (CHRF or a subclass) of the parsed flags, with ``references`` prepared once."""
    return metric(char_order=args.chrf_char_order, word_order=args.chrf_word_order,
                  beta=args.chrf_beta, lowercase=args.chrf_lowercase,
                  whitespace=args.chrf_whitespace, eps_smoothing=args.chrf_eps_smoothing,
                  references=references, backend=args.backend, threads=args.threads)
