"""The core checks the element type of every typed buffer it writes or indexes with, not only its size.

An ``array('q')`` of eight bytes per item has the size of an ``array('d')`` of as many items:
before ``tb_check_item`` (``runtime/buffers.h``) the core took either, and wrote doubles' bits
into an int64 buffer (or the reverse), numbers that read as nonsense with no error. Now a
buffer whose format is not the written type raises TypeError naming the argument, the type it
needs and the format it got, before anything is written; every format that means that type on
this platform (``'q'``, ``'<q'``, ``'='``, NumPy's ``'l'`` where a long has 64 bits, ...) passes.
"""

from __future__ import annotations

import ctypes
import re
import sys
from array import array
from typing import Any, Callable

import pytest

core = pytest.importorskip("truebleu._native_core", reason="compiled core not built")
np = pytest.importorskip("numpy")

INT64, FLOAT64 = "int64", "float64"
PLAIN_FORMAT = {INT64: "q", FLOAT64: "d"}
ORDER, WIDTH = 4, 10  # a BLEU row of order 4: 2 + 2 * 4 values
CHRF_WIDTH = 3 * 6  # chrF's row: char order 6, word order 0
HYPS = ["a b c .", "d e"]
REFS = [["a b c ."], ["d f"]]
N = len(HYPS)


def zeros(item: str, count: int) -> array:
    return array(PLAIN_FORMAT[item], [0]) * count


def bleu_prepared():
    return core.prepare(REFS, core.MODE_13A, False, 1)


def utf8_statistics(rows: Any, totals: Any) -> None:
    files = [bytearray("".join(f"{line}\n" for line in lines).encode()) for lines in
             (HYPS, [refs[0] for refs in REFS])]
    core.stream_statistics_utf8(files, [len(f) for f in files], N, core.MODE_13A, False, ORDER, 1,
                                rows, totals)


def cross_statistics(rows: Any, scores: Any, a_index: Any = None) -> None:
    prepared = core.prepare([HYPS], core.MODE_13A, False, 1)
    a_index = array("q", [0, 1]) if a_index is None else a_index
    core.cross_statistics(prepared, a_index, array("q", [1]), ORDER, 1, rows, scores, 0, 0.0,
                          False)


def pair_statistics(out: Any, hyp_index: Any = None) -> None:
    hyps = core.prepare([[h] for h in HYPS], core.MODE_13A, False, 1)
    index = array("q", [0, 1]) if hyp_index is None else hyp_index
    core.pair_statistics(hyps, bleu_prepared(), index, array("q", [0, 1]), ORDER, 1, out)


def chrf(out: Any, scores: Any) -> None:
    core.chrf_statistics(HYPS, REFS, 6, 0, False, False, 4.0, 5.0, 1, out, scores)


def stream_of_lengths(lengths: Any) -> None:
    """ids_statistics_streams of a stream whose lines have ``lengths`` ids (as many as the
    buffer's bytes read as int64 add up to: a buffer of the wrong type is refused first)."""
    total = sum(memoryview(lengths).cast("B").cast("q"))
    ids = array("q", [1]) * total
    core.ids_statistics_streams(ids, lengths, [(ids, lengths)], ORDER, 1, zeros(INT64, N * WIDTH))


