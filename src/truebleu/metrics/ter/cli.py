"""TER's command-line flags: sacreBLEU's "TER related arguments", made a metric.

Reached through :meth:`TER.add_arguments`, :meth:`TER.check_args` and
:meth:`TER.from_args`, which import this module only when a command builds its
parser.
"""

from __future__ import annotations

from ...core.references import ReferenceStreams

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: importing typing costs about 16 M instructions
if TYPE_CHECKING:
    from typing import Any, Callable, Optional

    from ..base import MetricT


def add_arguments(parser: Any) -> None:
    """sacreBLEU's TER flags, as one argument group (the defaults replicate TERCOM)."""
    ter = parser.add_argument_group("TER related arguments (the defaults replicate TERCOM)")
    ter.add_argument("--ter-case-sensitive", action="store_true", help="Case-sensitive TER.")
    ter.add_argument("--ter-asian-support", action="store_true",
                     help="Special treatment of Asian characters.")
    ter.add_argument("--ter-no-punct", action="store_true", help="Remove punctuation.")
    ter.add_argument("--ter-normalized", action="store_true",
                     help="Basic normalization and tokenization.")


def check_args(args: Any) -> None:
    """Nothing to check: every combination of TER's flags is valid."""


def from_args(metric: Callable[..., MetricT], args: Any,
              references: Optional[ReferenceStreams]) -> MetricT:
    """``metric`` (TER or a subclass) of the parsed flags, with ``references`` prepared
    once, on the kernel of ``--backend`` with ``--threads`` workers."""
    return metric(normalized=args.ter_normalized, no_punct=args.ter_no_punct,
                  asian_support=args.ter_asian_support, case_sensitive=args.ter_case_sensitive,
                  references=references, backend=args.backend, threads=args.threads)
