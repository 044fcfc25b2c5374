"""Resampled corpus statistics, computed as matrix products.

A bootstrap sample is described by how often each segment is drawn (a count
matrix ``K``, samples x segments), an approximate-randomization trial by which
segments swap sides (a 0/1 matrix). The summed statistics of all samples are
then ``K @ stats``: one BLAS call instead of a Python loop per sample.

Sums of integer statistics are exact in float64 below 2**53, and in float32
below 2**24 whatever the order of additions; the code checks those bounds and
only falls back to sacreBLEU's own order of float32 additions when a corpus is
so large that rounding could occur.

The random draws are NumPy's ``Generator`` calls that sacreBLEU makes, in the
same order, so equal seeds give equal samples. The bootstrap's segment indices
are drawn a block of samples at a time (:class:`BootstrapDraws`), so memory
stays bounded (:data:`BLOCK_BYTES`) however many segments and samples there
are: ``rng.choice(n, size=(k, n))`` in consecutive blocks yields exactly the
rows of one call, because the generator's only carried state (including
PCG64's spare 32-bit half) lives in the bit generator, not in the call.
"""

from __future__ import annotations

from ..core.lazy_numpy import numpy

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: importing typing costs about 16 M instructions
if TYPE_CHECKING:
    from typing import Any, Iterator, Optional, TypeAlias, Union

    from numpy.random import Generator
    from numpy.typing import NDArray

#: what seeds the draws: an int, ``None`` (fresh entropy from the OS) or a NumPy Generator
#: (a string alias: ``Union[..., "Generator"]`` would compile its forward reference at import,
#: a cost every command paid)
RandomSeed: TypeAlias = "Union[int, None, Generator]"

FLOAT32_EXACT = 2 ** 24
FLOAT64_EXACT = 2 ** 53
CHUNK = 1000  # samples per matrix product (bounds memory, paces the progress bar)
BLOCK_BYTES = 64 * 2 ** 20  # working memory of one block of bootstrap samples
# bytes per (sample, segment) cell while a block is summed: the int64 indices,
# the offset indices and the int64 bincount (8 each), the float count matrix (8)
BYTES_PER_DRAW = 32


def make_rng(seed: RandomSeed) -> Generator:
    """A NumPy Generator from an int, ``None`` (OS entropy) or a Generator."""
    np = numpy()
    if isinstance(seed, np.random.Generator):
        return seed
    rng: Generator = np.random.default_rng(seed)
    return rng


def bootstrap_indices(rng: Generator, n_segments: int, n_samples: int) -> NDArray[Any]:
    """``(n_samples, n_segments)`` segment indices drawn with replacement, all at once.

    This materialises ``8 * n_samples * n_segments`` bytes; the tests use
    :func:`bootstrap_draws`, which yields the same rows block by block.
    """
    return rng.choice(n_segments, size=(n_samples, n_segments), replace=True)