# (entry point, argument): its type, how many items, and a call with that argument given
WRITTEN: dict[tuple[str, str], tuple[str, int, Callable[[Any], Any]]] = {
    ("statistics", "out"): (INT64, N * WIDTH, lambda buf: core.statistics(
        HYPS, bleu_prepared(), core.MODE_13A, False, ORDER, 1, buf)),
    ("statistics", "totals"): (INT64, WIDTH, lambda buf: core.statistics(
        HYPS, bleu_prepared(), core.MODE_13A, False, ORDER, 1, None, buf)),
    ("sentence_statistics", "out"): (INT64, N * WIDTH, lambda buf: core.sentence_statistics(
        HYPS, REFS, core.MODE_13A, False, ORDER, 1, buf)),
    ("sentence_statistics", "scores"): (FLOAT64, N, lambda buf: core.sentence_statistics(
        HYPS, REFS, core.MODE_13A, False, ORDER, 1, None, scores=buf)),
    ("stream_statistics", "out"): (INT64, N * WIDTH, lambda buf: core.stream_statistics(
        HYPS, [[refs[0] for refs in REFS]], core.MODE_13A, False, ORDER, 1, buf)),
    ("stream_statistics", "totals"): (INT64, WIDTH, lambda buf: core.stream_statistics(
        HYPS, [[refs[0] for refs in REFS]], core.MODE_13A, False, ORDER, 1, None, buf)),
    ("stream_statistics_utf8", "rows"): (INT64, N * WIDTH, lambda buf: utf8_statistics(
        buf, zeros(INT64, WIDTH))),
    ("stream_statistics_utf8", "totals"): (INT64, WIDTH, lambda buf: utf8_statistics(None, buf)),
    ("ids_statistics", "out"): (INT64, N * WIDTH, lambda buf: core.ids_statistics(
        [[1, 2], [3]], [[[1, 2]], [[4]]], array("q"), ORDER, 1, buf)),
    ("ids_statistics", "totals"): (INT64, WIDTH, lambda buf: core.ids_statistics(
        [[1, 2], [3]], [[[1, 2]], [[4]]], array("q"), ORDER, 1, None, buf)),
    ("ids_statistics_streams", "out"): (INT64, N * WIDTH, lambda buf: core.ids_statistics_streams(
        array("q", [1, 2, 3]), array("q", [2, 1]), [(array("q", [1, 2, 4]), array("q", [2, 1]))],
        ORDER, 1, buf)),
    ("pair_statistics", "out"): (INT64, N * WIDTH, pair_statistics),
    ("cross_statistics", "rows"): (INT64, N * WIDTH, lambda buf: cross_statistics(
        buf, zeros(FLOAT64, N))),
    ("cross_statistics", "scores"): (FLOAT64, N, lambda buf: cross_statistics(
        zeros(INT64, N * WIDTH), buf)),
    ("bleu_scores", "out"): (FLOAT64, N, lambda buf: core.bleu_scores(
        zeros(INT64, N * WIDTH), ORDER, 0, 0.0, False, buf)),
    ("chrf_statistics", "out"): (INT64, N * CHRF_WIDTH, lambda buf: chrf(buf, None)),
    ("chrf_statistics", "scores"): (FLOAT64, N, lambda buf: chrf(zeros(INT64, N * CHRF_WIDTH),
                                                                 buf)),
    ("chrf_matrix", "out"): (FLOAT64, N * N, lambda buf: core.chrf_matrix(
        HYPS, [refs[0] for refs in REFS], 6, 0, False, False, 4.0, 5.0, 1, buf)),
    ("ter_statistics", "out"): (FLOAT64, 2 * N, lambda buf: core.ter_statistics(
        HYPS, [["a b c ."], ["d f"]], 1, buf, tokenize=True)),
}
# (entry point, argument): int64 buffers the core reads (indexes, ids), not writes
READ: dict[tuple[str, str], tuple[str, int, Callable[[Any], Any]]] = {
    ("pair_statistics", "indexes"): (INT64, N, lambda buf: pair_statistics(
        zeros(INT64, N * WIDTH), buf)),
    ("cross_statistics", "indexes"): (INT64, N, lambda buf: cross_statistics(
        zeros(INT64, N * WIDTH), zeros(FLOAT64, N), buf)),
    ("ids_statistics", "dropped"): (INT64, N, lambda buf: core.ids_statistics(
        [[1, 2], [3]], [[[1, 2]], [[4]]], buf, ORDER, 1, zeros(INT64, N * WIDTH))),
    ("ids_statistics_streams", "hyp_lengths"): (INT64, N, lambda buf: stream_of_lengths(buf)),
}
CASES = {**WRITTEN, **READ}
INDEXES = [0, 1]  # valid as indexes of two sequences and as dropped ids (ascending)
NATIVE = "<" if sys.byteorder == "little" else ">"
FOREIGN = ">" if sys.byteorder == "little" else "<"


