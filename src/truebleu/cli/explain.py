"""``truebleu explain``: BLEU's n-gram tables, precisions, brevity penalty and score for one sentence."""

from __future__ import annotations

import argparse
import sys
from typing import Optional, Sequence

from ..metrics.bleu.config import MAX_NGRAM_ORDER, SMOOTH_DEFAULTS
from ..metrics.bleu.explain import explain
from ..tokenizers import TOKENIZERS


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="truebleu explain",
        description="Show BLEU's n-gram tables, precisions, brevity penalty and score "
                    "for one hypothesis and its references. The defaults are sentence BLEU's "
                    "(sacrebleu.sentence_bleu: exp smoothing, effective order); the paper's "
                    "textbook BLEU is -s none --no-effective-order.")
    parser.add_argument("--hyp", required=True, help="The hypothesis (candidate) sentence.")
    parser.add_argument("--ref", required=True, action="append",
                        help="A reference sentence; repeat for several.")
    parser.add_argument("-tok", "--tokenize", default="13a", choices=list(TOKENIZERS),
                        help="Tokenizer (default: %(default)s).")
    parser.add_argument("-lc", "--lowercase", action="store_true", help="Lowercase first.")
    parser.add_argument("-s", "--smooth-method", default="exp", choices=list(SMOOTH_DEFAULTS),
                        help="Smoothing (default: %(default)s).")
    parser.add_argument("-sv", "--smooth-value", type=float, default=None,
                        help="The smoothing's value (default: floor 0.1, add-k 1).")
    parser.add_argument("--max-ngram-order", type=int, default=MAX_NGRAM_ORDER,
                        help="Longest n-gram counted (default: %(default)s).")
    parser.add_argument("--effective-order", action=argparse.BooleanOptionalAction, default=True,
                        help="Leave out of the mean the orders the hypothesis has no n-grams of "
                             "(default: on, as sentence BLEU).")
    parser.add_argument("--spm-model", default=None,
                        help="SentencePiece model file of the spm tokenizer.")
    parser.add_argument("-f", "--format", default="text", choices=("text", "json"),
                        help="Output format (default: %(default)s).")
    return parser


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        result = explain(args.hyp, args.ref, tokenize=args.tokenize, lowercase=args.lowercase,
                         smooth_method=args.smooth_method, smooth_value=args.smooth_value,
                         max_ngram_order=args.max_ngram_order,
                         effective_order=args.effective_order, spm_model=args.spm_model)
    except (ValueError, TypeError, ImportError, FileNotFoundError) as exc:
        print(f"truebleu explain: error: {exc}", file=sys.stderr)
        return 1
    print(result.to_json() if args.format == "json" else result.to_text())
    return 0

