"""BLEU, shown step by step for one hypothesis: the tables textbooks use.

For each n-gram order: every distinct candidate n-gram with its count, its
largest count in any single reference, and the clipped count
``min(count, max_ref_count)``; then p_n as a fraction, c, r, the brevity
penalty and the score. The numbers come from the same tokenizers,
statistics and score functions as :func:`truebleu.corpus_bleu`.

One sentence is explained with sentence BLEU's defaults, those of
``sacrebleu.sentence_bleu`` (``exp`` smoothing, effective order), so that the
score shown is the one a user gets for that sentence; the paper's textbook BLEU
is ``smooth_method="none", effective_order=False``. Pass sacreBLEU's options
(``tokenize``, ``lowercase``, ``smooth_method``, ``smooth_value``,
``max_ngram_order``, ``effective_order``) to see any other; the signature
names the settings used.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Optional, Sequence

from ..explanation import SentenceExplanation, check_sentence
from . import spec as _reference
from .config import MAX_NGRAM_ORDER, BLEUConfig
from .score import LOG_ZERO, score_from_statistics
from .spec import segment_tokens


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
    formula: str = ""       # the arithmetic performed for p_n, e.g. "(0 + 1)/(4 + 1)"
    counted: bool = True    # False: left out of the mean (effective order)
    note: str = ""          # why the formula is not matches/total


@dataclass
class Explanation(SentenceExplanation):
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
    effective_order: int = MAX_NGRAM_ORDER  # the number of orders in the geometric mean
    score_formula: str = ""                 # the mean as computed, with the numbers

    @property
    def title(self) -> str:
        """The metric's name, heading its part when several metrics are explained."""
        return "BLEU"

    def to_dict(self) -> dict[str, Any]:
        """Plain values, as ``json.dumps`` writes them; ``metric`` names the metric."""
        return {"metric": "bleu", **asdict(self)}

    def body_lines(self) -> list[str]:
        """Everything but the sentences: the settings, the n-gram tables, the score."""
        out = [f"Settings:    {self.signature}"]
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
        out.append(f"{self.score_formula} = {self.bleu:.4f}   (sacreBLEU scale: {self.score:.2f})")
        out += self.notes
        return out


def _order_lines(table: OrderTable) -> list[str]:
    width = max([len(row.ngram) for row in table.ngrams] + [len("n-gram"), len("total")])
    lines = [f"{table.n}-grams",
             f"  {'n-gram':<{width}}  count  max ref count  clipped"]
    for row in table.ngrams:
        lines.append(f"  {row.ngram:<{width}}  {row.count:>5}  {row.max_ref_count:>13}  "
                     f"{row.clipped:>7}")
    lines.append(f"  {'total':<{width}}  {table.total:>5}  {'':>13}  {table.matches:>7}")
    if not table.counted:
        lines.append(f"  p_{table.n}: not counted ({table.note})")
    else:
        line = f"  p_{table.n} = {table.formula} = {table.precision_value / 100:.4f}"
        if table.note:
            line += f"   ({table.note})"
        lines.append(line)
    return lines


def _fraction_text(matches: int, total: int) -> str:
    return f"{matches}/{total}"


