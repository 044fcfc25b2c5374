"""TER's explanation of one sentence: the score is ``sacrebleu.sentence_ter``'s for every
option, the edits listed are the alignment's, and the text reads as a user needs it."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st
from test_ter import ALL_OPTIONS, relaxed, ter_segments

from truebleu.metrics.ter import TER
from truebleu.metrics.ter.explain import explain

sacrebleu = pytest.importorskip("sacrebleu")
from sacrebleu.metrics import TER as SacreTER  # noqa: E402


@relaxed
@given(hyp=ter_segments(), refs=st.lists(ter_segments(), min_size=1, max_size=3),
       options=st.sampled_from(ALL_OPTIONS))
def test_explanation_matches_sacrebleu(hyp, refs, options):
    result = explain(hyp, refs, **options)
    expected = sacrebleu.sentence_ter(hyp, refs, **options)
    assert (result.score, result.num_edits, result.ref_length) == \
        (expected.score, expected.num_edits, expected.ref_length)
    theirs = SacreTER(**options)
    assert result.reference_edits == [theirs.sentence_score(hyp, [ref]).num_edits for ref in refs]
    assert result.alignment == TER(**options).sentence_alignment(hyp, refs)
    text = result.to_text()
    assert f"= {expected.score:.2f}" in text
    assert text.count("\n  HYP: ") == text.count("\n  REF: ")
    assert json.loads(result.to_json())["alignment"]["num_edits"] == expected.num_edits


def test_a_shift_is_shown_with_where_it_moved():
    hyp, refs = "on the mat the cat sat .", ["the cat sat on the mat", "a cat is on a mat ."]
    text = explain(hyp, refs).to_text()
    assert "Best reference: 1 (the fewest edits; per reference 1: 2, 2: 6)" in text
    assert ('  1. "on the mat" (hypothesis words 1-3) moved from position 1 to 4:\n'
            "     the cat sat [on the mat] .") in text
    assert ("  HYP: the cat sat on the mat .\n"
            "  REF: the cat sat on the mat *\n"
            "                              D") in text
    assert "Edits: 1 shift + 0 insertions + 1 deletion + 0 substitutions = 2" in text
    expected = sacrebleu.sentence_ter(hyp, refs)
    assert text.endswith(f"= 100 * 2 / 6.5 (the average of 2 references) = {expected.score:.2f}")


def test_columns_line_up_for_wide_characters_and_wrap():
    text = explain("我 喜欢 猫 , really", ["我 很 喜欢 猫"], normalized=True, asian_support=True).to_text()
    assert ("  HYP: 我 *  喜 欢 猫 , really\n"
            "  REF: 我 很 喜 欢 猫 * *\n"
            "          I           D D") in text
    long = explain(" ".join(f"w{i}" for i in range(80)), [" ".join(f"v{i}" for i in range(80))])
    rows = [line for line in long.to_text().splitlines() if line.startswith(("  HYP: ", "  REF: "))]
    assert len(rows) > 2 and all(len(line) <= 100 for line in rows)


def test_empty_sides():
    assert "  REF: a b\n       I I" in explain("", ["a b"]).to_text()
    empty = explain("a b", [""])
    assert empty.score == sacrebleu.sentence_ter("a b", [""]).score == 100.0
    assert "the reference is empty" in empty.to_text()
    assert "(both sides are empty)" in explain("", [""]).to_text()


def test_bad_arguments():
    with pytest.raises(ValueError, match="at least one reference"):
        explain("a", [])
    with pytest.raises(TypeError):
        explain("a", "a")
    with pytest.raises(TypeError):
        explain(None, ["a"])
