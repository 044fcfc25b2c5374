"""sacreBLEU's bootstrap and randomization in the compiled core, without NumPy.

NumPy's import alone costs a ``truebleu REF -i SYS... -pbs`` command about a
quarter of its time. When the compiled core is in use, the metric's batch
scorer can score int64 sums in the core (``core_scores``: BLEU's can) and the
seed is a plain integer, the draws, sums and scores run in the core
(``_native/significance/``) and the few statistics after them (means, order
statistics, p-values) in Python, with the same numbers as the NumPy path:

- the draws are NumPy's (:mod:`.pcg64` seeds PCG64 as ``default_rng`` does);
- a bootstrap sample's statistics are summed exactly, which is what
  sacreBLEU's float32 sums give while every partial sum stays below 2**24
  (for non-negative statistics: while every sample's sum does; the core
  checks it; otherwise the NumPy path runs);
- the scores of the sums repeat the batch scorer's NumPy operations in the
  same IEEE types (float32 for bootstrap sums, float64 for integer sums);
- NumPy's ``mean`` of a float64 array is a pairwise sum (:func:`pairwise_sum`).

Where any of this does not apply (the Python backend, a scorer without
``core_scores``, OS entropy as the seed, NumPy 1.x's promotion rules, very
large statistics) the callers keep the NumPy path.
"""

from __future__ import annotations

import operator
import os
import struct
from functools import lru_cache

from ..core.typing_stubs import cast
from .pcg64 import is_plain_seed, pcg64_state
from .resampling import CHUNK, chunks

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: importing typing costs about 16 M instructions
if TYPE_CHECKING:
    from typing import Any, Iterable, Iterator, Optional, Sequence, TypeGuard, Union

    from numpy.random import Generator
    from numpy.typing import NDArray

    from ..core.progress import Progress
    from ..core.statistics import RowTable
    from .scoring import BatchScorer, CoreScorer

PAIRWISE_BLOCK = 128  # NumPy's PW_BLOCKSIZE: below it, eight running sums
NUMPY_BUFSIZE = 8192  # NumPy's default buffer size (np.getbufsize())


def _core() -> Any:
    """The compiled core when it is the active backend, else None."""
    from ..core.kernels import backend_name, native_core

    if backend_name() != "native":
        return None
    return native_core()


@lru_cache(maxsize=1)
def numpy_promotes_weakly() -> bool:
    """Whether NumPy, if installed, follows NEP 50 (NumPy 2): ``100. * float32`` is float32.

    Looked up without importing NumPy: NumPy 2 moved its core to ``numpy/_core``.
    Without NumPy there is nothing to match and NumPy 2's rules are used. Looked up
    once per process (a server's tests must not touch the file system per request).
    """
    from importlib.util import find_spec

    spec = find_spec("numpy")
    if spec is None or not spec.submodule_search_locations:
        return True
    return any(os.path.isdir(os.path.join(where, "_core"))
               for where in spec.submodule_search_locations)


def applies(scorer: BatchScorer, seed: object, tables: Sequence[RowTable]
            ) -> TypeGuard[CoreScorer]:
    """Whether the native path gives this test's numbers (else the NumPy path runs)."""
    return (callable(getattr(scorer, "core_scores", None)) and sums_apply(seed, tables)
            and numpy_promotes_weakly())


def sums_apply(seed: object, tables: Sequence[RowTable]) -> bool:
    """Whether the core can sum these tables' bootstrap samples drawn from ``seed``
    (a plain int or a NumPy ``Generator`` on PCG64): int64 rows of one shape, the
    compiled core in use. The scores of the sums are another matter (:func:`applies`)."""
    return ((is_plain_seed(seed) or generator_state(seed) is not None)
            and len(tables) > 0
            and all(t.data.typecode == "q" and t.width == tables[0].width
                    and len(t) == len(tables[0]) and len(t) > 0 for t in tables)
            and _core() is not None)


