"""Statistical significance for BLEU, chrF, TER (any additive-statistics metric).

sacreBLEU-compatible pieces (identical numbers for the same seed):
:func:`bootstrap_confidence` (``-ci``) and :func:`paired_cells` (``-pbs`` /
``-par``; the report itself is :func:`truebleu.reports.paired.paired_test_report`).

Beyond sacreBLEU: :func:`paired_bootstrap`, :func:`paired_randomization`,
:func:`bootstrap_ci` on statistics matrices of any metric;
:func:`compare_all` (all pairs, Holm-Bonferroni, significance clusters);
:func:`compare_sentences` (segment-level wins, sign test, bootstrap CI);
reports as text, JSON, LaTeX and TSV.

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
    "BatchScorer": "scoring", "RowScorer": "scoring",
    "scorer_for": "scoring",
    "SentenceComparison": "sentence", "compare_sentences": "sentence",
    "PairedTest": "sacrebleu_names", "Result": "sacrebleu_names",
    "estimate_ci": "sacrebleu_names",  # sacreBLEU's names, thin
}

__all__ = sorted(_WHERE)


def __getattr__(name: str):
    if name not in _WHERE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(f".{_WHERE[name]}", __name__), name)
    globals()[name] = value  # later lookups skip this function
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_WHERE))
