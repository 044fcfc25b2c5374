"""The command line's UTF-8 files read as bytes by the core (io/utf8_lines.py, lines.c).

Oracles: the ``str`` path (``iter_aligned_chunks`` and ``score_files`` reading lines as
``str``, the specification: its own oracles are Python's ``open`` and sacreBLEU, see
test_io_blocks.py), Python's strict UTF-8 decoder, ``str.rstrip`` and sacreBLEU. Every
case is read with blocks of 1 to 9 bytes as well as the default, so each boundary falls
inside each multi-byte character, BOM, long line and error.
"""

from __future__ import annotations

import codecs
import gzip
import logging
import os
import random
from array import array

import pytest
import sacrebleu

core = pytest.importorskip("truebleu._native_core", reason="compiled core not built")

from test_io_blocks import BLOCK_SIZES, CASES, _sacrebleu_lines  # noqa: E402

import truebleu.io  # noqa: E402
import truebleu.io.lines  # noqa: E402
from conftest import needs_wmt21, wmt21_dir  # noqa: E402
from truebleu import BLEU  # noqa: E402
from truebleu.io import InputError, iter_aligned_chunks  # noqa: E402
from truebleu.io.utf8_lines import iter_aligned_utf8_chunks  # noqa: E402
from truebleu.metrics import streaming  # noqa: E402
from truebleu.metrics.bleu.metric import count_tokenized_periods  # noqa: E402
from truebleu.metrics.streaming import score_files  # noqa: E402

WHITESPACE = [chr(c) for c in range(0x110000) if chr(c).isspace()]
#: line ends and insides the reader must keep: every ASCII control, every Unicode space
ODD = [chr(c) for c in range(32)] + WHITESPACE + ["\ufeff", "\u200b", "\x7f"]


def _utf8_chunks(paths, chunk_lines, limit=truebleu.io.DEFAULT_MAX_LINE_LENGTH):
    """The byte path's chunks as lists of str (decoded here, only to compare)."""
    out = []
    for files, n in iter_aligned_utf8_chunks(paths, chunk_lines, limit):
        chunk = []
        for file in files:
            lines = bytes(file.buffer[:file.complete_end]).split(b"\n")[:n]
            taken = min(sum(map(len, lines)) + n, file.complete_end)  # a last line: no "\n"
            chunk.append([line.decode("utf-8") for line in lines])
            file.consume(taken)
        out.append(chunk)
    return out


def _outcome(reader):
    try:
        return reader()
    except InputError as exc:
        return f"InputError: {exc}"


def _str_outcome(paths, chunk_lines, limit=truebleu.io.DEFAULT_MAX_LINE_LENGTH):
    return _outcome(lambda: list(iter_aligned_chunks(paths, chunk_lines, "utf-8", limit)))


def _bytes_outcome(paths, chunk_lines, limit=truebleu.io.DEFAULT_MAX_LINE_LENGTH):
    return _outcome(lambda: _utf8_chunks(paths, chunk_lines, limit))


@pytest.fixture
def block(monkeypatch):
    def set_block(size):
        monkeypatch.setattr(truebleu.io.lines, "BLOCK_BYTES", size or (1 << 16))
    return set_block


# -- reading: the same chunks as the str path ---------------------------------------------

@pytest.mark.parametrize("case", sorted(CASES))
def test_chunks_are_the_str_paths_at_every_boundary(tmp_path, block, case):
    path = tmp_path / "text.txt"
    path.write_bytes(CASES[case])
    for size in BLOCK_SIZES:
        block(size)
        for chunk_lines in (1, 2, 10_000):
            assert _bytes_outcome([path], chunk_lines) == _str_outcome([path], chunk_lines), \
                (size, chunk_lines)


def test_every_control_and_unicode_space_stays_in_its_line(tmp_path, block):
    path = tmp_path / "text.txt"
    text = "".join(f"a{c}b{c}\n{c}\n" for c in ODD if c != "\n") + "end"
    path.write_text(text, encoding="utf-8", newline="")
    for size in (1, 2, 3, 5, None):
        block(size)
        assert _bytes_outcome([path], 7) == _str_outcome([path], 7)
    assert [line for chunk in _bytes_outcome([path], 10_000) for line in chunk[0]] == \
        _sacrebleu_lines(path)


