"""Every metric of a report: chrF, TER and scores computed elsewhere beside BLEU.

A report built with ``metrics=`` or ``scores=`` carries, per metric, what
:func:`truebleu.significance.compare_metrics` finds for it: each system's corpus
score, its bootstrap 95% interval, rank and significance cluster (the metric's own
all-pairs tests), each system's sentence scores and their spread (BLEU with effective order as
``sacrebleu.sentence_bleu``, chrF and TER as ``sentence_chrf`` and ``sentence_ter``,
an external metric's own rows), TER's alignments (:mod:`.ter_alignments`), the
metric's direction, and how the metrics agree
(pairwise accuracy and Kendall's tau over systems for every pair of metrics, and
with a gold metric WMT's figures against it). The page shows these numbers as they
are; it computes none of them.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Mapping, Optional, Sequence, Union

if TYPE_CHECKING:
    from numpy.typing import NDArray

    from ..metrics.base import Metric
    from ..significance.agreement import MetricAgreement
    from ..significance.multimetric import ExternalScoresArgument

#: a metric as the viewer takes it: a registered name (``"chrf"``) or a metric object
#: holding the references (``CHRF(word_order=2, references=refs)``)
MetricChoice = Union[str, "Metric[Any]"]

__all__ = ["MetricChoice", "metric_objects", "metrics_payload"]


def metric_objects(choices: Sequence[MetricChoice], references: list[list[Optional[str]]],
                   bleu: Metric[Any]) -> list[Metric[Any]]:
    """The metric objects of ``choices``: ``"bleu"`` is the report's own BLEU (its
    options, so that its numbers are the page's BLEU numbers); another name is the
    registered metric with its defaults; an object is used as it is."""
    from ..metrics import METRICS

    objects: list[Metric[Any]] = []
    for choice in choices:
        if not isinstance(choice, str):
            objects.append(choice)
            continue
        name = choice.lower()
        if name not in METRICS:
            raise ValueError(f"unknown metric {choice!r}; choose from {', '.join(METRICS)}")
        # a metric's constructor takes its settings, each with a default (Metric.from_args)
        objects.append(bleu if name == "bleu"
                       else METRICS[name](references=references))  # type: ignore[call-arg]
    return objects


def metrics_payload(systems: Mapping[str, Sequence[str]], metrics: Sequence[Metric[Any]], *,
                    own_bleu: Optional[Metric[Any]] = None,
                    references: Optional[Sequence[Sequence[Optional[str]]]] = None,
                    scores: Optional[ExternalScoresArgument],
                    higher_is_better: Optional[Mapping[str, bool]], gold: Optional[str],
                    test: str, n_samples: int, seed: int, n_permutations: int,
                    document_index: Optional[Sequence[int]] = None
                    ) -> dict[str, Any]:
    """The page's ``metrics`` document: one entry per metric, and their agreement.

    ``document_index`` (each segment's document, numbered from 0) adds each metric's
    score per document and system."""
    from ..significance.multimetric import compare_metrics
    from .metric_subsets import document_scores, leave_one_out, rows_score
    from .ter_alignments import ter_alignment_payload

    if len(systems) < 2:
        raise ValueError("a report of several metrics compares systems: give at least two")
    result = compare_metrics(systems, list(metrics), scores=scores,
                             higher_is_better=higher_is_better, gold=gold, test=test,
                             n_samples=n_samples, seed=seed, ci_samples=n_samples,
                             n_permutations=n_permutations)
    names = list(systems)
    signatures = [_signature(metric) for metric in metrics]
    signatures += [None] * (len(result.metrics) - len(signatures))
    n_documents = max(document_index, default=-1) + 1 if document_index is not None else 0
    entries = []
    for k, (name, ranking) in enumerate(zip(result.metrics, result.rankings)):
        rows, scorer = result.statistics[k], result.scorers[k]
        by_name = {summary.name: summary for summary in ranking.systems}
        summaries = [by_name[system] for system in names]
        position = {system: i for i, system in enumerate(names)}
        entries.append({
            "name": name,
            "higher_is_better": result.higher_is_better[k],
            "external": name in result.external,
            "official": name in result.official,
            "signature": signatures[k],
            "score": [_finite(s.score) for s in summaries],
            "ci_mean": [_finite(s.mean) for s in summaries],
            "ci": [_finite(s.ci) for s in summaries],
            "rank": [s.rank for s in summaries],
            "cluster": [s.cluster for s in summaries],
            # [better, worse, p-value]: index pairs into the report's systems
            "pairs": [[position[p.a], position[p.b], p.p_value] for p in ranking.pairs],
            # per pair of "pairs": the paired bootstrap [mean, 95% half-width] of better − worse
            "pair_delta": [_finite_pair(p.delta_interval) for p in ranking.pairs],
            # A vs B (metric_subsets.py): each system's corpus score of its rows, of all
            # segments but one (per segment), and of each document's segments
            "rows_score": [rows_score(system_rows, scorer) for system_rows in rows],
            # (the page's own BLEU: its systems' "bleu_without" already, by the same scorer)
            "without": (None if k < len(metrics) and metrics[k] is own_bleu
                        else [leave_one_out(system_rows, scorer) for system_rows in rows]),
            "documents": ([document_scores(system_rows, scorer, document_index, n_documents)
                           for system_rows in rows] if document_index is not None else None),
            "sentence": [[_finite(v) for v in row] for row in result.segment_scores[k].tolist()],
            "spread": _spread(result.segment_scores[k]),
            # the page's own BLEU (its list shows it already, with its n-grams)
            "own_bleu": k < len(metrics) and own_bleu is not None and metrics[k] is own_bleu,
            # TER: the edits its search counted, per system and segment (ter_alignments.py)
            "alignment": (ter_alignment_payload(metrics[k], systems, references)
                          if k < len(metrics) and references is not None
                          and hasattr(metrics[k], "alignments") else None),
            # chrF: the settings the page finds one segment's matches with (_chrf_settings)
            "chrf_matches": (_chrf_settings(metrics[k]) if k < len(metrics)
                             and hasattr(metrics[k], "sentence_matches") else None),
        })
    return {"test": test, "n_samples": n_samples, "seed": seed, "gold": gold,
            "list": entries, "agreement": _agreement_payload(result.agreement)}


def _spread(matrix: NDArray[Any]) -> Optional[float]:
    """The standard deviation of a metric's sentence scores, over every system and segment.

    The page's "where the metrics disagree" measures each metric's preference for A or B
    in these units (a difference of one spread means as much for chrF as for COMET), so
    that metrics on different scales can be weighed against each other.
    """
    from ..core.lazy_numpy import numpy

    np = numpy()
    finite = matrix[np.isfinite(matrix)]
    if finite.size < 2:
        return None
    spread = float(np.std(finite))
    return spread if spread > 0 else None


def _chrf_settings(metric: Any) -> dict[str, Any]:
    """chrF's settings, with which the page finds the matches of the segment it shows.

    :meth:`CHRF.sentence_matches <truebleu.metrics.chrf.metric.CHRF.sentence_matches>`
    defines them; run for every system and segment at build time it costs ~6 ms a
    segment in Python (two minutes for WMT21 en-de's twenty systems), so the page runs
    its twin on the one segment shown (55-metric-detail.js, 57-chrf-matches.js; the
    browser tests compare the two), as it does for BLEU's n-grams.
    """
    config = metric.config
    return {"char_order": config.char_order, "word_order": config.word_order,
            "beta": config.beta, "lowercase": config.lowercase,
            "whitespace": config.whitespace, "eps_smoothing": config.eps_smoothing}


def _signature(metric: Any) -> Optional[str]:
    signature = getattr(metric, "get_signature", None)
    return str(signature().format()) if callable(signature) else None


def _finite(value: float) -> Optional[float]:
    return value if math.isfinite(value) else None


def _finite_pair(pair: Optional[tuple[float, float]]) -> Optional[list[Optional[float]]]:
    return None if pair is None else [_finite(value) for value in pair]


def _agreement_payload(agreement: Optional[MetricAgreement]) -> Optional[dict[str, Any]]:
    if agreement is None:
        return None
    return {
        "metrics": list(agreement.metrics),
        # every pair of metrics: the share of system pairs ordered alike, and Kendall's tau
        "pairs": [{"a": pair.metric_a, "b": pair.metric_b, "agreeing": pair.agreeing_pairs,
                   "system_pairs": pair.system_pairs, "accuracy": _finite(pair.accuracy),
                   "tau": _finite(pair.kendall_tau)} for pair in agreement.systems],
        "gold": agreement.gold,
        "against_gold": [{
            "metric": g.metric, "accuracy": _finite(g.accuracy),
            "significant_pairs": g.significant_pairs, "agreeing_significant":
            g.agreeing_significant, "accuracy_significant": _finite(g.accuracy_significant),
            "tau": _finite(g.kendall_tau), "segment_tau": _finite(g.segment_tau),
            "acc23": _finite(g.segment_acc23), "acc23_epsilon": _finite(g.acc23_epsilon),
        } for g in agreement.against_gold],
        "tests": [{"better": t.better, "worse": t.worse, "statistic": t.statistic,
                   "better_value": _finite(t.better_value), "worse_value":
                   _finite(t.worse_value), "p": _finite(t.p_value),
                   "significant": t.significant} for t in agreement.tests],
        "grouping": agreement.grouping, "n_permutations": agreement.n_permutations,
        "alpha": agreement.alpha,
    }
