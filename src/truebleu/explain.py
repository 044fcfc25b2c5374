"""BLEU, shown step by step for one hypothesis: the tables textbooks use.

For each n-gram order: every distinct candidate n-gram with its count, its
largest count in any single reference, and the clipped count
``min(count, max_ref_count)``; then p_n as a fraction, c, r, the brevity
penalty and the score. The numbers come from the same tokenizers,
statistics and score functions as :func:`truebleu.corpus_bleu`.

The default configuration is the paper's textbook BLEU (no smoothing);
pass sacreBLEU's options (``tokenize``, ``lowercase``, ``smooth_method``,
``smooth_value``, ``max_ngram_order``, ``effective_order``) to see any other.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict, dataclass, field
from typing import Optional, Sequence

from . import _reference
from .backends import segment_tokens
from .score import MAX_NGRAM_ORDER, SMOOTH_DEFAULTS, compute_bleu
from .signature import Signature, smoothing_text
from .tokenizers import TOKENIZERS, get_tokenizer


@dataclass
class NgramRow:
    ngram: str
    count: int
    max_ref_count: int
    clipped: int


@dataclass
class OrderTable:
    n: int
    ngrams: list[NgramRow]
    matches: int
    total: int
    precision: str          # the fraction matches/total, e.g. "5/7"
    precision_value: float  # p_n as used in the score (percent, smoothed as configured)


@dataclass
class Explanation:
    hypothesis: str
    references: list[str]
    hypothesis_tokens: list[str]
    reference_tokens: list[list[str]]
    orders: list[OrderTable]
    c: int
    r: int
    bp: float
    bleu: float   # a fraction in [0, 1], as in the paper
    score: float  # the same on sacreBLEU's 0-100 scale
    signature: str
    notes: list[str] = field(default_factory=list)

    def to_json(self) -> str:
        return json.dumps(asdict(self), indent=1, ensure_ascii=False)

    def to_text(self) -> str:
        out = [f"Hypothesis:  {self.hypothesis}"]
        for k, ref in enumerate(self.references, 1):
            out.append(f"Reference {k}: {ref}")
        out.append(f"Settings:    {self.signature}")
        out.append(f"Tokens:      {' '.join(self.hypothesis_tokens)}  (c = {self.c})")
        for table in self.orders:
            out += ["", *_order_lines(table)]
        out.append("")
        ref_lens = ", ".join(str(len(t)) for t in self.reference_tokens)
        out.append(f"c = {self.c} (hypothesis length); reference lengths {ref_lens or '-'}; "
                   f"r = {self.r} (closest, ties to the shorter)")
        if self.c < self.r:
            out.append(f"BP = exp(1 - r/c) = exp(1 - {self.r}/{self.c}) = {self.bp:.4f}")
        else:
            out.append(f"BP = 1 (c = {self.c} >= r = {self.r})" if self.c else "BP = 0 (c = 0)")
        n_orders = len(self.orders)
        out.append(f"BLEU = BP * exp(sum(log p_n) / {n_orders}) = {self.bleu:.4f}"
                   f"   (sacreBLEU scale: {self.score:.2f})")
        out += self.notes
        return "\n".join(out)


def _order_lines(table: OrderTable) -> list[str]:
    width = max([len(row.ngram) for row in table.ngrams] + [len("n-gram"), len("total")])
    lines = [f"{table.n}-grams",
             f"  {'n-gram':<{width}}  count  max ref count  clipped"]
    for row in table.ngrams:
        lines.append(f"  {row.ngram:<{width}}  {row.count:>5}  {row.max_ref_count:>13}  "
                     f"{row.clipped:>7}")
    lines.append(f"  {'total':<{width}}  {table.total:>5}  {'':>13}  {table.matches:>7}")
    lines.append(f"  p_{table.n} = {table.precision} = {table.precision_value / 100:.4f}")
    return lines


def _fraction_text(matches: int, total: int) -> str:
    return f"{matches}/{total}"


def explain(hypothesis: str, references: Sequence[str], *, tokenize: str = "13a",
            lowercase: bool = False, smooth_method: str = "none",
            smooth_value: Optional[float] = None, max_ngram_order: int = MAX_NGRAM_ORDER,
            effective_order: bool = False, spm_model: Optional[str] = None) -> Explanation:
    """Every number behind the BLEU of ``hypothesis`` against ``references``."""
    if not isinstance(hypothesis, str):
        raise TypeError("hypothesis must be a string")
    if isinstance(references, str) or not all(isinstance(r, str) for r in references):
        raise TypeError("references must be a sequence of strings")
    if not references:
        raise ValueError("at least one reference is needed")
    if smooth_method not in SMOOTH_DEFAULTS:
        raise ValueError(f"unknown smooth_method {smooth_method!r}")
    if max_ngram_order < 1:
        raise ValueError("max_ngram_order must be >= 1")

    tokenizer = get_tokenizer(tokenize, spm_model=spm_model)
    hyp_tokens = segment_tokens(hypothesis, tokenizer, lowercase)
    ref_tokens = [segment_tokens(ref, tokenizer, lowercase) for ref in references]
    info = _reference.reference_info(ref_tokens, max_ngram_order)
    row = _reference.segment_row(hyp_tokens, info, max_ngram_order)

    counts = _reference.ngram_counts(hyp_tokens, max_ngram_order)  # in order of first use

    n = max_ngram_order
    matches, totals = row[2:2 + n], row[2 + n:]
    result = compute_bleu(matches, totals, row[0], row[1], smooth_method=smooth_method,
                          smooth_value=smooth_value, effective_order=effective_order,
                          max_ngram_order=n)
    orders = []
    for order in range(1, n + 1):
        rows = [NgramRow(" ".join(g), counts[g], info.max_counts.get(g, 0),
                         min(counts[g], info.max_counts.get(g, 0)))
                for g in counts if len(g) == order]
        orders.append(OrderTable(order, rows, matches[order - 1], totals[order - 1],
                                 _fraction_text(matches[order - 1], totals[order - 1]),
                                 result.precisions[order - 1]))

    notes = []
    if smooth_method == "none" and any(m == 0 for m in matches) and any(matches):
        notes.append("(a zero p_n makes log p_n undefined: BLEU is 0 without smoothing)")
    signature = Signature(nrefs=len(references), case="lc" if lowercase else "mixed",
                          eff="yes" if effective_order else "no", tok=tokenizer.signature(),
                          smooth=smoothing_text(smooth_method, smooth_value,
                                                SMOOTH_DEFAULTS[smooth_method]),
                          order=None if n == MAX_NGRAM_ORDER else n)
    return Explanation(hypothesis, list(references), hyp_tokens, ref_tokens, orders,
                       row[0], row[1], result.bp, result.score / 100, result.score,
                       signature.format(), notes)


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(
        prog="truebleu explain",
        description="Show BLEU's n-gram tables, precisions, brevity penalty and score "
                    "for one hypothesis and its references.")
    parser.add_argument("--hyp", required=True, help="The hypothesis (candidate) sentence.")
    parser.add_argument("--ref", required=True, action="append",
                        help="A reference sentence; repeat for several.")
    parser.add_argument("-tok", "--tokenize", default="13a", choices=list(TOKENIZERS))
    parser.add_argument("-lc", "--lowercase", action="store_true")
    parser.add_argument("-s", "--smooth-method", default="none", choices=list(SMOOTH_DEFAULTS))
    parser.add_argument("-sv", "--smooth-value", type=float, default=None)
    parser.add_argument("--max-ngram-order", type=int, default=MAX_NGRAM_ORDER)
    parser.add_argument("--effective-order", action="store_true")
    parser.add_argument("--spm-model", default=None)
    parser.add_argument("-f", "--format", default="text", choices=("text", "json"))
    args = parser.parse_args(argv)
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


if __name__ == "__main__":
    sys.exit(main())
