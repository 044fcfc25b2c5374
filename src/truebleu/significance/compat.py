"""sacreBLEU 2.6.0's ``-ci``, ``-pbs`` and ``-par``: same numbers, same report.

Seeds as sacreBLEU takes them: an explicit ``seed`` wins, else the
``SACREBLEU_SEED`` environment variable, else 12345; the text ``none`` (any
case) draws fresh entropy from the OS. One deliberate difference: sacreBLEU
silently replaces seed 0 by fresh entropy for the compared systems (but not
for the baseline); truebleu uses 0 as a seed like any other number.

These functions also keep sacreBLEU's p-value statistics, including the strict
``>`` (a system compared with itself gets p = 1/(n+1), as in sacreBLEU) and its
bootstrap statistic; truebleu's own API corrects both (see :mod:`.paired`).
"""

from __future__ import annotations

import os

from ..core.lazy_numpy import numpy
from ..core.progress import Progress
from . import native
from .preconditions import (
    DEFAULT_SAMPLES,
    TEST_NAMES,
    bootstrap_cost,
    check_samples,
    check_test,
    paired_cells_cost,
    require_segments,
)
from .resampling import bootstrap_draws, make_rng, swap_masks
from .scoring import scorer_for

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: importing typing costs about 16 M instructions
if TYPE_CHECKING:
    from typing import Any, Optional, Sequence

    from numpy.typing import ArrayLike, NDArray

    from ..core.statistics import RowTable
    from .scoring import BatchScorer, CoreScorer

#: a seed as sacreBLEU takes it: an int, its text, ``"none"`` (fresh entropy) or None (not given)
Seed = int | str | None


def seed_setting(seed: Seed = None) -> tuple[str, Optional[int]]:
    """(the text sacreBLEU would show, the value for NumPy) for a seed request.

    ``None`` means "not given": ``$SACREBLEU_SEED`` or 12345.
    """
    text = os.environ.get("SACREBLEU_SEED", "12345") if seed is None else str(seed)
    if text.strip().lower() == "none":
        return "none", None
    try:
        value = int(text)
    except ValueError:
        raise ValueError(f"seed must be an integer or 'none', got {text!r}") from None
    return text.lower(), value


def check_confidence(n_bootstrap: int, n_segments: int, option: str = "n_bootstrap",
                     repeats: int = 1) -> int:
    """:func:`bootstrap_confidence`'s checks, on sizes alone (``corpus_score`` runs them
    before computing any statistic): the number of samples (returned as an int), two
    segments or more, the cost (of ``repeats`` runs one after the other: ``-m bleu chrf``)."""
    n_bootstrap = check_samples(n_bootstrap, option)
    require_segments(n_segments, "a bootstrap confidence interval")
    check_test(bootstrap_cost(n_bootstrap, n_segments, 1).repeated(repeats), option,
               n_bootstrap, "ci", n_segments, 1)
    return n_bootstrap


def bootstrap_confidence(stats: RowTable, metric: Any, n_bootstrap: int, seed: Seed = None
                         ) -> tuple[str, float, float]:
    """``(seed text, mean, ci)`` for ``BLEU.corpus_score(n_bootstrap=n)`` (sacreBLEU's ``-ci``).

    ``mean`` is :func:`statistics.mean` of the resampled scores and ``ci`` half
    the 2.5%-97.5% spread, as sacreBLEU's ``Score.estimate_ci``.
    """
    n_bootstrap = check_confidence(n_bootstrap, len(stats))
    text, value = seed_setting(seed)
    scorer = scorer_for(metric, in_place=True)
    if value is not None and native.applies(scorer, value, [stats]):
        with Progress(n_bootstrap, "bootstrap", "samples") as bar:
            columns = native.bootstrap_columns([stats], scorer, n_bootstrap, value, bar,
                                               threads=getattr(metric, "threads", None))
        if columns is not None:
            return (text,) + _statistics_interval(columns[0])
    from .paired import as_matrix, bootstrap_scores  # NumPy's path (paired imports dataclasses)

    matrix = as_matrix(stats)
    indices = bootstrap_draws(make_rng(value), matrix.shape[0], n_bootstrap)
    with Progress(n_bootstrap, "bootstrap", "samples") as bar:
        column = bootstrap_scores(indices, [matrix], scorer, bar)[:, 0]
    # Python floats for float64 scores; NumPy float32 scalars (with their
    # float32 arithmetic below, as in sacreBLEU) when the metric scores in float32
    return (text,) + _statistics_interval(
        column.tolist() if column.dtype == numpy().float64 else list(column))


