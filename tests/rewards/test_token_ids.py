"""BLEU and chrF on token ids are sacreBLEU on the written ids, to the last bit.

The oracle is sacreBLEU itself on ``" ".join(map(str, ids))`` with
``tokenize="none"`` (BLEU) and the same string (chrF), padding and ignored
positions removed; the inputs are generated (small vocabularies, so that
n-grams match) in every accepted container: lists, tuples, NumPy and torch.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import truebleu
from truebleu.metrics.token_ids import (
    IGNORE_INDEX,
    corpus_bleu_ids,
    corpus_chrf_ids,
    ids_to_text,
    references_of_ids,
    sentence_bleu_ids,
    sentence_bleu_ids_scores,
    sentence_chrf_ids,
    sentence_chrf_ids_scores,
    texts_of_ids,
)

sacrebleu = pytest.importorskip("sacrebleu")

PAD = 0
EOS = 2
ids = st.lists(st.integers(3, 12) | st.sampled_from([3, 4, 1000, 65535]), max_size=25)


def written(seq: list[int]) -> str:
    """The oracle's string: the ids that are not padding, in decimal, space-separated."""
    return " ".join(str(t) for t in seq if t not in (PAD, EOS, IGNORE_INDEX))


@st.composite
def padded(draw, seq_strategy=ids):
    """A sequence with padding on either side, an EOS and ignored label positions mixed in."""
    seq = draw(seq_strategy)
    noisy = []
    for token in seq:
        noisy.append(token)
        if draw(st.integers(0, 9)) == 0:
            noisy.append(draw(st.sampled_from([EOS, IGNORE_INDEX])))
    return [PAD] * draw(st.integers(0, 3)) + noisy + [PAD] * draw(st.integers(0, 3))


@st.composite
def batches(draw):
    n = draw(st.integers(1, 6))
    hyps = [draw(padded()) for _ in range(n)]
    refs = [[draw(padded()) for _ in range(draw(st.integers(1, 3)))] for _ in range(n)]
    return hyps, refs


BLEU_SETTINGS = st.fixed_dictionaries({
    "smooth_method": st.sampled_from(["exp", "floor", "add-k", "none"]),
    "use_effective_order": st.booleans(),
    "max_ngram_order": st.integers(1, 5),
})
CHRF_SETTINGS = st.fixed_dictionaries({
    "char_order": st.integers(1, 6),
    "word_order": st.integers(0, 2),
    "beta": st.integers(1, 3),
    "remove_whitespace": st.booleans(),
    "eps_smoothing": st.booleans(),
})


@settings(max_examples=150, deadline=None)
@given(batches(), BLEU_SETTINGS)
def test_sentence_bleu_on_ids_is_sacrebleu_on_the_written_ids(batch, options):
    hyps, refs = batch
    got = sentence_bleu_ids_scores(hyps, refs, pad_id=PAD, skip_ids=[EOS], **options)
    order = options.pop("max_ngram_order")
    for value, hyp, hyp_refs in zip(got, hyps, refs):
        metric = sacrebleu.BLEU(tokenize="none", max_ngram_order=order,
                                smooth_method=options["smooth_method"],
                                effective_order=options["use_effective_order"])
        expected = metric.sentence_score(written(hyp), [written(r) for r in hyp_refs]).score
        assert value == expected


@settings(max_examples=100, deadline=None)
@given(batches(), BLEU_SETTINGS)
def test_corpus_bleu_on_ids_is_sacrebleu_on_the_written_ids(batch, options):
    hyps, refs = batch
    order = options.pop("max_ngram_order")
    got = corpus_bleu_ids(hyps, refs, pad_id=PAD, skip_ids=[EOS], max_ngram_order=order, **options)
    width = max(len(r) for r in refs)
    streams = [[written(r[k]) if k < len(r) else None for r in refs] for k in range(width)]
    metric = sacrebleu.BLEU(tokenize="none", max_ngram_order=order,
                            smooth_method=options["smooth_method"],
                            effective_order=options["use_effective_order"])
    expected = metric.corpus_score([written(h) for h in hyps], streams)
    assert got.score == expected.score
    assert (got.counts, got.totals, got.sys_len, got.ref_len) == (
        expected.counts, expected.totals, expected.sys_len, expected.ref_len)


@settings(max_examples=150, deadline=None)
@given(batches(), CHRF_SETTINGS)
def test_sentence_chrf_on_ids_is_sacrebleu_on_the_written_ids(batch, options):
    hyps, refs = batch
    got = sentence_chrf_ids_scores(hyps, refs, pad_id=PAD, skip_ids=[EOS], **options)
    for value, hyp, hyp_refs in zip(got, hyps, refs):
        expected = sacrebleu.sentence_chrf(written(hyp), [written(r) for r in hyp_refs], **options)
        assert value == expected.score


@settings(max_examples=60, deadline=None)
@given(batches(), CHRF_SETTINGS)
def test_corpus_chrf_on_ids_is_sacrebleu_on_the_written_ids(batch, options):
    hyps, refs = batch
    got = corpus_chrf_ids(hyps, refs, pad_id=PAD, skip_ids=[EOS], **options)
    width = max(len(r) for r in refs)
    streams = [[written(r[k]) if k < len(r) else None for r in refs] for k in range(width)]
    expected = sacrebleu.corpus_chrf([written(h) for h in hyps], streams, **options)
    assert got.score == expected.score


