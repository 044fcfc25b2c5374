"""Hypothesis strategies for text that exercises every tokenizer rule.

Segments are built from a shared pool of pieces so that hypotheses and
references overlap (random text alone almost never matches), mixed with
arbitrary Unicode.
"""

from __future__ import annotations

from hypothesis import strategies as st

PIECES = [
    "the", "cat", "The", "CAT", "mat", "on", "a", "is", "über", "Straße", "İstanbul", "ΣΟΦΟΣ",
    "3.5", "1,000", "12-3", "co-op", "U.S.", "e.g.", "end.", "x,y", "'s", "don't", "(a)",
    "<skipped>", "&quot;", "&amp;", "&lt;", "&gt;", "&apos;", "&", "-\n", "\n", "\r", "\t",
    "...", "--", "$5", "@user", "#tag", "a/b", "[x]", "{y}", "~z", "^", "`q`", "|", "\\",
    "猫", "坐在", "垫子上", "。", "，", "「", "」", "日本語", "한국어", "ｆｕｌｌ", "％",
    "\u00a0", "\u2000", "\u2009", "\u3000", "\u2028", "\x1c", "\x85", "\u200b", "\ufeff",
    "e\u0301", "\u0301", "😀", "𠀀", "𝟘", "\u2013", "\u2014", "\u2019", "«", "»", "¿", "¡",
    "٣", "١٢", "٫", "₹", "€", "½", "²", "Ⅳ", "\u0660", "߀", "𑁦",
]

SEPARATORS = [" ", " ", " ", "", "  ", "\t", "\u00a0", " - ", ", ", ". "]

piece = st.one_of(st.sampled_from(PIECES), st.sampled_from(PIECES),
                  st.text(max_size=4))


@st.composite
def segments(draw, max_pieces: int = 20) -> str:
    parts = draw(st.lists(piece, max_size=max_pieces))
    seps = draw(st.lists(st.sampled_from(SEPARATORS), min_size=len(parts), max_size=len(parts)))
    return "".join(p + s for p, s in zip(parts, seps))


@st.composite
def corpus(draw, min_refs: int = 1, max_refs: int = 4, max_segments: int = 6,
           allow_none: bool = False, min_segments: int = 1):
    """(hypotheses, reference streams); references may be None when allowed."""
    n_seg = draw(st.integers(min_segments, max_segments))
    n_refs = draw(st.integers(min_refs, max_refs))
    hyps = [draw(segments()) for _ in range(n_seg)]
    refs = [[draw(segments()) for _ in range(n_seg)] for _ in range(n_refs)]
    if allow_none and n_refs > 1:
        for i in range(n_seg):  # drop some references, keeping at least one per segment
            for k in range(1, n_refs):
                if draw(st.integers(0, 3)) == 0:
                    refs[k][i] = None
    return hyps, refs
