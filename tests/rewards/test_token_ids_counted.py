"""BLEU on token ids counted as ids (no text written) is BLEU on the written ids, to the last bit.

The kernels' ``ids_statistics`` count the n-grams of the ids themselves: the
compiled core after copying them into C arrays, the Python kernel with the
specification's functions. Their rows must be those of the written form
(``" ".join(map(str, ids))`` scored with ``tokenize="none"``), which is itself
checked against sacreBLEU; the public functions and the BLEU reward must give
sacreBLEU's numbers on every container they accept, on any thread count, and
the same errors as the written form.
"""

from __future__ import annotations

import enum
from array import array
from collections import UserList

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from truebleu.metrics import id_sequences, token_ids
from truebleu.metrics.bleu.kernels import PythonKernel
from truebleu.metrics.token_ids import (
    IGNORE_INDEX,
    DroppedIds,
    corpus_bleu_ids,
    sentence_bleu_ids,
    sentence_bleu_ids_scores,
    texts_of_ids,
)
from truebleu.rewards import make_bleu_reward
from truebleu.tokenizers import get_tokenizer

sacrebleu = pytest.importorskip("sacrebleu")
core = pytest.importorskip("truebleu._native_core", reason="compiled core not built")

from truebleu.metrics.bleu.native import NativeKernel  # noqa: E402

NATIVE, PYTHON = NativeKernel(), PythonKernel()
PAD, EOS = 0, 2
DROPPED = DroppedIds(PAD, [EOS])
HUGE = 2**63 - 1
NONE_TOKENIZER = get_tokenizer("none")

# small vocabularies so that n-grams repeat and match; the edges of int64 and uint16 too
small_ids = st.integers(3, 9)
any_ids = small_ids | st.sampled_from([3, 4, 65535, 2**31, 2**32 + 3, HUGE - 1, HUGE])
noise = st.sampled_from([PAD, EOS, IGNORE_INDEX])


@st.composite
def sequences(draw, ids=any_ids, max_size=20):
    """Ids with pads, EOS and -100 anywhere (possibly nothing but those, or nothing at all)."""
    seq = draw(st.lists(ids | noise, max_size=max_size))
    return seq


@st.composite
def batches(draw, ids=any_ids, max_items=8):
    """Hypotheses and 1-3 references each; consecutive items often share their references
    (equal copies, as the completions of one prompt in a GRPO batch)."""
    n = draw(st.integers(0, max_items))
    hyps, refs = [], []
    for _ in range(n):
        hyps.append(draw(sequences(ids)))
        if refs and draw(st.booleans()):
            refs.append([list(ref) for ref in refs[-1]])
        else:
            refs.append([draw(sequences(ids)) for _ in range(draw(st.integers(1, 3)))])
    return hyps, refs


def written(seq) -> str:
    return " ".join(str(int(t)) for t in seq if int(t) not in (PAD, EOS, IGNORE_INDEX))


def written_rows(kernel, hyps, refs, order):
    texts = [written(h) for h in hyps]
    return kernel.sentence_statistics(texts, [[written(r) for r in rs] for rs in refs],
                                      NONE_TOKENIZER, False, order).data.tolist()


@settings(max_examples=200, deadline=None)
@given(batches(), st.integers(1, 6), st.sampled_from([1, 2, 3]))
def test_both_kernels_count_the_rows_of_the_written_ids(batch, order, threads):
    hyps, refs = batch
    expected = written_rows(PYTHON, hyps, refs, order)
    for kernel in (NATIVE, PYTHON):
        rows = kernel.ids_statistics(hyps, refs, DROPPED.int64, order, threads)
        assert rows.data.tolist() == expected
        totals = kernel.ids_statistics(hyps, refs, DROPPED.int64, order, threads,
                                       totals_only=True)
        assert list(totals) == rows.sum()