def explain(hypothesis: str, references: Sequence[str], *, tokenize: str = "13a",
            lowercase: bool = False, smooth_method: str = "exp",
            smooth_value: Optional[float] = None, max_ngram_order: int = MAX_NGRAM_ORDER,
            effective_order: bool = True, spm_model: Optional[str] = None) -> Explanation:
    """Every number behind the BLEU of ``hypothesis`` against ``references``."""
    check_sentence(hypothesis, references)
    config = BLEUConfig.create(tokenize, lowercase, smooth_method, smooth_value, max_ngram_order,
                               effective_order, spm_model=spm_model)
    tokenizer, n = config.tokenizer, config.max_ngram_order
    hyp_tokens = segment_tokens(hypothesis, tokenizer, config.lowercase)
    ref_tokens = [segment_tokens(ref, tokenizer, config.lowercase) for ref in references]
    info = _reference.reference_info(ref_tokens, n)
    row = _reference.segment_row(hyp_tokens, info, n)

    counts = _reference.ngram_counts(hyp_tokens, n)  # in order of first use

    matches, totals = row[2:2 + n], row[2 + n:]
    result = score_from_statistics(row, config)
    steps = precision_steps(matches, totals, config)
    orders = []
    for order, (formula, note, counted) in enumerate(steps, 1):
        rows = [NgramRow(" ".join(g), counts[g], info.max_counts.get(g, 0),
                         min(counts[g], info.max_counts.get(g, 0)))
                for g in counts if len(g) == order]
        orders.append(OrderTable(order, rows, matches[order - 1], totals[order - 1],
                                 _fraction_text(matches[order - 1], totals[order - 1]),
                                 result.precisions[order - 1], formula, counted, note))
    used = sum(counted for _, _, counted in steps)

    notes = []
    if not any(matches):
        notes.append("(no n-gram matches at all: BLEU is 0, before any smoothing)")
    elif any(p == 0 for p in result.precisions[:used]):
        notes.append(f"(a zero p_n has no logarithm: log 0 is taken as {LOG_ZERO}, "
                     "which makes BLEU 0)")
    signature = config.signature(nrefs=len(references))
    return Explanation(hypothesis, list(references), hyp_tokens, ref_tokens, orders,
                       row[0], row[1], result.bp, result.score / 100, result.score,
                       signature.format(), notes, used,
                       score_formula(result.bp, result.precisions[:used], any(matches)))


def precision_steps(matches: Sequence[int], totals: Sequence[int],
                    config: BLEUConfig) -> list[tuple[str, str, bool]]:
    """For each order: the arithmetic of p_n exactly as compute_bleu performs it.

    Returns ``(formula, note, counted)``: the expression whose value is p_n,
    why it is not simply matches/total, and whether p_n enters the geometric
    mean (not from the first order without n-grams on, with the effective order).
    """
    method, k = config.smooth_method, config.smoothing
    steps: list[tuple[str, str, bool]] = []
    exp_divisor = 1
    stopped = None  # the first order without n-grams (compute_bleu stops there)
    if not any(matches):  # compute_bleu returns 0 before smoothing anything
        return [(f"{m}/{t}", "", True) if t else ("0", f"no {n}-grams", True)
                for n, (m, t) in enumerate(zip(matches, totals), 1)]
    for n, (m, t) in enumerate(zip(matches, totals), 1):
        add = method == "add-k" and n > 1
        total: float = t
        if add:
            assert k is not None  # add-k's default is 1
            total = t + k
        if stopped is None and total == 0:
            stopped = n
        if stopped is not None:
            if config.effective_order:
                steps.append(("", f"no {stopped}-grams: the effective order is {stopped - 1}",
                              False))
            else:
                steps.append(("0", f"no {stopped}-grams", True))
            continue
        if add:
            steps.append((f"({m} + {_number(k)})/({t} + {_number(k)})",
                          f"add-k smoothing, k = {_number(k)}", True))
        elif m == 0 and method == "exp":
            exp_divisor *= 2
            steps.append((f"1/({exp_divisor} * {t})",
                          f"exp smoothing: 1/(2^j * total) for the j-th order without a match, "
                          f"j = {exp_divisor.bit_length() - 1}", True))
        elif m == 0 and method == "floor":
            steps.append((f"{_number(k)}/{t}", f"floor smoothing: {_number(k)} for 0 matches",
                          True))
        else:
            steps.append((f"{m}/{t}", "", True))
    return steps


def score_formula(bp: float, precisions: Sequence[float], matched: bool) -> str:
    """``BLEU = BP * exp((log p_1 + ... + log p_E) / E)`` with the numbers used."""
    e = len(precisions)
    if not matched:
        return "BLEU = 0 (no matches)"
    logs = " + ".join(f"log p_{n}" for n in range(1, e + 1))
    values = " + ".join(f"log {p / 100:.4f}" if p else "log 0" for p in precisions)
    return f"BLEU = BP * exp(({logs}) / {e}) = {bp:.4f} * exp(({values}) / {e})"


def _number(value: object) -> str:
    return repr(value) if isinstance(value, float) else str(value)
