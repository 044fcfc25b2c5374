"""From statistics to BLEU: precisions, smoothing, brevity penalty.

Pure functions. The float arithmetic follows sacreBLEU 2.x operation by
operation (same expressions, same order, Python's own ``sum``), which is what
makes the scores bit-identical rather than merely close.

    BLEU = BP * exp( (1/N) * sum_n log p_n ),   BP = exp(1 - r/c) if c < r else 1

Smoothing (Chen & Cherry, 2014) applies to orders with no match:
``none`` (p_n = 0, log floored to -9999999999), ``floor`` (method 1: matches
replaced by a small value), ``add-k`` (method 2: k added to matches and totals
of every order n > 1), ``exp`` (method 3, NIST: the k-th order without a match
gets 1 / (2^k * totals_n)).
"""

from __future__ import annotations

import math
from array import array

from ..base import Score
from .config import MAX_NGRAM_ORDER, SMOOTH_DEFAULTS, check_smoothing

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Sequence

    from .config import BLEUConfig

LOG_ZERO = -9999999999  # what log(0) is floored to (sacreBLEU's my_log)


def floored_log(value: float) -> float:
    return LOG_ZERO if value == 0.0 else math.log(value)


class BLEUScore(Score):
    """A BLEU score with the statistics behind it (sacreBLEU's fields).

    Equal when every field is equal, as the dataclass it replaces (importing
    :mod:`dataclasses` imports :mod:`inspect`, a tenth of the command line's start-up).
    """

    __match_args__ = ("score", "counts", "totals", "precisions", "bp", "sys_len", "ref_len",
                      "name", "_mean", "_ci")

    def __init__(self, score: float, counts: list[float], totals: list[float],
                 precisions: list[float], bp: float, sys_len: int, ref_len: int, name: str = "BLEU",
                 _mean: float = -1.0, _ci: float = -1.0) -> None:
        self.score = score
        self.counts = counts
        self.totals = totals
        self.precisions = precisions
        self.bp = bp
        self.sys_len = sys_len
        self.ref_len = ref_len
        self.name = name
        # filled in by bootstrap confidence estimation (-ci); negative = not set
        self._mean = _mean
        self._ci = _ci

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return (tuple(getattr(self, name) for name in self.__match_args__)
                == tuple(getattr(other, name) for name in self.__match_args__))

    # mutable, as a dataclass with eq=True (object's __hash__ is a method; None unsets it)
    __hash__ = None  # type: ignore[assignment]

    @property
    def ratio(self) -> float:
        return self.sys_len / self.ref_len if self.ref_len else 0

    @property
    def prec_str(self) -> str:
        return "/".join(f"{p:.1f}" for p in self.precisions)

    # computed from the fields, where Score has a class attribute (sacreBLEU's shape)
    @property
    def _verbose(self) -> str:  # type: ignore[override]
        return (f"{self.prec_str} (BP = {self.bp:.3f} ratio = {self.ratio:.3f} "
                f"hyp_len = {self.sys_len:d} ref_len = {self.ref_len:d})")


def brevity_penalty(sys_len: int, ref_len: int) -> float:
    if sys_len < ref_len:
        return math.exp(1 - ref_len / sys_len) if sys_len > 0 else 0.0
    return 1.0


def compute_bleu(correct: Sequence[float], total: Sequence[float], sys_len: int, ref_len: int,
                 smooth_method: str = "none", smooth_value: float | None = None,
                 effective_order: bool = False,
                 max_ngram_order: int = MAX_NGRAM_ORDER) -> BLEUScore:
    """BLEU from corpus statistics (sacreBLEU's ``BLEU.compute_bleu``).

    ``correct`` and ``total`` are the summed matches and n-gram counts for
    n = 1..max_ngram_order. They are copied, never modified. As in
    sacreBLEU, the returned ``counts``/``totals`` include the add-k increments.
    """
    check_smoothing(smooth_method, smooth_value)
    if smooth_value is None:
        smooth_value = SMOOTH_DEFAULTS[smooth_method]
    correct = list(correct)  # (counts may be floats: add-k adds its value to them)
    total = list(total)

    bp = brevity_penalty(sys_len, ref_len)
    precisions = [0.0] * max_ngram_order

    if not any(correct):
        return BLEUScore(0.0, correct, total, precisions, bp, sys_len, ref_len)

    exp_divisor = 1.0
    eff_order = max_ngram_order
    for n in range(1, max_ngram_order + 1):
        i = n - 1
        if smooth_method == "add-k" and n > 1:
            assert smooth_value is not None  # add-k's default is 1
            correct[i] += smooth_value
            total[i] += smooth_value
        if total[i] == 0:
            break
        if effective_order:
            eff_order = n
        if correct[i] == 0:
            if smooth_method == "exp":
                exp_divisor *= 2
                precisions[i] = 100. / (exp_divisor * total[i])
            elif smooth_method == "floor":
                assert smooth_value is not None  # floor's default is 0.1
                precisions[i] = 100. * smooth_value / total[i]
        else:
            precisions[i] = 100. * correct[i] / total[i]

    score = bp * math.exp(sum([floored_log(p) for p in precisions[:eff_order]]) / eff_order)
    return BLEUScore(score, correct, total, precisions, bp, sys_len, ref_len)


def score_from_row(stats: Sequence[float], max_ngram_order: int, smooth_method: str = "exp",
                   smooth_value: float | None = None, effective_order: bool = False) -> BLEUScore:
    """BLEU from one summed statistics row [c, r, matches..., totals...]."""
    n = max_ngram_order
    return compute_bleu(stats[2:2 + n], stats[2 + n:2 + 2 * n], int(stats[0]), int(stats[1]),
                        smooth_method=smooth_method, smooth_value=smooth_value,
                        effective_order=effective_order, max_ngram_order=n)


def score_from_statistics(stats: Sequence[float], config: "BLEUConfig") -> BLEUScore:
    """BLEU of one summed statistics row under a validated configuration."""
    return score_from_row(stats, config.max_ngram_order, config.smooth_method,
                          config.smooth_value, config.effective_order)


def python_bleu_scores(data: Sequence[int], config: BLEUConfig) -> array[float]:
    """Sentence BLEU of each row of ``data`` through :func:`compute_bleu`."""
    n = config.max_ngram_order
    width = 2 + 2 * n
    out = array("d")
    for start in range(0, len(data), width):
        row = data[start:start + width]
        out.append(compute_bleu(row[2:2 + n], row[2 + n:], row[0], row[1],
                                smooth_method=config.smooth_method,
                                smooth_value=config.smooth_value,
                                effective_order=config.effective_order, max_ngram_order=n).score)
    return out
