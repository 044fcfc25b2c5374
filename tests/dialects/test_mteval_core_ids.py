"""mteval-v13a's token ids from the core (``mteval_13a_ids``, ``_native/dialects/mteval_text.c``)
are the specification's tokens, numbered.

The specification is the Python tokenizer of :mod:`truebleu.dialects.mteval` (the SGML step,
:func:`~truebleu.dialects.mteval_core.sgml_escape`, then
:func:`~truebleu.dialects._perl.tokenize_13a_perl`). References get ids in order of first
occurrence; hypotheses get the references' ids, -2 for a token the references lack; every
line's ids are followed by -1. Checked on every BMP code point (lone surrogates included) in
contexts that 13a's rules and mteval's entities look at, and on generated text. The core
refuses (None) exactly the lines holding U+0000 or U+001C..U+001F.
"""

from __future__ import annotations

import os
from array import array

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from truebleu.core.kernels import backend_name, native_core
from truebleu.dialects._perl import tokenize_13a_perl
from truebleu.dialects.mteval_core import sgml_escape

pytestmark = pytest.mark.skipif(backend_name() != "native", reason="the compiled core is not built")

REFUSED = {0, 0x1C, 0x1D, 0x1E, 0x1F}
# where a character meets what 13a's rules and mteval's entities look at
CONTEXTS = ["{}", "x{}y", "1{}2", ".{}.", ",{}a", "{}-1", "&{}", "&lt;{}&gt;", "A{}B", "&{}t;",
            "&l{};"]


def spec_tokens(line: str, lowercase: bool) -> tuple[str, ...]:
    return tokenize_13a_perl(sgml_escape(line), lowercase)


def expected_ids(refs: list[str], hyps: list[str], lowercase: bool) -> tuple[list[int], list[int]]:
    vocab: dict[str, int] = {}
    ref_ids: list[int] = []
    for line in refs:
        for token in spec_tokens(line, lowercase):
            ref_ids.append(vocab.setdefault(token, len(vocab)))
        ref_ids.append(-1)
    hyp_ids: list[int] = []
    for line in hyps:
        hyp_ids += [vocab.get(token, -2) for token in spec_tokens(line, lowercase)]
        hyp_ids.append(-1)
    return ref_ids, hyp_ids


def core_ids(refs: list[str], hyps: list[str], lowercase: bool) -> tuple[list[int], list[int]]:
    core = native_core()
    vocabulary, ref_ids = core.mteval_13a_ids(refs, lowercase)
    same, hyp_ids = core.mteval_13a_ids(hyps, lowercase, vocabulary)
    assert same is vocabulary
    return array("i", ref_ids).tolist(), array("i", hyp_ids).tolist()


@pytest.mark.parametrize("lowercase", [True, False])
def test_every_bmp_code_point_in_context(lowercase):
    """References: each code point in each context; hypotheses: the same lines upper-cased
    and reversed (other tokens, some of them absent from the references)."""
    chars = [chr(c) for c in range(0x10000) if c not in REFUSED]
    for start in range(0, len(chars), 8192):
        refs = [context.format(char) for char in chars[start:start + 8192] for context in CONTEXTS]
        hyps = [line[::-1].upper() for line in refs[::7]]
        assert core_ids(refs, hyps, lowercase) == expected_ids(refs, hyps, lowercase)


@pytest.mark.parametrize("code_point", sorted(REFUSED))
def test_lines_python_splits_and_perl_does_not_are_refused(code_point):
    core = native_core()
    line = f"a{chr(code_point)}b"
    assert core.mteval_13a_ids(["x", line], True) is None
    vocabulary, _ = core.mteval_13a_ids(["x"], True)
    assert core.mteval_13a_ids([line], True, vocabulary) is None


# lines longer than the core's 16-byte blocks, one of each PyUnicode kind (ASCII and Latin-1
# for kind 1), with A-Z to lowercase: the core copies a line's start in blocks up to the first
# block holding a character it rewrites, and goes on one character at a time from there
LONG_LINES = ["The Cat SAT on 3.5 Mats, ZZ yes ok", "Über Straße ÄÖÜ the Zug fährt AZ",
              "„Zug“ fährt AZ — Āx the Bahn Cat", "\U0001f600 Zug AZ the Cat fährt „x“ \U0001f600 ok"]
# every ASCII character and the edges of the blocks' ranges in each kind
BLOCK_EDGES = [*range(0x80), 0x80, 0x85, 0xA0, 0xC0, 0xC1, 0xDA, 0xFF, 0x100, 0x141, 0x15A,
               0x2028, 0x3000, 0x7FFF, 0x8000, 0x8020, 0x8041, 0x805A, 0xD800, 0xFF21, 0xFFFF,
               0x10000, 0x10041, 0x1F600, 0x10FFFF]


