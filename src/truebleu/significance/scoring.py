"""Scores of many summed-statistics rows at once, bit-identical to the scalar code.

Resampling produces thousands of summed statistics rows; scoring them one by
one in Python is what makes sacreBLEU's tests slow. :class:`BLEUBatchScorer`
evaluates BLEU on a whole ``(rows, width)`` array and returns exactly the
floats that :func:`truebleu.score.compute_bleu` (and sacreBLEU's
``BLEU.compute_bleu``) return for each row, because it repeats the same IEEE
operations in the same order on the same types:

- elementwise ``*``, ``/``, ``+``, ``-`` are correctly rounded in NumPy as in
  Python, so they are done on arrays, in the dtype that the scalar code would
  use (the dtype is *probed* from NumPy's own scalar promotion, so NumPy 1.x
  value-based casting and NumPy 2 NEP 50 both come out right);
- ``log`` and ``exp`` call :mod:`math` (the C library), never ``np.log``,
  whose SIMD versions may differ in the last bit;
- the sum of the log precisions is a left-to-right sum, as Python's ``sum``
  before 3.12; from 3.12 on (compensated ``sum``) the builtin itself is called.

The dtype of the input matters as it does for sacreBLEU: a ``float32`` array
reproduces its bootstrap arithmetic, an ``int64`` array its approximate
randomization arithmetic and plain Python integer arithmetic.

Any metric can take part in the tests through the :class:`BatchScorer`
protocol: a statistics matrix per system and a function from summed rows to
scores. :class:`RowScorer` adapts a scalar function (e.g. a dialect's
"statistics -> score"), slower but exact by construction.
"""

from __future__ import annotations

import math
import operator
import sys
from functools import partial
from typing import Any, Callable, Protocol, Sequence

from ._np import numpy

LOG_ZERO = -9999999999  # log(0) as floored by sacreBLEU's scorer
_COMPENSATED_SUM = sys.version_info >= (3, 12)


class BatchScorer(Protocol):
    """What a metric must offer to be tested: the minimal interface.

    ``statistics(hypotheses)`` gives an integer matrix, one additive row per
    segment; ``score_rows(sums)`` maps a ``(k, width)`` array of summed rows to
    ``k`` float scores. ``name`` labels the metric in reports.
    """

    name: str

    def statistics(self, hypotheses: Sequence[str]) -> Any: ...

    def score_rows(self, sums: Any) -> Any: ...


def _probe(op: Callable, left: Any, right: Any, left_is_python: bool = False):
    """The dtype NumPy's scalar arithmetic gives ``op(left, right)``.

    An array stands for NumPy scalars of its dtype, unless ``left_is_python``
    says that its elements are Python floats in the scalar code.
    """
    np = numpy()

    def sample(x, python=False):
        if python:
            return 1.0
        return x.dtype.type(1) if hasattr(x, "dtype") else x

    return np.asarray(op(sample(left, left_is_python), sample(right))).dtype


def _scalar_op(op: Callable, left: Any, right: Any, left_is_python: bool = False):
    """``op`` on arrays/Python numbers with the result dtype of scalar arithmetic."""
    np = numpy()
    dtype = _probe(op, left, right, left_is_python)
    return op(np.asarray(left, dtype=dtype), np.asarray(right, dtype=dtype))


def _math_map(func: Callable[[float], float], values):
    """``func`` from :mod:`math` on every element (the C library, like the scalar code)."""
    np = numpy()
    flat = np.asarray(values, dtype=np.float64).ravel()
    return np.fromiter(map(func, flat.tolist()), dtype=np.float64,
                       count=flat.size).reshape(np.shape(values))


