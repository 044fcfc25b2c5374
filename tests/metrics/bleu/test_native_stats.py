"""Native statistics == Python specification == sacreBLEU, on generated segments."""

from __future__ import annotations

import logging
from array import array

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

core = pytest.importorskip("truebleu._native_core", reason="compiled core not built")

from native_strategies import segments  # noqa: E402
from truebleu.metrics.bleu.kernels import PythonKernel, kernels  # noqa: E402
from truebleu.metrics.bleu.native import MODES, NativeKernel  # noqa: E402
from truebleu.metrics.bleu.statistics import Statistics  # noqa: E402
from truebleu.tokenizers import get_tokenizer  # noqa: E402

NATIVE, PYTHON = NativeKernel(), PythonKernel()
TOKENIZERS = {name: get_tokenizer(name) for name in sorted(MODES)}
logging.getLogger("sacrebleu").setLevel(logging.ERROR)


def both(hyps, refs, name, lowercase, order, threads=None):
    tok = TOKENIZERS[name] if isinstance(name, str) else name
    got = NATIVE.statistics(hyps, NATIVE.prepare_references(refs, tok, lowercase, order),
                            tok, lowercase, order, threads=threads)
    want = PYTHON.statistics(hyps, PYTHON.prepare_references(refs, tok, lowercase, order),
                             tok, lowercase, order)
    return got, want


def sacrebleu_rows(hyps, refs, name, lowercase, order):
    sacrebleu = pytest.importorskip("sacrebleu")
    width = max((len(r) for r in refs), default=0)
    if width == 0:
        return None  # sacreBLEU needs at least one reference stream
    streams = [[r[k] if k < len(r) else None for r in refs] for k in range(width)]
    bleu = sacrebleu.BLEU(tokenize=name, lowercase=lowercase, max_ngram_order=order)
    return [list(map(int, row)) for row in bleu._extract_corpus_statistics(hyps, streams)]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(corpus=st.lists(segments(), min_size=1, max_size=8), name=st.sampled_from(sorted(MODES)),
       lowercase=st.booleans(), order=st.integers(1, 6))
def test_generated_corpus_matches_python_and_sacrebleu(corpus, name, lowercase, order):
    hyps = [h for h, _ in corpus]
    refs = [r for _, r in corpus]
    got, want = both(hyps, refs, name, lowercase, order)
    assert list(got.rows()) == list(want.rows())
    # sacreBLEU raises on a segment without references: compare the others
    keep = [i for i, r in enumerate(refs) if r]
    oracle = sacrebleu_rows([hyps[i] for i in keep], [refs[i] for i in keep], name, lowercase, order)
    if oracle is not None:
        assert [got.row(i) for i in keep] == oracle


