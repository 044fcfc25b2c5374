"""The report's buckets: BLEU by reference length, word F-measure by word frequency.

Each bucket's number comes with a bootstrap interval (the same seed and number of samples
as the report's tests), so that the page can say whether two systems differ in a bucket.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Optional, Protocol, Sequence

from ..core.progress import Progress
from ..core.statistics import RowTable
from .tokens import Tokens

if TYPE_CHECKING:
    from numpy.typing import NDArray

    from ..significance.extra_columns import ExtraColumns
    from ..significance.scoring import BatchScorer


class ScoredSystem(Protocol):
    """What the buckets read of a system (:class:`.model.SystemResult` has it)."""

    statistics: RowTable  # BLEU's rows, one per segment
    tokens: Tokens  # the hypotheses' tokens

#: reference-length buckets (tokens of the first reference): lower bounds
LENGTH_BUCKETS = (0, 10, 20, 30, 40, 50)
#: word-frequency buckets (occurrences in the reference corpus): lower bounds
FREQUENCY_BUCKETS = (1, 2, 4, 10, 100, 1000)


def length_buckets(ref_tokens: Tokens, systems: Sequence[ScoredSystem],
                    scorer: BatchScorer, seed: int, n_samples: int) -> dict[str, Any]:
    """Corpus BLEU of each system per reference-length bucket, with bootstrap CIs.

    Each interval is :func:`truebleu.significance.bootstrap_ci` of that system
    on that bucket's segments with ``seed``; since those resamples depend only
    on the seed and the bucket's size, one set of resamples serves every system.
    """
    from ..significance.paired import interval, score_of
    from ..significance.preconditions import MIN_SEGMENTS

    members = _bucket_members(ref_tokens.lengths(), LENGTH_BUCKETS)
    matrices = [s.statistics.to_numpy() for s in systems]
    bleu: list[list[Optional[float]]] = [[None] * len(members) for _ in systems]
    ci: list[list[Optional[float]]] = [[None] * len(members) for _ in systems]
    resampled = [b for b, rows in enumerate(members) if len(rows) >= MIN_SEGMENTS]
    with Progress(n_samples * len(resampled), "length buckets", "samples") as bar:
        for b, rows in enumerate(members):
            if not len(rows):
                continue
            subsets = [m[rows] for m in matrices]
            for k, subset in enumerate(subsets):
                bleu[k][b] = score_of(subset, scorer)
            if b not in resampled:
                continue  # no interval from one segment (its width would be 0)
            for k, scores in enumerate(_resampled_scores(subsets, scorer, seed, n_samples, bar)):
                ci[k][b] = float(interval(scores)[1])
    return {"labels": _bucket_labels(LENGTH_BUCKETS), "segments": [len(m) for m in members],
            "bleu": bleu, "ci": ci}


def _resampled_scores(matrices: Sequence[NDArray[Any]], scorer: BatchScorer, seed: int,
                      n_samples: int, bar: Progress) -> list[NDArray[Any]]:
    """Each system's scores on the same ``n_samples`` bootstrap samples of its rows
    (``default_rng(seed)``'s draws, as :func:`truebleu.significance.bootstrap_ci`).

    In the compiled core where it gives the same numbers (:mod:`truebleu.significance.native`,
    as ``-pbs`` runs: BLEU's integer rows, about nine times faster than summing NumPy's
    sample counts), else NumPy's path, block by block in bounded memory.
    """
    from ..core.lazy_numpy import numpy
    from ..significance import native
    from ..significance.paired import bootstrap_scores
    from ..significance.resampling import bootstrap_draws, make_rng

    np = numpy()
    if all(m.dtype == np.int64 for m in matrices):
        tables = [native.row_table(m) for m in matrices]
        if native.applies(scorer, seed, tables):
            columns = native.bootstrap_columns(tables, scorer, n_samples, seed, bar)
            if columns is not None:
                return [np.asarray(column, dtype=np.float64) for column in columns]
    table = bootstrap_scores(bootstrap_draws(make_rng(seed), len(matrices[0]), n_samples),
                             matrices, scorer, bar)
    return [table[:, k] for k in range(len(matrices))]


def frequency_buckets(ref_tokens: Tokens, systems: Sequence[ScoredSystem],
                       seed: int, n_samples: int) -> dict[str, Any]:
    """Word F-measure per frequency bucket (compare-mt's analysis), with bootstrap CIs.

    A word's frequency is its number of occurrences in the (first) reference
    stream; a hypothesis word absent from it falls in the first bucket. Per
    segment and word, ``min(hyp count, ref count)`` occurrences are matched.
    The intervals resample segments (the same resamples for every system).
    ``ref_tokens`` and every system's tokens carry word ids of one vocabulary
    (:func:`.tokens.tokenize_stream` with a :class:`.tokens.Vocabulary`).
    """
    return frequency_counts(ref_tokens, systems).buckets(seed, n_samples)


@dataclass
class FrequencyCounts:
    """The frequency buckets' counts, one row per segment: the reference's words per
    bucket, then each system's matched and hypothesis words per bucket (int64). Made
    before the report's significance test, so that its draws can sum them too
    (:meth:`shared_columns`); :meth:`buckets` then reads those sums."""

    table: NDArray[Any]
    n_systems: int

    def shared_columns(self, seed: int) -> Optional[ExtraColumns]:
        """The columns :func:`_resampled_sums` would resample in the core (those not all
        zeros), for the significance test to sum on its draws (the same ones: ``seed``'s);
        None where this table takes no core pass (fewer than two segments, no such column,
        the Python backend, a seed that is not a plain integer)."""
        from ..core.kernels import backend_name
        from ..significance.extra_columns import ExtraColumns
        from ..significance.pcg64 import is_plain_seed

        used = _used_columns(self.table)
        if (len(self.table) < 2 or not len(used) or backend_name() != "native"
                or not is_plain_seed(seed)):
            return None
        return ExtraColumns(self.table[:, used])

    def buckets(self, seed: int, n_samples: int,
                shared: Optional[ExtraColumns] = None) -> dict[str, Any]:
        """The buckets' F-measures and intervals (:func:`frequency_buckets`); the resampled
        sums are ``shared``'s where the significance test summed them, else this table's own."""
        from ..core.lazy_numpy import numpy

        np = numpy()
        table, n_buckets = self.table, len(FREQUENCY_BUCKETS)
        f = [_nullable(_f_measure(_system_counts(table.sum(axis=0), k, n_buckets)))
             for k in range(self.n_systems)]
        ci: list[list[Optional[float]]] = [[None] * n_buckets for _ in range(self.n_systems)]
        if len(table) >= 2:  # (no interval from one segment)
            with Progress(n_samples, "frequency buckets", "samples") as bar:
                resampled = _resampled_sums(table, seed, n_samples, bar, shared)
            lower = n_samples // 40
            for k in range(self.n_systems):
                fs = np.sort(_f_measure(_system_counts(resampled, k, n_buckets)), axis=0)
                ci[k] = _nullable(0.5 * (fs[n_samples - lower - 1] - fs[lower]))
        return {"labels": _bucket_labels(FREQUENCY_BUCKETS), "f": f, "ci": ci,
                "ref_words": table[:, :n_buckets].sum(axis=0).tolist(), "n_samples": n_samples}


def frequency_counts(ref_tokens: Tokens, systems: Sequence[ScoredSystem]) -> FrequencyCounts:
    """The counts :func:`frequency_buckets` resamples (see there)."""
    from ..core.lazy_numpy import numpy

    np = numpy()
    n, n_buckets = len(ref_tokens), len(FREQUENCY_BUCKETS)
    ref_segs, ref_ids = ref_tokens.word_ids()
    size = max(len(ref_tokens.vocabulary or ()), 1)
    frequency = np.bincount(ref_ids, minlength=size)
    word_bucket = np.searchsorted(np.asarray(FREQUENCY_BUCKETS), np.maximum(frequency, 1),
                                  side="right") - 1
    # one table, one row per segment: the reference's words per bucket, then each system's
    # matched and hypothesis words per bucket (every system's sums from the same draws)
    columns = [_per_bucket(ref_segs, word_bucket[ref_ids], n, n_buckets)]
    columns += _hypothesis_counts(ref_tokens, (ref_segs, ref_ids), [s.tokens for s in systems],
                                  word_bucket, n_buckets)
    return FrequencyCounts(np.concatenate(columns, axis=1), len(systems))


def _per_bucket(segs: NDArray[Any], buckets: NDArray[Any], n: int, n_buckets: int,
                counts: Optional[NDArray[Any]] = None) -> NDArray[Any]:
    """``(n, n_buckets)`` sums of ``counts`` (default: 1 each) by segment and bucket
    (``bincount``: float64 weights, exact for counts below 2**53)."""
    from ..core.lazy_numpy import numpy

    np = numpy()
    sums = np.bincount(segs * n_buckets + buckets, weights=counts, minlength=n * n_buckets)
    table: NDArray[Any] = sums.astype(np.int64).reshape(n, n_buckets)
    return table


def _hypothesis_counts(ref_tokens: Tokens, ref_words: tuple[NDArray[Any], NDArray[Any]],
                       hypotheses: Sequence[Tokens], word_bucket: NDArray[Any],
                       n_buckets: int) -> list[NDArray[Any]]:
    """Each hypothesis's ``(n, 2 * n_buckets)`` int64 counts: per segment and bucket, its
    words matched in the reference (``min(hyp count, ref count)`` of each word), then its
    words. ``ref_words`` is ``ref_tokens.word_ids()``. In the compiled core where it runs
    (``word_bucket_counts``: one pass over the tokens), else with NumPy: one sort of every
    (segment, word) key per stream (this is the specification the core is tested against)."""
    from ..core.kernels import backend_name, native_core
    from ..core.lazy_numpy import numpy

    np = numpy()
    n = len(ref_tokens)
    ref_segs, ref_ids = ref_words
    if backend_name() == "native":
        core = native_core()
        int64 = np.int64

        def flat(values: NDArray[Any]) -> NDArray[Any]:
            return np.ascontiguousarray(values, dtype=int64)

        ref = (flat(ref_tokens.lengths()), flat(ref_ids))
        bucket = flat(word_bucket)
        return [np.frombuffer(core.word_bucket_counts(*ref, flat(tokens.lengths()),
                                                      flat(tokens.word_ids()[1]), bucket,
                                                      n_buckets),
                              dtype=int64).reshape(n, 2 * n_buckets)
                for tokens in hypotheses]
    size = max(len(word_bucket), 1)
    ref_keys, ref_count = np.unique(ref_segs * size + ref_ids, return_counts=True)
    tables = []
    for tokens in hypotheses:
        segs, ids = tokens.word_ids()
        keys, hyp_count = np.unique(segs * size + ids, return_counts=True)
        where = np.searchsorted(ref_keys, keys)
        found = where < len(ref_keys)
        found[found] = ref_keys[where[found]] == keys[found]
        in_ref = np.zeros(len(keys), dtype=np.int64)
        in_ref[found] = ref_count[where[found]]
        tables.append(np.concatenate([
            _per_bucket(keys // size, word_bucket[keys % size], n, n_buckets,
                        np.minimum(hyp_count, in_ref)),
            _per_bucket(segs, word_bucket[ids], n, n_buckets)], axis=1))
    return tables


def _system_counts(sums: NDArray[Any], k: int, n_buckets: int) -> NDArray[Any]:
    """System ``k``'s ``[..., bucket, (matched, hyp, ref)]`` counts from sums of the
    frequency table's columns (``[..., column]``)."""
    from ..core.lazy_numpy import numpy

    np = numpy()
    matched, hyp = n_buckets * (1 + 2 * k), n_buckets * (2 + 2 * k)
    counts: NDArray[Any] = np.stack([sums[..., matched:matched + n_buckets],
                                     sums[..., hyp:hyp + n_buckets], sums[..., :n_buckets]],
                                    axis=-1)
    return counts


def _used_columns(table: NDArray[Any]) -> NDArray[Any]:
    """The columns that are not all zeros (a column of zeros sums to 0 in every sample)."""
    from ..core.lazy_numpy import numpy

    used: NDArray[Any] = numpy().flatnonzero(table.any(axis=0))
    return used


def _resampled_sums(table: NDArray[Any], seed: int, n_samples: int, bar: Progress,
                    shared: Optional[ExtraColumns] = None) -> NDArray[Any]:
    """An int64 table's column sums on ``n_samples`` bootstrap samples of its rows,
    ``(n_samples, columns)``: ``default_rng(seed).choice(n, size=(n_samples, n))``'s
    draws, as every interval of the report. In the compiled core where it runs (exact
    int64 sums, the draws of :mod:`truebleu.significance.native`), else NumPy's sample
    counts times the rows in float64 on BLAS (exact below 2**53), in blocks of bounded
    memory. ``shared``: :meth:`FrequencyCounts.shared_columns` after the significance test,
    whose ``sums`` (where its pass summed them) are those of the used columns.
    """
    from ..core.lazy_numpy import numpy
    from ..significance.resampling import bootstrap_indices, make_rng, sample_counts

    np = numpy()
    sums = np.zeros((n_samples, table.shape[1]), dtype=np.int64)
    used = _used_columns(table)
    if not len(used):
        bar.update(n_samples)
        return sums
    if shared is not None and shared.sums is not None:  # the test's draws, summed in its pass
        if shared.sums.shape != (n_samples, len(used)):
            raise ValueError("the shared sums are not this table's used columns")
        sums[:, used] = shared.sums
        bar.update(n_samples)
        return sums
    table = table[:, used]
    in_core = _core_sums(table, seed, n_samples, bar)
    if in_core is not None:
        sums[:, used] = in_core
        return sums
    n = table.shape[0]
    floats = table.astype(np.float64)
    rng = make_rng(seed)
    block = max(1, min(n_samples, 4_000_000 // n))
    for start in range(0, n_samples, block):
        rows = min(block, n_samples - start)
        weights = sample_counts(bootstrap_indices(rng, n, rows), n).astype(np.float64)
        sums[start:start + rows, used] = weights @ floats
        bar.update(rows)
    return sums


def _core_sums(table: NDArray[Any], seed: int, n_samples: int,
               bar: Progress) -> Optional[NDArray[Any]]:
    """:func:`_resampled_sums` in the compiled core (:func:`.native.exact_sum_chunks`: exact
    int64 sums, as the NumPy path's float64 ones, so float32's bound does not apply); None
    where it does not run (the Python backend, a seed that is not a plain integer,
    segments * largest value of 2**31 or more)."""
    from ..core.kernels import backend_name
    from ..core.lazy_numpy import numpy
    from ..significance import native
    from ..significance.pcg64 import is_plain_seed, pcg64_state

    np = numpy()
    if backend_name() != "native" or not is_plain_seed(seed):
        return None
    out = np.empty((n_samples, table.shape[1]), dtype=np.int64)
    try:
        for part, sums in native.exact_sum_chunks(table, n_samples, pcg64_state(seed),
                                                  float32=False):
            out[part] = sums
            bar.update(part.stop - part.start)
    except OverflowError:
        return None
    return out


def _nullable(values: NDArray[Any]) -> list[Optional[float]]:
    return [None if v != v else float(v) for v in values.tolist()]


def _f_measure(counts: NDArray[Any]) -> NDArray[Any]:
    """F1 (in percent) from ``[..., bucket, (matched, hyp, ref)]`` counts; NaN where undefined."""
    from ..core.lazy_numpy import numpy

    np = numpy()
    matched, hyp, ref = (counts[..., k].astype(np.float64) for k in range(3))
    with np.errstate(divide="ignore", invalid="ignore"):
        precision = matched / hyp
        recall = matched / ref
        f = 200.0 * precision * recall / (precision + recall)
    f = np.where((hyp == 0) & (ref == 0), np.nan, f)
    return np.where(np.isnan(f) & ~((hyp == 0) & (ref == 0)), 0.0, f)


def _bucket_members(values: NDArray[Any], bounds: Sequence[int]) -> list[NDArray[Any]]:
    """Each bucket's segments (int64 arrays, in order): a value falls in the last bucket
    whose lower bound it reaches (the first bucket if none)."""
    from ..core.lazy_numpy import numpy

    np = numpy()
    bucket = np.maximum(np.searchsorted(np.asarray(bounds), values, side="right") - 1, 0)
    return [np.flatnonzero(bucket == k) for k in range(len(bounds))]


def _bucket_labels(bounds: Sequence[int]) -> list[str]:
    labels = []
    for k, low in enumerate(bounds):
        if k + 1 < len(bounds):
            high = bounds[k + 1] - 1
            labels.append(str(low) if high == low else f"{low}-{high}")
        else:
            labels.append(f"{low}+")
    return labels