def _random_file(rng, lines):
    pieces = ["a", "bb", " ", ".", "é", "€", "😀", "上", "\r", "\x00", "\ufeff", "\x85", "\u2028",
              "\u3000", "\xa0", "\t"]
    text = "\n".join("".join(rng.choices(pieces, k=rng.randint(0, 12))) for _ in range(lines))
    raw = (text + rng.choice(["", "\n"])).encode("utf-8")
    if rng.random() < 0.5:  # a bad byte sequence somewhere, of one of the kinds Python names
        bad = rng.choice([b"\xff", b"\xc3", b"\xe2\x28\xa1", b"\xf0\x9f\x98", b"\xed\xa0\x80",
                          b"\xc0\xaf", b"\x80", b"\xf4\x90\x80\x80", b"\xe0\x80\x80", b"\xc3\n"])
        at = rng.randint(0, len(raw))
        while at < len(raw) and (raw[at] & 0xC0) == 0x80:  # not inside a character
            at += 1
        raw = raw[:at] + bad + raw[at:]
    return raw


def test_random_files_side_by_side_read_and_fail_as_the_str_path(tmp_path, block):
    """Several files at once: lines, chunk sizes, and which error comes first (bad UTF-8,
    a line over the limit, files of different lengths) do not depend on the path."""
    rng = random.Random(2026)
    paths = [tmp_path / f"f{k}.txt" for k in range(3)]
    outcomes = set()
    for trial in range(300):
        n_files = rng.randint(1, 3)
        lines = rng.randint(0, 30)
        for path in paths[:n_files]:
            path.write_bytes(_random_file(rng, lines + (rng.random() < 0.15)))
        block(rng.choice([1, 2, 3, 7, 16, 64, None]))
        chunk_lines = rng.choice([1, 3, 10, 10_000])
        limit = rng.choice([5, 12, 40, 1 << 20])
        expected = _str_outcome(paths[:n_files], chunk_lines, limit)
        assert _bytes_outcome(paths[:n_files], chunk_lines, limit) == expected, trial
        outcomes.add(next((kind for kind in ("invalid utf-8", "longer than", "lines but")
                           if isinstance(expected, str) and kind in expected), "read"))
    assert outcomes == {"invalid utf-8", "longer than", "lines but", "read"}  # each happened


def test_small_chunk_characters_keep_the_same_chunks(tmp_path, block, monkeypatch):
    rng = random.Random(5)
    monkeypatch.setattr(truebleu.io, "CHUNK_CHARACTERS", 20)
    paths = []
    for k, width in enumerate((2, 9, 30)):
        path = tmp_path / f"f{k}.txt"
        path.write_text("".join("é" * rng.randint(0, width) + "\n" for _ in range(200)),
                        encoding="utf-8")
        paths.append(path)
    for size in (3, 64, None):
        block(size)
        for chunk_lines in (1, 7, 10_000):
            assert _bytes_outcome(paths, chunk_lines) == _str_outcome(paths, chunk_lines)


# -- errors: today's messages -------------------------------------------------------------

def _expected_decode_error(path, raw: bytes) -> str:
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = 1 + raw[:exc.start].count(b"\n")
        return (f"{path}, line {line}: invalid utf-8 (bytes {raw[exc.start:exc.end].hex(' ')}): "
                f"{exc.reason}")
    raise AssertionError("the bytes decode")


BAD = [b"\xff", b"\xfe", b"\xc3", b"\xc3(", b"\xe2\x28\xa1", b"\xe2\x82", b"\xf0\x9f\x98",
       b"\xed\xa0\x80", b"\xc0\xaf", b"\xc1\xbf", b"\x80", b"\xbf", b"\xf4\x90\x80\x80",
       b"\xf5\x80\x80\x80", b"\xe0\x9f\xbf", b"\xf0\x8f\xbf\xbf", b"\xef\xbf\xbf\xff"]


