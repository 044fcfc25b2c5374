"""Kernels that read a caller's buffer without the GIL check each value where they read it.

Another Python thread may write a buffer while a kernel reads it without the GIL, so a count
or a check made by the binding beforehand may be false by the time the kernel reads the value
(the rule stated at ``tb_copy_index_buffer``, ``runtime/buffers.h``): mteval_table's and
mteval_sums' kernels used to trust the binding's count of the lines (``-1`` ends) and then
looked for each line's end with no bound, writing one length per end into an array sized by
that count. A writer thread then made them read and write past their arrays (a crash).

Such a race cannot be reproduced deterministically; these tests give the kernels the faults
directly, with nothing checked before them, and expect their own clear ValueError naming the
fault and where it is (before the fix, the binding's generic message, not these).
"""

from __future__ import annotations

from array import array

import pytest

core = pytest.importorskip("truebleu._native_core", reason="compiled core not built")

MAX_ORDER = 4
NO_CONTEXT = -5  # a token id no line holds


def ids(*values: int) -> array:
    return array("i", values)


def table_of(references: array, nrefs: int = 1):
    table, pairs, lengths = core.mteval_table(references, nrefs, MAX_ORDER, NO_CONTEXT)
    weights = array("d", [1.0]) * (len(pairs) // 8)
    return table, weights, lengths


def test_mteval_table_reads_the_lines_it_was_given():
    _, _, lengths = table_of(ids(1, 2, 3, -1, 4, -1, -1))
    assert array("q", lengths).tolist() == [3, 1, 0]
    _, _, lengths = table_of(ids())
    assert lengths == b""


@pytest.mark.parametrize("bad, message", [
    (ids(1, 2, -1, -3, -1), r"ids\[3\] is neither a token id \(>= 0\) nor -1"),
    (ids(-2, -1), r"ids\[0\] is neither a token id"),
    (ids(1, 2, -1, 5), r"ids must end with -1 \(the last line's end\)"),
    (ids(7), r"ids must end with -1"),
])
def test_mteval_table_kernel_names_a_bad_id(bad, message):
    with pytest.raises(ValueError, match=message):
        core.mteval_table(bad, 1, MAX_ORDER, NO_CONTEXT)


def test_mteval_table_kernel_counts_the_lines_per_segment():
    with pytest.raises(ValueError, match=r"ids hold 3 lines: not nrefs \(2\) lines per segment"):
        core.mteval_table(ids(1, -1, 2, -1, 3, -1), 2, MAX_ORDER, NO_CONTEXT)


def test_mteval_sums_reads_the_lines_it_was_given():
    table, weights, _ = table_of(ids(1, 2, 3, -1, 4, 5, -1))
    _, totals, _, sizes = core.mteval_sums(table, weights, ids(1, 2, -1, 4, 9, 5, -1))
    assert array("q", sizes).tolist() == [2, 3]  # (the counts themselves: tests/dialects' oracles)
    assert totals == [sum(max(0, size - n) for size in (2, 3)) for n in range(MAX_ORDER)]


@pytest.mark.parametrize("hypotheses, message", [
    (ids(1, 2, -1), r"hypotheses hold 1 lines ended by -1, not one per segment of the table \(2\)"),
    (ids(1, 2, -1, 4, 5), r"hypotheses hold 1 lines ended by -1"),
    (ids(), r"hypotheses hold 0 lines ended by -1"),
    (ids(1, -1, 4, -1, 5), r"hypotheses hold ids after the line of the table's last segment \(2\)"),
    (ids(1, -1, 4, -1, -1), r"hypotheses hold ids after the line of the table's last segment"),
])
def test_mteval_sums_kernel_names_missing_or_extra_lines(hypotheses, message):
    table, weights, _ = table_of(ids(1, 2, 3, -1, 4, 5, -1))
    with pytest.raises(ValueError, match=message):
        core.mteval_sums(table, weights, hypotheses)


def utf8_rows(hypotheses: bytes, references: bytes, mode: int) -> list[int]:
    """stream_statistics_utf8 of one line each way: its statistics row (order 4)."""
    rows, totals = array("q", [0]) * 10, array("q", [0]) * 10
    core.stream_statistics_utf8([bytearray(hypotheses), bytearray(references)],
                                [len(hypotheses), len(references)], 1, mode, False, 4, 1, rows, totals)
    return rows.tolist()


@pytest.mark.parametrize("mode", ["MODE_13A", "MODE_INTL"])
@pytest.mark.parametrize("cut", [b"\xf0", b"\xf0\x9f\x98", b"\xe2\x80", b"\xc3", b"\xf7\xbf"])
@pytest.mark.parametrize("side", [0, 1])
def test_stream_statistics_utf8_reads_a_cut_last_character_as_data(mode, cut, side):
    """stream_statistics_utf8 reads its buffers in place without the GIL, trusting the reader's
    earlier UTF-8 check: bytes changed since (or never UTF-8) are data to the byte scanners of
    13a and intl, never a bound. A line whose last character is cut (its first byte announces
    more bytes than the line holds) once took intl's scan past the line's end, reading and
    writing outside its buffers; now the first byte reads as '?' (the same row as '?' there)."""
    line = b"a b " + cut + b"\n"
    as_read = b"a b ?" + cut[1:] + b"\n"
    other = b"a b ?\n"
    given = (line, other) if side == 0 else (other, line)
    expected = (as_read, other) if side == 0 else (other, as_read)
    assert utf8_rows(*given, getattr(core, mode)) == utf8_rows(*expected, getattr(core, mode))
