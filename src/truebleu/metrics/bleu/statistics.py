"""BLEU's per-segment statistics: one row of integers per segment, laid out as in sacreBLEU::

    [hyp_len, ref_len, matches_1 .. matches_N, totals_1 .. totals_N]

where ``ref_len`` is the reference length chosen by the reference-length rule
(sacreBLEU: the closest, ties to the shorter).
"""

from __future__ import annotations

from array import array

from ...core.statistics import RowTable

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: importing typing costs about 16 M instructions
if TYPE_CHECKING:
    from typing import Any, Iterable, Sequence


def row_width(max_order: int) -> int:
    """Number of integers in one segment row for n-grams up to ``max_order``."""
    return 2 + 2 * max_order


class Statistics(RowTable):
    """BLEU's per-segment statistics (one row per segment, see the module docstring)."""

    __slots__ = ("max_order",)

    def __init__(self, max_order: int, data: array[Any] | None = None) -> None:
        if max_order < 1:
            raise ValueError(f"max_order must be >= 1, got {max_order}")
        self.max_order = max_order
        super().__init__(row_width(max_order), data)

    @classmethod
    def from_rows(cls, rows: Iterable[Sequence[int]], max_order: int) -> "Statistics":
        table = cls(max_order)
        for row in rows:
            table.append(row)
        return table

    def _check_compatible(self, other: RowTable) -> None:
        if not isinstance(other, Statistics) or other.max_order != self.max_order:
            raise ValueError("cannot join statistics of different n-gram orders")

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Statistics):
            return NotImplemented
        return self.max_order == other.max_order and self.data == other.data

    def __repr__(self) -> str:
        return f"Statistics(segments={len(self)}, max_order={self.max_order})"
