"""Scores of many summed-statistics rows at once, bit-identical to the scalar code.

Resampling produces thousands of summed statistics rows; scoring them one by
one in Python is what makes sacreBLEU's tests slow. A metric may therefore
give a vectorised scorer (``metric.batch_scorer()``; BLEU's is
:class:`truebleu.metrics.bleu.rows.BLEUBatchScorer`) that returns exactly the
floats its scalar score function returns for each row, because it repeats the
same IEEE operations in the same order on the same types, with the helpers
below:

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

Any metric takes part in the tests through the :class:`BatchScorer` protocol:
a statistics matrix per system and a function from summed rows to scores.
:class:`RowScorer` adapts a scalar function (a metric's
``score_from_statistics``, a dialect's "statistics -> score"), slower but
exact by construction.
"""

from __future__ import annotations

import sys

from ..core.lazy_numpy import numpy

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: importing typing costs about 16 M instructions
if TYPE_CHECKING:
    from typing import Any, Callable, Sequence

    from numpy import bool_, dtype, float64, int64
    from numpy.typing import ArrayLike, NDArray

    from .protocols import ApproximateScorer as ApproximateScorer
    from .protocols import BatchScorer as BatchScorer
    from .protocols import CoreScorer as CoreScorer

    #: an arithmetic operator (``operator.add``, ``mul``, ``truediv``) on arrays and numbers
    Operator = Callable[[Any, Any], Any]

LOG_ZERO = -9999999999  # log(0) as floored by sacreBLEU's scorer
_COMPENSATED_SUM = sys.version_info >= (3, 12)

#: the scorer protocols, in :mod:`.protocols` (they need typing), also reachable from here
_PROTOCOLS = ("ApproximateScorer", "BatchScorer", "CoreScorer")


def __getattr__(name: str) -> object:
    if name in _PROTOCOLS:
        from . import protocols

        return getattr(protocols, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _probe(op: Operator, left: Any, right: Any, left_is_python: bool = False) -> dtype[Any]:
    """The dtype NumPy's scalar arithmetic gives ``op(left, right)``.

    An array stands for NumPy scalars of its dtype, unless ``left_is_python``
    says that its elements are Python floats in the scalar code.
    """
    np = numpy()

    def sample(x: Any, python: bool = False) -> Any:
        if python:
            return 1.0
        return x.dtype.type(1) if hasattr(x, "dtype") else x

    result: dtype[Any] = np.asarray(op(sample(left, left_is_python), sample(right))).dtype
    return result


def _scalar_op(op: Operator, left: Any, right: Any, left_is_python: bool = False) -> NDArray[Any]:
    """``op`` on arrays/Python numbers with the result dtype of scalar arithmetic."""
    np = numpy()
    dtype = _probe(op, left, right, left_is_python)
    result: NDArray[Any] = op(np.asarray(left, dtype=dtype), np.asarray(right, dtype=dtype))
    return result


def _math_map(func: Callable[[float], float], values: ArrayLike) -> NDArray[float64]:
    """``func`` from :mod:`math` on every element (the C library, like the scalar code)."""
    np = numpy()
    flat = np.asarray(values, dtype=np.float64).ravel()
    mapped: NDArray[float64] = np.fromiter(map(func, flat.tolist()), dtype=np.float64,
                                              count=flat.size).reshape(np.shape(values))
    return mapped


def _sum_first(logs: NDArray[float64], zero: NDArray[bool_], eff: NDArray[int64],
               python_sum: bool = True) -> NDArray[float64]:
    """Per row, Python's ``sum`` of the first ``eff[row]`` log precisions."""
    np = numpy()
    rows, order = logs.shape
    if not (_COMPENSATED_SUM and python_sum):
        # before 3.12 ``sum`` adds left to right; the int LOG_ZERO terms are
        # exact in a double, so sequential float64 adds give the same bits
        total: NDArray[float64] = logs[:, 0].copy()
        for j in range(1, order):
            use = j < eff
            total[use] = total[use] + logs[use, j]
        return total
    out: NDArray[float64] = np.empty(rows, dtype=np.float64)
    for r, (row, zrow, k) in enumerate(zip(logs.tolist(), zero.tolist(), eff.tolist())):
        out[r] = sum([LOG_ZERO if z else v for v, z in zip(row[:k], zrow[:k])])
    return out


class RowScorer:
    """Any scalar "summed statistics -> score" function as a :class:`BatchScorer`.

    This is how a dialect or another metric plugs in: give its statistics
    function and its scoring function; rows are scored one at a time.
    """

    def __init__(self, statistics: Callable[[Sequence[str]], ArrayLike],
                 score_row: Callable[[Any], float], name: str = "metric",
                 higher_is_better: bool = True) -> None:
        self._statistics = statistics
        self._score_row = score_row
        self.name = name
        self.higher_is_better = higher_is_better

    def statistics(self, hypotheses: Sequence[str]) -> NDArray[Any]:
        matrix: NDArray[Any] = numpy().asarray(self._statistics(hypotheses))
        return matrix

    def score_rows(self, sums: ArrayLike) -> NDArray[Any]:
        """The scores of the rows, in the type the scalar function returns them.

        NumPy rows go in (as sacreBLEU hands them to ``_compute_score_from_stats``)
        and ``np.array`` of the results comes out, so a function that computes
        in float32 on float32 sums gives a float32 array, as in sacreBLEU.
        """
        np = numpy()
        rows: NDArray[Any] = np.asarray(sums)
        if len(rows) == 0:
            empty: NDArray[Any] = np.empty(0, dtype=np.float64)
            return empty
        scores: NDArray[Any] = np.array([self._score_row(row) for row in rows])
        return scores


def scorer_for(metric: Any, **options: Any) -> BatchScorer:
    """The batch scorer of a metric object (BLEU, chrF, TER, ...): its ``batch_scorer``.

    ``options`` go to it (BLEU takes ``in_place`` and ``effective_order``, see
    :class:`truebleu.metrics.bleu.rows.BLEUBatchScorer`). An object that is not a
    truebleu metric but has ``corpus_statistics`` and ``score_from_statistics``
    (sacreBLEU's interface) is scored one summed row at a time, as a
    :class:`RowScorer`; the summed rows are handed to ``score_from_statistics``
    as NumPy rows of the dtype the test sums in (``float32`` for bootstrap,
    ``int64`` for randomization), as sacreBLEU hands them to
    ``_compute_score_from_stats``.
    """
    own = getattr(metric, "batch_scorer", None)
    if callable(own):
        scorer: BatchScorer = own(**options)
        return scorer
    name: str = getattr(metric, "name", type(metric).__name__)
    return RowScorer(lambda hyps: metric.corpus_statistics(hyps).to_numpy(),
                     lambda row: metric.score_from_statistics(row).score, name=name,
                     higher_is_better=getattr(metric, "higher_is_better", True))
