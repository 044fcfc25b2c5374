"""Columns a caller has summed on a paired bootstrap's own draws, in the same core pass.

The report (:mod:`truebleu.viewer.model`) resamples its segments for the significance
test and, with the same seed and number of samples, for its word-frequency buckets:
the same ``default_rng(seed).choice(n, size=(n_samples, n))`` indices twice, and
drawing them is most of the core's resampling time (about 17.5 instructions a draw).
An :class:`ExtraColumns` handed to :func:`.multi.compare_all_with_columns` rides on the
test's core pass: one table of the test's statistics followed by these columns, one
draw of each index, the sums split after it. The test's numbers do not change, and
these columns' sums are those the caller's own core pass would give.

Only a whole pass is kept: where the test would not run in the core (the Python backend,
AR, float rows, ...) or the shared pass is refused (see :meth:`ExtraColumns.sum_chunks`),
:attr:`ExtraColumns.sums` stays None, the test runs as it does alone, and the caller
resamples its columns on its own path, as before. A private handle rather than a
keyword of :func:`.multi.compare_all`, whose signature other callers rely on.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterator, Optional

from . import native
from .resampling import FLOAT32_EXACT

if TYPE_CHECKING:
    from numpy.typing import NDArray


class ExtraColumns:
    """A ``(segments, columns)`` table of non-negative int64 counts to be summed on the
    test's draws; after the test, :attr:`sums` is ``(n_samples, columns)`` int64, or None
    where the shared pass did not run (the caller then takes its own path)."""

    def __init__(self, table: NDArray[Any]) -> None:
        from ..core.lazy_numpy import numpy

        np = numpy()
        if table.dtype != np.int64 or table.ndim != 2 or table.shape[1] == 0:
            raise ValueError("extra columns: a (segments, columns) int64 table is needed")
        # non-negative, so that the test's own check (no negative statistic) is the same
        # on the shared table as on its statistics alone
        if table.min(initial=0) < 0:
            raise ValueError("extra columns: counts must not be negative")
        self.table = table
        self.sums: Optional[NDArray[Any]] = None

    def sum_chunks(self, stacked: NDArray[Any], n_samples: int, state: bytearray
                   ) -> Iterator[tuple[slice, NDArray[Any]]]:
        """:func:`.native.exact_sum_chunks` of the test's ``stacked`` statistics followed
        by :attr:`table` (``stacked`` already holds them: ``[*matrices, table]`` side by
        side), yielding the test's own columns; the last chunk done, :attr:`sums` holds
        this table's.

        The core checks float32's bound on every column of a pass asked for float32,
        and this table's sums are exact int64 whatever their size (the caller's own pass
        asks for ``float32=False``): so the shared pass asks for ``float32=False`` and
        checks the test's columns here as the core checks them alone (non-negative rows:
        every sum of a sample below 2**24), raising OverflowError where the test's own
        pass would have been refused. The int32 bound (segments * largest value < 2**31)
        is the core's, on the whole table: where it refuses, OverflowError before any
        draw. Either way :attr:`sums` stays None.
        """
        from ..core.lazy_numpy import numpy

        np = numpy()
        self.sums = None
        own = stacked.shape[1] - self.table.shape[1]
        if own <= 0 or stacked.shape[0] != self.table.shape[0]:
            raise ValueError("extra columns: the stacked table does not end with them")
        parts = []
        for part, sums in native.exact_sum_chunks(stacked, n_samples, state, float32=False):
            test_sums = np.ascontiguousarray(sums[:, :own])
            if test_sums.max(initial=0) >= FLOAT32_EXACT:
                raise OverflowError("a resampled sum is beyond float32's exact integers")
            parts.append(sums[:, own:])
            yield part, test_sums
        self.sums = (np.concatenate(parts, axis=0) if parts
                     else np.zeros((0, self.table.shape[1]), dtype=np.int64))