@pytest.mark.parametrize("bad", BAD, ids=lambda b: b.hex())
def test_bad_utf8_at_every_position_and_boundary_has_todays_message(tmp_path, block, bad):
    path, ref = tmp_path / "hyp.txt", tmp_path / "ref.txt"
    good = "ab\néé\n😀x\nlonger line here\n".encode("utf-8")
    for where in (0, 3, 5, 9, 14, len(good)):
        raw = good[:where] + bad + b"\ntail \xc3\xa9\n"
        path.write_bytes(raw)
        ref.write_bytes(b"r\n" * raw.count(b"\n"))
        expected = _expected_decode_error(path, raw)
        for size in BLOCK_SIZES:
            block(size)
            assert _bytes_outcome([path, ref], 2) == f"InputError: {expected}", (where, size)
            with pytest.raises(InputError) as error:
                score_files(path, [ref])
            assert str(error.value) == expected


def test_truncated_character_at_the_end_of_the_file(tmp_path, block):
    path = tmp_path / "text.txt"
    for cut in ("😀".encode("utf-8")[:3], b"\xe2\x82", b"\xc3"):
        raw = "line\nend ".encode("utf-8") + cut
        path.write_bytes(raw)
        for size in BLOCK_SIZES:
            block(size)
            assert _bytes_outcome([path], 10) == f"InputError: {_expected_decode_error(path, raw)}"


@pytest.mark.parametrize("case", ["multi-byte", "a line longer than every block", "crlf",
                                  "no final newline", "nul bytes", "bom"])
def test_line_length_limit_plus_minus_one_at_every_boundary(tmp_path, block, case):
    path = tmp_path / "text.txt"
    path.write_bytes(CASES[case])
    longest = max(map(len, CASES[case].decode("utf-8").split("\n")))
    for limit in range(max(1, longest - 2), longest + 2):
        for size in BLOCK_SIZES:
            block(size)
            assert _bytes_outcome([path], 3, limit) == _str_outcome([path], 3, limit), \
                (limit, size)


def test_a_line_without_end_stops_at_the_limit(tmp_path, block):
    path = tmp_path / "endless.txt"
    path.write_bytes("é".encode("utf-8") * 5000)
    block(64)
    message = _bytes_outcome([path], 10, 1000)
    assert message == _str_outcome([path], 10, 1000)
    assert message.startswith(f"InputError: {path}, line 1: longer than 1,000 characters")


def test_files_of_different_lengths_name_every_count(tmp_path, block):
    block(5)
    paths = [tmp_path / "h", tmp_path / "r", tmp_path / "s"]
    for path, n in zip(paths, (30, 31, 30)):
        path.write_text("é\n" * n, encoding="utf-8")
    for chunk_lines in (1, 4, 30, 100):
        expected = _str_outcome(paths, chunk_lines)
        assert expected.startswith(f"InputError: {paths[0]} has 30 lines but {paths[1]} has 31")
        assert _bytes_outcome(paths, chunk_lines) == expected
    with pytest.raises(InputError, match="has 30 lines but"):
        score_files(paths[0], paths[1:])


def test_empty_hypotheses_and_missing_files(tmp_path):
    empty, ref = tmp_path / "empty.txt", tmp_path / "ref.txt"
    empty.write_bytes(b"")
    ref.write_bytes(b"")
    with pytest.raises(InputError, match="empty.txt is empty: nothing to score"):
        score_files(empty, [ref])
    with pytest.raises(InputError, match="missing.txt: no such file"):
        score_files(empty, [tmp_path / "missing.txt"])


# -- scores: the str path's and sacreBLEU's -------------------------------------------------

def _str_path_score(monkeypatch, *args, **kwargs):
    with monkeypatch.context() as patch:
        patch.setattr(streaming, "_reads_utf8_bytes", lambda *a: False)
        return score_files(*args, **kwargs)


def _fields(score):
    return (score.score, score.counts, score.totals, score.sys_len, score.ref_len)