def right_forms(item: str, count: int) -> list[Any]:
    """The buffers callers pass for `count` items of `item` (arrays, their memoryviews,
    NumPy arrays of every spelling of the type, a bytearray cast to the type) and ctypes
    arrays, whose format spells the byte order out ('<q')."""
    values = (INDEXES * count)[:count]
    plain = array(PLAIN_FORMAT[item], values)
    letter = "i" if item == INT64 else "f"
    forms: list[Any] = [plain, memoryview(array(PLAIN_FORMAT[item], values)),
                        memoryview(bytearray(plain.tobytes())).cast(PLAIN_FORMAT[item]),
                        memoryview(bytearray(plain.tobytes())).cast("@" + PLAIN_FORMAT[item]),
                        ((ctypes.c_int64 if item == INT64 else ctypes.c_double) * count)(*values)]
    forms += [np.array(values, dtype=dtype) for dtype in
              (f"{letter}8", f"={letter}8", f"{NATIVE}{letter}8",
               np.int64 if item == INT64 else np.float64)]
    if item == INT64:
        forms += [np.array(values, dtype=np.longlong)]
        if array("l").itemsize == 8:
            forms += [array("l", values)]
    return forms


def wrong_forms(item: str, count: int) -> list[Any]:
    """Buffers of the right size in bytes whose items are of another type."""
    other = FLOAT64 if item == INT64 else INT64
    letter = "i" if item == INT64 else "f"
    return [zeros(other, count), np.zeros(count, dtype=np.float64 if item == INT64 else np.int64),
            bytearray(8 * count), array("i", [0]) * (2 * count),
            np.zeros(count, dtype=f"{FOREIGN}{letter}8"), np.zeros(count, dtype=np.uint64)]


def format_of(buffer: Any) -> str:
    with memoryview(buffer) as view:
        return view.format


def case_ids(cases: dict) -> list[str]:
    return [f"{entry}-{argument}" for entry, argument in cases]


@pytest.mark.parametrize("case", list(CASES), ids=case_ids(CASES))
def test_every_form_of_the_right_type_is_accepted(case):
    item, count, call = CASES[case]
    for buffer in right_forms(item, count):
        call(buffer)  # (before the fix, NumPy's int64 'l' was refused as indexes and dropped)


def test_the_forms_say_what_they_are_meant_to():
    """The test's own forms: every spelling the core must take, every other one it must not."""
    assert {format_of(b) for b in right_forms(INT64, 2)} >= {"q", "@q", "l", f"{NATIVE}q"}
    assert {format_of(b) for b in right_forms(FLOAT64, 2)} >= {"d", "@d", f"{NATIVE}d"}
    assert {format_of(b) for b in wrong_forms(INT64, 2)} >= {"d", "B", "i", "L", f"{FOREIGN}q"}
    assert {format_of(b) for b in wrong_forms(FLOAT64, 2)} >= {"q", "B", "i", f"{FOREIGN}d"}
    assert all(memoryview(b).nbytes == 16 for b in wrong_forms(INT64, 2) + wrong_forms(FLOAT64, 2))


@pytest.mark.parametrize("case", list(CASES), ids=case_ids(CASES))
def test_a_buffer_of_another_type_is_refused_untouched(case):
    """Before the fix: the written cases took these buffers and wrote into them (no error);
    the read ones said only "must be int64 ('q') buffers" (and TER raised ValueError)."""
    entry, argument = case
    item, count, call = CASES[case]
    for buffer in wrong_forms(item, count):
        before = bytes(memoryview(buffer))
        expected = (f"{argument} must be a buffer of {item} (format '{PLAIN_FORMAT[item]}'); "
                    f"got format '{format_of(buffer)}'")
        with pytest.raises(TypeError, match=re.escape(expected)):
            call(buffer)
        assert bytes(memoryview(buffer)) == before, f"{entry} wrote into a refused {argument}"


