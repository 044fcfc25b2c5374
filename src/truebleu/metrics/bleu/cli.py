"""BLEU's command-line flags: sacreBLEU's "BLEU related arguments", checked and made a metric.

The command line (:mod:`truebleu.cli`) reaches these through the classmethods
:meth:`BLEU.add_arguments`, :meth:`BLEU.check_args` and :meth:`BLEU.from_args`,
which import this module only when a command builds its parser: importing
:class:`~truebleu.metrics.bleu.BLEU` loads no argument-parsing code. The
functions take the parser and the parsed namespace from the command and import
no :mod:`argparse` themselves (only the command line parses arguments).
"""

from __future__ import annotations

from ...core.references import ReferenceStreams
from ...tokenizers import TOKENIZERS, target_language
from .config import MAX_NGRAM_ORDER, SMOOTH_DEFAULTS, check_order, check_smoothing

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: importing typing costs about 16 M instructions
if TYPE_CHECKING:
    from typing import Any, Callable, Optional

    from ..base import MetricT


def add_arguments(parser: Any) -> None:
    """sacreBLEU's BLEU flags, as one argument group (scoring, ``compare``, ``report``, ``serve``)."""
    bleu = parser.add_argument_group("BLEU related arguments")
    bleu.add_argument("--smooth-method", "-s", choices=list(SMOOTH_DEFAULTS), default="exp",
                      help="Smoothing method (default: %(default)s).")
    bleu.add_argument("--smooth-value", "-sv", type=float, default=None,
                      help="Smoothing value for floor (0.1) and add-k (1).")
    bleu.add_argument("--tokenize", "-tok", choices=list(TOKENIZERS), default=None,
                      help="Tokenizer (default: zh, ja-mecab or ko-mecab by target language, else 13a).")
    bleu.add_argument("--lowercase", "-lc", action="store_true", help="Case-insensitive BLEU.")
    bleu.add_argument("--force", action="store_true",
                      help="Insist that your tokenized input is actually detokenized.")
    bleu.add_argument("--max-ngram-order", type=int, default=MAX_NGRAM_ORDER,
                      help="Largest n-gram order (default: %(default)s).")
    bleu.add_argument("--effective-order", action="store_true",
                      help="Leave out n-gram orders with no n-grams.")
    bleu.add_argument("--spm-model", default=None,
                      help="Path of the SentencePiece model for flores101/flores200/spm.")


def check_args(args: Any) -> None:
    """A ValueError naming the flag (``--smooth-value``, ``--max-ngram-order``) for
    settings BLEU cannot use; :class:`BLEU` checks the same but names its parameters."""
    check_smoothing(args.smooth_method, args.smooth_value,
                    method_name="--smooth-method", value_name="--smooth-value")
    check_order(args.max_ngram_order, "--max-ngram-order")


def from_args(metric: Callable[..., MetricT], args: Any,
              references: Optional[ReferenceStreams]) -> MetricT:
    """``metric`` (BLEU or a subclass) of the parsed flags, with ``references`` prepared once.

    The tokenizer's default follows the target language of the command's
    ``-l/--language-pair`` (a flag of the command, which also picks test sets),
    when it has one.
    """
    return metric(lowercase=args.lowercase, force=args.force, tokenize=args.tokenize,
                  smooth_method=args.smooth_method, smooth_value=args.smooth_value,
                  max_ngram_order=args.max_ngram_order, effective_order=args.effective_order,
                  trg_lang=target_language(getattr(args, "langpair", None)),
                  references=references, spm_model=args.spm_model, backend=args.backend,
                  threads=args.threads)
