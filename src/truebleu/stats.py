"""Per-segment BLEU statistics: the central, additive type of truebleu.

Every segment contributes one row of integers laid out as in sacreBLEU::

    [hyp_len, ref_len, matches_1 .. matches_N, totals_1 .. totals_N]

where ``ref_len`` is the reference length chosen by the reference-length rule
(sacreBLEU: the closest, ties to the shorter). Rows add: a corpus is the sum of
its rows, a bootstrap sample the sum of resampled rows, a Spark partition a
partial sum. Rows are kept in one flat ``array('q')`` so that the compiled core
can fill them without creating a Python object per number.
"""

from __future__ import annotations

from array import array
from typing import Iterable, Iterator, Sequence


def row_width(max_order: int) -> int:
    """Number of integers in one segment row for n-grams up to ``max_order``."""
    return 2 + 2 * max_order


class Statistics:
    """A table of per-segment statistics (one row per segment)."""

    __slots__ = ("max_order", "width", "data")

    def __init__(self, max_order: int, data: array | None = None) -> None:
        if max_order < 1:
            raise ValueError(f"max_order must be >= 1, got {max_order}")
        self.max_order = max_order
        self.width = row_width(max_order)
        self.data = array("q") if data is None else data
        if len(self.data) % self.width:
            raise ValueError("statistics buffer is not a whole number of rows")

    @classmethod
    def from_rows(cls, rows: Iterable[Sequence[int]], max_order: int) -> "Statistics":
        table = cls(max_order)
        for row in rows:
            table.append(row)
        return table

    def append(self, row: Sequence[int]) -> None:
        if len(row) != self.width:
            raise ValueError(f"a row has {self.width} numbers, got {len(row)}")
        self.data.extend(row)

    def extend(self, other: "Statistics") -> None:
        """Append the rows of ``other`` (same n-gram order) after ours."""
        if other.max_order != self.max_order:
            raise ValueError("cannot join statistics of different n-gram orders")
        self.data.extend(other.data)

    def __len__(self) -> int:
        return len(self.data) // self.width

    def row(self, index: int) -> list[int]:
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError("segment index out of range")
        start = index * self.width
        return self.data[start:start + self.width].tolist()

    def rows(self) -> Iterator[list[int]]:
        width, data = self.width, self.data
        for start in range(0, len(data), width):
            yield data[start:start + width].tolist()

    def sum(self) -> list[int]:
        """Column sums: the corpus-level statistics."""
        width = self.width
        data = self.data
        return [sum(data[col::width]) for col in range(width)]

    def to_numpy(self):
        """The table as an ``(n_segments, width)`` int64 NumPy array (a copy)."""
        import numpy as np

        return np.frombuffer(self.data, dtype=np.int64).reshape(-1, self.width).copy()

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Statistics):
            return NotImplemented
        return self.max_order == other.max_order and self.data == other.data

    def __repr__(self) -> str:
        return f"Statistics(segments={len(self)}, max_order={self.max_order})"
