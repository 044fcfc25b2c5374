"""sacreBLEU's ``-ci`` for a metric scored from float rows (TER), to the last bit.

sacreBLEU turns every metric's segment statistics into one float32 array,
sums each bootstrap sample with NumPy (``sample.sum(0)``), scores the sums
with the metric's own score function (so TER's scores are float32 numbers),
and reports :func:`statistics.mean` of the sorted scores and half the spread
of the 2.5%/97.5% order statistics. This does the same, one sample at a time
(the same reduction over the same memory layout, without holding every
sample at once). The integer-count fast path for BLEU is
:func:`truebleu.significance.bootstrap_confidence`.
"""

from __future__ import annotations

import statistics as pystats

from ._np import numpy
from .compat import Seed, seed_setting
from .paired import check_samples
from .progress import Progress
from .resampling import bootstrap_indices, make_rng


def bootstrap_confidence_float32(stats, metric, n_bootstrap: int, seed: Seed = None):
    """``(seed text, mean, ci)`` for ``metric.corpus_score(n_bootstrap=n)``.

    ``stats`` is a :class:`~truebleu.stats.RowTable` (or anything NumPy turns
    into a ``(segments, width)`` array); ``metric._compute_score_from_stats``
    scores one summed float32 row.
    """
    np = numpy()
    n_bootstrap = check_samples(n_bootstrap, "n_bootstrap")
    text, value = seed_setting(seed)
    matrix = stats.to_numpy() if hasattr(stats, "to_numpy") else np.asarray(stats)
    matrix = np.ascontiguousarray(matrix, dtype=np.float32)
    indices = bootstrap_indices(make_rng(value), matrix.shape[0], n_bootstrap)
    scores = []
    with Progress(n_bootstrap, "bootstrap") as bar:
        for sample in indices:
            scores.append(metric._compute_score_from_stats(matrix[sample].sum(0)).score)
            bar.update()
    scores.sort()
    lower = len(scores) // 40
    upper = len(scores) - lower - 1
    return text, pystats.mean(scores), 0.5 * (scores[upper] - scores[lower])