@pytest.mark.parametrize("tokenize", ["13a", "none", "char", "zh", "intl"])
@pytest.mark.parametrize("lowercase", [False, True])
def test_scores_are_the_str_paths_and_sacrebleus(tmp_path, monkeypatch, block, tokenize,
                                                 lowercase):
    rng = random.Random(hash((tokenize, lowercase)) & 0xFFFF)
    words = ["The", "cat", ".", "é", "上海", "İ", "ΣΟΦΟΣ", "x", "&amp;", "<b>", "ǅ", "Straße",
             "ﬁ", "\ufeff", "-", "3.5"]

    def text(n):
        return "".join(" ".join(rng.choices(words, k=rng.randint(0, 8))) + rng.choice(ODD)
                       + rng.choice(["", " ."]) + "\n" for _ in range(n))

    hyp, ref, ref2 = tmp_path / "hyp.txt", tmp_path / "ref.txt", tmp_path / "ref2.txt"
    for path in (hyp, ref, ref2):
        path.write_text(text(150), encoding="utf-8", newline="")
    counts = {len(_sacrebleu_lines(path)) for path in (hyp, ref, ref2)}
    if len(counts) > 1:  # a line separator of the random text ended a line: even them out
        n = min(counts)
        for path in (hyp, ref, ref2):
            path.write_text("\n".join(_sacrebleu_lines(path)[:n]) + "\n", encoding="utf-8",
                            newline="")
    hyps = [line.rstrip() for line in _sacrebleu_lines(hyp)]
    refs = [[line.rstrip() for line in _sacrebleu_lines(path)] for path in (ref, ref2)]
    oracle = sacrebleu.BLEU(tokenize=tokenize, lowercase=lowercase).corpus_score(hyps, refs)
    for size in (1, 7, None):
        block(size)
        for chunk_lines in (1, 13, 10_000):
            metric = BLEU(tokenize=tokenize, lowercase=lowercase)
            got = score_files(hyp, [ref, ref2], metric, chunk_lines=chunk_lines)
            assert _fields(got.score) == _fields(oracle), (size, chunk_lines)
            assert metric.num_refs == 2 and got.segments == len(hyps)
            metric = BLEU(tokenize=tokenize, lowercase=lowercase)
            kept = score_files(hyp, [ref, ref2], metric, chunk_lines=chunk_lines,
                               keep_statistics=True)
            expected = _str_path_score(monkeypatch, hyp, [ref, ref2], metric,
                                       chunk_lines=chunk_lines, keep_statistics=True)
            assert list(kept.statistics.rows()) == list(expected.statistics.rows())


def test_tokenized_period_count_is_str_rstrips(tmp_path):
    """Hypotheses ending in " ." once str.rstrip() has stripped any whitespace there."""
    spaces = [space for space in WHITESPACE if space != "\n"]  # "\n" ends the line
    lines = [f"a .{space}" for space in spaces] + [f"a .{s}{t}" for s in spaces
                                                   for t in ("\x85", "\u3000", " ")]
    lines += ["a.", "a . x", " .", ".", "", "a \u3000.", "a\xa0.", "a . \x00", "a . \ufeff",
              "a . \u200b", "上 .", "上 .\u2029"]
    raw = "\n".join(lines).encode("utf-8")
    buffers = [bytearray(raw), bytearray(raw)]
    totals = array("q", [0]) * 10
    rows = array("q", [0]) * (10 * len(lines))
    consumed, periods = core.stream_statistics_utf8(buffers, [len(raw)] * 2, len(lines),
                                                    core.MODE_13A, False, 4, 1, rows, totals)
    assert consumed == (len(raw), len(raw))
    assert periods == count_tokenized_periods([line.rstrip() for line in lines])
    assert periods > len(spaces)


def test_tokenized_output_warns_as_the_str_path(tmp_path, caplog):
    hyp, ref = tmp_path / "hyp.txt", tmp_path / "ref.txt"
    hyp.write_text("".join(f"line {i} .{' ' if i % 2 else chr(0x3000)}\r\n" for i in range(120)),
                   encoding="utf-8")
    ref.write_text("ref .\n" * 120, encoding="utf-8")
    with caplog.at_level(logging.WARNING):
        score_files(hyp, [ref])
    assert "That's 100 lines that end in a tokenized period" in caplog.text


