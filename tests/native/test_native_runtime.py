"""The compiled core's module and runtime (issue 21, item 6): keyword arguments for every
entry point, the module as PEP 489 multi-phase init with its state (the Prepared heap
type), and the one job runner under concurrent callers and odd thread counts."""

from __future__ import annotations

import importlib.util
import threading
from array import array

import pytest

core = pytest.importorskip("truebleu._native_core", reason="compiled core not built")

HYPS = [f"The cat {i} sat on the mat, again and again ({i % 7})." for i in range(300)]
REFS = [[f"The cat {i} sat on a mat, again ({i % 5}).", f"A cat {i} sat."] for i in range(300)]
STREAMS = [[r[0] for r in REFS], [r[1] for r in REFS]]
WIDTH = 10  # a statistics row of order 4


def rows(n: int) -> array:
    return array("q", [0]) * (n * WIDTH)


def test_bleu_entry_points_take_keywords():
    prepared = core.prepare(segments=REFS, mode=core.MODE_13A, lowercase=True, threads=2, loose=False)
    assert [prepared.tokens(index=3, seq=1)] == [core.prepare(REFS, core.MODE_13A, True, 2).tokens(3, 1)]
    by_position, by_keyword = rows(300), rows(300)
    periods = core.statistics(HYPS, prepared, core.MODE_13A, True, 4, 2, by_position)
    assert core.statistics(hypotheses=HYPS, prepared=prepared, mode=core.MODE_13A, lowercase=True,
                           max_order=4, threads=2, out=by_keyword, totals=None) == periods
    assert by_keyword == by_position
    totals = array("q", [0]) * WIDTH
    core.statistics(HYPS, prepared, core.MODE_13A, True, 4, 2, out=None, totals=totals)
    assert list(totals) == [sum(by_position[k::WIDTH]) for k in range(WIDTH)]

    streams = core.prepare_streams(streams=STREAMS, mode=core.MODE_13A, lowercase=True, threads=1)
    assert core.statistics(HYPS, streams, core.MODE_13A, True, 4, 1, by_keyword) == periods
    assert by_keyword == by_position
    one_pass = rows(300)
    assert core.stream_statistics(hypotheses=HYPS, streams=STREAMS, mode=core.MODE_13A, lowercase=True,
                                  max_order=4, threads=2, out=one_pass) == (2, periods)
    assert one_pass == by_position
    sentence = rows(300)
    assert core.sentence_statistics(hypotheses=HYPS, references_per_hyp=REFS, mode=core.MODE_13A,
                                    lowercase=True, max_order=4, threads=2, out=sentence) == -1
    assert sentence == by_position

    buffers = ["\n".join(HYPS).encode(), *("\n".join(s).encode() for s in STREAMS)]
    from_bytes, utf8_totals = rows(300), array("q", [0]) * WIDTH
    consumed, _ = core.stream_statistics_utf8(buffers=buffers, ends=[len(b) for b in buffers], n=300,
                                              mode=core.MODE_13A, lowercase=True, max_order=4, threads=2,
                                              rows=from_bytes, totals=utf8_totals)
    assert from_bytes == by_position and list(consumed) == [len(b) for b in buffers]

    pairs, pairs_kw = rows(4), rows(4)
    small = core.prepare([[h] for h in HYPS[:2]], core.MODE_13A, False, 1)
    core.pair_statistics(small, small, None, None, 4, 1, pairs)
    core.pair_statistics(hyp_prepared=small, ref_prepared=small, hyp_index=None, ref_index=None,
                         max_order=4, threads=1, out=pairs_kw)
    assert pairs_kw == pairs

    shared = core.prepare([HYPS[:20]], core.MODE_13A, False, 1)
    index = array("q", range(20))
    cells, cells_kw = rows(400), rows(400)
    scores, scores_kw = array("d", [0.0]) * 400, array("d", [0.0]) * 400
    core.cross_statistics(shared, index, index, 4, 1, cells, scores, 3, 0.0, True)
    core.cross_statistics(prepared=shared, a_index=index, b_index=index, max_order=4, threads=1,
                          rows=cells_kw, scores=scores_kw, smooth=3, smooth_value=0.0, effective_order=True)
    assert (cells_kw, scores_kw) == (cells, scores)
    bleu = array("d", [0.0]) * 400
    core.bleu_scores(rows=cells, max_order=4, smooth=3, smooth_value=0.0, effective_order=True, out=bleu)
    assert bleu == scores
    assert core.column_sums(table=by_position, width=WIDTH) == core.column_sums(by_position, WIDTH)
    assert core.tokenized_periods(hypotheses=HYPS) == core.tokenized_periods(HYPS)
    assert (core.tokenize(line="Hello, World!", mode=core.MODE_13A, lowercase=True)
            == ["hello", ",", "world", "!"])


