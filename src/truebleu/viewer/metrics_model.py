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
    from ..significance.multi import MultiComparison
    from ..significance.multimetric import ExternalScoresArgument, MetricRows
    from .ter_alignments import AligningTER

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
                    ) -> tuple[dict[str, Any], list[MetricRows]]:
    """The page's ``metrics`` document (one entry per metric, and their agreement), and
    each metric's rows and scorer (what ``serve``'s paired tests of a filter resample).

    With one system there is nothing to rank or compare: each metric's score, bootstrap
    interval and sentence scores, as the BLEU-only report of one system has them.
    ``document_index`` (each segment's document, numbered from 0) adds each metric's
    score per document and system.
    """
    from ..significance.multimetric import compare_metrics, metric_rows, sentence_matrix
    from .metric_subsets import document_scores, leave_one_out, rows_score
    from .ter_alignments import AligningTER

    names = list(systems)
    # TER's search runs once: its statistics and its alignments from the same results
    aligning: list[Optional[AligningTER]] = [
        AligningTER(metric) if references is not None and hasattr(metric, "corpus_alignments")
        else None for metric in metrics]
    scored = [metric if wrapped is None else wrapped for metric, wrapped in zip(metrics, aligning)]
    if len(names) < 2:
        if gold is not None:
            raise ValueError(f"the gold metric {gold!r} orders systems: give at least two")
        compared = metric_rows(systems, scored, scores=scores,
                               higher_is_better=higher_is_better)
        summaries = [_one_system(metric, n_samples, seed) for metric in compared]
        agreement = None
    else:
        result = compare_metrics(systems, scored, scores=scores,
                                 higher_is_better=higher_is_better, gold=gold, test=test,
                                 n_samples=n_samples, seed=seed, ci_samples=n_samples,
                                 n_permutations=n_permutations)
        compared = list(result.rows)
        summaries = [_ranked(ranking, names) for ranking in result.rankings]
        agreement = _agreement_payload(result.agreement)
    n_documents = max(document_index, default=-1) + 1 if document_index is not None else 0
    entries = []
    for k, (metric, summary) in enumerate(zip(compared, summaries)):
        chosen = metrics[k] if k < len(metrics) else None
        sentence = sentence_matrix(metric)
        rows, scorer = metric.rows, metric.scorer
        entries.append({
            "name": metric.name,
            "higher_is_better": metric.higher_is_better,
            "external": metric.external,
            "official": metric.official is not None,
            "signature": _signature(chosen) if chosen is not None else None,
            **summary,
            # A vs B (metric_subsets.py): each system's corpus score of its rows, of all
            # segments but one (per segment), and of each document's segments
            "rows_score": [rows_score(system_rows, scorer) for system_rows in rows],
            # (the page's own BLEU: its systems' "bleu_without" already, by the same scorer)
            "without": (None if chosen is not None and chosen is own_bleu
                        else [leave_one_out(system_rows, scorer) for system_rows in rows]),
            "documents": ([document_scores(system_rows, scorer, document_index, n_documents)
                           for system_rows in rows] if document_index is not None else None),
            "sentence": [[_finite(v) for v in row] for row in sentence.tolist()],
            "spread": _spread(sentence),
            # the page's own BLEU (its list shows it already, with its n-grams)
            "own_bleu": chosen is not None and own_bleu is not None and chosen is own_bleu,
            # how the page scores a subset of segments (None: only serve can)
            "scoring": _scoring(chosen, metric, own_bleu),
            # TER: the edits its search counted, per system and segment (ter_alignments.py)
            "alignment": _alignment(aligning[k] if k < len(aligning) else None, systems,
                                    references),
            # chrF: the settings the page finds one segment's matches with (_chrf_settings)
            "chrf_matches": (_chrf_settings(chosen) if chosen is not None
                             and hasattr(chosen, "sentence_matches") else None),
        })
    return ({"test": test, "n_samples": n_samples, "seed": seed, "gold": gold,
             "list": entries, "agreement": agreement}, compared)


def _alignment(aligning: Optional[AligningTER], systems: Mapping[str, Sequence[str]],
               references: Optional[Sequence[Sequence[Optional[str]]]]
               ) -> Optional[dict[str, Any]]:
    from .ter_alignments import ter_alignment_payload

    if aligning is None or references is None:
        return None
    return ter_alignment_payload(aligning, systems, references)


def _ranked(ranking: MultiComparison, names: list[str]) -> dict[str, Any]:
    """One metric's ranking of the report's systems, in the report's order."""
    by_name = {summary.name: summary for summary in ranking.systems}
    summaries = [by_name[system] for system in names]
    position = {system: i for i, system in enumerate(names)}
    return {
        "score": [_finite(s.score) for s in summaries],
        "ci_mean": [_finite(s.mean) for s in summaries],
        "ci": [_finite(s.ci) for s in summaries],
        "rank": [s.rank for s in summaries],
        "cluster": [s.cluster for s in summaries],
        # [better, worse, p-value]: index pairs into the report's systems
        "pairs": [[position[p.a], position[p.b], p.p_value] for p in ranking.pairs],
        # per pair of "pairs": the paired bootstrap [mean, 95% half-width] of better − worse
        "pair_delta": [_finite_pair(p.delta_interval) for p in ranking.pairs],
    }


def _one_system(metric: MetricRows, n_samples: int, seed: int) -> dict[str, Any]:
    """One system's score (the official one where given) and bootstrap interval, as
    :func:`truebleu.significance.bootstrap_ci` computes it (none below two segments)."""
    from ..significance import bootstrap_ci
    from ..significance.paired import score_of
    from ..significance.preconditions import MIN_SEGMENTS

    rows = metric.rows[0]
    score = metric.official[0] if metric.official is not None else score_of(rows, metric.scorer)
    mean = ci = None
    if rows.shape[0] >= MIN_SEGMENTS:
        interval = bootstrap_ci(rows, metric.scorer, n_samples, seed=seed)
        mean, ci = _finite(interval.mean), _finite(interval.ci)
    return {"score": [_finite(score)], "ci_mean": [mean], "ci": [ci], "rank": [1],
            "cluster": [1], "pairs": [], "pair_delta": []}


def _scoring(chosen: Any, metric: MetricRows, own_bleu: Optional[Metric[Any]]
             ) -> Optional[dict[str, Any]]:
    """What the page needs to score any subset of segments exactly as the API does,
    from additive rows: BLEU's are the report's own (``systems[k].stats``); chrF's and
    TER's rows are here, one flat list per system; an external metric's rows are
    ``[score, 1]``, so its subset score is the mean of its sentence scores."""
    from ..metrics.chrf.metric import CHRF
    from ..metrics.ter.metric import TER

    if metric.external:
        return {"kind": "mean"}
    if chosen is not None and chosen is own_bleu:
        return {"kind": "bleu"}
    if isinstance(chosen, CHRF):
        return {"kind": "chrf", "beta": chosen.beta, "eps_smoothing": chosen.eps_smoothing,
                "width": int(metric.rows[0].shape[1]), "stats": _flat_rows(metric)}
    if isinstance(chosen, TER):
        return {"kind": "ter", "width": 2, "stats": _flat_rows(metric)}
    return None


def _flat_rows(metric: MetricRows) -> list[list[float]]:
    """Each system's rows, row after row (integers where they are: chrF's counts)."""
    return [rows.ravel().tolist() for rows in metric.rows]


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