def test_gzip_and_utf8_spellings_take_the_byte_path(tmp_path, monkeypatch):
    hyp, ref = tmp_path / "hyp.txt.gz", tmp_path / "ref.txt"
    text = "".join(f"The cat {i} sat on the mat é 😀 .\n" for i in range(500))
    with gzip.open(hyp, "wt", encoding="utf-8") as handle:
        handle.write(text)
    ref.write_text(text.replace("cat", "dog"), encoding="utf-8")
    metric = BLEU()
    assert streaming._reads_utf8_bytes([str(hyp), str(ref)], metric, "utf-8")
    for spelling in ("utf8", "UTF-8", "u8"):
        assert streaming._reads_utf8_bytes([str(hyp), str(ref)], metric, spelling)
    for other in ("utf-8-sig", "latin-1", "no-such-codec"):
        assert not streaming._reads_utf8_bytes([str(hyp), str(ref)], metric, other)
    assert not streaming._reads_utf8_bytes(["-", str(ref)], metric, "utf-8")
    assert not streaming._reads_utf8_bytes([str(hyp), str(ref)], BLEU(backend="python"), "utf-8")
    got = score_files(hyp, [ref], chunk_lines=77)
    assert _fields(got.score) == _fields(_str_path_score(monkeypatch, hyp, [ref],
                                                         chunk_lines=77).score)
    assert codecs.lookup("utf8").name == "utf-8"


def test_the_command_line_takes_the_byte_path(tmp_path, monkeypatch, capsys):
    """A command line on UTF-8 files never builds the str chunks (and scores as sacreBLEU)."""
    from truebleu import cli

    hyp, ref = tmp_path / "hyp.txt", tmp_path / "ref.txt"
    hyp.write_text("The cat sat on the mat .\nA dog é\n", encoding="utf-8")
    ref.write_text("The cat sat on a mat .\nThe dog é\n", encoding="utf-8")

    def refuse(*args, **kwargs):
        raise AssertionError("the str path was taken")

    monkeypatch.setattr(streaming, "_stripped_chunks", refuse)
    assert cli.main([str(ref), "-i", str(hyp), "-b", "-w", "10"]) == 0
    expected = sacrebleu.BLEU().corpus_score(["The cat sat on the mat .", "A dog é"],
                                             [["The cat sat on a mat .", "The dog é"]])
    assert capsys.readouterr().out.strip() == f"{expected.score:.10f}"


@pytest.mark.parametrize("cpus, threads", [({0}, 1), ({0, 1}, 2)])
def test_the_command_line_asks_for_one_thread_per_core_it_may_use(tmp_path, monkeypatch, capsys,
                                                                   cpus, threads):
    """Pinned to one core, every chunk runs on the calling thread (the core starts a
    thread only for a count above one); with two cores, two. Totals only: no rows kept."""
    from truebleu import cli

    calls = []
    stream = core.stream_statistics_utf8

    def recording(*args):
        calls.append((args[6], args[7]))  # threads, rows
        return stream(*args)

    monkeypatch.setattr(core, "stream_statistics_utf8", recording)
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: cpus, raising=False)
    ref = tmp_path / "ref.txt"
    ref.write_text("The cat sat on a mat .\n" * 25_000, encoding="utf-8")
    assert cli.main([str(ref), "-i", str(ref), "-b", "-q"]) == 0
    assert capsys.readouterr().out.strip() == "100.0"
    assert calls == [(threads, None)] * 3  # 10,000-line chunks


# -- the WMT21 data -----------------------------------------------------------------------

@needs_wmt21
def test_every_wmt21_into_english_system_scores_as_the_str_path(monkeypatch):
    data = wmt21_dir()
    checked = 0
    for ref in sorted((data / "references").glob("*-en.ref.A.en")):
        prefix = ref.name.split(".ref.")[0]
        for hyp in sorted((data / "system-outputs").glob(f"{prefix}.hyp.*")):
            for tokenize in ("13a", "intl") if checked % 7 == 0 else ("13a",):
                got = score_files(hyp, [ref], BLEU(tokenize=tokenize))
                expected = _str_path_score(monkeypatch, hyp, [ref], BLEU(tokenize=tokenize))
                assert got.score.format(10) == expected.score.format(10), hyp.name
            checked += 1
    assert checked > 50


# -- the scan itself: utf8_scan against Python's decoder ----------------------------------

def _decoder_scan(data: bytes, start: int, end: int) -> tuple:
    """utf8_scan's answer as Python's incremental strict decoder gives it: the valid end
    (an unfinished character at the end waits), characters, newlines, error, and the
    characters after the last newline."""
    piece, error = data[start:end], 0
    try:
        text, used = codecs.utf_8_decode(piece, "strict", False)
    except UnicodeDecodeError as exc:
        text, used, error = piece[:exc.start].decode("utf-8"), exc.start, 1
    last = len(text) - text.rfind("\n") - 1 if "\n" in text else len(text)
    return start + used, len(text), text.count("\n"), error, last


