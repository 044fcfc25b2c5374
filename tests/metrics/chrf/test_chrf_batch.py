"""Batched sentence chrF and the pairwise chrF matrix: each cell as sacreBLEU's sentence_chrf."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import truebleu
from strategies import segments

sacrebleu = pytest.importorskip("sacrebleu")

SETTINGS = st.fixed_dictionaries({
    "word_order": st.sampled_from([0, 2]), "char_order": st.sampled_from([6, 2]),
    "beta": st.sampled_from([2, 1]), "remove_whitespace": st.booleans(),
    "eps_smoothing": st.booleans()})


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(hyps=st.lists(segments(), max_size=5),
       refs=st.lists(st.lists(segments(), min_size=1, max_size=3), min_size=5, max_size=5),
       options=SETTINGS)
def test_sentence_scores(backend, hyps, refs, options):
    refs = refs[:len(hyps)]
    ours = truebleu.sentence_chrf_scores(hyps, refs, backend=backend, **options)
    assert ours == [sacrebleu.sentence_chrf(h, r, **options).score for h, r in zip(hyps, refs)]


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(hyps=st.lists(segments(), max_size=4), refs=st.lists(segments(), max_size=4),
       options=SETTINGS)
def test_matrix(backend, hyps, refs, options):
    ours = truebleu.chrf_matrix(hyps, refs, backend=backend, **options)
    assert ours == [[sacrebleu.sentence_chrf(h, [r], **options).score for r in refs]
                    for h in hyps]


def test_matrix_as_numpy_and_lowercase(backend):
    np = pytest.importorskip("numpy")
    cands = ["The cat sat.", "the cat sat", "A dog."]
    matrix = truebleu.chrf_matrix(cands, cands, as_numpy=True, lowercase=True, backend=backend)
    assert matrix.shape == (3, 3) and matrix.dtype == np.float64
    expected = sacrebleu.CHRF(lowercase=True)
    assert matrix[0, 1] == expected.sentence_score(cands[0], [cands[1]]).score
    assert matrix[2, 2] == 100.0


def test_bad_input(backend):
    with pytest.raises(ValueError, match="2 hypotheses but 1"):
        truebleu.sentence_chrf_scores(["a", "b"], [["a"]], backend=backend)
    with pytest.raises(ValueError, match="no reference"):
        truebleu.sentence_chrf_scores(["a"], [[]], backend=backend)
    with pytest.raises(TypeError, match=r"references\[0\]"):
        truebleu.sentence_chrf_scores(["a"], [[None]], backend=backend)
