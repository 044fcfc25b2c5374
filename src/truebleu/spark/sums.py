"""Statistics rows as integers that Spark can add in any order, and back.

Spark adds partial sums in whatever order its tasks and its shuffle deliver
them. That is exact for a metric whose rows are integers (BLEU, chrF): integer
addition is associative. It is not, in general, for float rows (TER's
``[edits, average reference length]``): ``metric.corpus_score`` adds them one
by one in row order, and another order may round differently.

There is one exact case, and it is TER's usual one: when every value is a
non-negative multiple of ``2**-SCALE_BITS`` (edits are whole numbers; an
average over 1, 2 or 4 references is a multiple of 1/4) and the column sums
stay below ``2**(53 - SCALE_BITS)``, every partial sum in *every* order is
such a multiple below ``2**53`` ulps, hence a double without rounding. Each
addition is then exact, so every order (Spark's, and the row order of
``corpus_score``) gives the same, exact sum. Such values are sent to Spark as
the integers ``value * 2**SCALE_BITS``; rows that are not are counted, and a
group with any of them is not scored (its sum would depend on the order).

For integer rows this module passes the matrix through unchanged.
"""

from __future__ import annotations

import math
from typing import Any, Sequence

#: fractional bits kept exactly: averages over up to 1,024 (a power of two) references
SCALE_BITS = 10
#: the largest scaled value (and scaled column sum) whose every partial sum is a double
EXACT_LIMIT = 2 ** 53


def to_fixed_point(matrix: Any, integer_rows: bool) -> tuple[Any, Any]:
    """``(int64 matrix, per-row flag: not exactly summable)`` of a statistics matrix.

    Integer rows come back as they are, every flag False. Float rows are
    scaled by ``2**SCALE_BITS``; a row with a value that is negative, not
    finite, not a multiple of ``2**-SCALE_BITS`` or too large for the exact
    range is flagged, and its values are sent as 0.
    """
    import numpy as np

    if integer_rows:
        return matrix.astype(np.int64, copy=False), np.zeros(len(matrix), dtype=bool)
    scaled = np.ldexp(matrix, SCALE_BITS)
    with np.errstate(invalid="ignore"):
        exact = (scaled >= 0) & (scaled < EXACT_LIMIT) & (scaled == np.floor(scaled))
    inexact = ~exact.all(axis=1)
    scaled[inexact] = 0
    return scaled.astype(np.int64), inexact


def from_fixed_point(sums: Sequence[int], integer_rows: bool) -> list | None:
    """The column sums of the original rows, or None when they are not exact.

    ``sums`` are the Spark sums of :func:`to_fixed_point`'s integers (of rows
    none of which was flagged). Float sums are exact when each column's
    scaled sum is below :data:`EXACT_LIMIT`; they are then the very doubles
    that adding the rows one by one, in any order, gives.
    """
    if integer_rows:
        return [int(value) for value in sums]
    if any(value >= EXACT_LIMIT for value in sums):
        return None
    return [math.ldexp(float(value), -SCALE_BITS) for value in sums]