def _statistics_interval(scores: Sequence[float]) -> tuple[float, float]:
    """sacreBLEU's ``Score.estimate_ci``: :func:`statistics.mean` and half the 2.5%-97.5% spread."""
    import statistics as pystats  # (imports fractions and decimal: only -ci needs it)

    ordered = sorted(scores)
    lower = len(ordered) // 40
    upper = len(ordered) - lower - 1
    return pystats.mean(ordered), 0.5 * (ordered[upper] - ordered[lower])


def _interval(scores: ArrayLike) -> tuple[float, float]:
    """sacreBLEU's ``estimate_ci``: (mean, half the 2.5%-97.5% spread) in the scores' own dtype."""
    ordered = numpy().sort(numpy().asarray(scores))
    lower = len(ordered) // 40
    upper = len(ordered) - lower - 1
    return ordered.mean(), 0.5 * (ordered[upper] - ordered[lower])


class PairedCell:
    """One metric cell of sacreBLEU's paired table (attributes in its JSON order)."""

    def __init__(self, score: float, p_value: Optional[float] = None,
                 mean: Optional[float] = None, ci: Optional[float] = None) -> None:
        self.score = score
        self.p_value = p_value
        self.mean = mean
        self.ci = ci

    def __repr__(self) -> str:
        return ",".join(f"{k}={v}" for k, v in vars(self).items())


def check_paired(test_type: str, n_samples: int, n_segments: int, n_systems: int,
                 option: str = "n_samples", repeats: int = 1) -> None:
    """:func:`paired_cells`' checks on sizes alone: two segments or more, the cost (of
    ``repeats`` runs one after the other: one per metric of ``-m bleu chrf``)."""
    require_segments(n_segments, TEST_NAMES[test_type])
    check_test(paired_cells_cost(test_type, n_samples, n_segments, n_systems).repeated(repeats),
               option, n_samples, test_type, n_segments, n_systems)


def paired_cells(named_systems: Sequence[tuple[str, Sequence[str]]], metric: Any,
                 test_type: str = "bs", n_samples: Optional[int] = None,
                 seed: Seed = None) -> tuple[str, list[PairedCell]]:
    """Every system against the first: (seed text, one cell per system).

    The numbers are sacreBLEU's ``PairedTest`` results for the same seed.
    """
    if test_type not in DEFAULT_SAMPLES:
        raise ValueError(f"test_type must be 'bs' or 'ar', got {test_type!r}")
    n_samples = DEFAULT_SAMPLES[test_type] if n_samples is None else check_samples(n_samples)
    if len(named_systems) < 2:
        raise ValueError("paired tests need a baseline and at least one other system")
    names = [name for name, _ in named_systems]
    check_paired(test_type, n_samples, len(named_systems[0][1]), len(named_systems))
    tables = _statistics_of(metric, [hyps for _, hyps in named_systems])
    _, seed_value = seed_setting(seed)
    # the corpus sums of the metric itself (sacreBLEU's order for float statistics)
    scores = [metric.score_from_statistics(table.sum()).score for table in tables]
    scorer = scorer_for(metric, in_place=True)
    if seed_value is not None and native.applies(scorer, seed_value, tables):
        cells = _native_cells(tables, scores, scorer, test_type, n_samples, seed_value,
                              getattr(metric, "threads", None))
        if cells is not None:
            return str(seed_value), cells
    from .paired import as_matrix, check_same_shape  # NumPy's path (paired imports dataclasses)

    matrices = [as_matrix(table, name) for table, name in zip(tables, names)]
    check_same_shape(matrices, names)
    n_segments = matrices[0].shape[0]
    if test_type == "bs":
        cells = _bootstrap_cells(matrices, scores, scorer, n_samples, seed_value, n_segments)
    else:
        cells = _randomization_cells(matrices, scores, scorer, n_samples, seed_value, n_segments)
    return ("none" if seed_value is None else str(seed_value)), cells


def _statistics_of(metric: Any, systems: list[Sequence[str]]) -> list[RowTable]:
    """Each system's statistics, in order: in one call of the kernel where the metric's
    class has one (:meth:`truebleu.metrics.base.Metric.systems_statistics`; BLEU's native
    kernel), else one ``corpus_statistics`` call per system (an object that only has that,
    or one that wraps a metric and delegates the rest: the class is asked, not the object)."""
    if getattr(type(metric), "systems_statistics", None) is not None:
        tables: list[RowTable] = metric.systems_statistics(systems)
        return tables
    return [metric.corpus_statistics(hyps) for hyps in systems]