def test_other_entry_points_take_keywords():
    chrf, chrf_kw = array("q", [0]) * (300 * 24), array("q", [0]) * (300 * 24)
    core.chrf_statistics(HYPS, REFS, 6, 2, False, False, 4.0, 5.0, 2, chrf, None)
    core.chrf_statistics(hypotheses=HYPS, references=REFS, char_order=6, word_order=2, whitespace=False,
                         eps_smoothing=False, factor=4.0, one_plus_factor=5.0, threads=2, out=chrf_kw,
                         scores=None)
    assert chrf_kw == chrf
    ter, ter_kw = array("d", bytes(16 * 50)), array("d", bytes(16 * 50))
    core.ter_statistics(HYPS[:50], REFS[:50], 1, ter)
    core.ter_statistics(hypotheses=HYPS[:50], references=REFS[:50], threads=2, out=ter_kw)
    assert ter_kw == ter
    alignments = core.ter_alignment(HYPS[:50], REFS[:50], 1)
    assert core.ter_alignment(hypotheses=HYPS[:50], references=REFS[:50], threads=2,
                              max_shift_size=10) == alignments

    state, state_kw = array("Q", [1, 2, 3, 5, 0, 0]), array("Q", [1, 2, 3, 5, 0, 0])
    assert core.pcg64_integers(state, 100, 10) == core.pcg64_integers(state=state_kw, n=100, count=10)
    assert core.pcg64_bools(state, 40) == core.pcg64_bools(state=state_kw, count=40)
    tables = [array("q", range(k, k + 50 * WIDTH)) for k in range(2)]
    sums = core.resample_sums(state, 8, tables, WIDTH)
    assert sums == core.resample_sums(state=state_kw, n_samples=8, tables=tables, width=WIDTH)
    masks = bytes(i % 2 for i in range(50 * 6))
    assert (core.randomization_sums(masks, tables[0], tables[1:], WIDTH)
            == core.randomization_sums(masks=masks, first=tables[0], others=tables[1:], width=WIDTH))
    assert (core.bleu_rows(sums, 4, 3, 0.0, True, True, True, None)
            == core.bleu_rows(sums=sums, max_order=4, smooth=3, smooth_value=0.0, effective_order=True,
                              float32=True, in_place=True, python_sum=None))

    data = "ab\ncd\nef".encode()
    assert core.utf8_scan(data, 0) == core.utf8_scan(buffer=data, start=0, end=-1)
    assert core.utf8_line_chars(data, 2) == core.utf8_line_chars(buffer=data, lines=2, end=-1) == 4
    assert (core.utf8_first_long_line(data, 0, len(data), 0, 1)
            == core.utf8_first_long_line(buffer=data, start=0, end=len(data), first_chars=0, limit=1) == 0)


def test_positional_calls_and_their_errors_are_unchanged():
    prepared = core.prepare(REFS, core.MODE_13A, False, 1)
    with pytest.raises(TypeError, match="argument 2 must be truebleu._native_core.Prepared, not list"):
        core.statistics(HYPS, [], core.MODE_13A, False, 4, 1, rows(300))
    with pytest.raises(ValueError, match="unknown tokenizer mode 9"):
        core.prepare(REFS, 9, False, 1)
    with pytest.raises(ValueError, match="max_order must be between 1 and 1000, got 0"):
        core.statistics(HYPS, prepared, core.MODE_13A, False, 0, 1, rows(300))
    with pytest.raises(ValueError, match="threads must be >= 1, got 0"):
        core.ter_statistics(HYPS[:1], REFS[:1], 0, array("d", bytes(16)))
    with pytest.raises(TypeError):  # an unknown keyword
        core.prepare(REFS, core.MODE_13A, False, 1, segmentz=1)
    with pytest.raises(TypeError):  # one argument both ways
        core.prepare(REFS, core.MODE_13A, False, 1, segments=REFS)


def test_prepared_is_a_heap_type_of_the_module_state():
    prepared_type = core.Prepared
    assert prepared_type.__module__ == "truebleu._native_core" and prepared_type.__name__ == "Prepared"
    with pytest.raises(TypeError, match="cannot create"):
        prepared_type()
    with pytest.raises(TypeError):
        prepared_type.extra = 1  # immutable, as the static type was
    with pytest.raises(TypeError):
        type("Sub", (prepared_type,), {})
    prepared = core.prepare(REFS[:3], core.MODE_13A, False, 1)
    assert type(prepared) is prepared_type and len(prepared) == 3 and prepared.num_refs == 2
    assert prepared.mode == core.MODE_13A and prepared.lowercase is False and prepared.nbytes > 0


