"""Column sums of statistics tables (RowTable.sum): the compiled core's one pass
against the pure-Python specification (stats.python_column_sums), on generated
tables: int64 sums exact (and past int64, through Python's integers), float64
sums added one by one in row order, as sacreBLEU's ``sum_of_lists``."""

from __future__ import annotations

import math
from array import array

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from truebleu.core import statistics as stats
from truebleu.core.statistics import RowTable, python_column_sums
from truebleu.metrics.bleu.statistics import Statistics

core = pytest.importorskip("truebleu._native_core", reason="compiled core not built")

INT64 = st.integers(-(1 << 63), (1 << 63) - 1)
SMALL = st.integers(0, 10_000)
# floats whose left-to-right sum depends on the order (and on compensation)
FLOATS = st.one_of(st.floats(allow_nan=False, allow_infinity=False, width=64),
                   st.sampled_from([0.1, 1e16, -1e16, 1.0, -0.0, 0.0, 1e-300, 3.0000000000000004]))


def bits(values):
    return [x.hex() if isinstance(x, float) else x for x in values]


@st.composite
def tables(draw, values, typecode):
    width = draw(st.integers(1, 12))
    rows = draw(st.integers(0, 30))
    return RowTable(width, array(typecode, draw(st.lists(values, min_size=width * rows,
                                                         max_size=width * rows))), typecode)


@settings(max_examples=150, deadline=None)
@given(st.one_of(tables(SMALL, "q"), tables(INT64, "q")))
def test_int_sums_are_exact(table):
    got = table.sum()
    assert got == python_column_sums(table.data, table.width)
    assert got == [sum(col) for col in zip(*table.rows())] or len(table) == 0
    assert all(type(x) is int for x in got)


@settings(max_examples=150, deadline=None)
@given(tables(FLOATS, "d"))
def test_float_sums_add_left_to_right(table):
    got = table.sum()
    want = python_column_sums(table.data, table.width)
    assert bits(got) == bits(want)
    for col in range(table.width):  # sacreBLEU's order, written out once more
        total = 0.0
        for row in table.rows():
            total += row[col]
        assert got[col].hex() == total.hex()


def test_order_matters_and_is_kept():
    # 1e16 + 1.0 + 1.0 loses both ones one at a time; a compensated sum (math.fsum,
    # Python 3.12's sum) keeps them: the two must not be confused
    table = RowTable(1, array("d", [1e16, 1.0, 1.0]), "d")
    assert table.sum() == [1e16] and math.fsum([1e16, 1.0, 1.0]) != 1e16


def test_int64_overflow_falls_back_to_python_integers():
    top = (1 << 63) - 1
    table = Statistics(1, array("q", [top, 0, 1, 1, top, 0, 1, 1]))
    assert core.column_sums(table.data, table.width) is None  # the core declines
    assert table.sum() == [2 * top, 0, 2, 2]
    low = RowTable(1, array("q", [-(1 << 63), -1]))
    assert low.sum() == [-(1 << 63) - 1]


def test_other_typecodes_and_bad_widths():
    assert core.column_sums(array("i", [1, 2]), 1) is None
    assert RowTable(2, array("i", [1, 2, 3, 4]), "i").sum() == [4, 6]
    with pytest.raises(ValueError):
        core.column_sums(array("q", [1, 2, 3]), 2)
    with pytest.raises(ValueError):
        core.column_sums(array("q", [1]), 0)
    with pytest.raises(TypeError):
        core.column_sums([1, 2], 1)
    assert Statistics(4).sum() == [0] * 10
    assert RowTable(2, typecode="d").sum() == [0.0, 0.0]


def test_without_the_core_python_sums(monkeypatch):
    monkeypatch.setattr(stats, "_core_sums", None)
    table = Statistics(2, array("q", range(60)))
    assert table.sum() == [sum(range(c, 60, 6)) for c in range(6)]