@pytest.mark.parametrize("case", list(WRITTEN), ids=case_ids(WRITTEN))
def test_the_size_is_still_checked_after_the_type(case):
    item, count, call = WRITTEN[case]
    with pytest.raises(ValueError, match=f"it holds {8 * (count + 1)} bytes, not {8 * count}"):
        call(zeros(item, count + 1))


def test_what_is_written_through_each_form_is_the_same():
    """The numbers written are the same through every accepted form (the bits of the type)."""
    rows = zeros(INT64, N * WIDTH)
    core.statistics(HYPS, bleu_prepared(), core.MODE_13A, False, ORDER, 1, rows)
    expected = array("d", [0.0]) * N
    core.bleu_scores(rows, ORDER, 3, 0.0, False, expected)  # exp smoothing: not 0
    for buffer in right_forms(FLOAT64, N):
        core.bleu_scores(rows, ORDER, 3, 0.0, False, buffer)
        assert list(memoryview(buffer).cast("B").cast("d")) == list(expected)
    assert expected[0] > 0


# -- the dialects' buffers (dialects/bindings.c): mteval's int32 ids and float64 weights, and
# exact_sum's float64 values. They were read with a hand-written check that looked for a 'd'
# anywhere in the format, so a big-endian '>d' buffer passed on a little-endian machine and its
# numbers were read byte-swapped (and '<i' ids passed on big-endian ones).

NATIVE = "<" if sys.byteorder == "little" else ">"
FOREIGN = ">" if sys.byteorder == "little" else "<"
MTEVAL_IDS = [1, 2, 3, -1, 4, 5, -1]


def mteval_table(ids: Any):
    return core.mteval_table(ids, 1, ORDER, -5)


