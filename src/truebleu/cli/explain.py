"""``truebleu explain``: every number behind the scores of one sentence.

``-m bleu chrf ter`` as on the scoring command: BLEU's n-gram tables, precisions,
brevity penalty and score; chrF's character (and word) n-gram table; TER's edits
(shifts, then the aligned words with insertions, deletions and substitutions).
Each metric is explained with the settings a *sentence* score uses, those of
``sacrebleu.sentence_bleu``, ``sentence_chrf`` and ``sentence_ter``, and prints
them in its signature. chrF's and TER's flags are the scoring command's (their
sentence defaults are their corpus defaults); BLEU's are its own here, because a
sentence's BLEU defaults are not the corpus's (exp smoothing with the effective
order, where a corpus leaves the order fixed).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any, Callable, Optional, Sequence

from ..metrics import METRICS
from ..metrics.bleu.config import MAX_NGRAM_ORDER, SMOOTH_DEFAULTS
from ..tokenizers import TOKENIZERS

#: the metrics whose flags ``explain`` takes from the scoring command, unchanged
SCORING_FLAGS = ("chrf", "ter")

DESCRIPTION = (
    "Show every number behind the scores of one hypothesis against its references: "
    "BLEU's n-gram tables (-m bleu, the default), chrF's n-gram table (-m chrf) and TER's "
    "edits (-m ter), or several (-m bleu chrf ter). Each metric uses the settings of a "
    "sentence score (sacrebleu.sentence_bleu, sentence_chrf, sentence_ter: for BLEU, exp "
    "smoothing with the effective order; the paper's textbook BLEU is -s none "
    "--no-effective-order) and prints them in its signature.")


def explain_bleu(hypothesis: str, references: list[str], args: argparse.Namespace) -> Any:
    from ..metrics.bleu.explain import explain

    return explain(hypothesis, references, tokenize=args.tokenize, lowercase=args.lowercase,
                   smooth_method=args.smooth_method, smooth_value=args.smooth_value,
                   max_ngram_order=args.max_ngram_order, effective_order=args.effective_order,
                   spm_model=args.spm_model)


def explain_chrf(hypothesis: str, references: list[str], args: argparse.Namespace) -> Any:
    from ..metrics.chrf.explain import explain

    return explain(hypothesis, references, char_order=args.chrf_char_order,
                   word_order=args.chrf_word_order, beta=args.chrf_beta,
                   lowercase=args.chrf_lowercase, whitespace=args.chrf_whitespace,
                   eps_smoothing=args.chrf_eps_smoothing)


def explain_ter(hypothesis: str, references: list[str], args: argparse.Namespace) -> Any:
    from ..metrics.ter.explain import explain

    return explain(hypothesis, references, normalized=args.ter_normalized,
                   no_punct=args.ter_no_punct, asian_support=args.ter_asian_support,
                   case_sensitive=args.ter_case_sensitive)


#: each metric ``explain`` takes, and how it explains one sentence
EXPLAINERS: dict[str, Callable[[str, list[str], argparse.Namespace], Any]] = {
    "bleu": explain_bleu, "chrf": explain_chrf, "ter": explain_ter}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="truebleu explain", description=DESCRIPTION)
    parser.add_argument("--hyp", required=True, help="The hypothesis (candidate) sentence.")
    parser.add_argument("--ref", required=True, action="append",
                        help="A reference sentence; repeat for several.")
    parser.add_argument("--metrics", "-m", nargs="+", default=["bleu"], choices=list(EXPLAINERS),
                        type=str.lower, help="Metrics to explain (default: bleu).")
    parser.add_argument("-f", "--format", default="text", choices=("text", "json"),
                        help="text (default), or JSON: one object, or a list of one per metric "
                             "when there are several.")
    bleu = parser.add_argument_group("BLEU related arguments (sentence BLEU's defaults)")
    bleu.add_argument("-tok", "--tokenize", default="13a", choices=list(TOKENIZERS),
                      help="Tokenizer (default: %(default)s).")
    bleu.add_argument("-lc", "--lowercase", action="store_true", help="Lowercase first.")
    bleu.add_argument("-s", "--smooth-method", default="exp", choices=list(SMOOTH_DEFAULTS),
                      help="Smoothing (default: %(default)s).")
    bleu.add_argument("-sv", "--smooth-value", type=float, default=None,
                      help="The smoothing's value (default: floor 0.1, add-k 1).")
    bleu.add_argument("--max-ngram-order", type=int, default=MAX_NGRAM_ORDER,
                      help="Longest n-gram counted (default: %(default)s).")
    bleu.add_argument("--effective-order", action=argparse.BooleanOptionalAction, default=True,
                      help="Leave out of the mean the orders the hypothesis has no n-grams of "
                           "(default: on, as sentence BLEU).")
    bleu.add_argument("--spm-model", default=None,
                      help="SentencePiece model file of the spm tokenizer.")
    for name in SCORING_FLAGS:
        METRICS.command_line(name).add_arguments(parser)
    return parser


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = build_parser().parse_args(argv)
    names = list(dict.fromkeys(args.metrics))  # each once, in the order given
    try:
        for name in SCORING_FLAGS:
            if name in names:
                METRICS.command_line(name).check_args(args)
        explanations = [(name, EXPLAINERS[name](args.hyp, args.ref, args)) for name in names]
    except (ValueError, TypeError, ImportError, FileNotFoundError) as exc:
        print(f"truebleu explain: error: {exc}", file=sys.stderr)
        return 1
    if args.format == "json":
        data = [explanation.to_dict() for _, explanation in explanations]
        print(json.dumps(data[0] if len(data) == 1 else data, indent=1, ensure_ascii=False))
    elif len(explanations) == 1:
        print(explanations[0][1].to_text())
    else:
        lines = [f"Hypothesis:  {args.hyp}"]
        lines += [f"Reference {k}: {ref}" for k, ref in enumerate(args.ref, 1)]
        for _, explanation in explanations:
            title = f"== {explanation.title} "
            lines += ["", title + "=" * (60 - len(title)), *explanation.body_lines()]
        print("\n".join(lines))
    return 0
