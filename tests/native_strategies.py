"""Shared hypothesis strategies for the native-core tests (this module holds no tests)."""

from __future__ import annotations

from hypothesis import strategies as st

# every character Python's str.split() treats as whitespace, plus look-alikes that are not
SPACES = [chr(c) for c in range(0x10000) if chr(c).isspace()] + ["\u200b", "\ufeff", "\u180e"]

PIECES = [
    "&quot;", "&amp;", "&lt;", "&gt;", "&amp;quot;", "&amp;lt;", "&", ";", "<skipped>",
    "<skip", "ped>", "-\n", "\n", "-", ".", ",", "'", "3.5", "1,000", "12-", "-3", "a.",
    ".b", "..", ",,", "İ", "Σ", "ς", "ß", "ẞ", "ǅ", "ΐ", "ﬃ", "K", "Å", "Ⅻ", "𐐀",
    "e\u0301", "\u0301", "\u20dd", "\u0345", "你", "好", "。", "，", "\u2001", "\u2014",
    "\u2a6d", "\u2a6e", "\u2f81", "\u3000", "\uff0c", "\U00020000", "\U0002f800", "😀",
    "👍🏽", "$", "€", "©", "½", "²", "٣", "¿", "«", "“", "‐", "·", "؟", "।",
]
WORDS = ["the", "The", "cat", "CAT", "sat", "on", "mat", "naïve", "x", "1", "99", "U.S.",
         "don't", "state-of-the-art", "2-3", "AT&T", "a/b", "東京", "中文", "한국어", "ΣΟΦΟΣ"]

piece = st.one_of(
    st.sampled_from(WORDS),
    st.sampled_from(PIECES),
    st.sampled_from(SPACES),
    st.text(max_size=4),                       # any code point, astral included
    st.characters(categories=["Mn", "Me", "Mc"]).map(lambda c: "a" + c),
    st.characters(categories=["P", "S", "Z", "N"]),
)
separator = st.sampled_from([" ", " ", " ", "", "\t", "\u00a0", "\u3000", "\n"])


@st.composite
def lines(draw, max_pieces: int = 25) -> str:
    parts = draw(st.lists(st.tuples(piece, separator), max_size=max_pieces))
    return "".join(p + s for p, s in parts)


@st.composite
def segments(draw, max_refs: int = 4, max_pieces: int = 25):
    """(hypothesis, [references]) sharing words often enough to match n-grams."""
    vocab = draw(st.lists(st.one_of(st.sampled_from(WORDS + PIECES), st.text(min_size=1, max_size=3)),
                          min_size=1, max_size=8))
    word = st.sampled_from(vocab)
    line = st.one_of(
        st.lists(st.tuples(word, separator), max_size=max_pieces).map(lambda p: "".join(a + b for a, b in p)),
        lines(max_pieces),
    )
    hyp = draw(line)
    refs = draw(st.lists(line, max_size=max_refs))
    if refs and draw(st.booleans()):
        refs[draw(st.integers(0, len(refs) - 1))] = hyp
    return hyp, refs