@pytest.mark.parametrize("lowercase", [True, False])
@pytest.mark.parametrize("line", LONG_LINES)
def test_a_character_at_every_position_of_a_long_line(line, lowercase):
    """Each character at each position of a long line: in the first block, the last, and
    between blocks; A-Z lowercased in the blocks the core copies as they are."""
    refs = [line[:at] + chr(c) + line[at:] for c in BLOCK_EDGES if c not in REFUSED
            for at in range(len(line) + 1)]
    hyps = [ref.swapcase() for ref in refs[::5]]
    assert core_ids(refs, hyps, lowercase) == expected_ids(refs, hyps, lowercase)


@pytest.mark.parametrize("line", LONG_LINES)
def test_a_refused_character_at_every_position_of_a_long_line(line):
    core = native_core()
    vocabulary, _ = core.mteval_13a_ids([line], True)
    for code_point in sorted(REFUSED):
        for at in range(len(line) + 1):
            refused = line[:at] + chr(code_point) + line[at:]
            assert core.mteval_13a_ids([refused], True) is None
            assert core.mteval_13a_ids([line, refused], False, vocabulary) is None


PIECES = ["the", "The", "CAT", "a", ".", ",", "1.5", "3,000", "-", "2-3", "0", "&", "<", ">",
          "&lt;", "&gt;", "&LT;", "&lt", "&amp;lt;", "&quot;", "&amp;", "&apos;", "<skipped>",
          "&lt;skipped&gt;", "İ", "Σ", "über", "猫", "z.B.", "\ud800", "\U0001f600", "\u00a0",
          "\u3000", "\u2028", "\x85", "-\n", "\n", "\r", "\t", "\x0b", "\x0c"]
SEPARATORS = ["", " ", " ", "  ", "\t", "\n", "\u00a0"]


@st.composite
def text_line(draw) -> str:
    pieces = draw(st.lists(st.sampled_from(PIECES), max_size=10))
    return "".join(piece + draw(st.sampled_from(SEPARATORS)) for piece in pieces)


# TRUEBLEU_DIALECT_EXAMPLES raises it for a long differential run (20,000 inputs and more)
@settings(max_examples=max(400, int(os.environ.get("TRUEBLEU_DIALECT_EXAMPLES", "0"))), deadline=None)
@given(st.lists(text_line(), max_size=6), st.lists(text_line(), max_size=6), st.booleans())
def test_generated_lines(refs, hyps, lowercase):
    assert core_ids(refs, hyps, lowercase) == expected_ids(refs, hyps, lowercase)


def test_bad_arguments():
    core = native_core()
    with pytest.raises(TypeError, match="str"):
        core.mteval_13a_ids(["a", b"b"], True)
    with pytest.raises(TypeError, match="list"):
        core.mteval_13a_ids(("a",), True)
    with pytest.raises(ValueError):
        core.mteval_13a_ids(["a"], True, object())


# (many lines per example: generating them is slow, the more so on the sanitizer's build)
@settings(max_examples=max(60, int(os.environ.get("TRUEBLEU_DIALECT_EXAMPLES", "0")) // 20),
          deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(text_line(), max_size=8), st.lists(text_line(), min_size=40, max_size=120),
       st.booleans())
def test_hypotheses_are_tokenized_alike_on_any_number_of_threads(refs, hyps, lowercase):
    """With a vocabulary the core tokenizes the lines in chunks (of 32) on the runtime's
    threads and joins them in line order: on 1, 2, 3 or 7 threads (40 to 120 lines: two to
    four chunks) the ids are the specification's."""
    core = native_core()
    vocabulary, _ = core.mteval_13a_ids(refs, lowercase)
    expected = expected_ids(refs, hyps, lowercase)[1]
    for threads in (1, 2, 3, 7):
        same, ids = core.mteval_13a_ids(hyps, lowercase, vocabulary, threads)
        assert same is vocabulary
        assert array("i", ids).tolist() == expected


@pytest.mark.parametrize("threads", [1, 2, 4])
@pytest.mark.parametrize("at", [0, 31, 32, 99])
def test_a_refused_line_in_any_chunk_refuses_the_lines(threads, at):
    core = native_core()
    vocabulary, _ = core.mteval_13a_ids(["a b"], True)
    lines = ["a b"] * 100
    lines[at] = "a\x1cb"
    assert core.mteval_13a_ids(lines, True, vocabulary, threads) is None
    with pytest.raises(ValueError, match="threads"):
        core.mteval_13a_ids(lines, True, vocabulary, 0)