def _scan_texts(rng):
    """Long ASCII stretches (the 64-byte loop) broken by newlines, other characters and bad
    bytes at every offset around its 16- and 64-byte steps."""
    for length in (0, 1, 15, 16, 17, 63, 64, 65, 127, 128, 129, 4031, 4032, 4033, 4096, 20000):
        yield b"a" * length
        yield b"\n" * length  # 252 newlines per byte lane before a sum: a lane must not wrap
        yield (b"ab\ncd" * length)[:length]
    for offset in range(0, 200):
        for inserted in (b"\n", "\u00e9".encode(), "\u20ac".encode(), "\U0001f600".encode(),
                         b"\xff", b"\xc3", b"\xed\xa0", b"\xe2\x82", b"\x80"):
            yield b"x" * offset + inserted + b"y\n" * 40
    pieces = [b"a", b"the ", b"\n", b"\n\n", "\u00e9".encode(), "\u4e0a".encode(),
              "\U0001f600".encode(), b"\r", b"\t", b"\x00", b"\x7f"]
    for _ in range(300):
        data = b"".join(rng.choice(pieces) * rng.choice((1, 1, 1, 70)) for _ in range(rng.randint(0, 400)))
        if rng.random() < 0.3:
            at = rng.randint(0, len(data))
            data = data[:at] + rng.choice([b"\xff", b"\xc3", b"\xf0\x9f\x98", b"\xc0\xaf"]) + data[at:]
        yield data


def test_utf8_scan_is_pythons_decoder_on_long_ascii_stretches():
    rng = random.Random(64)
    checked = 0
    for data in _scan_texts(rng):
        buffer = bytearray(data + b"\n\xff" * 40)  # bytes after the end must not be read
        for start, end in {(0, len(data)), (min(3, len(data)), len(data)),
                           (0, max(len(data) - 5, 0)), (len(data), len(data))}:
            want = _decoder_scan(bytes(buffer), start, end)
            assert core.utf8_scan(buffer, start, end) == want, (data[:80], start, end)
            checked += 1
        assert core.utf8_scan(data, 0) == _decoder_scan(data, 0, len(data))  # end: the buffer's
    assert checked > 5000


def test_utf8_scan_and_line_chars_refuse_ranges_outside_the_buffer():
    for args in ((b"abc", 2, 1), (b"abc", 0, 4), (b"abc", -1, 2), (b"abc", 4)):
        with pytest.raises(ValueError, match="outside a buffer"):
            core.utf8_scan(*args)
    with pytest.raises(ValueError, match="outside a buffer"):
        core.utf8_line_chars(b"a\nb", 1, 4)
    assert core.utf8_line_chars(b"ab\nc\xc3\xa9d\n\n", 2, 7) == 5  # "ab" and "céd" (its newline at 7)
    assert core.utf8_line_chars(b"ab\nc\xc3\xa9d\n\n", 2, 6) == 4  # "ab" and "cé": the end cuts it
    assert core.utf8_line_chars(b"ab\ncd\nef", 5, 5) == 4


# -- the process: memory and start-up -----------------------------------------------------

def _streamed_peak_kb(tmp_path, lines: int) -> int:
    from test_io_memory import _corpus_file, _measure

    folder = tmp_path / str(lines)
    folder.mkdir()
    path = _corpus_file(folder, lines, words_per_line=12)
    result = _measure("import os; from truebleu.cli import main",
                      f"sys.stdout = open(os.devnull, 'w'); main([{path!r}, '-i', {path!r}, '-q'])")
    assert result["error"] is None
    return result["grew_kb"]


@pytest.mark.skipif("libasan" in os.environ.get("LD_PRELOAD", ""),
                    reason="AddressSanitizer keeps freed memory in quarantine")
def test_the_byte_path_memory_does_not_grow_with_the_file(tmp_path):
    """Chunk by chunk: three times the lines must not take three times the memory."""
    pytest.importorskip("resource")
    small, large = _streamed_peak_kb(tmp_path, 30_000), _streamed_peak_kb(tmp_path, 90_000)
    assert large < 1.5 * small + 2048, (small, large)
