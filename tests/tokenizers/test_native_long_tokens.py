"""Tokens of more than 8 bytes in the native vocabularies: found again only when equal.

A token of up to 8 bytes is its slot's head; a longer one is compared in 8-byte words,
9 to 16 bytes by a look-up of their own (the head and the last 8 bytes read whole), more by
the general one. These tests put tokens of exactly 8, 9, 15, 16 and 17 bytes and much longer
ones, ASCII and with multi-byte UTF-8 characters at the start, across the head's end and at
the end, several times in a line and beside tokens that differ from them in one byte only,
through 13a's hot loop, its general scan (hyphenated words, abbreviations), intl and none,
and compare the statistics with the Python kernel's.
"""

from __future__ import annotations

import pytest

core = pytest.importorskip("truebleu._native_core", reason="compiled core not built")

from truebleu.tokenizers import get_tokenizer  # noqa: E402

ASCII = "abcdefghijklmnopqrstuvwxyz0123456789" * 4
LENGTHS = [8, 9, 15, 16, 17, 24, 25, 33, 120]


def utf8_len(word: str) -> int:
    return len(word.encode())


def words_of(n: int) -> list[str]:
    """Words of exactly n UTF-8 bytes: ASCII; 'é' (2 bytes) first; '€' (3 bytes) last; '€'
    across the 8th byte (8 bytes: 'é' its last two); a hyphen in the middle (13a's general
    scan, as the abbreviation the lines put before each word)."""
    across = ASCII[:6] + "€" + ASCII[:n - 9] if n >= 9 else ASCII[:n - 2] + "é"
    words = [ASCII[:n], "é" + ASCII[:n - 2], ASCII[:n - 3] + "€", across,
             ASCII[:n // 2] + "-" + ASCII[:n - n // 2 - 1]]
    assert all(utf8_len(w) == n for w in words), words
    return words


def one_byte_apart(word: str) -> list[str]:
    """Words that differ from `word` in one byte (first, ninth, last) or by one character
    more or less at the end."""
    data = word.encode()

    def changed(k: int) -> str:
        b = bytearray(data)
        b[k] = (b[k] ^ 1) if b[k] < 0x80 else b[k] ^ 0x08  # (a continuation byte stays one)
        return b.decode()

    out = [changed(0), changed(len(data) - 1), word[:-1], word + "x"]
    if len(data) > 8 and data[8] < 0x80:
        out.append(changed(8))
    return out


def lines() -> tuple[list[str], list[list[str]]]:
    hyps, refs = [], []
    for n in LENGTHS:
        for word in words_of(n):
            near = one_byte_apart(word)
            refs.append([f"{word} {word} {near[0]} U.S.{word}", f"{near[1]} {word}, {word}."])
            hyps.append(" ".join([word, *near, word, f"{word}.", word, f"U.S.{word}"]))
    return hyps, refs


def test_every_word_has_the_length_it_is_named_for():
    for n in LENGTHS:
        for word in words_of(n):
            for near in one_byte_apart(word):
                assert near != word and abs(utf8_len(near) - n) <= 3


@pytest.mark.parametrize("lowercase", [False, True])
@pytest.mark.parametrize("name", ["13a", "intl", "none"])
def test_long_tokens_repeated_and_one_byte_apart(name, lowercase):
    from truebleu.metrics.bleu.kernels import kernels
    from truebleu.metrics.bleu.native import MODES
    from truebleu.metrics.bleu.spec import segment_tokens

    native, python = kernels.load("native"), kernels.load("python")
    tok = get_tokenizer(name)
    hyps, refs = lines()
    for line in hyps:
        assert core.tokenize(line, MODES[name], lowercase) == segment_tokens(line, tok, lowercase)
    for order in (1, 2):
        assert native.sentence_statistics(hyps, refs, tok, lowercase, order) == \
            python.sentence_statistics(hyps, refs, tok, lowercase, order)
        want = python.statistics(hyps, python.prepare_references(refs, tok, lowercase, order), tok,
                                 lowercase, order)
        assert native.statistics(hyps, native.prepare_references(refs, tok, lowercase, order), tok,
                                 lowercase, order) == want
