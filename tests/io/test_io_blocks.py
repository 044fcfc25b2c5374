"""The block reader at every boundary: the lines, the errors and the chunks do not depend on
where the blocks of bytes happen to end.

Oracles: Python's ``open(path, encoding="utf-8", newline="\\n")`` and sacreBLEU's own
``smart_open`` for files, ``io.TextIOWrapper`` (universal newlines, as sacreBLEU reads standard
input) for ``-``, and ``bytes.decode`` of the whole file for the bad-UTF-8 messages. Every case
is read with blocks of 1 to 9 bytes (so each multi-byte character, ``\\r\\n``, BOM and long
line is split at every offset) and with the default block.
"""

from __future__ import annotations

import io
import random
import sys

import pytest
import sacrebleu
from sacrebleu.utils import smart_open

import truebleu.io
import truebleu.io.lines
from truebleu.io import InputError, iter_aligned_chunks, iter_lines
from truebleu.io.lines import iter_sized_line_blocks
from truebleu.metrics.streaming import score_files, sentence_scores_from_files

BLOCK_SIZES = [1, 2, 3, 4, 5, 6, 7, 8, 9, None]  # None: the default block

CASES = {
    "empty file": b"",
    "one newline": b"\n",
    "empty lines": b"\n\n\na\n\n",
    "no final newline": b"first\nlast",
    "crlf": b"one\r\ntwo\r\n\r\nthree\r\n",
    "lone cr": b"a\rb\r\rc\n\r",
    "bom": "\ufeffbom line\nsecond\n".encode("utf-8"),
    "bom only": "\ufeff".encode("utf-8"),
    "nul bytes": b"a\x00b\n\x00\n\x00",
    "other separators": "v\x0bf\x0cfs\x1cgs\x1drs\x1eus\x1fnel\x85ls\u2028ps\u2029end\n"
                        .encode("utf-8"),
    "multi-byte": "é\n€\n😀\n上海\nΑβγ déjà-vu 🇪🇺 €€€\n\n😀😀".encode("utf-8"),
    "a line longer than every block": ("x" * 40 + "é" * 30 + "\n" + "😀" * 25).encode("utf-8"),
    "trailing whitespace": b"a . \n b \t\r\nc .\x0b\n",
}


def _open_lines(path) -> list[str]:
    with open(path, encoding="utf-8", newline="\n") as handle:
        return [line.removesuffix("\n") for line in handle]


def _sacrebleu_lines(path) -> list[str]:
    with smart_open(str(path)) as handle:  # how sacreBLEU's command line reads a file
        return [line.removesuffix("\n") for line in handle]


def _read(path, block: int | None, limit: int = truebleu.io.lines.DEFAULT_MAX_LINE_LENGTH):
    lines, bounds = [], []
    for chunk, bound in iter_sized_line_blocks(path, max_line_length=limit, block_bytes=block):
        lines += chunk
        bounds.append((sum(map(len, chunk)), bound))
    assert all(characters <= bound for characters, bound in bounds), bounds
    return lines


@pytest.mark.parametrize("case", sorted(CASES))
def test_file_lines_do_not_depend_on_block_boundaries(tmp_path, case):
    path = tmp_path / "text.txt"
    path.write_bytes(CASES[case])
    expected = _open_lines(path)
    assert _sacrebleu_lines(path) == expected
    for block in BLOCK_SIZES:
        assert _read(path, block) == expected, block


def test_generated_files_do_not_depend_on_block_boundaries(tmp_path):
    rng = random.Random(13)
    alphabet = ["a", "b", " ", ".", "\n", "\n", "\r", "\r\n", "é", "€", "😀", "上", "\x85",
                "\u2028", "\x0c", "\x00", "\ufeff", "\t"]
    path = tmp_path / "text.txt"
    for _ in range(150):
        text = "".join(rng.choices(alphabet, k=rng.randint(0, 60)))
        path.write_bytes(text.encode("utf-8"))
        expected = _open_lines(path)
        for block in (rng.randint(1, 12), rng.randint(1, 64), None):
            assert _read(path, block) == expected, (text, block)


@pytest.mark.parametrize("case", sorted(CASES))
def test_stdin_lines_are_universal_newlines_at_every_boundary(monkeypatch, case):
    expected = [line.removesuffix("\n")
                for line in io.TextIOWrapper(io.BytesIO(CASES[case]), encoding="utf-8")]
    for block in BLOCK_SIZES:
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(CASES[case])))
        assert _read("-", block) == expected, block


