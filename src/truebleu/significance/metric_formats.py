"""Reports of a :class:`~truebleu.significance.multimetric.MetricsComparison`.

One ranking per metric, each as :mod:`.formats` writes a single metric's (text, JSON,
LaTeX, TSV), then the metric agreement: every pair of metrics over the systems, each
metric against the gold, and the permutation tests between metrics. Each metric's
numbers are shown with at least ``width`` decimals, and more where its intervals
would otherwise round away (COMET's scores are below 1: two significant digits of its
smallest interval). Names (metrics, systems) are shown as :func:`.formats.shown`
and :func:`.formats.latex_escape` make them safe; JSON and TSV keep every number in
full precision (NaN, an undefined statistic, is ``null`` / empty).
"""

from __future__ import annotations

import math
from dataclasses import asdict
from typing import Any, Sequence

from . import formats as single
from .agreement import MetricAgreement
from .formats import FORMATS, json_text, latex_escape, shown
from .multi import MultiComparison
from .multimetric import MetricsComparison
from .pvalues import format_p_value

__all__ = ["decimals", "render_metrics"]


def decimals(ranking: MultiComparison, width: int) -> int:
    """``width``, or more where the smallest interval needs them to show two
    significant digits (at most ``width + 4``)."""
    intervals = [s.ci for s in ranking.systems if s.ci > 0 and math.isfinite(s.ci)]
    if not intervals:
        return width
    needed = 1 - math.floor(math.log10(min(intervals)))
    return max(width, min(needed, width + 4))


def _value(number: float, digits: int) -> str:
    return "-" if math.isnan(number) else f"{number:.{digits}f}"


def _direction(result: MetricsComparison, name: str) -> str:
    k = result.metrics.index(name)
    notes = ["higher is better" if result.higher_is_better[k] else "lower is better"]
    if name in result.external:
        notes.append("scores computed elsewhere")
    if name in result.official:
        notes.append("ranked by the official system scores; intervals and tests of the "
                     "segment scores")
    return "; ".join(notes)


# -- text ------------------------------------------------------------------------------


def _table(rows: Sequence[tuple[str, ...]], right: set[int]) -> list[str]:
    widths = [max(len(row[c]) for row in rows) for c in range(len(rows[0]))]
    lines = ["  ".join(cell.rjust(w) if c in right else cell.ljust(w)
                       for c, (cell, w) in enumerate(zip(row, widths))).rstrip()
             for row in rows]
    lines.insert(1, "=" * (sum(widths) + 2 * (len(widths) - 1)))
    return lines


def agreement_text(agreement: MetricAgreement, n_systems: int) -> str:
    """The agreement tables for the terminal."""
    lines = [f"Metric agreement over {n_systems} systems ({n_systems * (n_systems - 1) // 2} "
             "pairs; every score oriented so that higher is better):"]
    rows: list[tuple[str, ...]] = [("Metric", "Metric", "Pairwise accuracy", "Kendall tau")]
    for pair in agreement.systems:
        rows.append((shown(pair.metric_a), shown(pair.metric_b),
                     f"{_value(pair.accuracy, 3)} ({pair.agreeing_pairs}/{pair.system_pairs})",
                     _value(pair.kendall_tau, 3)))
    lines += _table(rows, {2, 3})
    if agreement.gold is None:
        return "\n".join(lines) + "\n"
    gold = shown(agreement.gold)
    lines += ["", f"Against the gold {gold} (system level: all pairs, and the pairs {gold}'s "
                  f"own test separates; segment level: grouped by {agreement.grouping}):"]
    rows = [("Metric", "Accuracy", "Acc. (significant)", "Kendall tau", "Segment tau",
             "acc23", "epsilon")]
    for row in agreement.against_gold:
        significant = (f"{_value(row.accuracy_significant, 3)} "
                       f"({row.agreeing_significant}/{row.significant_pairs})")
        rows.append((shown(row.metric), _value(row.accuracy, 3), significant,
                     _value(row.kendall_tau, 3), _value(row.segment_tau, 4),
                     _value(row.segment_acc23, 4), f"{row.acc23_epsilon:.4g}"))
    lines += _table(rows, {1, 2, 3, 4, 5, 6})
    if agreement.tests:
        seed = "OS entropy" if agreement.seed is None else f"seed {agreement.seed}"
        lines += ["", f"Does one metric agree with {gold} better than another? Pairwise "
                      f"permutation test ({agreement.n_permutations} permutations, {seed}; "
                      f"one-sided p; * p < {agreement.alpha:g}):"]
        for test in agreement.tests:
            mark = "*" if test.significant else " "
            lines.append(f"  {shown(test.better)} over {shown(test.worse)}, {test.statistic}: "
                         f"{test.better_value:.4f} vs {test.worse_value:.4f}, "
                         f"{format_p_value(test.p_value, agreement.alpha)} {mark}".rstrip())
    return "\n".join(lines) + "\n"


