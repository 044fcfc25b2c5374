"""One dialect object scoring several systems reuses the last call's per-segment references
(``Dialect.corpus_score``): only while the streams hold the very same line objects, and
never at the cost of a check."""

from __future__ import annotations

import pytest

from truebleu.dialects import DIALECTS, get_dialect

HYPS = ["the cat sat on the mat", "a dog ran", "it is here now"]
REFS = ["the cat is on the mat", "the dog ran off", "it is not here now"]
OTHER = ["a cat sat on a mat", "a dog ran", "here it is now"]


def _bleu(name, hyps, streams):
    return get_dialect(name).corpus_score(hyps, streams).bleu


@pytest.mark.parametrize("name", DIALECTS)
def test_a_stream_changed_in_place_is_scored_anew(name):
    dialect = get_dialect(name)
    streams = [list(REFS)]
    first = dialect.corpus_score(HYPS, streams).bleu
    assert first == _bleu(name, HYPS, [REFS])
    streams[0][:] = OTHER  # the same list, other lines
    assert dialect.corpus_score(HYPS, streams).bleu == _bleu(name, HYPS, [OTHER])
    streams.append(list(REFS))  # a second stream
    assert dialect.corpus_score(HYPS, streams).bleu == _bleu(name, HYPS, [OTHER, REFS])
    del streams[1]
    assert dialect.corpus_score(HYPS, streams).bleu == _bleu(name, HYPS, [OTHER])


@pytest.mark.parametrize("name", ("mteval-v13a", "multi-bleu"))
def test_equal_lines_in_new_objects_give_the_same_scores(name):
    dialect = get_dialect(name)
    first = dialect.corpus_score(HYPS, [REFS]).bleu
    copies = [("x" + line)[1:] for line in REFS]  # equal str, other objects
    assert dialect.corpus_score(HYPS, [copies]).bleu == first
    assert dialect.corpus_score(OTHER, [copies]).bleu == _bleu(name, OTHER, [REFS])


def test_reference_lines_are_checked_after_a_call_on_the_same_stream():
    dialect = get_dialect("mteval-v13a")
    streams = [list(REFS)]
    dialect.corpus_score(HYPS, streams)
    streams[0][1] = 5
    with pytest.raises(TypeError, match="reference stream 1 must contain str"):
        dialect.corpus_score(HYPS, streams)
    # a str whose characters are the very objects the last call's lines were
    letters = ["a", "b"]
    dialect.corpus_score(["a", "b"], [letters])
    with pytest.raises(TypeError, match="reference stream 1 must be a sequence of str"):
        dialect.corpus_score(["a", "b"], ["ab"])
    with pytest.raises(ValueError, match="reference stream 1 has 2 lines"):
        dialect.corpus_score(["a", "b", "c"], [letters])