def _sum_first(logs, zero, eff, python_sum: bool = True):
    """Per row, Python's ``sum`` of the first ``eff[row]`` log precisions."""
    np = numpy()
    rows, order = logs.shape
    if not (_COMPENSATED_SUM and python_sum):
        # before 3.12 ``sum`` adds left to right; the int LOG_ZERO terms are
        # exact in a double, so sequential float64 adds give the same bits
        total = logs[:, 0].copy()
        for j in range(1, order):
            use = j < eff
            total[use] = total[use] + logs[use, j]
        return total
    out = np.empty(rows, dtype=np.float64)
    for r, (row, zrow, k) in enumerate(zip(logs.tolist(), zero.tolist(), eff.tolist())):
        out[r] = sum([LOG_ZERO if z else v for v, z in zip(row[:k], zrow[:k])])
    return out


class BLEUBatchScorer:
    """Vectorised BLEU with a fixed configuration (order, smoothing, effective order).

    :param max_ngram_order: n-gram order N (rows are ``2 + 2N`` wide).
    :param smooth_method: ``exp``, ``floor``, ``add-k`` or ``none``.
    :param smooth_value: value for ``floor``/``add-k``; ``None`` for the default.
    :param effective_order: leave out orders without n-grams.
    :param in_place: add-k is added *into* the summed array as sacreBLEU does
        (the result is cast back to the array's dtype, e.g. truncated for
        ``int64``); ``False`` follows truebleu's scalar code (no cast).
    """

    name = "BLEU"

    def __init__(self, max_ngram_order: int = 4, smooth_method: str = "exp",
                 smooth_value: float | None = None, effective_order: bool = False,
                 in_place: bool = False, statistics: Callable | None = None) -> None:
        from ..metrics.bleu.config import SMOOTH_DEFAULTS, check_order, check_smoothing

        check_smoothing(smooth_method, smooth_value)  # the checks of every BLEU path
        self.max_ngram_order = check_order(max_ngram_order)
        self.smooth_method = smooth_method
        self.smooth_value = SMOOTH_DEFAULTS[smooth_method] if smooth_value is None else smooth_value
        self.effective_order = bool(effective_order)
        self.in_place = bool(in_place)
        self._statistics = statistics

    @classmethod
    def from_metric(cls, metric, in_place: bool = False,
                    effective_order: bool | None = None) -> "BLEUBatchScorer":
        """The scorer of a :class:`truebleu.BLEU` (its statistics come from the metric)."""
        return cls(metric.max_ngram_order, metric.smooth_method, metric.smooth_value,
                   metric.effective_order if effective_order is None else effective_order,
                   in_place=in_place,
                   statistics=lambda hyps: metric.corpus_statistics(hyps).to_numpy())

    @property
    def width(self) -> int:
        return 2 + 2 * self.max_ngram_order

    def statistics(self, hypotheses: Sequence[str]):
        if self._statistics is None:
            raise ValueError("this scorer was built without a statistics function")
        return self._statistics(hypotheses)

    def _add_k(self, column):
        added = _scalar_op(operator.add, column, self.smooth_value)
        return added.astype(column.dtype) if self.in_place else added

    supports_approx = True

    def score_rows(self, sums, exact: bool = True):
        """BLEU of each summed row of ``sums`` (shape ``(k, 2 + 2N)``) as float64.

        ``exact=False`` uses NumPy's ``log``/``exp`` (about 100 times faster,
        possibly a few ulps off); the tests use it only to find the rows whose
        outcome could depend on the last bits, which are then scored exactly.
        """
        np = numpy()
        log, exp = (partial(_math_map, math.log), partial(_math_map, math.exp)) if exact \
            else (np.log, np.exp)
        sums = np.asarray(sums)
        if sums.ndim != 2 or sums.shape[1] != self.width:
            raise ValueError(f"expected an array of shape (k, {self.width}), got {sums.shape}")
        n_rows, order = sums.shape[0], self.max_ngram_order
        sys_len = sums[:, 0].astype(np.float64)
        ref_len = sums[:, 1].astype(np.float64)
        correct = sums[:, 2:2 + order]
        total = sums[:, 2 + order:]

        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            bp = np.ones(n_rows)
            short = sys_len < ref_len
            bp[short & (sys_len <= 0)] = 0.0
            expo = short & (sys_len > 0)
            bp[expo] = exp(1 - ref_len[expo] / sys_len[expo])

            has_match = (correct != 0).any(axis=1)
            precisions = np.zeros((n_rows, order))
            alive = np.ones(n_rows, dtype=bool)
            eff = np.full(n_rows, order, dtype=np.int64)
            divisor = np.ones(n_rows)  # the NIST (exp) smoothing divisor, a Python float
            for i in range(order):
                c, t = correct[:, i], total[:, i]
                if self.smooth_method == "add-k" and i > 0:
                    c, t = self._add_k(c), self._add_k(t)
                alive &= t != 0
                if self.effective_order:
                    eff[alive] = i + 1
                zero = alive & (c == 0)
                hit = alive & (c != 0)
                p = _scalar_op(operator.truediv, _scalar_op(operator.mul, 100., c), t)
                precisions[hit, i] = p[hit]
                if self.smooth_method == "exp":
                    divisor[zero] *= 2
                    smoothed = _scalar_op(operator.truediv, 100.,
                                          _scalar_op(operator.mul, divisor, t,
                                                                left_is_python=True))
                    precisions[zero, i] = smoothed[zero]
                elif self.smooth_method == "floor":
                    smoothed = _scalar_op(operator.truediv, 100. * self.smooth_value, t)
                    precisions[zero, i] = smoothed[zero]

            is_zero = precisions == 0.0
            logs = np.full(precisions.shape, float(LOG_ZERO))
            logs[~is_zero] = log(precisions[~is_zero])
            mean_log = _sum_first(logs, is_zero, eff, python_sum=exact) / eff
            scores = bp * exp(mean_log)
        scores[~has_match] = 0.0
        return scores