@settings(max_examples=20, deadline=None)
@given(st.data(), st.integers(1, 6))
def test_rows_do_not_depend_on_the_thread_count(data, order):
    """Batches of several chunks of the core's job (32 items a chunk)."""
    n = data.draw(st.integers(33, 130))
    hyps = [data.draw(sequences(small_ids, max_size=30)) for _ in range(n)]
    refs = [[data.draw(sequences(small_ids, max_size=30))] for _ in range(n)]
    expected = written_rows(NATIVE, hyps, refs, order)
    for threads in (1, 2, 3):
        assert NATIVE.ids_statistics(hyps, refs, DROPPED.int64, order, threads).data.tolist() \
            == expected


@settings(max_examples=25, deadline=None)
@given(st.data(), st.integers(1, 6))
def test_groups_sharing_references_across_chunks_and_threads(data, order):
    """Groups of completions of one prompt (equal copies of its references), some
    straddling the core's chunks of 32 items: the core counts a group's references
    once and matches each completion against them; the rows are the specification's."""
    n = data.draw(st.integers(33, 100))
    hyps, refs = [], []
    while len(hyps) < n:
        group = [data.draw(sequences(small_ids, max_size=30))
                 for _ in range(data.draw(st.integers(1, 3)))]
        for _ in range(data.draw(st.integers(1, 12))):
            hyps.append(data.draw(sequences(small_ids, max_size=30)))
            refs.append([list(ref) for ref in group])
    expected = PYTHON.ids_statistics(hyps, refs, DROPPED.int64, order).data.tolist()
    for threads in (1, 2, 3, 7):
        assert NATIVE.ids_statistics(hyps, refs, DROPPED.int64, order, threads).data.tolist() \
            == expected
        assert list(NATIVE.ids_statistics(hyps, refs, DROPPED.int64, order, threads,
                                          totals_only=True)) == PYTHON.ids_statistics(
            hyps, refs, DROPPED.int64, order, totals_only=True)


SMOOTHING = st.sampled_from([("exp", None), ("floor", None), ("floor", 0.25), ("add-k", None),
                             ("add-k", 2), ("none", None)])


def sacrebleu_sentences(hyps, refs, order, smooth, effective):
    method, value = smooth
    metric = sacrebleu.BLEU(tokenize="none", max_ngram_order=order, smooth_method=method,
                            smooth_value=value, effective_order=effective)
    return [metric.sentence_score(written(h), [written(r) for r in rs]).score
            for h, rs in zip(hyps, refs)]


@settings(max_examples=100, deadline=None)
@given(batches(), st.integers(1, 6), SMOOTHING, st.booleans(), st.sampled_from([1, 2, 3]))
def test_sentence_and_corpus_scores_are_sacrebleus(batch, order, smooth, effective, threads):
    hyps, refs = batch
    settings_ = dict(max_ngram_order=order, smooth_method=smooth[0], smooth_value=smooth[1],
                     use_effective_order=effective)
    expected = sacrebleu_sentences(hyps, refs, order, smooth, effective)
    for backend in ("native", "python"):
        assert sentence_bleu_ids_scores(hyps, refs, pad_id=PAD, skip_ids=[EOS], threads=threads,
                                        backend=backend, **settings_) == expected
    for h, rs, score in zip(hyps, refs, expected):
        assert sentence_bleu_ids(h, rs, pad_id=PAD, skip_ids=(EOS,), **settings_).score == score
    if hyps:
        width = max(len(rs) for rs in refs)
        streams = [[written(rs[k]) if k < len(rs) else None for rs in refs] for k in range(width)]
        metric = sacrebleu.BLEU(tokenize="none", max_ngram_order=order, smooth_method=smooth[0],
                                smooth_value=smooth[1], effective_order=effective)
        want = metric.corpus_score([written(h) for h in hyps], streams)
        got = corpus_bleu_ids(hyps, refs, pad_id=PAD, skip_ids=[EOS], threads=threads,
                              **settings_)
        assert (got.score, got.counts, got.totals, got.sys_len, got.ref_len) == (
            want.score, want.counts, want.totals, want.sys_len, want.ref_len)


def padded(rows, dtype, pad=PAD):
    width = max(map(len, rows), default=0)
    return np.array([list(row) + [pad] * (width - len(row)) for row in rows], dtype=dtype)


