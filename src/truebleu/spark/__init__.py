"""truebleu on Apache Spark: exact BLEU of DataFrames of any size (``pip install 'truebleu[spark]'``).

- :func:`corpus_bleu`: corpus BLEU of a DataFrame, or of each group (``by=``);
- :func:`sentence_bleu`: a sentence BLEU column;
- :func:`segment_statistics`: a column of per-row integer statistics;
- :func:`bootstrap_ci`, :func:`paired_bootstrap`, :func:`paired_randomization`:
  :mod:`truebleu.significance` on statistics computed by Spark.

Executors run truebleu's compiled core on whole Arrow batches; only integer
statistics travel. Every number equals the single-process API's on the same
rows, whatever the partitioning. Requires PySpark 4.1 or newer (``arrow_udf``).
"""

from .scoring import corpus_bleu, segment_statistics, sentence_bleu
from .significance import bootstrap_ci, paired_bootstrap, paired_randomization, statistics_matrix

__all__ = ["bootstrap_ci", "corpus_bleu", "paired_bootstrap", "paired_randomization",
           "segment_statistics", "sentence_bleu", "statistics_matrix"]
