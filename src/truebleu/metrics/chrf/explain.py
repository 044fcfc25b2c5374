"""chrF, shown step by step for one hypothesis: the n-gram table behind the score.

For each order (character n-grams 1..``char_order``, then word n-grams
1..``word_order`` for chrF++): how many n-grams the hypothesis and the best
reference have, how many match (each n-gram counted at most as often as the
other side has it), precision and recall, and which n-grams matched and which
did not. Then the averages over the orders and the F-beta score. The numbers are
those of :mod:`.spec` (the statistics and the f-score the metric itself uses),
so the score is the one ``sacrebleu.sentence_chrf`` gives.

chrF has no sentence-level settings of its own: one sentence is scored with the
corpus defaults (``sacrebleu.sentence_chrf``'s), and the signature names them.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import asdict, dataclass, field
from typing import Any, Optional, Sequence, Union

from ..explanation import SentenceExplanation, check_sentence
from . import spec
from .config import ChrfConfig

#: how a space of a character n-gram is shown with ``whitespace`` (kept in n-grams)
SPACE = "\u2423"
WRAP = 100


@dataclass
class NgramCount:
    """One n-gram of the hypothesis or the reference, with its matched count."""

    ngram: str
    hypothesis: int  # how often in the hypothesis
    reference: int   # how often in the reference
    matched: int     # min of the two


@dataclass
class ChrfOrder:
    """One order of the statistics row: ``[hypothesis, reference, matched]`` n-grams."""

    kind: str                    # "character" or "word"
    n: int
    hypothesis_count: int        # as the statistics count it: 0 when the reference has none
    reference_count: int
    matches: int
    precision: Optional[float]   # matches / hypothesis_count (None: no hypothesis n-grams)
    recall: Optional[float]      # matches / reference_count (None: no reference n-grams)
    counted: bool                # in the averages (both sides have n-grams of this order)
    ngrams: list[NgramCount] = field(default_factory=list)  # hypothesis first, in order of use

    @property
    def label(self) -> str:
        return f"{self.kind} {self.n}-grams"


@dataclass
class ChrfExplanation(SentenceExplanation):
    hypothesis: str
    references: list[str]
    reference_scores: list[float]   # the sentence chrF against each reference alone
    best_reference: int             # the one counted (highest score, the first on ties)
    orders: list[ChrfOrder]
    beta: float
    eps_smoothing: bool
    whitespace: bool
    precision: float                # the averages the score is computed from (percent)
    recall: float
    score: float
    name: str                       # chrF2, chrF2++, ...
    signature: str
    formula: str

    @property
    def title(self) -> str:
        """The metric's name, heading its part when several metrics are explained."""
        return self.name

    def to_dict(self) -> dict[str, Any]:
        """Plain values, as ``json.dumps`` writes them; ``metric`` names the metric."""
        return {"metric": "chrf", **asdict(self)}

    def body_lines(self) -> list[str]:
        """Everything but the sentences: the settings, the table, the score."""
        out = [f"Settings:    {self.signature}"]
        if len(self.references) > 1:
            scores = ", ".join(f"{k}: {s:.2f}" for k, s in enumerate(self.reference_scores, 1))
            out.append(f"Best reference: {self.best_reference + 1} (its {self.name} is the "
                       f"highest; per reference {scores}); the table is against it")
        width = max(len(order.label) for order in self.orders)
        out += ["", f"  {'order':<{width}}   hyp   ref  match  precision  recall"]
        for order in self.orders:
            note = "" if order.counted else "   (not counted: a side has none)"
            out.append(f"  {order.label:<{width}}  {order.hypothesis_count:>4}  "
                       f"{order.reference_count:>4}  {order.matches:>5}  "
                       f"{_percent(order.precision):>9}  {_percent(order.recall):>6}{note}")
        if not self.whitespace:
            out.append("  (character n-grams are read with the spaces removed: they run across words)")
        for order in self.orders:
            out += ["", f"{order.label}:"]
            if not order.ngrams:
                out.append("  none on either side")
            out += _ngram_lines("matched", [(g.ngram, g.matched) for g in order.ngrams if g.matched])
            out += _ngram_lines("hypothesis only",
                                [(g.ngram, g.hypothesis - g.matched) for g in order.ngrams
                                 if g.hypothesis > g.matched])
            out += _ngram_lines("reference only",
                                [(g.ngram, g.reference - g.matched) for g in order.ngrams
                                 if g.reference > g.matched])
        out += ["", self.formula]
        return out


def _percent(value: Optional[float]) -> str:
    return "-" if value is None else f"{100 * value:.2f}"


