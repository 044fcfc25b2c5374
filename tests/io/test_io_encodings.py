"""Every text codec Python ships reads the same lines as Python's own ``open``, and scores the same.

sacreBLEU opens files with ``open(path, encoding=enc, newline="\\n")``: the lines it
sees are the lines of the decoded text. truebleu must see the same lines on every
path (whole-file reading, streaming in chunks), whatever the codec, including
those whose bytes for one character hold 0x0A (UTF-16 U+4E0A), byte-order marks
(UTF-16, UTF-32, UTF-8-SIG), shift states (ISO-2022, HZ) and EBCDIC newlines.
Blocks are made tiny so that every character, BOM and escape sequence gets split.
"""

from __future__ import annotations

import codecs
import encodings
import pkgutil
import random

import pytest
import sacrebleu

import truebleu.io.lines
from truebleu import BLEU
from truebleu.cli import main
from truebleu.io import InputError, read_lines
from truebleu.io.segments import read_segments
from truebleu.metrics.streaming import score_files

# Not encodings of files: punycode's decoder is not incremental (Python's own open() fails
# on it past one 8 KiB read) and idna encodes host names (no error handler, 63-character
# labels); "undefined" refuses every character by design.
_NOT_FILE_ENCODINGS = {"punycode", "idna", "undefined"}


def _text_codecs() -> list[str]:
    names = []
    for module in pkgutil.iter_modules(encodings.__path__):
        try:
            info = codecs.lookup(module.name)
        except LookupError:  # aliases, and mbcs/oem outside Windows
            continue
        if getattr(info, "_is_text_encoding", True) and module.name not in _NOT_FILE_ENCODINGS:
            names.append(module.name)
    return sorted(names)


CODECS = _text_codecs()

_WORDS = ("the cat sat on a mat . , - ; : ! ? \" ' ( ) 12 3.5 % $ café naïve Straße "
          "Привет мир Ελλάδα 上 上海 中文 上了 日本語 です 한국어 עברית العربية "
          "½ € ~{ ~} \\ + -").split()


def _corpus(seed: int, n: int) -> list[str]:
    rng = random.Random(seed)
    lines = []
    for _ in range(n):
        words = rng.choices(_WORDS, k=rng.randint(0, 12))
        end = rng.choice(["", "", " .", "\r", "  "])
        lines.append(" ".join(words) + end)
    return lines


def _write(path, lines: list[str], codec: str) -> list[str]:
    """Write ``lines`` in ``codec`` (unencodable characters replaced); return what Python reads."""
    path.write_bytes(("\n".join(lines) + "\n").encode(codec, errors="replace"))
    with open(path, encoding=codec, newline="\n") as handle:  # as sacreBLEU opens files
        return [line.removesuffix("\n") for line in handle]


def test_every_text_codec_is_tested():
    assert {"utf_8", "utf_16", "utf_16_be", "utf_16_le", "utf_32", "utf_32_be", "utf_32_le",
            "utf_8_sig", "utf_7", "cp037", "iso2022_jp", "hz", "gb18030", "shift_jis",
            "latin_1"} <= set(CODECS)
    assert len(CODECS) > 100


@pytest.mark.parametrize("codec", CODECS)
def test_codec_reads_and_scores_as_python_open(tmp_path, monkeypatch, codec):
    monkeypatch.setattr(truebleu.io.lines, "BLOCK_BYTES", 7)  # split every multi-byte thing
    hyp_path, ref_path = tmp_path / "hyp.txt", tmp_path / "ref.txt"
    hyps = _write(hyp_path, _corpus(1, 40), codec)
    refs = _write(ref_path, _corpus(2, 40), codec)
    if len(hyps) != len(refs):  # the codec merged or split lines: nothing to compare
        pytest.skip(f"{codec} does not keep one line per line")
    assert read_lines(hyp_path, codec) == hyps
    assert read_lines(ref_path, codec) == refs

    expected = sacrebleu.BLEU().corpus_score([h.rstrip() for h in hyps],
                                             [[r.rstrip() for r in refs]])
    whole = BLEU().corpus_score(read_segments(hyp_path, codec), [read_segments(ref_path, codec)])
    streamed = score_files(hyp_path, [ref_path], chunk_lines=3, encoding=codec).score
    assert whole.score == expected.score
    assert streamed.score == expected.score
    assert streamed.counts == expected.counts and streamed.totals == expected.totals


@pytest.mark.parametrize("codec", ["utf-16", "utf-16-le", "utf-16-be", "utf-32", "utf-32-be"])
def test_command_line_streams_more_than_a_chunk_of_chinese(tmp_path, capsys, codec):
    """The reproducer of issue 11, item 1: 12,222 lines holding U+4E0A (bytes 4E 0A)."""
    hyps = [f"上海 {i % 17} 上 了" if i % 3 else "上" for i in range(12_222)]
    refs = [f"上海 {i % 13} 上" for i in range(12_222)]
    (tmp_path / "hyp.txt").write_bytes(("\n".join(hyps) + "\n").encode(codec))
    (tmp_path / "ref.txt").write_bytes(("\n".join(refs) + "\n").encode(codec))
    status = main([str(tmp_path / "ref.txt"), "-i", str(tmp_path / "hyp.txt"), "-e", codec,
                   "-tok", "zh", "-b", "-w", "4"])
    assert status == 0
    expected = sacrebleu.BLEU(tokenize="zh").corpus_score(hyps, [refs]).score
    assert capsys.readouterr().out.strip() == f"{expected:.4f}"


def test_not_a_text_encoding(tmp_path):
    path = tmp_path / "a.txt"
    path.write_text("abc\n")
    with pytest.raises(InputError, match="'rot13' is not a text encoding"):
        read_lines(path, "rot13")
    with pytest.raises(InputError, match="unknown encoding 'klingon'"):
        read_lines(path, "klingon")
