"""The native intl/char/zh scanners: their class look-ups and their cache of
one-character token ids (_native/text/: the intl class look-up and the one-character ids) give the tokens and
statistics of the Python tokenizers and of sacreBLEU."""

from __future__ import annotations

import logging
import random

import pytest

core = pytest.importorskip("truebleu._native_core", reason="compiled core not built")

import truebleu  # noqa: E402
from truebleu.metrics.bleu.kernels import PythonKernel
from truebleu.metrics.bleu.native import MODES, NativeKernel  # noqa: E402
from truebleu.metrics.bleu.spec import segment_tokens  # noqa: E402
from truebleu.tokenizers import get_tokenizer  # noqa: E402

logging.getLogger("sacrebleu").setLevel(logging.ERROR)
NATIVE, PYTHON = NativeKernel(), PythonKernel()

# every BMP code point and a sample of the astral planes (these take the
# generated tables' path, as class_table() does, which test_native_tokenize checks)
CODE_POINTS = list(range(0x10000)) + list(range(0x10000, 0x110000, 97))


# stretches (between spaces) of every shape the intl scanner tells apart: no class,
# one character, symbols, "word,", punctuation after letters only ("don't"),
# punctuation after a number or after punctuation, at the start of a stretch
CONTEXTS = ["a{}b ", "1{}2 ", "{}. ", "x{}{} ", ",{}1 ", "a{},1 ", "{}a, ", "a.{} ", "{}{}a{} ",
            "\u201c{}\u201d "]


@pytest.mark.parametrize("context", CONTEXTS + [c.strip() for c in CONTEXTS])
def test_intl_scanner_classes_for_every_code_point(context):
    """intl's one look-up per character (Latin-1 and General Punctuation from
    tables derived at import) and its shortcuts split exactly as the regex rules do."""
    line = "".join(context.format(chr(c), chr(c), chr(c)) for c in CODE_POINTS)
    want = segment_tokens(line, get_tokenizer("intl"), False)
    assert core.tokenize(line, MODES["intl"], False) == want


@pytest.mark.parametrize("context", CONTEXTS)
def test_intl_stretch_at_the_start_of_a_line(context):
    """A stretch at the start of a line has no whitespace before it for rule 1."""
    sample = list(range(0x180)) + list(range(0x2000, 0x2070)) + list(range(0x180, 0x10000, 37))
    intl = get_tokenizer("intl")
    for c in sample:
        line = context.format(chr(c), chr(c), chr(c))
        assert core.tokenize(line, MODES["intl"], False) == segment_tokens(line, intl, False), line


def colliding_characters() -> list[str]:
    """Characters whose code points share their low 9 bits (one slot of the
    one-character cache), beside ASCII and a few common ones."""
    chars = [chr(0x4E00 + 512 * k) for k in range(12)]  # CJK (zh: one token each)
    chars += [chr(0x100 + 512 * k) for k in range(8)]  # Latin Extended, Cyrillic, ...
    chars += [chr(0x2018 + 512 * k) for k in range(4)] + ["\u201c", "\u201d", "\u2014"]
    chars += [chr(0x1F600 + 512 * k) for k in range(3)] + ["\ud800", "\udfff"]  # astral, lone surrogates
    return chars + list("ab,.1 ") + ["\u00e9", "\u00a0"]


def random_line(rng: random.Random, alphabet: list[str], length: int) -> str:
    return "".join(rng.choice(alphabet) for _ in range(length))


def corpus(seed: int, segments: int = 40):
    rng = random.Random(seed)
    chars = colliding_characters()
    hyps, refs = [], [[], []]
    for _ in range(segments):
        alphabet = rng.sample(chars, rng.randrange(3, len(chars)))  # changes from segment to segment
        hyps.append(random_line(rng, alphabet, rng.randrange(0, 60)))
        for stream in refs:
            stream.append(random_line(rng, alphabet, rng.randrange(1, 60)))
    return hyps, refs