def generator_state(rng: object) -> Optional[bytearray]:
    """The state of a NumPy ``Generator`` on PCG64 in the core's layout (see
    :func:`.pcg64.pcg64_state`), None for anything else. The core draws what the
    Generator would draw next; :func:`store_state` then moves the Generator on."""
    bit_generator = getattr(rng, "bit_generator", None)
    if type(rng).__name__ != "Generator" or type(bit_generator).__name__ != "PCG64":
        return None
    full = bit_generator.state  # type: ignore[union-attr]
    state, increment = full["state"]["state"], full["state"]["inc"]
    low = 2 ** 64 - 1
    return bytearray(struct.pack("=6Q", state >> 64, state & low, increment >> 64,
                                 increment & low, full["has_uint32"], full["uinteger"]))


def store_state(rng: Generator, state: bytearray) -> None:
    """Give ``rng`` the core's state after its draws (the inverse of :func:`generator_state`)."""
    high, low, inc_high, inc_low, has_uint32, uinteger = struct.unpack("=6Q", state)
    rng.bit_generator.state = {"bit_generator": "PCG64",
                               "state": {"state": high << 64 | low, "inc": inc_high << 64 | inc_low},
                               "has_uint32": has_uint32, "uinteger": uinteger}


def start_state(seed: Union[int, Generator]) -> bytearray:
    """The core's generator state for a plain int seed or a PCG64 ``Generator``."""
    state = pcg64_state(seed) if isinstance(seed, int) and is_plain_seed(seed) else generator_state(seed)
    if state is None:
        raise ValueError("the core draws from a plain int seed or a PCG64 Generator only")
    return state


def resampled_sum_chunks(tables: Sequence[RowTable], n_samples: int, state: bytearray,
                         float32: bool = True, threads: Optional[int] = None
                         ) -> Iterator[tuple[slice, bytes]]:
    """The exact int64 sums of ``n_samples`` bootstrap samples, :data:`.resampling.CHUNK`
    samples at a time: ``(sample slice, sums)``, one row of ``len(tables) * width``
    per sample (table j at ``j * width``), as NumPy's ``choice(n, size=(n_samples, n))``
    from the generator in ``state`` (advanced in place).

    Raises OverflowError before the first draw when int32 sums could overflow
    (segments * largest statistic >= 2**31). With ``float32`` (the sums must be
    what float32 sums give) also when a sample's sum reaches 2**24, or, for tables
    with a negative value, before the first draw when segments * largest statistic
    >= 2**24; ``state`` then stays where the refused chunk started.

    The draws are one stream; the drawn rows' sums run on ``threads`` threads (None:
    the available cores), the same sums on any number.
    """
    from ..core.kernels import thread_count

    core, width, count = _core(), tables[0].width, thread_count(threads)
    data = [t.data for t in tables]
    for part in chunks(n_samples, CHUNK):
        yield part, core.resample_sums(state, part.stop - part.start, data, width, float32,
                                       count)


def bootstrap_columns(tables: Sequence[RowTable], scorer: CoreScorer, n_samples: int,
                      seed: Union[int, Generator], progress: Optional[Progress] = None,
                      threads: Optional[int] = None) -> Optional[list[list[float]]]:
    """Each system's score on each of ``n_samples`` bootstrap samples (one list per table).

    The samples are ``default_rng(seed).choice(n, size=(n_samples, n))`` (or, for a
    PCG64 ``Generator``, its next draws; it is then moved on past them), every
    system scored on the same ones, as sacreBLEU's ``-pbs``/``-ci``. None when
    float32 sums could round (checked by the core: see :func:`resampled_sum_chunks`):
    the NumPy path then repeats sacreBLEU's order. ``threads``: the sums' threads
    (None: the available cores; the same numbers on any number).
    """
    state = start_state(seed)
    k = len(tables)
    columns: list[list[float]] = [[] for _ in tables]
    sums_chunks = resampled_sum_chunks(tables, n_samples, state, threads=threads)
    while True:
        try:
            part, sums = next(sums_chunks)
        except StopIteration:
            break
        except OverflowError:
            return None
        scores = scorer.core_scores(sums, float32=True)
        for j, column in enumerate(columns):
            column.extend(scores[j::k].tolist())
        if progress is not None:
            progress.update(part.stop - part.start)
    if not is_plain_seed(seed):
        store_state(seed, state)  # type: ignore[arg-type]
    return columns