def to_text(result: MetricsComparison, width: int = 2) -> str:
    """Each metric's ranking (as ``truebleu compare`` prints one), then the agreement."""
    parts = []
    for k, (name, ranking) in enumerate(zip(result.metrics, result.rankings)):
        sentences = result.sentences[k] if result.sentences else ()
        parts.append(f"== {shown(name)} ({_direction(result, name)}) ==\n"
                     + single.to_text(ranking, decimals(ranking, width), sentences))
    if result.agreement is not None:
        parts.append(agreement_text(result.agreement, len(result.rankings[0].systems)))
    return "\n".join(parts)


# -- JSON --------------------------------------------------------------------------------


def _plain(value: Any) -> Any:
    """NaN as None (JSON has no NaN), recursively."""
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(item) for item in value]
    return value


def to_record(result: MetricsComparison) -> dict[str, object]:
    """``{"metrics": [one compare record per metric], "agreement": {...} or null}``."""
    metrics = []
    for k, (name, ranking) in enumerate(zip(result.metrics, result.rankings)):
        record = single.to_record(ranking, result.sentences[k] if result.sentences else ())
        record["higher_is_better"] = result.higher_is_better[k]
        record["external"] = name in result.external
        record["official_system_scores"] = name in result.official
        metrics.append(record)
    agreement = None if result.agreement is None else asdict(result.agreement)
    return {"metrics": _plain(metrics), "agreement": _plain(agreement)}


def to_json(result: MetricsComparison) -> str:
    return json_text(to_record(result))


# -- LaTeX -------------------------------------------------------------------------------


def _label(name: str) -> str:
    """A LaTeX label from a metric name: letters and digits only."""
    return "".join(ch for ch in name.lower() if ch.isascii() and ch.isalnum()) or "metric"


def agreement_latex(agreement: MetricAgreement, label: str = "tab:agreement") -> str:
    """Booktabs tables: metric pairs over the systems; each metric against the gold."""
    lines = [r"\begin{table}[t]", r"\centering", r"\begin{tabular}{llrr}", r"\toprule",
             r"Metric & Metric & Pairwise acc. & Kendall $\tau$ \\", r"\midrule"]
    for pair in agreement.systems:
        lines.append(f"{latex_escape(pair.metric_a)} & {latex_escape(pair.metric_b)} & "
                     f"{_value(pair.accuracy, 3)} & {_value(pair.kendall_tau, 3)} \\\\")
    lines += [r"\bottomrule", r"\end{tabular}",
              r"\caption{Metric agreement over the systems: the share of system pairs "
              r"two metrics order alike, and Kendall's $\tau_b$.}",
              f"\\label{{{label}}}", r"\end{table}"]
    if agreement.gold is not None:
        gold = latex_escape(agreement.gold)
        lines += ["", r"\begin{table}[t]", r"\centering", r"\begin{tabular}{lrrrrr}",
                  r"\toprule",
                  r"Metric & Acc. & Acc. (sig.) & $\tau$ & Seg. $\tau$ & acc23 \\",
                  r"\midrule"]
        for row in agreement.against_gold:
            lines.append(f"{latex_escape(row.metric)} & {_value(row.accuracy, 3)} & "
                         f"{_value(row.accuracy_significant, 3)} & "
                         f"{_value(row.kendall_tau, 3)} & {_value(row.segment_tau, 3)} & "
                         f"{_value(row.segment_acc23, 3)} \\\\")
        lines += [r"\bottomrule", r"\end{tabular}",
                  f"\\caption{{Agreement with {gold}: pairwise accuracy over all system "
                  f"pairs and over those {gold} separates significantly, Kendall's $\\tau_b$ "
                  f"over systems and over segments (grouped by {agreement.grouping}), and "
                  f"tie-calibrated pairwise accuracy (acc23).}}",
                  f"\\label{{{label}-gold}}", r"\end{table}"]
    return "\n".join(lines) + "\n"