@pytest.mark.parametrize("name", ["char", "zh", "intl"])
@pytest.mark.parametrize("seed", range(4))
def test_colliding_one_character_tokens_match_python_backend(name, seed):
    hyps, streams = corpus(seed)
    refs = [list(r) for r in zip(*streams)]
    tok = get_tokenizer(name)
    for lowercase in (False, True):
        got = NATIVE.statistics(hyps, NATIVE.prepare_references(refs, tok, lowercase, 4), tok, lowercase, 4)
        want = PYTHON.statistics(hyps, PYTHON.prepare_references(refs, tok, lowercase, 4), tok, lowercase, 4)
        assert list(got.rows()) == list(want.rows())
    for line in hyps[:10]:
        assert core.tokenize(line, MODES[name], False) == segment_tokens(line, tok, False)


def assert_corpus_bleu_is_sacrebleus(hyps, streams, name):
    """truebleu.corpus_bleu on the one-pass cold path equals sacreBLEU's, every count."""
    sacrebleu = pytest.importorskip("sacrebleu")
    got = truebleu.corpus_bleu(hyps, streams, tokenize=name)
    want = sacrebleu.corpus_bleu(hyps, streams, tokenize=name)
    assert (got.score, got.counts, got.totals, got.sys_len, got.ref_len) == \
           (want.score, want.counts, want.totals, want.sys_len, want.ref_len)


@pytest.mark.parametrize("name", ["char", "zh", "intl"])
def test_colliding_one_character_tokens_match_sacrebleu(name):
    """The one-pass cold corpus path (two builders, a new era per segment)."""
    assert_corpus_bleu_is_sacrebleus(*corpus(99, segments=120), name)


# zh's and char's one-character tokens in the contexts their scanners tell apart: between
# letters, digits, 13a's '.' ',' '-', beside a Chinese character, doubled, beside whitespace
ZH_CONTEXTS = ["a{}b ", "1{}2 ", "{}. ", "x{}{} ", "-{}1 ", "\u4e00{}\u9fbb ", "{}\u3002 ", "\u3000{}\u00a0"]


@pytest.mark.parametrize("name", ["zh", "char"])
@pytest.mark.parametrize("context", ZH_CONTEXTS + [c.strip() for c in ZH_CONTEXTS])
def test_zh_and_char_scanners_for_every_code_point(name, context):
    """The zh scanner's shortcut for the CJK Unified Ideographs (tested before whitespace,
    then the cached one-character ids) and char's: every BMP code point in context (and a
    sample of the astral planes) gives the Python tokenizer's tokens."""
    line = "".join(context.format(chr(c), chr(c)) for c in CODE_POINTS)
    assert core.tokenize(line, MODES[name], False) == segment_tokens(line, get_tokenizer(name), False)


@pytest.mark.parametrize("name", ["zh", "char"])
def test_zh_and_char_statistics_for_every_code_point(name):
    """Hypotheses looked up in their references (the one-character cache of each segment's era):
    every BMP code point, in segments of 64, some of them in the reference, statistics as Python's."""
    chars = [chr(c) for c in range(0x10000)]
    hyps = ["".join(chars[k:k + 64]) + " a\u4e00" for k in range(0, len(chars), 64)]
    refs = [[" ".join(chars[k + 32:k + 96:3]) + " \u4e00"] for k in range(0, len(chars), 64)]
    tok = get_tokenizer(name)
    got = NATIVE.statistics(hyps, NATIVE.prepare_references(refs, tok, False, 4), tok, False, 4)
    want = PYTHON.statistics(hyps, PYTHON.prepare_references(refs, tok, False, 4), tok, False, 4)
    assert list(got.rows()) == list(want.rows())


# A hypothesis's one-character tokens taken from the ids its references' builder remembers
# (one-pass jobs): ASCII characters the references lack (absent without a look-up once every
# one-byte token of theirs is remembered), ASCII characters that are one-character tokens only
# of a line of code points (zh: "a" beside Chinese text; rule 2's '.' split off a word) or of
# an ASCII line, and non-ASCII characters that share a slot of the cache (the one remembered
# last is found, the others are looked up).
SHARED_PIECES = ["\u4e00", "\u4e00\u4e8c", chr(0x4E00 + 512), chr(0x4E00 + 1024), "\u00e9", chr(0xE9 + 512),
                 "a", "b", "x.", "1,2", "-", "\u3002", "\u201c", "(", "ab", " ", " ", " "]