@settings(max_examples=60, deadline=None)
@given(padded(), st.lists(padded(), min_size=1, max_size=3))
def test_single_sentence_scores_are_sacrebleus(hyp, refs):
    texts = [written(r) for r in refs]
    bleu = sentence_bleu_ids(hyp, refs, pad_id=PAD, skip_ids=(EOS,))
    assert bleu.score == sacrebleu.sentence_bleu(written(hyp), texts, tokenize="none").score
    chrf = sentence_chrf_ids(tuple(hyp), refs, pad_id=PAD, skip_ids=(EOS,))
    assert chrf.score == sacrebleu.sentence_chrf(written(hyp), texts).score
    # one reference given as one sequence, not a list of one
    one = sentence_bleu_ids(hyp, refs[0], pad_id=PAD, skip_ids=(EOS,))
    assert one.score == sacrebleu.sentence_bleu(written(hyp), texts[:1], tokenize="none").score


def _right_padded(rows: list[list[int]]) -> np.ndarray:
    width = max(map(len, rows), default=0)
    return np.array([row + [PAD] * (width - len(row)) for row in rows], dtype=np.int64)


@settings(max_examples=40, deadline=None)
@given(st.lists(ids, min_size=1, max_size=5), st.data())
def test_numpy_and_torch_batches_score_as_lists(hyps, data):
    torch = pytest.importorskip("torch")
    refs = [data.draw(ids) for _ in hyps]
    expected_bleu = sentence_bleu_ids_scores(hyps, refs)
    expected_chrf = sentence_chrf_ids_scores(hyps, refs, word_order=2)
    h, r = _right_padded(hyps), _right_padded(refs)
    for hyp_batch, ref_batch in ((h, r), (h.astype(np.int32), r.astype(np.uint16)),
                                 (torch.from_numpy(h), torch.from_numpy(r)),
                                 (list(torch.from_numpy(h)), [list(row) for row in r])):
        assert sentence_bleu_ids_scores(hyp_batch, ref_batch, pad_id=PAD) == expected_bleu
        assert sentence_chrf_ids_scores(hyp_batch, ref_batch, pad_id=PAD,
                                        word_order=2) == expected_chrf
    # a 3-D array: k references per hypothesis
    three = np.stack([r, r])
    assert references_of_ids(np.transpose(three, (1, 0, 2)), len(hyps), pad_id=PAD) == [
        [written(x)] * 2 for x in refs]


def test_padding_and_ignored_positions_are_removed_wherever_they_are():
    assert ids_to_text([0, 0, 5, 7, 2, 0], pad_id=0, skip_ids=[2]) == "5 7"
    assert ids_to_text([-100, -100, 5, 0, 7], pad_id=None) == "5 0 7"  # 0 is a token without pad_id
    assert ids_to_text(np.array([9, 9, 9]), pad_id=9) == ""
    assert ids_to_text([np.int64(4), np.uint8(5)]) == "4 5"
    assert texts_of_ids([]) == []


def test_the_public_names_are_truebleus():
    assert truebleu.sentence_bleu_ids is sentence_bleu_ids
    assert truebleu.corpus_chrf_ids is corpus_chrf_ids
    assert truebleu.ids_to_text([1, 2]) == "1 2"


@pytest.mark.parametrize("bad, error, words", [
    ([1, -5], ValueError, "ids[1] is -5"),
    ([1, 2.0], TypeError, "ids[1] must be an int"),
    ([1, [2]], TypeError, "ids[1] must be an int"),
    ([True], TypeError, "ids[0] must be an int"),
    ("1 2", TypeError, "sequence of int token ids"),
    (np.array([1.0]), TypeError, "integer token ids"),
    (np.array([[1]]), ValueError, "1-D"),
])
def test_bad_ids_are_named(bad, error, words):
    with pytest.raises(error, match=None) as info:
        ids_to_text(bad)
    assert words in str(info.value)


def test_bad_batches_are_named():
    with pytest.raises(ValueError, match="2 hypotheses but 1 reference entries"):
        sentence_bleu_ids_scores([[1], [2]], [[1]])
    with pytest.raises(TypeError, match=r"hypotheses\[1\]\[0\] must be an int"):
        sentence_chrf_ids_scores([[1], ["a"]], [[1], [2]])
    with pytest.raises(ValueError, match="hypothesis 0 has no reference"):
        sentence_bleu_ids_scores([[1]], [[None, None]])
    with pytest.raises(TypeError, match="pad_id must hold int"):
        ids_to_text([1], pad_id="0")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="2-D"):
        texts_of_ids(np.array([1, 2]))


@settings(max_examples=20, deadline=None)
@given(batches())
def test_both_kernels_give_the_same_numbers(batch):
    hyps, refs = batch
    for scores in (sentence_bleu_ids_scores, sentence_chrf_ids_scores):
        native = scores(hyps, refs, pad_id=PAD, skip_ids=[EOS])
        assert scores(hyps, refs, pad_id=PAD, skip_ids=[EOS], backend="python") == native
    assert corpus_bleu_ids(hyps, refs, pad_id=PAD, skip_ids=[EOS], backend="python").score == \
        corpus_bleu_ids(hyps, refs, pad_id=PAD, skip_ids=[EOS]).score