def block_rows(n_segments: int, budget: int = BLOCK_BYTES) -> int:
    """Bootstrap samples per block so that one block's work fits in ``budget`` bytes."""
    return max(1, min(CHUNK, budget // (BYTES_PER_DRAW * max(1, n_segments))))


class BootstrapDraws:
    """The segment indices of ``n_samples`` bootstrap samples, drawn lazily in blocks.

    Iterating :meth:`blocks` draws from ``rng`` exactly what
    ``rng.choice(n_segments, size=(n_samples, n_segments))`` would, a few
    samples at a time, so the ``(n_samples, n_segments)`` matrix never exists.
    The draws consume the generator, so they can be iterated once only.
    """

    def __init__(self, rng: Generator, n_segments: int, n_samples: int,
                 rows_per_block: int | None = None) -> None:
        self.rng = rng
        self.n_segments = int(n_segments)
        self.n_samples = int(n_samples)
        self.rows_per_block = rows_per_block or block_rows(self.n_segments)
        self._used = False

    @property
    def shape(self) -> tuple[int, int]:
        return self.n_samples, self.n_segments

    def blocks(self) -> Iterator[tuple[slice, NDArray[Any]]]:
        """``(sample slice, indices of those samples)`` pairs, in order."""
        if self._used:
            raise RuntimeError("bootstrap draws were already consumed (they come from a generator)")
        self._used = True
        for part in chunks(self.n_samples, self.rows_per_block):
            yield part, bootstrap_indices(self.rng, self.n_segments, part.stop - part.start)


def bootstrap_draws(rng: Generator, n_segments: int, n_samples: int) -> BootstrapDraws:
    """Bootstrap samples drawn block by block (see :class:`BootstrapDraws`)."""
    return BootstrapDraws(rng, n_segments, n_samples)


def index_blocks(indices: Union[BootstrapDraws, NDArray[Any]]
                 ) -> Iterator[tuple[slice, NDArray[Any]]]:
    """Blocks of ``indices``: a :class:`BootstrapDraws` or an index matrix already drawn."""
    if isinstance(indices, BootstrapDraws):
        yield from indices.blocks()
        return
    for part in chunks(indices.shape[0], block_rows(indices.shape[1])):
        yield part, indices[part]


def swap_masks(rng: Generator, n_segments: int, n_trials: int) -> NDArray[Any]:
    """``(n_trials, n_segments)`` booleans: True where the trial keeps the first system's segment."""
    return rng.integers(2, size=(n_trials, n_segments), dtype=bool)


def sample_counts(indices: NDArray[Any], n_segments: int) -> NDArray[Any]:
    """How often each segment occurs in each row of ``indices``."""
    np = numpy()
    rows = indices.shape[0]
    offsets = (np.arange(rows, dtype=np.int64) * n_segments)[:, None]
    flat = np.bincount((indices + offsets).ravel(), minlength=rows * n_segments)
    return flat.reshape(rows, n_segments)


def chunks(n: int, size: int = CHUNK) -> Iterator[slice]:
    for start in range(0, n, size):
        yield slice(start, min(start + size, n))


def _exact_dtype(bound: int) -> Optional[type[Any]]:
    """float32 if every partial sum stays below ``bound`` < 2**24, float64 below 2**53, else None."""
    np = numpy()
    if bound < FLOAT32_EXACT:
        return np.float32
    if bound < FLOAT64_EXACT:
        return np.float64
    return None


def resampled_sums(indices: NDArray[Any], stats: NDArray[Any], as_float32: bool = True
                   ) -> NDArray[Any]:
    """Summed statistics of every bootstrap sample (rows of ``indices``).

    ``stats`` is ``(segments, width)`` or ``(segments, width * systems)``. With
    ``as_float32`` the result is what ``float32_stats[idx].sum(0)`` gives
    (sacreBLEU's bootstrap arithmetic); otherwise exact int64 sums of integers,
    and for floats :func:`float64_column_sums`.
    """
    np = numpy()
    stats = np.asarray(stats)
    n_samples, n_segments = indices.shape
    if np.issubdtype(stats.dtype, np.floating):
        if not as_float32:  # external scores: each column as NumPy sums a vector
            return float64_column_sums(stats, indices)
        # float statistics (TER's): their sums depend on the order, so every
        # sample is summed as sacreBLEU sums it
        stats32 = stats.astype(np.float32)
        return np.array([stats32[row].sum(0) for row in indices], dtype=np.float32)
    # a sample draws n_segments rows: no partial sum exceeds n * the largest entry
    dtype = _exact_dtype(n_segments * int(np.abs(stats).max(initial=0)))
    if dtype is None:
        raise ValueError("statistics too large to resample exactly")
    weights_dtype = np.float64 if dtype == np.float64 else np.float32
    out = np.empty((n_samples, stats.shape[1]), dtype=np.float32 if as_float32 else np.int64)
    stats_f = stats.astype(weights_dtype)
    for part in chunks(n_samples, block_rows(n_segments)):
        counts = sample_counts(indices[part], n_segments).astype(weights_dtype)
        sums = counts @ stats_f
        out[part] = sums if as_float32 else np.rint(sums).astype(np.int64)
    if as_float32:
        _refloat_large(out, indices, stats)
    return out


def float64_column_sums(stats: NDArray[Any], indices: Optional[NDArray[Any]] = None
                        ) -> NDArray[Any]:
    """float64 sums of each column of ``stats``, as NumPy sums one vector (pairwise).

    With ``indices`` (one row of segment indices per bootstrap sample) the sums of
    each sample: ``column[indices].sum(axis=1)`` per column, which are the bits of
    ``x[indices].sum(axis=1)`` for that column ``x``; without, the sums of all rows
    (``x.sum()``). Scores read from elsewhere (COMET's, a human's) are summed so, and
    their mean is then exactly ``x.mean()`` and ``x[indices].mean(axis=1)``: what a
    plain NumPy computation gives for the same rows and seed.
    """
    np = numpy()
    columns = [np.ascontiguousarray(stats[:, c], dtype=np.float64) for c in range(stats.shape[1])]
    if indices is None:
        return np.array([column.sum() for column in columns], dtype=np.float64)
    out = np.empty((indices.shape[0], len(columns)), dtype=np.float64)
    for part in chunks(indices.shape[0], block_rows(indices.shape[1])):
        for c, column in enumerate(columns):
            out[part, c] = column[indices[part]].sum(axis=1)
    return out


def _refloat_large(out: NDArray[Any], indices: NDArray[Any], stats: NDArray[Any]) -> None:
    """Redo, in sacreBLEU's float32 order, the samples whose sums could round."""
    np = numpy()
    large = (np.abs(out) >= FLOAT32_EXACT).any(axis=1)
    if not large.any():
        return
    stats32 = stats.astype(np.float32)
    for row in np.flatnonzero(large):
        out[row] = stats32[indices[row]].sum(0)


def swapped_sums(masks: NDArray[Any], first: NDArray[Any], second: NDArray[Any]
                 ) -> tuple[NDArray[Any], NDArray[Any]]:
    """Summed statistics of the two pseudo-systems of every AR trial (int64).

    Where the mask is True the trial takes ``first``'s segment for pseudo-system
    A and ``second``'s for B, elsewhere the other way round.
    ``first``/``second`` may hold several systems side by side (same layout).
    """
    np = numpy()
    if np.issubdtype(np.asarray(first).dtype, np.floating):
        raise ValueError("swapped_sums sums integer statistics; float statistics go through "
                         "paired._float_randomization_p_value")
    first = np.asarray(first, dtype=np.int64)
    second = np.asarray(second, dtype=np.int64)
    delta = first - second
    dtype = _exact_dtype(int(np.abs(delta).sum(axis=0).max(initial=0)))
    if dtype is None:
        raise ValueError("statistics too large to resample exactly")
    delta_f = delta.astype(dtype)
    base_a = second.sum(axis=0)
    both = first.sum(axis=0) + base_a
    a = np.empty((masks.shape[0], first.shape[1]), dtype=np.int64)
    for part in chunks(masks.shape[0]):
        gain = masks[part].astype(dtype) @ delta_f
        a[part] = np.rint(gain).astype(np.int64) + base_a
    return a, both - a
