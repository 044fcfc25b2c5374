"""chrF of many summed statistics rows at once: the vectorised twin of :func:`.spec.f_score`.

Resampling (bootstrap, approximate randomization), a report's sentence scores and its
leave-one-out contributions score tens of thousands of summed rows; scoring them one at a
time through :func:`.spec.f_score` took most of a report's time with chrF. chrF's rows are
integer counts, and :func:`.spec.f_score` is elementwise arithmetic (divisions, products
and sums over the orders, in a fixed order), so the same IEEE operations on whole columns
give exactly the floats it gives for each row. The tests compare the two on every kind of
row (empty orders, zero matches, ``eps_smoothing``), bit for bit.

Rows of another dtype (the bootstrap's float32 sums, as sacreBLEU's) are scored one at a
time by :func:`.spec.f_score`: its scalar arithmetic on them is sacreBLEU's, result types
included.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Sequence

from ...core.lazy_numpy import numpy
from .spec import EPS, f_score

if TYPE_CHECKING:
    from numpy.typing import ArrayLike, NDArray


class CHRFBatchScorer:
    """chrF (``beta``, ``eps_smoothing``) of a ``(rows, 3 * orders)`` array of summed rows.

    ``statistics`` is the metric's own (one row per hypothesis); ``name`` and
    ``higher_is_better`` label it in reports, as :class:`truebleu.significance.scoring.RowScorer`
    does for any metric.
    """

    def __init__(self, statistics: Callable[[Sequence[str]], ArrayLike], beta: float,
                 eps_smoothing: bool, name: str) -> None:
        self._statistics = statistics
        self.beta = beta
        self.eps_smoothing = eps_smoothing
        self.name = name
        self.higher_is_better = True

    def statistics(self, hypotheses: Sequence[str]) -> NDArray[Any]:
        matrix: NDArray[Any] = numpy().asarray(self._statistics(hypotheses))
        return matrix

    def score_rows(self, sums: ArrayLike) -> NDArray[Any]:
        np = numpy()
        rows: NDArray[Any] = np.asarray(sums)
        if rows.ndim != 2 or rows.shape[1] % 3 or rows.shape[1] == 0:
            raise ValueError(f"expected rows of 3 * orders statistics, got shape {rows.shape}")
        if not np.issubdtype(rows.dtype, np.integer):
            # the bootstrap sums chrF's rows in float32, as sacreBLEU does: its scalar
            # arithmetic (float32 results, float64 where a Python float enters) is the
            # spec's, row by row, in the type NumPy gives the list of results
            if len(rows) == 0:
                empty: NDArray[Any] = np.empty(0, dtype=np.float64)
                return empty
            scores: NDArray[Any] = np.array([f_score(row, self.beta, self.eps_smoothing)
                                             for row in rows])
            return scores
        return chrf_of_rows(rows, self.beta, self.eps_smoothing)


def chrf_of_rows(rows: NDArray[Any], beta: float, eps_smoothing: bool) -> NDArray[Any]:
    """:func:`.spec.f_score` of each integer row, the same operations in the same order."""
    np = numpy()
    order = rows.shape[1] // 3
    factor = beta ** 2
    n = rows.shape[0]
    score = np.zeros(n)
    effective = np.zeros(n, dtype=np.int64)
    avg_prec = np.zeros(n)
    avg_rec = np.zeros(n)
    with np.errstate(divide="ignore", invalid="ignore"):
        for i in range(order):
            n_hyp, n_ref, n_match = rows[:, 3 * i], rows[:, 3 * i + 1], rows[:, 3 * i + 2]
            prec = np.where(n_hyp > 0, n_match / n_hyp, EPS)
            rec = np.where(n_ref > 0, n_match / n_ref, EPS)
            if eps_smoothing:
                denom = factor * prec + rec
                score = score + np.where(denom > 0, (1 + factor) * prec * rec / denom, EPS)
                continue
            both = (n_hyp > 0) & (n_ref > 0)
            # x + 0.0 is x: adding zero where an order does not count leaves the sum's bits
            avg_prec = avg_prec + np.where(both, prec, 0.0)
            avg_rec = avg_rec + np.where(both, rec, 0.0)
            effective += both
        if eps_smoothing:
            result: NDArray[Any] = 100 * score / order
            return result
        counted = effective > 0
        avg_prec = np.where(counted, avg_prec / np.maximum(effective, 1), 0.0)
        avg_rec = np.where(counted, avg_rec / np.maximum(effective, 1), 0.0)
        f = (1 + factor) * avg_prec * avg_rec
        f = f / ((factor * avg_prec) + avg_rec)
        result = np.where((avg_prec + avg_rec) != 0, 100 * f, 0.0)
    return result
