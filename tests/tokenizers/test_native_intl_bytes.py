"""intl's UTF-8 byte path (issue 13): every line is tokenized as its UTF-8 bytes.

The core decodes a character only where it is not an ASCII letter or digit, and
decides most stretches by their shape (_native/text/tok_intl.c): a
\\p{P} between numbers stays, one after a letter or before a letter is split off,
chains of \\p{P} and \\p{P} beside \\p{S} replay the rules. The oracles: the regex
rules of truebleu.tokenizers.tokenizer_intl (through the Python specification,
segment_tokens) and sacreBLEU's TokenizerV14International. A line given as
UTF-8 bytes (TB_KIND_UTF8, as the command line's reader passes it) must give
the tokens of the same text given as a str, and the hypothesis path (tokens
looked up in the references' vocabulary) the statistics of the Python backend.
"""

from __future__ import annotations

import random

import pytest

core = pytest.importorskip("truebleu._native_core", reason="compiled core not built")

from conftest import needs_wmt21, wmt21_dir  # noqa: E402
from truebleu.metrics.bleu.kernels import PythonKernel
from truebleu.metrics.bleu.native import MODES, NativeKernel  # noqa: E402
from truebleu.metrics.bleu.spec import segment_tokens  # noqa: E402
from truebleu.tokenizers import get_tokenizer  # noqa: E402

INTL = get_tokenizer("intl")
MODE = MODES["intl"]
SURROGATES = range(0xD800, 0xE000)
BMP = [c for c in range(0x10000) if c not in SURROGATES]

# word shapes around a character c ({}): between letters, numbers, a letter and
# a number; after and before punctuation (chains); beside a symbol; non-ASCII
# letters, numbers and punctuation as neighbours
SHAPES = ["a{}b", "1{}2", "a{}1", "1{}a", "{}{}", "({})", "{}.", "1{}.", ".{}1", "{}\u201d,",
          "\u00e9{}\u00e9", "\u0663{}\u0663", "${}5", "{}$", "\u2019{}\u2019"]


def spec(line: str, lowercase: bool = False) -> list[str]:
    return segment_tokens(line, INTL, lowercase)


def shape_line(shape: str, code_points) -> str:
    return " ".join(shape.format(chr(c), chr(c)) for c in code_points)


@pytest.mark.parametrize("shape", SHAPES)
def test_every_bmp_code_point_in_word_shapes_as_str_and_utf8(shape):
    """Inside a line (whitespace on both sides), as a str of every PyUnicode kind
    (lone surrogates too) and as UTF-8 bytes."""
    line = shape_line(shape, range(0x10000))
    assert core.tokenize(line, MODE, False) == spec(line)
    line = shape_line(shape, BMP)
    assert core.tokenize(line.encode(), MODE, False) == spec(line)


@pytest.mark.parametrize("shape", SHAPES)
def test_word_shapes_first_and_last_on_a_line(shape):
    """No character before a line's first stretch (rule 1) or after its last (rule 2)."""
    sample = list(range(0x100)) + list(range(0x2000, 0x2070)) + list(range(0x100, 0x10000, 41))
    for c in sample:
        word = shape.format(chr(c), chr(c))
        for line in (word, f"{word} x", f"x {word}", f" {word}\u3000"):
            want = spec(line)
            assert core.tokenize(line, MODE, False) == want, line
            if c not in SURROGATES:
                assert core.tokenize(line.encode(), MODE, False) == want, line


# the shapes the byte path tells apart, with ASCII and non-ASCII characters
RULE_CASES = [
    "word, word. end", "in 2021.", "in 2021. x", "3.5 5,000 9:30 (9:30) 10% $5 \u20ac3.5 2-3",
    "\u201cQuoted,\u201d he said.\u201d", "\u201cStart", "\"Start\" \"end\".", "U.S. e.g., (see above).",
    "don't o'clock it\u2019s", "a..b ..a a.. 1..2 .1 1. 1.a a.1", "caf\u00e9, na\u00efve. \u00e9.\u00e9",
    "\u0663.\u0663 \u00b2. .\u00bd \u2167.", "x$.y a+b=c <tag> \u00a9 2021.", "\u00bfs\u00ed? \u00a1no!",
    "\U0001f600. \U0001f600,x \U00020000.\U00020000", "a\u00a0b\u3000c\u2028d\u0085e",
    "\t lead \u2003trail \u2003", "", " ", ".", "\u201d", "$", "1", "a",
]


