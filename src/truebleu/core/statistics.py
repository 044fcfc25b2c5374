"""Per-segment statistics: the central, additive type of truebleu.

Every metric turns each segment into one row of numbers that *add*: a corpus
is the sum of its rows, a bootstrap sample the sum of resampled rows, a Spark
partition a partial sum. :class:`RowTable` is that table for any metric (BLEU
and chrF count integers; TER's rows hold sacreBLEU's floats). Rows are kept
in one flat :mod:`array` so that the compiled core can fill them without
creating a Python object per number.

Each metric gives its rows their meaning (BLEU's layout is in
:mod:`truebleu.metrics.bleu.statistics`).
"""

from __future__ import annotations

from array import array

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: importing typing costs about 16 M instructions
if TYPE_CHECKING:  # type aliases are for the checker only: building them costs start-up
    from typing import Any, Callable, Iterator, Optional, Sequence

    from numpy.typing import NDArray

    #: the compiled core's ``column_sums(data, width)``: the sums, or None when they would overflow
    ColumnSums = Callable[[array[Any], int], Optional[list[float]]]

# A row's numbers are ints in an int64 table and floats in a float64 one: typed ``float``,
# which takes ints too (PEP 484's numeric tower).


def python_column_sums(data: array[Any], width: int) -> list[float]:
    """The column sums of a flat table of ``width``-wide rows: the specification.

    Integers are summed exactly; floats are added one by one in segment
    order, as sacreBLEU's ``sum_of_lists`` adds them (the builtin ``sum``
    would not do: from Python 3.12 it compensates rounding errors).
    """
    if data.typecode != "d":
        return [sum(data[col::width]) for col in range(width)]
    totals: list[float] = []
    for col in range(width):
        total = 0.0
        for value in data[col::width]:
            total += value
        totals.append(total)
    return totals


_UNLOADED: Any = object()  # not looked up yet (None: no core)
_core_sums: Optional[ColumnSums] = _UNLOADED


def _core_column_sums() -> Optional[ColumnSums]:
    """The compiled core's ``column_sums``, or None when the core is not built
    (looked up on the first sum, so that importing this module loads no core)."""
    global _core_sums
    if _core_sums is _UNLOADED:
        from .kernels import native_core

        try:
            _core_sums = native_core().column_sums
        except ImportError:
            _core_sums = None
    return _core_sums


class RowTable:
    """A table of additive per-segment rows of ``width`` numbers each.

    ``typecode`` is the :mod:`array` type: ``"q"`` (int64) for counts,
    ``"d"`` (float64) for metrics whose segment statistics are floats.
    """

    __slots__ = ("width", "data")

    width: int
    data: array[Any]

    def __init__(self, width: int, data: array[Any] | None = None, typecode: str = "q") -> None:
        if width < 1:
            raise ValueError(f"width must be >= 1, got {width}")
        self.width = width
        self.data = array(typecode) if data is None else data
        if len(self.data) % self.width:
            raise ValueError("statistics buffer is not a whole number of rows")

    def _check_compatible(self, other: "RowTable") -> None:
        if type(other) is not type(self) or other.width != self.width:
            raise ValueError("cannot join statistics of different layouts")

    def append(self, row: Sequence[float]) -> None:
        if len(row) != self.width:
            raise ValueError(f"a row has {self.width} numbers, got {len(row)}")
        self.data.extend(row)

    def extend(self, other: "RowTable") -> None:
        """Append the rows of ``other`` (same layout) after ours."""
        self._check_compatible(other)
        self.data.extend(other.data)

    def __len__(self) -> int:
        return len(self.data) // self.width

    def row(self, index: int) -> list[float]:
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError("segment index out of range")
        start = index * self.width
        return self.data[start:start + self.width].tolist()

    def rows(self) -> Iterator[list[float]]:
        width, data = self.width, self.data
        for start in range(0, len(data), width):
            yield data[start:start + width].tolist()

    def sum(self) -> list[float]:
        """Column sums: the corpus-level statistics (see :func:`python_column_sums`).

        The compiled core sums an int64 or float64 table in one pass with the
        same result; without it, or when an int64 sum would overflow, Python does.
        """
        core_sums = _core_column_sums()
        if core_sums is not None:
            totals = core_sums(self.data, self.width)
            if totals is not None:
                return totals
        return python_column_sums(self.data, self.width)

    def to_numpy(self) -> NDArray[Any]:
        """The table as an ``(n_segments, width)`` NumPy array (a copy)."""
        import numpy as np

        dtype = np.float64 if self.data.typecode == "d" else np.int64
        table: NDArray[Any] = np.frombuffer(self.data, dtype=dtype).reshape(-1, self.width).copy()
        return table

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, RowTable):
            return NotImplemented
        return type(other) is type(self) and self.width == other.width and self.data == other.data

    def __repr__(self) -> str:
        return f"{type(self).__name__}(segments={len(self)}, width={self.width})"