@pytest.mark.parametrize("case", ["multi-byte", "a line longer than every block", "crlf",
                                  "no final newline", "nul bytes"])
def test_line_length_limit_exactly_at_the_boundary(tmp_path, case):
    """A line of exactly the limit passes; one character more names the first such line."""
    path = tmp_path / "text.txt"
    path.write_bytes(CASES[case])
    lines = _open_lines(path)
    longest = max(map(len, lines))
    for limit in range(max(1, longest - 3), longest + 2):
        too_long = [number for number, line in enumerate(lines, 1) if len(line) > limit]
        for block in BLOCK_SIZES:
            if not too_long:
                assert _read(path, block, limit) == lines
                continue
            with pytest.raises(InputError) as error:
                _read(path, block, limit)
            assert str(error.value).startswith(
                f"{path}, line {too_long[0]}: longer than {limit:,} characters"), (limit, block)


def _expected_decode_error(path, raw: bytes) -> str:
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = 1 + raw[:exc.start].count(b"\n")
        bad = raw[exc.start:exc.end].hex(" ")
        return f"{path}, line {line}: invalid utf-8 (bytes {bad}): {exc.reason}"
    raise AssertionError("the bytes decode")


@pytest.mark.parametrize("bad", [b"\xff", b"\xc3", b"\xe2\x28\xa1", b"\xf0\x9f\x98",
                                 b"\xed\xa0\x80", b"\xc0\xaf", b"\x80"])
def test_bad_utf8_is_named_by_line_at_every_boundary(tmp_path, bad):
    path = tmp_path / "text.txt"
    for where in (0, 3, 9, 14, 25):
        before = "ab\néé\n😀x\nlonger line here\n"[:where].encode("utf-8", errors="ignore")
        raw = before + bad + b"\ntail \xc3\xa9\n"
        path.write_bytes(raw)
        expected = _expected_decode_error(path, raw)
        for block in BLOCK_SIZES:
            with pytest.raises(InputError) as error:
                _read(path, block)
            assert str(error.value) == expected, (where, block)


def test_truncated_character_at_the_end_of_the_file(tmp_path):
    path = tmp_path / "text.txt"
    raw = "line\nend ".encode("utf-8") + "😀".encode("utf-8")[:3]
    path.write_bytes(raw)
    for block in BLOCK_SIZES:
        with pytest.raises(InputError) as error:
            _read(path, block)
        assert str(error.value) == _expected_decode_error(path, raw)


def _chunks(paths, chunk_lines):
    chunks = list(iter_aligned_chunks(paths, chunk_lines))
    for chunk in chunks:
        assert len({len(lines) for lines in chunk}) == 1  # side by side
        assert 1 <= len(chunk[0]) <= chunk_lines
    return [[line for chunk in chunks for line in chunk[k]] for k in range(len(paths))], chunks


@pytest.mark.parametrize("block_bytes, chunk_characters", [(7, 10), (64, 50), (1 << 16, 1 << 23)])
def test_aligned_chunks_keep_every_line_in_order_and_bounded(tmp_path, monkeypatch, block_bytes,
                                                             chunk_characters):
    monkeypatch.setattr(truebleu.io.lines, "BLOCK_BYTES", block_bytes)
    monkeypatch.setattr(truebleu.io, "CHUNK_CHARACTERS", chunk_characters)
    rng = random.Random(block_bytes)
    words = ["a", "bb", "é", "😀", "上海", ".", ""]
    files = []
    for k, n_words in enumerate((3, 9, 1)):  # files with short and long lines side by side
        lines = [" ".join(rng.choices(words, k=rng.randint(0, n_words))) for _ in range(500)]
        lines[rng.randrange(500)] = "w" * 120  # one line longer than a small chunk's characters
        path = tmp_path / f"file{k}.txt"
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        files.append((path, lines))
    for chunk_lines in (1, 7, 100, 10_000):
        joined, chunks = _chunks([path for path, _ in files], chunk_lines)
        assert joined == [lines for _, lines in files]
        for chunk in chunks:  # memory: a chunk's characters stay near the bound
            for lines in chunk:
                assert sum(map(len, lines)) <= chunk_characters + 2 * (block_bytes + 120)