def to_latex(result: MetricsComparison, width: int = 1) -> str:
    parts = [single.to_latex(ranking, decimals(ranking, width),
                             label=f"tab:significance-{_label(name)}")
             for name, ranking in zip(result.metrics, result.rankings)]
    if result.agreement is not None:
        parts.append(agreement_latex(result.agreement))
    return "\n".join(parts)


# -- TSV ---------------------------------------------------------------------------------


def _cell(value: object) -> str:
    """:func:`.formats._tsv_cell`, with NaN (an undefined statistic) as an empty cell."""
    if isinstance(value, float) and math.isnan(value):
        return ""
    return single._tsv_cell(value)


def _rows(header: tuple[str, ...], rows: Sequence[Sequence[object]]) -> list[str]:
    return ["\t".join(header)] + ["\t".join(_cell(v) for v in row) for row in rows]


def to_tsv(result: MetricsComparison) -> str:
    """Tables separated by blank lines, each with a header: systems, pairs (both with a
    metric column), then metric pairs, each metric against the gold, and the tests."""
    systems = [(name, s.rank, s.cluster, s.name, s.score, s.mean, s.ci)
               for name, ranking in zip(result.metrics, result.rankings)
               for s in ranking.systems]
    pairs = [(name, p.a, p.b, p.score_a, p.score_b, p.delta, p.p_value, p.p_adjusted,
              "yes" if p.significant else "no")
             for name, ranking in zip(result.metrics, result.rankings) for p in ranking.pairs]
    tables = [_rows(("metric", "rank", "cluster", "system", "score", "mean", "ci"), systems),
              _rows(("metric", "system_a", "system_b", "score_a", "score_b", "delta", "p_value",
                     "p_adjusted", "significant"), pairs)]
    agreement = result.agreement
    if agreement is not None:
        tables.append(_rows(("metric_a", "metric_b", "agreeing_pairs", "system_pairs",
                             "accuracy", "kendall_tau"),
                            [(p.metric_a, p.metric_b, p.agreeing_pairs, p.system_pairs,
                              p.accuracy, p.kendall_tau) for p in agreement.systems]))
        if agreement.gold is not None:
            tables.append(_rows(
                ("metric", "gold", "accuracy", "significant_pairs", "agreeing_significant",
                 "accuracy_significant", "kendall_tau", "segment_tau", "segment_acc23",
                 "acc23_epsilon"),
                [(g.metric, agreement.gold, g.accuracy, g.significant_pairs,
                  g.agreeing_significant, g.accuracy_significant, g.kendall_tau, g.segment_tau,
                  g.segment_acc23, g.acc23_epsilon) for g in agreement.against_gold]))
            if agreement.tests:
                tables.append(_rows(
                    ("better", "worse", "statistic", "better_value", "worse_value", "p_value",
                     "permutations", "significant"),
                    [(t.better, t.worse, t.statistic, t.better_value, t.worse_value, t.p_value,
                      t.n_permutations, "yes" if t.significant else "no")
                     for t in agreement.tests]))
    return "\n\n".join("\n".join(table) for table in tables) + "\n"


def render_metrics(result: MetricsComparison, fmt: str = "text", width: int = 2) -> str:
    """The report in ``fmt`` (one of :data:`.formats.FORMATS`)."""
    if fmt == "text":
        return to_text(result, width)
    if fmt == "json":
        return to_json(result)
    if fmt == "latex":
        return to_latex(result, width)
    if fmt == "tsv":
        return to_tsv(result)
    raise ValueError(f"unknown format {fmt!r}; choose one of: {', '.join(FORMATS)}")