def shared_cache_corpus(seed: int, segments: int = 60, systems: int = 3):
    """Several systems' hypotheses in one call: the references repeat once per system, so
    the job looks up several hypotheses in each builder of references."""
    rng = random.Random(seed)
    refs, hyps = [], [[] for _ in range(systems)]
    for _ in range(segments):
        pieces = rng.sample(SHARED_PIECES, rng.randrange(2, len(SHARED_PIECES)))
        ascii_only = rng.random() < 0.3  # an ASCII reference line: its tokens are one-byte tokens
        ref_pieces = [p for p in pieces if p.isascii()] if ascii_only else pieces
        refs.append("".join(rng.choice(ref_pieces or ["a"]) for _ in range(rng.randrange(1, 30))))
        for system in hyps:  # any piece, and a few ASCII characters no reference has
            pieces = SHARED_PIECES + ["q", "Z", "!"]
            system.append("".join(rng.choice(pieces) for _ in range(rng.randrange(0, 30))))
    return [h for system in hyps for h in system], [refs * systems]


@pytest.mark.parametrize("name", ["char", "zh", "intl"])
@pytest.mark.parametrize("seed", range(3))
def test_hypotheses_take_one_character_ids_from_their_references_builder(name, seed):
    hyps, streams = shared_cache_corpus(seed)
    tok = get_tokenizer(name)
    for lowercase in (False, True):
        got, _ = NATIVE.stream_statistics(hyps, streams, tok, lowercase, 4, threads=1)
        want, _ = PYTHON.stream_statistics(hyps, streams, tok, lowercase, 4)
        assert list(got.rows()) == list(want.rows())


@pytest.mark.parametrize("name", ["char", "zh"])
def test_hypotheses_take_one_character_ids_from_their_references_builder_as_sacrebleu(name):
    assert_corpus_bleu_is_sacrebleus(*shared_cache_corpus(7, segments=150), name)


def every_ascii_corpus(seed: int, segments: int = 30):
    """Segments whose references hold every ASCII character (each a one-byte token the
    reference builder adds, its table grown as they come, whitespace 0x1C-0x1F among the
    characters that are none), hypotheses any ASCII characters, some lines with a
    non-ASCII character (read as code points)."""
    rng = random.Random(seed)
    ascii_chars = [chr(c) for c in range(128)]
    hyps, refs = [], []
    for _ in range(segments):
        order = rng.sample(ascii_chars, len(ascii_chars))
        refs.append("".join(order) + ("\u00e9" if rng.random() < 0.3 else ""))
        hyps.append("".join(rng.choice(ascii_chars + ["\u4e00"]) for _ in range(rng.randrange(0, 200))))
    return hyps, [refs]


@pytest.mark.parametrize("seed", range(3))
def test_char_references_with_every_ascii_character(seed):
    hyps, streams = every_ascii_corpus(seed)
    refs = [list(r) for r in zip(*streams)]
    tok = get_tokenizer("char")
    for lowercase in (False, True):
        got, _ = NATIVE.stream_statistics(hyps, streams, tok, lowercase, 4, threads=1)
        want, _ = PYTHON.stream_statistics(hyps, streams, tok, lowercase, 4)
        assert list(got.rows()) == list(want.rows())
        got = NATIVE.statistics(hyps, NATIVE.prepare_references(refs, tok, lowercase, 4), tok, lowercase, 4)
        want = PYTHON.statistics(hyps, PYTHON.prepare_references(refs, tok, lowercase, 4), tok, lowercase, 4)
        assert list(got.rows()) == list(want.rows())
    assert_corpus_bleu_is_sacrebleus(hyps, streams, "char")