def _ngram_lines(title: str, ngrams: list[tuple[str, int]]) -> list[str]:
    """``  title (k): a  b  c×2 ...``, wrapped at :data:`WRAP` columns between n-grams
    (never inside one), or nothing for no n-grams."""
    if not ngrams:
        return []
    total = sum(count for _, count in ngrams)
    head = f"  {title} ({total}): "
    entries = [ngram if count == 1 else f"{ngram}\u00d7{count}" for ngram, count in ngrams]
    lines, line = [], head + entries[0]
    for entry in entries[1:]:
        if len(line) + 2 + len(entry) > WRAP:
            lines.append(line)
            line = " " * len(head) + entry
        else:
            line += "  " + entry
    return [*lines, line]


def _shown(ngram: Union[str, tuple[str, ...]], whitespace: bool) -> str:
    """A character n-gram as it is (spaces as ␣ where kept); a word n-gram of several
    words in brackets, so that its spaces do not read as separators."""
    if isinstance(ngram, tuple):
        return ngram[0] if len(ngram) == 1 else f"[{' '.join(ngram)}]"
    return ngram.replace(" ", SPACE) if whitespace else ngram


def explain(hypothesis: str, references: Sequence[str], *, char_order: int = 6,
            word_order: int = 0, beta: float = 2, lowercase: bool = False,
            whitespace: bool = False, eps_smoothing: bool = False) -> ChrfExplanation:
    """Every number behind the chrF of ``hypothesis`` against ``references`` (sacreBLEU's
    ``CHRF`` settings)."""
    check_sentence(hypothesis, references)
    from .metric import CHRF  # the signature's fields are the metric's

    config = ChrfConfig(char_order, word_order, beta, lowercase, whitespace, eps_smoothing)
    metric = CHRF(char_order, word_order, beta, lowercase, whitespace, eps_smoothing)

    def profile(line: str) -> list[Counter[Any]]:
        return spec.ngram_profile(config.preprocess(line), config.char_order, config.word_order,
                                  config.whitespace)

    hyp_profile = profile(hypothesis)
    ref_profiles = [profile(ref) for ref in references]
    best, row = spec.best_reference(hyp_profile, ref_profiles, config.beta, config.eps_smoothing)
    reference_scores = [spec.f_score(spec.segment_row(hyp_profile, [ref], config.beta,
                                                      config.eps_smoothing),
                                     config.beta, config.eps_smoothing)
                        for ref in ref_profiles]
    orders = []
    for k, (hyp_ngrams, ref_ngrams) in enumerate(zip(hyp_profile, ref_profiles[best])):
        n_hyp, n_ref, n_match = row[3 * k:3 * k + 3]
        kind, n = ("character", k + 1) if k < config.char_order else ("word", k + 1 - config.char_order)
        ngrams = [NgramCount(_shown(g, config.whitespace), hyp_ngrams[g], ref_ngrams[g],
                             min(hyp_ngrams[g], ref_ngrams[g]))
                  for g in [*hyp_ngrams, *(g for g in ref_ngrams if g not in hyp_ngrams)]]
        orders.append(ChrfOrder(kind, n, n_hyp, n_ref, n_match,
                                n_match / n_hyp if n_hyp else None,
                                n_match / n_ref if n_ref else None,
                                n_hyp > 0 and n_ref > 0, ngrams))
    score = spec.f_score(row, config.beta, config.eps_smoothing)
    counted = [order for order in orders if order.counted]
    precision = sum(o.precision or 0.0 for o in counted) / len(counted) if counted else 0.0
    recall = sum(o.recall or 0.0 for o in counted) / len(counted) if counted else 0.0
    metric.sentence_score(hypothesis, list(references))  # the signature's nrefs
    return ChrfExplanation(hypothesis, list(references), reference_scores, best, orders,
                           config.beta, config.eps_smoothing, config.whitespace,
                           100 * precision, 100 * recall, score, metric.name, metric.get_signature().format(),
                           _formula(metric.name, config, orders, precision, recall, score))


def _formula(name: str, config: ChrfConfig, orders: list[ChrfOrder], precision: float,
             recall: float, score: float) -> str:
    """The score's arithmetic with its numbers."""
    b = f"{config.beta}\u00b2"
    if config.eps_smoothing:
        return (f"{name} = 100 * mean over all {len(orders)} orders of "
                f"(1 + {b}) * P * R / ({b} * P + R), an order without n-grams counting "
                f"1e-16 = {score:.2f}")
    counted = sum(order.counted for order in orders)
    if not counted:
        return f"{name} = {score:.2f} (no order has n-grams on both sides)"
    return (f"P = {100 * precision:.2f}, R = {100 * recall:.2f} (means over the {counted} "
            f"orders counted)\n{name} = 100 * (1 + {b}) * P * R / ({b} * P + R) = {score:.2f}")