def _bootstrap_cells(matrices: list[NDArray[Any]], scores: list[float], scorer: BatchScorer,
                     n_samples: int, seed_value: Optional[int], n_segments: int
                     ) -> list[PairedCell]:
    from .paired import bootstrap_p_value, bootstrap_scores

    with Progress(n_samples * (len(matrices) if seed_value is None else 1), "paired bootstrap",
                  "samples") as bar:
        indices = bootstrap_draws(make_rng(seed_value), n_segments, n_samples)
        columns: list[NDArray[Any]]
        paired_baselines: list[NDArray[Any]]
        if seed_value is not None:  # every system draws the same samples as the baseline
            table = bootstrap_scores(indices, matrices, scorer, bar)
            baseline_scores, columns = table[:, 0], [table[:, k] for k in range(1, len(matrices))]
            paired_baselines = [baseline_scores] * len(columns)
        else:  # fresh entropy: each comparison has its own samples
            baseline_scores = bootstrap_scores(indices, matrices[:1], scorer, bar)[:, 0]
            columns, paired_baselines = [], []
            for matrix in matrices[1:]:
                own = bootstrap_draws(make_rng(None), n_segments, n_samples)
                pair = bootstrap_scores(own, [matrices[0], matrix], scorer, bar)
                paired_baselines.append(pair[:, 0])
                columns.append(pair[:, 1])
    mean, ci = _interval(baseline_scores)
    cells = [PairedCell(scores[0], mean=mean, ci=ci)]
    for k, column in enumerate(columns, start=1):
        p = bootstrap_p_value(paired_baselines[k - 1], column, abs(scores[0] - scores[k]),
                              statistic="sacrebleu", strict=True)
        mean, ci = _interval(column)
        cells.append(PairedCell(scores[k], p, mean, ci))
    return cells


def _native_cells(tables: list[RowTable], scores: list[float], scorer: CoreScorer,
                  test_type: str, n_samples: int, seed_value: int,
                  threads: Optional[int] = None) -> Optional[list[PairedCell]]:
    """:func:`_bootstrap_cells`/:func:`_randomization_cells` with a fixed seed,
    in the compiled core (no NumPy; the bootstrap's sums on ``threads`` threads);
    None when the statistics are too large for it."""
    if test_type == "ar":
        observed = [abs(scores[0] - s) for s in scores[1:]]
        with Progress(n_samples, "approximate randomization", "trials") as bar:
            p_values = native.randomization_p_values(tables, scorer, n_samples, seed_value,
                                                     observed, strict=True, progress=bar)
        if p_values is None:
            return None
        return [PairedCell(scores[0])] + [PairedCell(s, p) for s, p in zip(scores[1:], p_values)]
    with Progress(n_samples, "paired bootstrap", "samples") as bar:
        columns = native.bootstrap_columns(tables, scorer, n_samples, seed_value, bar, threads)
    if columns is None:
        return None
    mean, ci = native.interval(columns[0])
    cells = [PairedCell(scores[0], mean=mean, ci=ci)]
    for k, column in enumerate(columns[1:], start=1):
        p = native.bootstrap_p_value(columns[0], column, abs(scores[0] - scores[k]), strict=True)
        mean, ci = native.interval(column)
        cells.append(PairedCell(scores[k], p, mean, ci))
    return cells


def _randomization_cells(matrices: list[NDArray[Any]], scores: list[float],
                         scorer: BatchScorer, n_samples: int, seed_value: Optional[int],
                         n_segments: int) -> list[PairedCell]:
    from .paired import randomization_p_values

    observed = [abs(scores[0] - s) for s in scores[1:]]
    with Progress(n_samples * (len(matrices) - 1 if seed_value is None else 1),
                  "approximate randomization", "trials") as bar:
        p_values: list[float]
        if seed_value is not None:
            masks = swap_masks(make_rng(seed_value), n_segments, n_samples)
            p_values = randomization_p_values(masks, matrices[0], matrices[1:], scorer,
                                              observed, bar, strict=True)
        else:
            p_values = []
            for matrix, obs in zip(matrices[1:], observed):
                masks = swap_masks(make_rng(None), n_segments, n_samples)
                p_values += randomization_p_values(masks, matrices[0], [matrix], scorer,
                                                   [obs], bar, strict=True)
    return [PairedCell(scores[0])] + [PairedCell(s, p) for s, p in zip(scores[1:], p_values)]
