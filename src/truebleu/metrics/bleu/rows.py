"""BLEU of many summed statistics rows at once: the vectorised twin of :func:`.score.compute_bleu`.

Resampling (bootstrap, approximate randomization) scores thousands of summed
rows; :class:`BLEUBatchScorer` evaluates BLEU on a whole ``(rows, width)``
array and returns exactly the floats that :func:`.score.compute_bleu` (and
sacreBLEU's ``BLEU.compute_bleu``) return for each row, with the arithmetic
helpers of :mod:`truebleu.significance.scoring` (same IEEE operations, same
order, same types; ``log`` and ``exp`` from :mod:`math`). Where the compiled
core is in use, :meth:`BLEUBatchScorer.core_scores` scores int64 sums in C
(``bleu_rows``), the same operations again.

The dtype of the input matters as it does for sacreBLEU: a ``float32`` array
reproduces its bootstrap arithmetic, an ``int64`` array its approximate
randomization arithmetic and plain Python integer arithmetic.
"""

from __future__ import annotations

import math
import operator
import sys
from functools import partial

from ...core.lazy_numpy import numpy
from ...core.statistics import RowTable
from ...significance.scoring import LOG_ZERO, _math_map, _scalar_op, _sum_first
from .config import SMOOTH_CODES, SMOOTH_DEFAULTS, check_order, check_smoothing

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: importing typing costs about 16 M instructions
if TYPE_CHECKING:  # for the checker only: a Protocol class costs start-up to build
    from typing import Any, Callable, Optional, Protocol, Sequence

    from numpy.typing import ArrayLike, NDArray
    from typing_extensions import Buffer

    class BLEUSettings(Protocol):
        """What :meth:`BLEUBatchScorer.from_metric` reads of a :class:`truebleu.BLEU`."""

        @property
        def max_ngram_order(self) -> int: ...

        @property
        def smooth_method(self) -> str: ...

        @property
        def smooth_value(self) -> Optional[float]: ...

        @property
        def effective_order(self) -> bool: ...

        def corpus_statistics(self, hypotheses: Sequence[str]) -> RowTable: ...


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
    higher_is_better = True

    def __init__(self, max_ngram_order: int = 4, smooth_method: str = "exp",
                 smooth_value: float | None = None, effective_order: bool = False,
                 in_place: bool = False,
                 statistics: Callable[[Sequence[str]], NDArray[Any]] | None = None) -> None:
        check_smoothing(smooth_method, smooth_value)  # the checks of every BLEU path
        self.max_ngram_order = check_order(max_ngram_order)
        self.smooth_method = smooth_method
        self.smooth_value = SMOOTH_DEFAULTS[smooth_method] if smooth_value is None else smooth_value
        self.effective_order = bool(effective_order)
        self.in_place = bool(in_place)
        self._statistics = statistics

    @classmethod
    def from_metric(cls, metric: BLEUSettings, in_place: bool = False,
                    effective_order: bool | None = None) -> "BLEUBatchScorer":
        """The scorer of a :class:`truebleu.BLEU` (its statistics come from the metric)."""
        return cls(metric.max_ngram_order, metric.smooth_method, metric.smooth_value,
                   metric.effective_order if effective_order is None else effective_order,
                   in_place=in_place,
                   statistics=lambda hyps: metric.corpus_statistics(hyps).to_numpy())

    @property
    def width(self) -> int:
        return 2 + 2 * self.max_ngram_order

    def statistics(self, hypotheses: Sequence[str]) -> NDArray[Any]:
        if self._statistics is None:
            raise ValueError("this scorer was built without a statistics function")
        return self._statistics(hypotheses)

    def _add_k(self, column: NDArray[Any]) -> NDArray[Any]:
        added: NDArray[Any] = _scalar_op(operator.add, column, self.smooth_value)
        return added.astype(column.dtype) if self.in_place else added

    def core_scores(self, sums: Buffer, float32: bool) -> memoryview[float]:
        """BLEU of int64 summed rows in the compiled core (``bleu_rows``): what
        :meth:`score_rows` gives with ``in_place=True`` for float32 (``float32``)
        or int64 arrays of the same values (:mod:`truebleu.significance.native`)."""
        from ...core.kernels import native_core

        python_sum = sum if sys.version_info >= (3, 12) else None  # 3.12+: compensated
        scores = native_core().bleu_rows(sums, self.max_ngram_order,
                                         SMOOTH_CODES[self.smooth_method],
                                         float(self.smooth_value or 0.0), self.effective_order,
                                         float32, self.in_place, python_sum)
        return memoryview(scores).cast("d")

    supports_approx = True

    def score_rows(self, sums: ArrayLike, exact: bool = True) -> NDArray[Any]:
        """BLEU of each summed row of ``sums`` (shape ``(k, 2 + 2N)``) as float64.

        ``exact=False`` uses NumPy's ``log``/``exp`` (about 100 times faster,
        possibly a few ulps off); the tests use it only to find the rows whose
        outcome could depend on the last bits, which are then scored exactly.
        """
        np = numpy()
        log, exp = (partial(_math_map, math.log), partial(_math_map, math.exp)) if exact \
            else (np.log, np.exp)
        summed: NDArray[Any] = np.asarray(sums)
        if summed.ndim != 2 or summed.shape[1] != self.width:
            raise ValueError(f"expected an array of shape (k, {self.width}), got {summed.shape}")
        n_rows, order = summed.shape[0], self.max_ngram_order
        sys_len = summed[:, 0].astype(np.float64)
        ref_len = summed[:, 1].astype(np.float64)
        correct = summed[:, 2:2 + order]
        total = summed[:, 2 + order:]

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
                    assert self.smooth_value is not None  # floor's default is 0.1
                    smoothed = _scalar_op(operator.truediv, 100. * self.smooth_value, t)
                    precisions[zero, i] = smoothed[zero]

            is_zero = precisions == 0.0
            logs = np.full(precisions.shape, float(LOG_ZERO))
            logs[~is_zero] = log(precisions[~is_zero])
            mean_log = _sum_first(logs, is_zero, eff, python_sum=exact) / eff
            scores = bp * exp(mean_log)
        scores[~has_match] = 0.0
        result: NDArray[Any] = scores
        return result