@settings(max_examples=60, deadline=None)
@given(batches(small_ids | st.sampled_from([1000, 65535]), max_items=6).filter(lambda b: b[0]),
       st.integers(1, 6))
def test_arrays_score_as_lists(batch, order):
    """NumPy int32, int64 and uint16 arrays (rows of a 2-D batch, 3-D references), non-contiguous
    views, and torch tensors, against sacreBLEU on the written ids."""
    hyps, refs = batch
    one_ref = [rs[0] for rs in refs]
    expected = sacrebleu_sentences(hyps, [[r] for r in one_ref], order, ("exp", None), True)
    k = max(len(rs) for rs in refs)
    full = [rs + [[]] * (k - len(rs)) for rs in refs]  # (an empty reference: "" is one too)
    expected_k = sacrebleu_sentences(hyps, full, order, ("exp", None), True)
    h_rows = [[t for t in h if t != IGNORE_INDEX] for h in hyps]  # unsigned arrays hold no -100
    r_rows = [[t for t in r if t != IGNORE_INDEX] for r in one_ref]
    layouts = []
    for dtype in (np.int64, np.int32, np.uint16):
        h, r = padded(h_rows, dtype), padded(r_rows, dtype)
        layouts.append((h, r))
        layouts.append((list(h), [row for row in r]))
        wide = np.zeros((h.shape[0], 2 * h.shape[1]), dtype=dtype)
        wide[:, ::2] = h  # strided rows: every other column, the others pads
        layouts.append((wide[:, ::2], r))
    scores = lambda hyp_batch, ref_batch: sentence_bleu_ids_scores(  # noqa: E731
        hyp_batch, ref_batch, pad_id=PAD, skip_ids=[EOS], max_ngram_order=order)
    for hyp_batch, ref_batch in layouts:
        assert scores(hyp_batch, ref_batch) == expected
    backwards = padded(h_rows, np.int32)[:, ::-1]  # negative strides
    assert scores(list(backwards), r) == scores([[int(t) for t in row] for row in backwards], r)
    width = max(len(r) for rs in full for r in rs)
    three = np.array([[r + [PAD] * (width - len(r)) for r in rs] for rs in full], dtype=np.int64)
    assert scores(hyps, three) == expected_k
    assert scores(hyps, list(three)) == expected_k
    torch = pytest.importorskip("torch")
    h, r = padded(h_rows, np.int64), padded(r_rows, np.int64)
    assert scores(torch.from_numpy(h), torch.from_numpy(r)) == expected
    assert scores(list(torch.from_numpy(h).to(torch.int32)), list(torch.from_numpy(r))) == expected
    assert scores(h_rows, torch.from_numpy(three)) == expected_k


def test_the_kernels_read_ids_without_writing_them(monkeypatch):
    """Lists, tuples, NumPy arrays and torch tensors are counted as they are: writing a
    sequence as text would fail here."""
    def no_writing(*args):
        raise AssertionError("an id sequence was written as text")

    hyps = [[5, 6, 7, 8, EOS, PAD], (9, 5, 6), np.array([5, 6, 9], dtype=np.int32)]
    refs = [[[5, 6, 7, 9], [5, 6]], np.array([9, 5, 6, 7]), [np.array([6, 9], dtype=np.uint16)]]
    expected = sacrebleu_sentences(hyps, [[[5, 6, 7, 9], [5, 6]], [[9, 5, 6, 7]], [[6, 9]]], 4,
                                   ("exp", None), True)
    reward = make_bleu_reward(token_ids=True, pad_id=PAD, skip_ids=[EOS])
    monkeypatch.setattr(id_sequences, "_written", no_writing)
    for backend in ("native", "python"):
        native = backend == "native"
        batch = hyps if native else [list(map(int, h)) for h in hyps]
        references = refs if native else [[[5, 6, 7, 9], [5, 6]], [9, 5, 6, 7], [[6, 9]]]
        assert sentence_bleu_ids_scores(batch, references, pad_id=PAD, skip_ids=[EOS],
                                        backend=backend) == expected
        assert corpus_bleu_ids(batch, references, pad_id=PAD, skip_ids=[EOS],
                               backend=backend).sys_len == 10
        assert sentence_bleu_ids(batch[0], references[0], pad_id=PAD, skip_ids=[EOS],
                                 backend=backend).score == expected[0]
    assert reward(completion_ids=hyps, reference_ids=refs) == [s / 100 for s in expected]
    torch = pytest.importorskip("torch")
    tensor = torch.tensor([[5, 6, 7, 8], [9, 5, 6, PAD]])
    same = sacrebleu_sentences([[5, 6, 7, 8], [9, 5, 6]], [[[5, 6, 7, 8]] * 2, [[9, 5, 6]] * 2],
                               4, ("exp", None), True)
    assert reward(completion_ids=tensor, reference_ids=torch.stack([tensor, tensor], 1)) == [
        s / 100 for s in same]