@settings(max_examples=15, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(segment=segments(max_refs=300, max_pieces=60), name=st.sampled_from(sorted(MODES)),
       order=st.integers(1, 6))
def test_hundreds_of_references(segment, name, order):
    hyp, refs = segment
    refs = (refs * (300 // max(1, len(refs)) + 1))[:300] if refs else []
    got, want = both([hyp], [refs], name, False, order)
    assert got == want


# The core reads an ASCII line in place as bytes and any other line as code
# points: a token must be the same token (same hash, same id) on either path.
MIXED_PATHS = [
    ("the cat sat on the mat, again.", ["the cat sat on the mat , again ."]),      # ASCII both
    ("the café sat on the mat, again.", ["the cat sat on the mat, again."]),       # Latin-1 hyp
    ("the cat sat on the mat, again.", ["the café sat on the mat, again.\u2019"]),  # ASCII hyp
    ("“the cat” sat, 3.5-2 A&amp;B <b>", ["\"the cat\" sat, 3.5-2 A&B", "the CAT sat"]),  # 13a passes
    ("x y z ab ab c 1,000.5 U.S. a-b 2021.", ["x y z ab ab c 1,000.5 U.S. a-b 2021.\u00a0"]),
]


@pytest.mark.parametrize("name", sorted(MODES))
@pytest.mark.parametrize("lowercase", [False, True])
def test_a_token_is_the_same_on_both_read_paths(name, lowercase):
    hyps = [h for h, _ in MIXED_PATHS]
    refs = [r for _, r in MIXED_PATHS]
    got, want = both(hyps, refs, name, lowercase, 4)
    assert list(got.rows()) == list(want.rows())
    assert list(got.rows()) == sacrebleu_rows(hyps, refs, name, lowercase, 4)
    assert got.row(1)[2] >= 6  # the unigrams shared across the two paths are matched


def test_repeated_ngrams_clip_to_max_over_references():
    hyps = ["the the the the cat the cat", "a b a b a b", ""]
    refs = [["the cat the cat", "the the the"], ["a b", "b a b a", "a"], ["x"]]
    for order in range(1, 7):
        got, want = both(hyps, refs, "none", False, order)
        assert got == want
    got, _ = both(hyps, refs, "none", False, 2)
    # c = 7, r = 4 (closest), unigrams: the min(5, 3) + cat min(2, 2) = 5
    assert got.row(0)[:3] == [7, 4, 5]
    assert got.row(2) == [0, 1, 0, 0, 0, 0]


def test_no_references_gives_minus_one():
    got, want = both(["a b c", ""], [[], []], "13a", False, 4)
    assert got == want
    assert got.row(0)[:2] == [3, -1] and got.row(1)[:2] == [0, -1]


def test_closest_length_ties_go_to_shorter():
    got, want = both(["a b c d"], [["a b c d e f", "a b"]], "none", False, 1)
    assert got == want and got.row(0)[1] == 2


@pytest.mark.parametrize("order", [1, 2, 4, 6, 9])
def test_long_identical_lines(order):
    line = " ".join(f"w{i % 97}" for i in range(20000))
    got, want = both([line, line[:5000]], [[line], [line, line[:100]]], "none", True, order)
    assert got == want


def test_threads_give_identical_results():
    hyps = [f"sentence {i} with words , and . punct {i % 7}" for i in range(3000)]
    refs = [[f"Sentence {i} with words, and punct {i % 5}.", f"a {i}"] for i in range(3000)]
    tok = TOKENIZERS["13a"]
    prepared = NATIVE.prepare_references(refs, tok, True, 4)
    results = [NATIVE.statistics(hyps, prepared, tok, True, 4, threads=t) for t in (1, 2, 8)]
    assert results[0] == results[1] == results[2]
    assert results[0] == PYTHON.statistics(hyps, PYTHON.prepare_references(refs, tok, True, 4), tok, True, 4)


def test_prepared_references_are_reused_for_many_systems_and_orders():
    tok = TOKENIZERS["intl"]
    refs = [["The cat sat on the mat."], ["A dog, a cat."]]
    prepared = NATIVE.prepare_references(refs, tok, False, 4)
    for hyps in (["The cat sat.", "A dog."], ["the mat", "cat cat cat"]):
        for order in (1, 4, 5):
            got = NATIVE.statistics(hyps, prepared, tok, False, order)
            want = PYTHON.statistics(hyps, PYTHON.prepare_references(refs, tok, False, order),
                                     tok, False, order)
            assert got == want


def test_python_tokenizer_is_fed_as_none():
    class Upper:  # a tokenizer without native_mode, like MeCab/SentencePiece
        name = "upper"
        native_mode = None

        def signature(self):
            return "upper"

        def __call__(self, line):
            return " ".join(line.upper().replace(",", " , "))

    got, want = both(["ab, c", "İx"], [["AB,C"], ["i̇x"]], Upper(), True, 3)
    assert got == want


def test_errors():
    tok = TOKENIZERS["13a"]
    prepared = NATIVE.prepare_references([["a"]], tok, False, 4)
    with pytest.raises(ValueError):
        NATIVE.statistics(["a", "b"], prepared, tok, False, 4)
    with pytest.raises(TypeError):
        NATIVE.statistics([b"a"], prepared, tok, False, 4)
    with pytest.raises(TypeError):
        NATIVE.prepare_references([[1]], tok, False, 4)
    with pytest.raises(TypeError):
        NATIVE.prepare_references(["abc"], tok, False, 4)
    with pytest.raises(ValueError):
        NATIVE.statistics(["a"], prepared, tok, False, 0)
    with pytest.raises(ValueError):
        NATIVE.statistics(["a"], prepared, tok, False, 4, threads=0)
    with pytest.raises(ValueError):
        NATIVE.statistics(["a"], prepared, tok, True, 4)  # prepared without lowercasing
    with pytest.raises(TypeError):
        NATIVE.statistics(["a"], PYTHON.prepare_references([["a"]], tok, False, 4), tok, False, 4)
    with pytest.raises(ValueError):
        core.statistics(["a"], prepared.core, 1, False, 4, 1, array("q", [0]) * 3)


def test_empty_corpus():
    tok = TOKENIZERS["13a"]
    got = NATIVE.statistics([], NATIVE.prepare_references([], tok, False, 4), tok, False, 4)
    assert got == Statistics(4)


def test_backend_selection(monkeypatch):
    monkeypatch.setenv("TRUEBLEU_BACKEND", "python")
    assert kernels.load().name == "python"
    monkeypatch.setenv("TRUEBLEU_BACKEND", "native")
    assert kernels.load().name == "native"
    monkeypatch.delenv("TRUEBLEU_BACKEND")
    assert kernels.load().name == "native"


@pytest.mark.parametrize("name", ["13a", "zh"])
def test_prepare_reference_streams(name):
    tok = TOKENIZERS[name]
    streams = [["The cat.", "A dog!", None, "x"], ["the cat", None, None, "y y"]]
    segments = [[line for line in refs if line is not None] for refs in zip(*streams)]
    hyps = ["the cat .", "a dog", "nothing", "y"]
    prepared, n_segments, num_refs = NATIVE.prepare_reference_streams(streams, tok, True, 4)
    assert (n_segments, num_refs) == (4, -1)
    got = NATIVE.statistics(hyps, prepared, tok, True, 4)
    want = PYTHON.statistics(hyps, PYTHON.prepare_references(segments, tok, True, 4), tok, True, 4)
    assert got == want
    with pytest.raises(ValueError):
        NATIVE.prepare_reference_streams([["a"], ["b", "c"]], tok, False, 4)
    with pytest.raises(TypeError):
        NATIVE.prepare_reference_streams(["abc"], tok, False, 4)


@pytest.mark.parametrize("name", ["13a", "zh", "char", "ja-mecab"])
@pytest.mark.parametrize("threads", [1, 2])
def test_stream_statistics_is_prepare_and_statistics_in_one(name, threads):
    """The cold path (references used once) gives the rows and nrefs of the Python backend."""
    if name == "ja-mecab":
        pytest.importorskip("MeCab")
    tok = get_tokenizer(name)
    streams = [["The cat.", "A dog!", None, "x", "Ünïcode ÉTÉ", ""],
               ["the cat", None, "b", "y y", "ünïcode été", None]]
    hyps = ["the cat .", "a dog", "nothing", "y", "ÜNÏCODE été", "  "]
    for lowercase in (False, True):
        got = NATIVE.stream_statistics(hyps, streams, tok, lowercase, 4, threads=threads)
        want = PYTHON.stream_statistics(hyps, streams, tok, lowercase, 4)
        assert got == want and got[1] == -1
        prepared, _, _ = NATIVE.prepare_reference_streams(streams, tok, lowercase, 4)
        assert got[0] == NATIVE.statistics(hyps, prepared, tok, lowercase, 4)
    one = [streams[0][:2]]
    assert NATIVE.stream_statistics(hyps[:2], one, tok, False, 3) == \
        PYTHON.stream_statistics(hyps[:2], one, tok, False, 3)
    assert NATIVE.stream_statistics(hyps[:2], one, tok, False, 3)[1] == 1


@pytest.mark.parametrize("name", ["13a", "ja-mecab"])
def test_stream_statistics_errors_are_the_python_backends(name):
    if name == "ja-mecab":
        pytest.importorskip("MeCab")
    tok = get_tokenizer(name)
    cases = [
        (["a", "b"], [["x", 3]]),                     # a reference that is not a str
        (["a", "b"], [["x", None], [None, None]]),    # a segment without a reference
        (["a", "b"], [["x", 3], [None, None]]),       # both: the first segment's error first
        (["a"], [["x", "y"]]),                        # lengths
        (["a", 5], [["x", "y"]]),                     # a hypothesis that is not a str
        ([b"a", 5], [["x", 3]]),                      # the reference's error first
        (["a"], [["x"], ["y", "z"]]),                 # streams of unequal length
        (["a"], ["x"]),                               # a str as the streams
        (["a"], [[]] * 0),                            # no stream
    ]
    for hyps, streams in cases:
        errors = []
        for backend in (NATIVE, PYTHON):
            with pytest.raises((TypeError, ValueError)) as info:
                backend.stream_statistics(hyps, streams, tok, False, 4)
            errors.append((info.type, str(info.value)))
        assert errors[0][0] == errors[1][0], (hyps, streams, errors)
        if "differ in length" not in errors[1][1]:
            assert errors[0] == errors[1], (hyps, streams, errors)