def scored_int_rows(scorer: BatchScorer, rows: NDArray[Any]) -> list[float]:
    """``scorer.score_rows(rows).tolist()`` for a matrix of int64 rows (each a sum of
    statistics): in the compiled core where that gives the same floats (a scorer with
    ``core_scores``, BLEU's: the NumPy path's float64 operations on int64 sums, in C),
    else with NumPy. The report scores every segment and every corpus but one this way
    (two scores per segment and system): about 800,000 calls of ``math.log`` from Python
    per system at 200,000 segments on NumPy's path."""
    from ..core.lazy_numpy import numpy

    np = numpy()
    if (rows.dtype == np.int64 and rows.ndim == 2 and len(rows) > 0 and _core() is not None
            and callable(getattr(scorer, "core_scores", None)) and numpy_promotes_weakly()):
        core_scorer = cast("CoreScorer", scorer)
        scores = core_scorer.core_scores(np.ascontiguousarray(rows), float32=False)
        return cast("list[float]", scores.tolist())  # (a memoryview of "d": floats)
    values: list[float] = scorer.score_rows(rows).tolist()
    return values


def randomization_p_values(tables: Sequence[RowTable], scorer: CoreScorer, n_trials: int, seed: int,
                           observed: Sequence[float], strict: bool,
                           progress: Optional[Progress] = None) -> Optional[list[float]]:
    """sacreBLEU's approximate randomization of ``tables[1:]`` against ``tables[0]``.

    The swap masks are ``default_rng(seed).integers(2, size=(n_trials, n), dtype=bool)``,
    shared by every comparison; each trial's pseudo-systems are summed exactly in
    int64 and scored exactly (float64 arithmetic, as for NumPy's int64 sums).
    The p-values are :func:`.paired.randomization_p_values`'. None when the
    statistics are too large for the core's int32 sums (the NumPy path then runs).
    """
    core, state = _core(), pcg64_state(seed)
    n, width, k = len(tables[0]), tables[0].width, len(tables) - 1
    masks = memoryview(core.pcg64_bools(state, n_trials * n))
    first, others = tables[0].data, [t.data for t in tables[1:]]
    exceed = [0] * k
    for part in chunks(n_trials, CHUNK):
        try:
            a, b = core.randomization_sums(masks[part.start * n:part.stop * n], first, others,
                                           width)
        except OverflowError:
            return None
        scores_a = scorer.core_scores(a, float32=False)
        scores_b = scorer.core_scores(b, float32=False)
        for j in range(k):
            gaps = map(abs, map(operator.sub, scores_a[j::k].tolist(), scores_b[j::k].tolist()))
            exceed[j] += count_above(gaps, observed[j], strict)
        if progress is not None:
            progress.update(part.stop - part.start)
    return [(count + 1) / (n_trials + 1) for count in exceed]


# -- NumPy's float64 reductions ---------------------------------------------------

def pairwise_sum(values: Sequence[float]) -> float:
    """``np.add.reduce`` of a contiguous float64 array: NumPy's pairwise summation.

    Fewer than 8 values are added left to right; up to 128, eight running sums
    (one per position modulo 8) are combined as ((0+1)+(2+3))+((4+5)+(6+7)),
    then the rest added; longer arrays split at half (rounded down to a
    multiple of 8) and add the two halves' sums. The reduction starts from
    the identity 0.0 (so a sum of negative zeros is 0.0, as in NumPy).
    """
    return 0.0 + _pairwise(values, 0, len(values))


def _pairwise(a: Sequence[float], start: int, n: int) -> float:
    if n < 8:
        total = 0.0
        for i in range(start, start + n):
            total += a[i]
        return total
    if n <= PAIRWISE_BLOCK:
        r = list(a[start:start + 8])
        end = start + n - n % 8
        for i in range(start + 8, end, 8):
            r[0] += a[i]
            r[1] += a[i + 1]
            r[2] += a[i + 2]
            r[3] += a[i + 3]
            r[4] += a[i + 4]
            r[5] += a[i + 5]
            r[6] += a[i + 6]
            r[7] += a[i + 7]
        total = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
        for i in range(end, start + n):
            total += a[i]
        return total
    half = n // 2
    half -= half % 8
    return _pairwise(a, start, half) + _pairwise(a, start + half, n - half)