class Token(enum.IntEnum):
    FIVE = 5


#: sequences the kernels do not read as they are: the written form scores them
UNREAD = {
    "NumPy integers in a list": [np.int64(5), np.uint8(6), 7],
    "an int subclass": [Token.FIVE, 6, 7],
    "an id past int64": [5, 2**63, 7],
    "uint64 past int64": np.array([5, 2**63, 7], dtype=np.uint64),
    "big-endian": np.array([5, 6, 7], dtype=">i8"),
    "a range": range(5, 8),
}


@pytest.mark.parametrize("name", sorted(UNREAD))
def test_what_the_kernels_do_not_read_is_scored_in_its_written_form(name):
    seq = UNREAD[name]
    assert NATIVE.ids_statistics([seq], [[[5, 6, 7]]], DROPPED.int64, 4) is None
    assert PYTHON.ids_statistics([seq], [[[5, 6, 7]]], DROPPED.int64, 4) is None
    text = texts_of_ids([seq])[0]
    expected = sacrebleu.sentence_bleu(text, ["5 6 7"], tokenize="none").score
    assert sentence_bleu_ids_scores([seq], [[5, 6, 7]]) == [expected]
    assert sentence_bleu_ids_scores([[5, 6, 7]], [[seq]]) == [
        sacrebleu.sentence_bleu("5 6 7", [text], tokenize="none").score]


BAD = [
    [1, -5], [1, 2.0], [1, [2]], [True], "1 2", np.array([1.0]), np.array([1, -7]),
    np.array([[1]]), np.array(3), {1, 2},
]


def error_of(call):
    with pytest.raises((TypeError, ValueError)) as info:
        call()
    return type(info.value), str(info.value)


@pytest.mark.parametrize("backend", ["native", "python"])
@pytest.mark.parametrize("bad", BAD, ids=repr)
def test_bad_ids_are_named_as_the_written_form_names_them(bad, backend):
    """Each error is the written form's: the same exception, the same message (the sequence
    and the position)."""
    good = [3, 4]
    nothing = DroppedIds()
    cases = [
        (lambda: sentence_bleu_ids_scores([good, bad], [good, good], backend=backend),
         lambda: token_ids.written_batch([good, bad], [good, good], nothing)),
        (lambda: sentence_bleu_ids_scores([good, good], [[good], [bad, good]], backend=backend),
         lambda: token_ids.written_batch([good, good], [[good], [bad, good]], nothing)),
        (lambda: corpus_bleu_ids([bad], [good], backend=backend),
         lambda: token_ids.written_batch([bad], [good], nothing)),
        (lambda: sentence_bleu_ids(bad, [good], backend=backend),
         lambda: token_ids.ids_to_text(bad)),
        (lambda: make_bleu_reward(token_ids=True, backend=backend)(
            completion_ids=[bad], reference_ids=[good]),
         lambda: token_ids.written_batch([bad], [good], nothing, what="completion_ids")),
    ]
    for call, written_form in cases:
        assert error_of(call) == error_of(written_form)


def test_a_bad_reference_comes_after_a_bad_hypothesis_as_in_the_written_form():
    with pytest.raises(ValueError, match=r"hypotheses\[1\]\[0\] is -3"):
        sentence_bleu_ids_scores([[1], [-3]], [[[1]], "bad"])
    with pytest.raises(TypeError, match="references must be a sequence"):
        sentence_bleu_ids_scores([[1], [3]], "bad")


