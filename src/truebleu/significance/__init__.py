"""Statistical significance for BLEU, chrF, TER (any additive-statistics metric).

sacreBLEU-compatible pieces (identical numbers for the same seed):
:func:`bootstrap_confidence` (``-ci``) and :func:`paired_cells` (``-pbs`` /
``-par``; the report itself is :func:`truebleu.reports.paired.paired_test_report`).

Beyond sacreBLEU: :func:`paired_bootstrap`, :func:`paired_randomization`,
:func:`bootstrap_ci` on statistics matrices of any metric;
:func:`compare_all` (all pairs, Holm-Bonferroni, significance clusters);
:func:`compare_sentences` (segment-level wins, sign test, bootstrap CI);
reports as text, JSON, LaTeX and TSV; :func:`compare_metrics` (several metrics,
lexical and external scores such as COMET's or human ones, with their agreement:
:mod:`.agreement`).

NumPy is needed at call time only (``pip install 'truebleu[stats]'``), and
not at all for BLEU's ``-pbs``/``-par``/``-ci`` with the compiled core and a
fixed seed: :mod:`.native` draws NumPy's own random stream there.
"""

from importlib import import_module

# Loaded on first use (PEP 562), so that ``truebleu REF -i SYS... -pbs`` imports
# only the modules it runs (compat, paired, scoring, resampling), not the
# all-pairs, segment-level and report modules.
_WHERE = {
    "bootstrap_confidence": "compat", "paired_cells": "compat",
    "seed_setting": "compat",
    "Cluster": "multi", "MultiComparison": "multi", "PairResult": "multi",
    "SystemSummary": "multi", "compare_all": "multi", "compare_systems": "multi", "holm": "multi",
    "ConfidenceInterval": "paired", "PairedComparison": "paired", "bootstrap_ci": "paired",
    "paired_bootstrap": "paired", "paired_randomization": "paired",
    "BatchScorer": "protocols", "RowScorer": "scoring", "MeanScorer": "external",
    "scorer_for": "scoring",
    "SentenceComparison": "sentence", "compare_sentences": "sentence",
    "MetricsComparison": "multimetric", "compare_metrics": "multimetric",
    "MetricAgreement": "agreement", "metric_agreement": "agreement",
    "PairedTest": "sacrebleu_names", "Result": "sacrebleu_names",
    "estimate_ci": "sacrebleu_names",  # sacreBLEU's names, thin
}

__all__ = sorted(_WHERE)

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: -pbs loads this package on the command's path
if TYPE_CHECKING:  # the lazy names for type checkers, re-exported (`name as name`)
    from .agreement import MetricAgreement as MetricAgreement
    from .agreement import metric_agreement as metric_agreement
    from .compat import bootstrap_confidence as bootstrap_confidence
    from .compat import paired_cells as paired_cells
    from .compat import seed_setting as seed_setting
    from .external import MeanScorer as MeanScorer
    from .multi import Cluster as Cluster
    from .multi import MultiComparison as MultiComparison
    from .multi import PairResult as PairResult
    from .multi import SystemSummary as SystemSummary
    from .multi import compare_all as compare_all
    from .multi import compare_systems as compare_systems
    from .multi import holm as holm
    from .multimetric import MetricsComparison as MetricsComparison
    from .multimetric import compare_metrics as compare_metrics
    from .paired import ConfidenceInterval as ConfidenceInterval
    from .paired import PairedComparison as PairedComparison
    from .paired import bootstrap_ci as bootstrap_ci
    from .paired import paired_bootstrap as paired_bootstrap
    from .paired import paired_randomization as paired_randomization
    from .protocols import BatchScorer as BatchScorer
    from .sacrebleu_names import PairedTest as PairedTest
    from .sacrebleu_names import Result as Result
    from .sacrebleu_names import estimate_ci as estimate_ci
    from .scoring import RowScorer as RowScorer
    from .scoring import scorer_for as scorer_for
    from .sentence import SentenceComparison as SentenceComparison
    from .sentence import compare_sentences as compare_sentences


def __getattr__(name: str) -> object:
    if name not in _WHERE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(f".{_WHERE[name]}", __name__), name)
    globals()[name] = value  # later lookups skip this function
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_WHERE))