def numpy_mean(values: Sequence[float]) -> float:
    """``np.asarray(values, dtype=np.float64).mean()`` for a non-empty sequence.

    Up to NumPy's buffer size (8192 values) every NumPy release sums in one
    pairwise pass; beyond it some releases (2.2, for one) add the pairwise
    sums of consecutive 8192-value buffers and others do not, so longer
    sequences (more than 8192 resamples) are left to the installed NumPy.
    """
    if len(values) > NUMPY_BUFSIZE:
        from ..core.lazy_numpy import numpy

        return float(numpy().mean(numpy().asarray(values, dtype=numpy().float64)))
    core = _core()  # the same steps in C (an interval and a p-value per system take the mean)
    return (pairwise_sum(values) if core is None else core.pairwise_sum(values)) / len(values)


def interval(scores: Sequence[float]) -> tuple[float, float]:
    """sacreBLEU's ``estimate_ci`` on float64 scores: (mean of the sorted scores,
    half the distance between the 2.5% and 97.5% order statistics)."""
    ordered = sorted(scores)
    lower = len(ordered) // 40
    upper = len(ordered) - lower - 1
    return numpy_mean(ordered), 0.5 * (ordered[upper] - ordered[lower])


def count_above(values: Iterable[float], observed: float, strict: bool) -> int:
    """How many values are above (``strict``) or at least ``observed`` (NumPy's ``>``/``>=``).

    A comprehension's own comparisons: a ``map`` of ``observed.__lt__`` calls a method
    wrapper per value, about four times the time.
    """
    if strict:
        return len([None for value in values if value > observed])
    return len([None for value in values if value >= observed])


def bootstrap_p_value(scores_a: Sequence[float], scores_b: Sequence[float],
                      observed_delta: float, strict: bool) -> float:
    """:func:`.paired.bootstrap_p_value` with ``statistic="sacrebleu"`` on Python floats.

    Comprehensions, not maps of ``operator.sub`` and ``observed.__lt__``: the same float
    operations, 1.45 M -> 1.13 M instructions a p-value of 1,000 samples (callgrind, 200
    calls; counting the centred list inline instead of in :func:`count_above` saved 0.06 M
    more, not kept: one count, in one place).
    """
    diffs = [abs(b - a) for a, b in zip(scores_a, scores_b)]
    mean = numpy_mean(diffs)
    above = count_above([d - mean for d in diffs], abs(observed_delta), strict)
    return (above + 1) / (len(diffs) + 1)


def row_table(matrix: NDArray[Any]) -> RowTable:
    """An int64 matrix as the core's row table (one copy: ``array("q", m.tobytes())``
    made two)."""
    from array import array

    from ..core.lazy_numpy import numpy
    from ..core.statistics import RowTable

    np = numpy()
    data = array("q")
    data.frombytes(np.ascontiguousarray(matrix, dtype=np.int64).reshape(-1).view(np.uint8))
    return RowTable(matrix.shape[1], data)


def exact_sum_chunks(stacked: NDArray[Any], n_samples: int, state: bytearray,
                     float32: bool = True) -> Iterator[tuple[slice, NDArray[Any]]]:
    """The int64 sums of the bootstrap samples of ``stacked`` (integer rows; several
    systems' side by side) drawn by the core from ``state``: ``(sample slice,
    (rows, columns) sums)``, exact while segments * largest value < 2**31 (the core's
    int32 sums). With ``float32`` they are also the NumPy path's float32 sums, which
    the core checks (every sum below 2**24 for non-negative rows). OverflowError
    otherwise, before the first chunk is yielded or with ``state`` left where that
    chunk started (see :func:`resampled_sum_chunks`).

    ``stacked`` goes to the core as one table of all its columns, read in place (copied
    only if it is not C-contiguous int64): the core lays out a row of k tables of
    ``width`` columns as table j at ``j * width``, which is the stacked row itself, so
    the sums are the same as those of the k tables apart (200,000 rows of two BLEU systems: 64 MB of
    copies fewer).
    """
    from ..core.kernels import thread_count
    from ..core.lazy_numpy import numpy

    np = numpy()
    core, count = _core(), thread_count(None)
    table = np.ascontiguousarray(stacked, dtype=np.int64)
    columns = table.shape[1]
    for part in chunks(n_samples, CHUNK):
        raw = core.resample_sums(state, part.stop - part.start, [table], columns, float32, count)
        yield part, np.frombuffer(raw, dtype=np.int64).reshape(part.stop - part.start, columns)