def test_dialect_buffers_take_their_types_in_this_platform_s_order():
    table, pairs, _ = mteval_table(array("i", MTEVAL_IDS))
    weights = array("d", [0.5]) * (len(pairs) // 8)
    expected = core.mteval_sums(table, weights, array("i", MTEVAL_IDS))
    assert mteval_table(np.array(MTEVAL_IDS, dtype=NATIVE + "i4"))[1] == pairs
    assert core.mteval_sums(table, np.array(weights, dtype=NATIVE + "f8"),
                            np.array(MTEVAL_IDS, dtype=NATIVE + "i4")) == expected
    values = [0.1, 0.2, 0.3]
    assert core.exact_sum(np.array(values, dtype=NATIVE + "f8")) == core.exact_sum(array("d", values))


def needs(argument: str, item: str, got: str) -> str:
    """The TypeError's message as a pattern: what ``argument`` must be, and the format it got."""
    plain = {"int32": "i", "float64": "d"}[item]
    return re.escape(f"{argument} must be a buffer of {item} (format '{plain}'); got format '{got}'")


def test_dialect_buffers_refuse_other_types_and_the_other_byte_order():
    table, pairs, _ = mteval_table(array("i", MTEVAL_IDS))
    weights = array("d", [0.5]) * (len(pairs) // 8)
    with pytest.raises(TypeError, match=needs("ids", "int32", FOREIGN + "i")):
        mteval_table(np.array(MTEVAL_IDS, dtype=FOREIGN + "i4"))
    with pytest.raises(TypeError, match=needs("hypotheses", "int32", "q")):
        core.mteval_sums(table, weights, array("q", MTEVAL_IDS))
    with pytest.raises(TypeError, match=needs("weights", "float64", FOREIGN + "d")):
        core.mteval_sums(table, np.array(weights, dtype=FOREIGN + "f8"), array("i", MTEVAL_IDS))
    with pytest.raises(TypeError, match=needs("weights", "float64", "q")):
        core.mteval_sums(table, array("q", [1]) * len(weights), array("i", MTEVAL_IDS))
    for values, got in ((np.array([1.0, 2.0], dtype=FOREIGN + "f8"), FOREIGN + "d"),
                        (array("f", [1.0]), "f"), (array("q", [1]), "q")):
        with pytest.raises(TypeError, match=needs("values", "float64", got)):
            core.exact_sum(values)


# -- rows the core reads (runtime/buffers.c, tb_int64_rows_buffer): BLEU's rows and sums to score
# and the significance tests' tables to resample. They used to be checked by item size only, so an
# array('d') of statistics was read as integers (their bits). Now their items must be int64,
# or raw bytes: the core's own results (bytes) are passed back as they came.

def resampled(tables: Any) -> bytes:
    from truebleu.significance.pcg64 import pcg64_state

    return bytes(core.resample_sums(pcg64_state(12345), 3, [tables], WIDTH, False))


def scored(rows: Any) -> bytes:
    out = zeros(FLOAT64, N)
    core.bleu_scores(rows, ORDER, 3, 0.0, False, out)
    return out.tobytes()


ROWS: dict[tuple[str, str], Callable[[Any], Any]] = {
    ("bleu_scores", "rows"): scored,
    ("bleu_rows", "sums"): lambda rows: bytes(core.bleu_rows(rows, ORDER, 3, 0.0, False, False,
                                                             False, None)),
    ("resample_sums", "tables"): resampled,
}
ROW_VALUES = [7, 9, 4, 2, 3, 1, 6, 4, 2, 1] * N  # N rows of [hyp_len, ref_len, matches, totals]


def rows_forms() -> list[Any]:
    """Every form of the rows that must be taken: the int64 forms and raw bytes."""
    raw = array("q", ROW_VALUES).tobytes()
    forms = [array("q", ROW_VALUES), np.array(ROW_VALUES, dtype=np.int64), raw, bytearray(raw),
             memoryview(raw)]
    return forms + [np.array(ROW_VALUES, dtype=f"{NATIVE}i8")]


@pytest.mark.parametrize("case", list(ROWS), ids=case_ids(ROWS))
def test_rows_are_read_as_int64_from_every_form(case):
    results = {ROWS[case](rows) for rows in rows_forms()}
    assert len(results) == 1


@pytest.mark.parametrize("case", list(ROWS), ids=case_ids(ROWS))
def test_rows_of_another_type_are_refused(case):
    """Before the fix the 8-byte forms here (doubles, byte-swapped int64, uint64) were read as
    int64 with no error; the int32 one was refused with a ValueError about whole rows."""
    _, argument = case
    size = 8 * len(ROW_VALUES)
    for rows in (array("d", ROW_VALUES), np.array(ROW_VALUES, dtype=f"{FOREIGN}i8"),
                 np.array(ROW_VALUES, dtype=np.uint64), array("i", ROW_VALUES * 2)):
        assert memoryview(rows).nbytes == size
        expected = (f"{argument} must be a buffer of int64 (format 'q'); "
                    f"got format '{format_of(rows)}'")
        with pytest.raises(TypeError, match=re.escape(expected)):
            ROWS[case](rows)
    with pytest.raises(TypeError, match=re.escape(f"{argument} must be a buffer of int64 (format "
                                                  "'q') or raw bytes; got format '?'")):
        ROWS[case](np.zeros(size, dtype=np.bool_))


@pytest.mark.parametrize("case", list(ROWS), ids=case_ids(ROWS))
def test_rows_must_still_be_whole(case):
    _, argument = case
    with pytest.raises(ValueError, match=f"{argument} must be an int64 buffer of whole rows"):
        ROWS[case](array("q", ROW_VALUES[:-1]))