def test_a_second_module_object_has_its_own_state():
    """Multi-phase init: the same shared library makes independent module objects, each with
    its own Prepared type (a single-phase module would be the one cached object)."""
    spec = importlib.util.find_spec("truebleu._native_core")
    other = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(other)
    assert other is not core and other.Prepared is not core.Prepared
    mine = other.prepare(REFS, other.MODE_13A, False, 2)
    assert type(mine) is other.Prepared
    out, expected = rows(300), rows(300)
    other.statistics(HYPS, mine, other.MODE_13A, False, 4, 2, out)
    core.statistics(HYPS, core.prepare(REFS, core.MODE_13A, False, 2), core.MODE_13A, False, 4, 2, expected)
    assert out == expected
    with pytest.raises(TypeError):  # each module checks for its own type
        other.statistics(HYPS, core.prepare(REFS, core.MODE_13A, False, 1), other.MODE_13A, False, 4, 1, out)


@pytest.mark.parametrize("threads", [1, 2, 3, 7, 64, 300])
def test_any_thread_count_gives_the_same_rows(threads):
    expected = rows(300)
    core.stream_statistics(HYPS, STREAMS, core.MODE_13A, False, 4, 1, expected)
    got = rows(300)
    core.stream_statistics(HYPS, STREAMS, core.MODE_13A, False, 4, threads, got)
    assert got == expected
    chrf_1, chrf_n = array("q", [0]) * (300 * 24), array("q", [0]) * (300 * 24)
    core.chrf_statistics(HYPS, REFS, 6, 2, False, False, 4.0, 5.0, 1, chrf_1, None)
    core.chrf_statistics(HYPS, REFS, 6, 2, False, False, 4.0, 5.0, threads, chrf_n, None)
    assert chrf_n == chrf_1
    assert core.ter_alignment(HYPS, REFS, threads) == core.ter_alignment(HYPS, REFS, 1)


@pytest.mark.parametrize("max_shift_size", [1, 9, 10])
def test_ter_alignment_counts_the_edits_of_ter_statistics(max_shift_size):
    """The alignment entry point runs the statistics' search: its edits and reference length
    are the row's, and its edits are its shifts plus the steps other than matches."""
    words = [f"w{i % 11}" for i in range(40)]
    hyps = [*HYPS[:40], " ".join(words), "", "a b"]
    refs = [*REFS[:40], [" ".join(words[20:] + words[:20]), " ".join(words[::-1])], ["x y"], [""]]
    rows = array("d", bytes(16 * len(hyps)))
    core.ter_statistics(hyps, refs, 2, rows, max_shift_size=max_shift_size)
    found = core.ter_alignment(hyps, refs, 2, max_shift_size=max_shift_size)
    assert [(edits, length) for _, edits, length, _, _ in found] == list(zip(rows[::2], rows[1::2]))
    for _, edits, _, shifts, steps in found:
        assert edits == len(shifts) + sum(step != "=" for step in steps)
        assert all(length <= max_shift_size for _, length, _ in shifts)
    assert any(shifts for _, _, _, shifts, _ in found)
    assert found[-1] == (0, 2, 0.0, (), "hh") and found[-2] == (0, 2, 2.0, (), "rr")


def test_ter_alignment_errors():
    with pytest.raises(ValueError, match="threads must be >= 1, got 0"):
        core.ter_alignment(HYPS[:1], REFS[:1], 0)
    with pytest.raises(ValueError, match="max_shift_size must be between 1 and 1000, got 0"):
        core.ter_alignment(HYPS[:1], REFS[:1], 1, max_shift_size=0)
    with pytest.raises(ValueError, match="segment 1 has no reference"):
        core.ter_alignment(HYPS[:2], [REFS[0], []], 1)
    with pytest.raises(ValueError, match="2 hypotheses but 1 reference segments"):
        core.ter_alignment(HYPS[:2], REFS[:1], 1)
    with pytest.raises(TypeError, match=r"hypotheses\[1\] must be a string, got int"):
        core.ter_alignment([HYPS[0], 3], REFS[:2], 1)
    with pytest.raises(TypeError, match=r"references\[0\] must be a string, got bytes"):
        core.ter_alignment(HYPS[:1], [[b"x"]], 1)


def test_concurrent_callers_share_the_runtime():
    """Python threads calling the core at once, each with helper threads of its own."""
    expected = rows(300)
    core.stream_statistics(HYPS, STREAMS, core.MODE_13A, False, 4, 1, expected)
    prepared = core.prepare_streams(STREAMS, core.MODE_13A, False, 2)
    results, errors = [], []

    def worker(kind: int) -> None:
        try:
            for _ in range(20):
                out = rows(300)
                if kind % 2:
                    core.stream_statistics(HYPS, STREAMS, core.MODE_13A, False, 4, 2, out)
                else:
                    core.statistics(HYPS, prepared, core.MODE_13A, False, 4, 3, out)
                results.append(out == expected)
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)

    workers = [threading.Thread(target=worker, args=(k,)) for k in range(6)]
    for t in workers:
        t.start()
    for t in workers:
        t.join()
    assert not errors and len(results) == 120 and all(results)
