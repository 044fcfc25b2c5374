"""truebleu on Apache Spark: exact BLEU, chrF and TER of DataFrames of any size
(``pip install 'truebleu[spark]'``).

Any metric (``BLEU(...)``, ``CHRF(...)``, ``TER(...)``: a
:class:`truebleu.metrics.base.Metric`):

- :func:`corpus_score`: the corpus score of a DataFrame, or of each group (``by=``);
- :func:`corpus_score_in_order`: the same, summed on the driver in row order
  (for float rows that Spark cannot add exactly);
- :func:`segment_statistics`: a column of per-row statistics (``metric=``);
- :func:`sentence_score`: a column of each row's score alone;
- :func:`bootstrap_ci`, :func:`paired_bootstrap`, :func:`paired_randomization`:
  :mod:`truebleu.significance` on statistics computed by Spark (``metric=``).

BLEU's own entry points keep sacreBLEU's options as keywords:
:func:`corpus_bleu`, :func:`sentence_bleu`.

Executors run the metric's compiled core on whole Arrow batches; only
statistics travel. Every number equals the single-process API's on the same
rows, whatever the partitioning. Requires PySpark 4.1 or newer (``arrow_udf``).
"""

from .collect import statistics_matrix
from .scoring import corpus_bleu, corpus_score, corpus_score_in_order
from .segments import segment_statistics, sentence_bleu, sentence_score
from .significance import bootstrap_ci, paired_bootstrap, paired_randomization

__all__ = ["bootstrap_ci", "corpus_bleu", "corpus_score", "corpus_score_in_order",
           "paired_bootstrap", "paired_randomization", "segment_statistics", "sentence_bleu",
           "sentence_score", "statistics_matrix"]
