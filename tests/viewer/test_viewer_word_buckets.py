"""The frequency buckets' per-segment counts in the compiled core (``word_bucket_counts``, one
pass over the tokens) against their specification, the NumPy path of
:func:`truebleu.viewer.buckets._hypothesis_counts` (one sort of every (segment, word) key)."""

from __future__ import annotations

from array import array

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

np = pytest.importorskip("numpy")

from truebleu.core.kernels import backend_name, native_core  # noqa: E402
from truebleu.viewer.buckets import FREQUENCY_BUCKETS, _hypothesis_counts  # noqa: E402
from truebleu.viewer.tokens import Vocabulary, tokenize_stream  # noqa: E402

try:
    core = native_core() if backend_name() == "native" else None
except ImportError:
    core = None
needs_core = pytest.mark.skipif(core is None, reason="the compiled core is not the active backend")

# few distinct words, so that a segment repeats them (clipping) and buckets fill up
line = st.one_of(st.none(), st.lists(st.sampled_from("a b c d e f g h".split()), max_size=12)
                 .map(" ".join))


def counts_both_ways(monkeypatch, references, hypotheses):
    """(core, NumPy) ``_hypothesis_counts`` of the hypotheses against the first reference."""
    vocabulary = Vocabulary()

    def tokens(lines):
        return tokenize_stream(lines, lambda present: [p.split() for p in present], vocabulary)

    hyp_tokens = [tokens(h) for h in hypotheses]
    ref_tokens = tokens(references)
    ref_words = ref_tokens.word_ids()
    frequency = np.bincount(ref_words[1], minlength=max(len(vocabulary), 1))
    word_bucket = np.searchsorted(np.asarray(FREQUENCY_BUCKETS), np.maximum(frequency, 1),
                                  side="right") - 1
    n_buckets = len(FREQUENCY_BUCKETS)
    fast = _hypothesis_counts(ref_tokens, ref_words, hyp_tokens, word_bucket, n_buckets)
    monkeypatch.setenv("TRUEBLEU_BACKEND", "python")
    slow = _hypothesis_counts(ref_tokens, ref_words, hyp_tokens, word_bucket, n_buckets)
    return fast, slow


@needs_core
@settings(max_examples=150, deadline=None)
@given(st.integers(1, 30).flatmap(lambda n: st.tuples(
    st.lists(line, min_size=n, max_size=n),
    st.lists(st.lists(line, min_size=n, max_size=n), min_size=1, max_size=3))))
def test_core_counts_equal_the_numpy_specification(streams):
    """Per segment and bucket, the clipped matches and the hypothesis's words, for segments
    without words, None segments, and words repeated on either side."""
    references, hypotheses = streams
    with pytest.MonkeyPatch.context() as monkeypatch:
        fast, slow = counts_both_ways(monkeypatch, references, hypotheses)
    assert len(fast) == len(slow) == len(hypotheses)
    for a, b in zip(fast, slow):
        assert a.dtype == b.dtype == np.int64 and a.shape == b.shape
        assert (a == b).all()


@needs_core
def test_core_counts_refuse_bad_buffers():
    """Ids beyond the bucket table, buckets beyond n_buckets, lengths that do not add up to the
    ids or are negative, and a stream of another number of segments: one ValueError each."""
    def q(*values):
        return array("q", values)

    good = dict(ref_lengths=q(2, 1), ref_ids=q(0, 1, 1), hyp_lengths=q(1, 1), hyp_ids=q(1, 0),
                bucket=q(0, 1), n_buckets=2)
    assert np.frombuffer(core.word_bucket_counts(**good), dtype=np.int64).tolist() \
        == [0, 1, 0, 1, 0, 0, 1, 0]
    for change in [dict(ref_ids=q(0, 1, 2)), dict(hyp_ids=q(1, -1)), dict(bucket=q(0, 2)),
                   dict(ref_lengths=q(2, 2)), dict(hyp_lengths=q(3, -1)), dict(hyp_lengths=q(2)),
                   dict(n_buckets=0), dict(ref_ids=b"\0" * 7)]:
        with pytest.raises(ValueError):
            core.word_bucket_counts(**{**good, **change})