def test_the_core_checks_its_arguments():
    out = array("q", [0]) * 10
    ids_statistics = core.ids_statistics
    with pytest.raises(ValueError, match="ascending"):
        ids_statistics([[1]], [[[1]]], array("q", [0, -100]), 4, 1, out)
    with pytest.raises(TypeError, match="int64"):
        ids_statistics([[1]], [[[1]]], array("i", [0]), 4, 1, out)
    with pytest.raises(ValueError, match="1 hypotheses but 2 reference entries"):
        ids_statistics([[1]], [[[1]], [[1]]], array("q"), 4, 1, out)
    with pytest.raises(TypeError, match=r"references\[0\] must be a non-empty list"):
        ids_statistics([[1]], [[]], array("q"), 4, 1, out)
    with pytest.raises(TypeError, match="lists or tuples"):
        ids_statistics(iter([[1]]), [[[1]]], array("q"), 4, 1, out)
    with pytest.raises(ValueError, match="max_order"):
        ids_statistics([[1]], [[[1]]], array("q"), 0, 1, out)
    with pytest.raises(ValueError, match="output buffer"):
        ids_statistics([[1]], [[[1]]], array("q"), 4, 1, out[:5])
    assert ids_statistics(hypotheses=[[1, 2]], references=[[[1, 2]]], dropped=array("q"),
                          max_order=4, threads=1, out=None, totals=out) is True
    assert list(out) == [2, 2, 2, 1, 0, 0, 2, 1, 0, 0]


@pytest.mark.parametrize("hyps, refs", [
    ([[1], [2]], [[[1]], []]),                       # an entry without references
    ([[1], [2]], [[[1]], "12"]),                     # an entry that is not a list or tuple
    ([[1], [2]], [[[1]], UserList([[2]])]),
    (UserList([[1]]), [[[1]]]),                      # containers other than lists and tuples
    ([[1]], UserList([[[1]]])),
], ids=["no-references", "str-entry", "userlist-entry", "userlist-hypotheses",
        "userlist-references"])
def test_both_kernels_refuse_the_same_containers(hyps, refs):
    """The specification's kernel refuses what the core refuses, with the core's error (it
    counted an entry without references as a row with reference length -1)."""
    errors = []
    for kernel in (NATIVE, PYTHON):
        with pytest.raises(TypeError) as caught:
            kernel.ids_statistics(hyps, refs, DROPPED.int64, 4, 1)
        errors.append(str(caught.value))
    assert errors[0] == errors[1]


def test_the_reward_on_ids_is_the_reward_on_text_of_the_written_ids():
    """The same settings on ids and on their written form, as TRL calls a reward."""
    hyps = [[5, 6, 7, 8, EOS], [9, 5, 6, EOS, PAD, PAD], [EOS], [11, 11, 11]]
    refs = [[[5, 6, 7, 9], [5, 6]], [9, 5, 6, 7], [[12]], [[11, 5], [11, PAD]]]
    for settings_ in ({}, {"smooth_method": "floor", "max_ngram_order": 2},
                      {"effective_order": False, "smooth_method": "add-k", "smooth_value": 0.5}):
        on_ids = make_bleu_reward(token_ids=True, pad_id=PAD, skip_ids=[EOS], **settings_)
        on_text = make_bleu_reward(tokenize="none", **settings_)
        texts, written_refs = token_ids.written_batch(hyps, refs, DROPPED)
        assert on_ids(completion_ids=hyps, reference_ids=refs) == on_text(
            completions=texts, references=written_refs)


def test_the_dropped_ids_are_checked_once_when_the_reward_is_made():
    with pytest.raises(TypeError, match="pad_id must hold int"):
        make_bleu_reward(token_ids=True, pad_id="0")  # type: ignore[arg-type]
    assert list(DroppedIds(7, [2**70, -5, 7, 2]).int64) == [-100, -5, 2, 7]