class RowScorer:
    """Any scalar "summed statistics -> score" function as a :class:`BatchScorer`.

    This is how a dialect or another metric plugs in: give its statistics
    function and its scoring function; rows are scored one at a time.
    """

    def __init__(self, statistics: Callable[[Sequence[str]], Any],
                 score_row: Callable[[Any], float], name: str = "metric",
                 higher_is_better: bool = True) -> None:
        self._statistics = statistics
        self._score_row = score_row
        self.name = name
        self.higher_is_better = higher_is_better

    def statistics(self, hypotheses: Sequence[str]):
        return numpy().asarray(self._statistics(hypotheses))

    def score_rows(self, sums):
        """The scores of the rows, in the type the scalar function returns them.

        NumPy rows go in (as sacreBLEU hands them to ``_compute_score_from_stats``)
        and ``np.array`` of the results comes out, so a function that computes
        in float32 on float32 sums gives a float32 array, as in sacreBLEU.
        """
        np = numpy()
        sums = np.asarray(sums)
        if len(sums) == 0:
            return np.empty(0, dtype=np.float64)
        return np.array([self._score_row(row) for row in sums])


def scorer_for(metric, in_place: bool = False, effective_order: bool | None = None) -> BatchScorer:
    """The batch scorer of a metric object (BLEU, chrF, TER, ...).

    BLEU gets the vectorised :class:`BLEUBatchScorer` (``in_place`` and
    ``effective_order`` as in :meth:`BLEUBatchScorer.from_metric`); any other
    metric plugs in through its generic interface, ``corpus_statistics`` and
    ``score_from_statistics``, as a :class:`RowScorer`. The summed rows are
    handed to ``score_from_statistics`` as NumPy rows of the dtype the test
    sums in (``float32`` for bootstrap, ``int64`` for randomization), which is
    what sacreBLEU hands to ``_compute_score_from_stats``.
    """
    from ..metrics.bleu.metric import BLEU

    if isinstance(metric, BLEU):
        return BLEUBatchScorer.from_metric(metric, in_place=in_place,
                                           effective_order=effective_order)
    name = getattr(metric, "name", type(metric).__name__)
    # an error rate (TER) ranks lower first; a metric may say so itself
    higher = getattr(metric, "higher_is_better", not type(metric).__name__.startswith("TER"))
    return RowScorer(lambda hyps: metric.corpus_statistics(hyps).to_numpy(),
                     lambda row: metric.score_from_statistics(row).score, name=name,
                     higher_is_better=higher)
