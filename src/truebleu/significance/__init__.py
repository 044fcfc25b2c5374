"""Statistical significance for BLEU, chrF, TER (any additive-statistics metric).

sacreBLEU-compatible pieces (identical numbers for the same seed):
:func:`bootstrap_confidence` (``-ci``), :func:`paired_test_report` and
:func:`paired_cells` (``-pbs`` / ``-par``).

Beyond sacreBLEU: :func:`paired_bootstrap`, :func:`paired_randomization`,
:func:`bootstrap_ci` on statistics matrices of any metric;
:func:`compare_all` (all pairs, Holm-Bonferroni, significance clusters);
:func:`compare_sentences` (segment-level wins, sign test, bootstrap CI);
reports as text, JSON, LaTeX and TSV.

NumPy is needed at call time only (``pip install 'truebleu[stats]'``).
"""

from .compat import bootstrap_confidence, paired_cells, paired_test_report, seed_setting
from .multi import (Cluster, MultiComparison, PairResult, SystemSummary, compare_all,
                    compare_systems, holm)
from .paired import (ConfidenceInterval, PairedComparison, bootstrap_ci, paired_bootstrap,
                     paired_randomization)
from .scoring import BatchScorer, BLEUBatchScorer, RowScorer, scorer_for
from .sentence import SentenceComparison, compare_sentences
from .sacrebleu_names import PairedTest, Result, estimate_ci  # sacreBLEU's names, thin

__all__ = [
    "BLEUBatchScorer", "BatchScorer", "PairedTest", "Result", "estimate_ci", "Cluster", "ConfidenceInterval", "MultiComparison",
    "PairResult", "PairedComparison", "RowScorer", "SentenceComparison", "SystemSummary",
    "bootstrap_ci", "bootstrap_confidence", "compare_all", "compare_sentences",
    "compare_systems", "holm", "paired_bootstrap", "paired_cells", "paired_randomization",
    "paired_test_report", "scorer_for", "seed_setting",
]