def test_files_of_different_lengths_name_every_count(tmp_path, monkeypatch):
    monkeypatch.setattr(truebleu.io.lines, "BLOCK_BYTES", 5)
    (tmp_path / "h").write_text("a\n" * 30)
    (tmp_path / "r").write_text("b\n" * 31)
    (tmp_path / "s").write_text("c\n" * 30)
    paths = [tmp_path / "h", tmp_path / "r", tmp_path / "s"]
    for chunk_lines in (1, 4, 30, 100):
        with pytest.raises(InputError) as error:
            list(iter_aligned_chunks(paths, chunk_lines))
        assert str(error.value) == (f"{paths[0]} has 30 lines but {paths[1]} has 31 lines, "
                                    f"{paths[2]} has 30 lines; hypotheses and references must "
                                    "have one line per segment")


def test_streamed_score_is_sacrebleu_at_every_block_size(tmp_path, monkeypatch):
    """The whole chain (blocks -> chunks -> strip -> statistics) against sacreBLEU's own reading."""
    rng = random.Random(7)
    words = ["the", "cat", "sat", ".", ",", "é", "😀", "上海", "-", "don't", "3.5"]
    ends = ["", " .", "\r", "  ", "\x0c", "\u2028", "\x85"]

    def text(n):
        return "".join(" ".join(rng.choices(words, k=rng.randint(0, 15))) + rng.choice(ends)
                       + "\n" for _ in range(n))

    hyp, ref = tmp_path / "hyp.txt", tmp_path / "ref.txt"
    hyp.write_text(text(300), encoding="utf-8", newline="")
    ref.write_text(text(300), encoding="utf-8", newline="")
    hyps = [line.rstrip() for line in _sacrebleu_lines(hyp)]
    refs = [line.rstrip() for line in _sacrebleu_lines(ref)]
    expected = sacrebleu.BLEU().corpus_score(hyps, [refs])
    for block_bytes in (3, 64, 1 << 16):
        monkeypatch.setattr(truebleu.io.lines, "BLOCK_BYTES", block_bytes)
        for chunk_lines in (1, 17, 10_000):
            got = score_files(hyp, [ref], chunk_lines=chunk_lines).score
            assert (got.score, got.counts, got.totals, got.sys_len, got.ref_len) == (
                expected.score, expected.counts, expected.totals, expected.sys_len,
                expected.ref_len), (block_bytes, chunk_lines)
    assert list(iter_lines(hyp)) == _sacrebleu_lines(hyp)


@pytest.mark.parametrize("tokenize", ["13a", "none", "char", "zh", "intl"])
@pytest.mark.parametrize("lowercase", [False, True])
def test_streamed_references_with_trailing_whitespace_score_as_sacrebleu(tmp_path, backend,
                                                                         tokenize, lowercase):
    """References reach the backend unstripped; every backend strips them as sacreBLEU's BLEU."""
    from truebleu import BLEU

    rng = random.Random(len(tokenize))
    words = ["The", "cat", ".", "é", "上海", "İ", "ΣΟΦΟΣ", "x"]
    ends = ["", " ", "\t", "\r", "\x0c", "\x0b", "\x1c", "\x85", "\u2028", "\u3000", "\xa0 ."]

    def text(n):
        return "".join(" ".join(rng.choices(words, k=rng.randint(0, 8))) + rng.choice(ends)
                       + "\n" for _ in range(n))

    hyp, ref = tmp_path / "hyp.txt", tmp_path / "ref.txt"
    hyp.write_text(text(120), encoding="utf-8", newline="")
    ref.write_text(text(120), encoding="utf-8", newline="")
    hyps = [line.rstrip() for line in _sacrebleu_lines(hyp)]
    refs = [line.rstrip() for line in _sacrebleu_lines(ref)]
    expected = sacrebleu.BLEU(tokenize=tokenize, lowercase=lowercase).corpus_score(hyps, [refs])
    metric = BLEU(tokenize=tokenize, lowercase=lowercase, backend=backend)
    got = score_files(hyp, [ref], metric, chunk_lines=50).score
    assert (got.score, got.counts, got.totals, got.sys_len, got.ref_len) == (
        expected.score, expected.counts, expected.totals, expected.sys_len, expected.ref_len)

    # -sl: each segment against sacreBLEU's sentence_score (effective order, as the command)
    sentence_metric = BLEU(tokenize=tokenize, lowercase=lowercase, effective_order=True,
                           backend=backend)
    oracle = sacrebleu.BLEU(tokenize=tokenize, lowercase=lowercase, effective_order=True)
    got_sentences = [score.score for score in
                     sentence_scores_from_files(hyp, [ref], sentence_metric, chunk_lines=50)]
    assert got_sentences == [oracle.sentence_score(h, [r]).score for h, r in zip(hyps, refs)]