@pytest.mark.parametrize("line", RULE_CASES)
def test_rules_match_sacrebleu(line):
    from sacrebleu.tokenizers.tokenizer_intl import TokenizerV14International

    want = TokenizerV14International()(line.rstrip()).split()
    assert core.tokenize(line, MODE, False) == spec(line) == want
    assert core.tokenize(line.encode(), MODE, False) == want
    if line.isascii():  # (the core lowercases ASCII only: a reader lowercases other lines first)
        assert core.tokenize(line.encode(), MODE, True) == spec(line, True)


def test_long_lines_of_every_kind_as_str_and_utf8():
    rng = random.Random(8)
    alphabet = ["a", "Z", "9", " ", ".", ",", "-", "'", "(", ")", "$", "%", "\u00e9", "\u00df", "\xa0",
                "\u2019", "\u201c", "\u201d", "\u2009", "\u3000", "\u4e2d", "\U0001f600", "\u0663", "\u00bd",
                "\u20ac", "\t"]
    for size in (1, 2, 7, 15, 16, 17, 63, 64, 65, 200, 3000):
        for _ in range(15):
            line = "".join(rng.choice(alphabet) for _ in range(size))
            want = spec(line)
            assert core.tokenize(line, MODE, False) == want, line
            assert core.tokenize(line.encode(), MODE, False) == want, line


@pytest.mark.parametrize("name", ["intl", "13a"])
def test_latin1_lines_of_every_length(name):
    """Lines of PyUnicode kind 1 (read_utf8 narrows them 16 bytes at a time, the
    last 16 at once when the line is ASCII so far): a non-ASCII character or a
    rule's character at every place of lines of 1 to 48 characters."""
    tok = get_tokenizer(name)
    for size in range(1, 49):
        for place in range(size):
            for c in ("\u00e9", "\u00a0", ".", "\u00bf", "\x85"):
                line = "".join(c if k == place else "ab 1"[k % 4] for k in range(size))
                assert core.tokenize(line, MODES[name], False) == segment_tokens(line, tok, False), line


def test_hypotheses_looked_up_in_the_references_match_python_backend():
    """The hypothesis path (its tokens looked up where they lie in its line) against
    references kept in their lines: statistics of lines of mixed shapes and kinds."""
    rng = random.Random(13)
    words = [shape.format(chr(c), chr(c)) for shape in SHAPES
             for c in (0x2E, 0x2C, 0x27, 0x24, 0x31, 0x61, 0xE9, 0x2019, 0x201D, 0x20AC, 0x663, 0x1F600)]
    hyps, refs = [], []
    for _ in range(300):
        hyps.append(" ".join(rng.choice(words) for _ in range(rng.randrange(0, 12))))
        refs.append([" ".join(rng.choice(words) for _ in range(rng.randrange(1, 12))) for _ in range(2)])
    native, python = NativeKernel(), PythonKernel()
    for lowercase in (False, True):
        got = native.statistics(hyps, native.prepare_references(refs, INTL, lowercase, 4),
                                INTL, lowercase, 4)
        want = python.statistics(hyps, python.prepare_references(refs, INTL, lowercase, 4),
                                 INTL, lowercase, 4)
        assert list(got.rows()) == list(want.rows())


@needs_wmt21
def test_wmt21_lines_as_str_and_utf8():
    """Every non-ASCII line and a sample of the ASCII ones of the into-English
    references and a sample of system outputs."""
    data = wmt21_dir()
    paths = sorted((data / "references").glob("*-en.ref.A.en"))
    paths += sorted((data / "system-outputs").glob("*-en.hyp.*"))[::15]
    checked = 0
    for path in paths:
        for k, line in enumerate(path.read_text(encoding="utf-8").splitlines()):
            if line.isascii() and k % 10:
                continue
            want = spec(line)
            assert core.tokenize(line, MODE, False) == want, line
            assert core.tokenize(line.encode(), MODE, False) == want, line
            checked += 1
    assert checked > 1000
