"""Significance tests over statistics computed by Spark, identical to :mod:`truebleu.significance`.

The resampling needs the whole ``(segments, width)`` statistics matrix in one
place: it is small (80 bytes per segment for BLEU, 16 for TER) and is
collected to the driver in row order (:mod:`.collect`; give ``order_by`` when
``df``'s order is not deterministic), where :mod:`truebleu.significance` runs
on it unchanged with the metric's own scorer (``metric.batch_scorer()``). The
results therefore equal the single-process ones on the same rows and seed, for
any metric: float rows (TER's) included, since the driver sums them exactly
as one process does.

Every function takes ``metric=`` (default: ``BLEU(**options)``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional, Sequence

from ..metrics.base import Metric
from ..significance import bootstrap_ci as _bootstrap_ci
from ..significance import paired_bootstrap as _paired_bootstrap
from ..significance import paired_randomization as _paired_randomization
from .collect import OrderBy, matrix_of, sorted_by, statistics_matrix
from .columns import References
from .segments import metric_of, segment_statistics

if TYPE_CHECKING:
    from numpy.typing import NDArray
    from pyspark.sql import DataFrame

    from ..significance.paired import ConfidenceInterval, PairedComparison
    from ..significance.resampling import RandomSeed

__all__ = ["bootstrap_ci", "paired_bootstrap", "paired_randomization", "statistics_matrix"]


def _matrices(df: DataFrame, hypotheses: Sequence[str], references: References,
              order_by: OrderBy, metric: Optional[Metric[Any]], threads: Optional[int],
              options: dict[str, Any]) -> list[NDArray[Any]]:
    """One statistics matrix per hypothesis column, rows aligned, collected in one job."""
    names = [f"__truebleu_statistics_{i}" for i in range(len(hypotheses))]
    for hypothesis, name in zip(hypotheses, names):
        df = segment_statistics(df, hypothesis, references, column=name, metric=metric,
                                threads=threads, **options)
    table = sorted_by(df, order_by).select(*names).toArrow()
    return [matrix_of(table.column(name), hypothesis)
            for name, hypothesis in zip(names, hypotheses)]


def bootstrap_ci(df: DataFrame, hypothesis: str = "hyp", references: References = ("ref",),
                 n_samples: int = 1000, seed: RandomSeed = 12345, order_by: OrderBy = None, *,
                 metric: Optional[Metric[Any]] = None, threads: Optional[int] = None,
                 **options: Any) -> ConfidenceInterval:
    """Bootstrap mean and 95% half-width of the corpus score of ``df``
    (= :func:`truebleu.significance.bootstrap_ci`)."""
    scorer = metric_of(metric, options).batch_scorer()  # checks metric and options first
    (matrix,) = _matrices(df, [hypothesis], references, order_by, metric, threads, options)
    return _bootstrap_ci(matrix, scorer, n_samples, seed=seed)


def paired_bootstrap(df: DataFrame, baseline: str, system: str,
                     references: References = ("ref",), n_samples: int = 1000,
                     seed: RandomSeed = 12345, statistic: str = "centered",
                     order_by: OrderBy = None, *, metric: Optional[Metric[Any]] = None,
                     threads: Optional[int] = None, **options: Any) -> PairedComparison:
    """Paired bootstrap test of hypothesis column ``system`` against ``baseline``
    (= :func:`truebleu.significance.paired_bootstrap`)."""
    scorer = metric_of(metric, options).batch_scorer()
    a, b = _matrices(df, [baseline, system], references, order_by, metric, threads, options)
    return _paired_bootstrap(a, b, scorer, n_samples, seed=seed,
                             names=(baseline, system), statistic=statistic)


def paired_randomization(df: DataFrame, baseline: str, system: str,
                         references: References = ("ref",), n_trials: int = 10000,
                         seed: RandomSeed = 12345, order_by: OrderBy = None, *,
                         metric: Optional[Metric[Any]] = None, threads: Optional[int] = None,
                         **options: Any) -> PairedComparison:
    """Paired approximate randomization test of ``system`` against ``baseline``
    (= :func:`truebleu.significance.paired_randomization`)."""
    scorer = metric_of(metric, options).batch_scorer()
    a, b = _matrices(df, [baseline, system], references, order_by, metric, threads, options)
    return _paired_randomization(a, b, scorer, n_trials, seed=seed,
                                 names=(baseline, system))
