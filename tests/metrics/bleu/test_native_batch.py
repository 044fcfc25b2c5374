"""truebleu.metrics.bleu.batch: every score bit-identical to sacreBLEU's sentence_bleu."""

from __future__ import annotations

import logging
import math
import random
from array import array

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

sacrebleu = pytest.importorskip("sacrebleu")

from native_strategies import lines, segments  # noqa: E402
from truebleu.core.kernels import native_core  # noqa: E402
from truebleu.metrics.bleu.batch import mbr_select, pairwise_matrix, sentence_scores  # noqa: E402
from truebleu.metrics.bleu.config import BLEUConfig  # noqa: E402
from truebleu.metrics.bleu.kernels import kernels  # noqa: E402
from truebleu.metrics.bleu.score import python_bleu_scores  # noqa: E402

logging.getLogger("sacrebleu").setLevel(logging.ERROR)

BACKENDS = ["python"]
try:
    kernels.load("native")
    BACKENDS.append("native")
except ImportError:
    pass

CONFIGS = [
    {},
    {"smooth_method": "floor"},
    {"smooth_method": "floor", "smooth_value": 0.01},
    {"smooth_method": "add-k"},
    {"smooth_method": "add-k", "smooth_value": 0.5},
    {"smooth_method": "none", "use_effective_order": False},
    {"smooth_method": "exp", "use_effective_order": False},
    {"tokenize": "intl", "lowercase": True},
    {"tokenize": "zh"},
    {"tokenize": "char"},
    {"tokenize": "none", "lowercase": True},
]


def oracle(h, refs, **kw):
    return sacrebleu.sentence_bleu(h, refs, **kw).score


def same(a, b):
    """Bit-identical floats (NaN never expected)."""
    return [x.hex() for x in a] == [y.hex() for y in b]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("threads", [1, 2, 3])
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(groups=st.lists(st.tuples(st.lists(lines(), min_size=1, max_size=5), segments()),
                       min_size=1, max_size=5),
       copies=st.sampled_from(["same objects", "equal copies", "one differs"]),
       config=st.sampled_from(CONFIGS))
def test_sentence_scores_of_groups_sharing_references(backend, threads, groups, copies, config):
    """An RL trainer scores each prompt's group of completions one after another, all
    against the prompt's references: the core tokenizes a group's references once (it
    compares each item's reference texts with the item before's). Groups straddle the
    threads' chunks of 32 items; references arrive as the same objects, as equal copies
    (what a dataset yields), or with one text changed in the last completion of a group."""
    hyps, refs = [], []
    for completions, (_, group_refs) in groups:
        if not group_refs:
            continue
        for k, completion in enumerate(completions * 8):  # groups of 8 to 40 completions
            own = group_refs
            if copies != "same objects":
                own = ["".join(list(ref)) for ref in group_refs]  # equal, not identical
            if copies == "one differs" and k == len(completions) * 8 - 1:
                own = own[:-1] + [own[-1] + " x"]
            hyps.append(completion)
            refs.append(own)
    if not hyps:
        return
    got = sentence_scores(hyps, refs, backend=backend, threads=threads, **config)
    assert same(got, [oracle(h, r, **config) for h, r in zip(hyps, refs)])


@pytest.mark.parametrize("backend", BACKENDS)
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(corpus=st.lists(segments(), min_size=1, max_size=6), config=st.sampled_from(CONFIGS))
def test_sentence_scores_generated(backend, corpus, config):
    corpus = [(h, r) for h, r in corpus if r]  # sacreBLEU raises without references
    hyps = [h for h, _ in corpus]
    refs = [r for _, r in corpus]
    got = sentence_scores(hyps, refs, backend=backend, **config)
    assert same(got, [oracle(h, r, **config) for h, r in corpus])


@pytest.mark.parametrize("backend", BACKENDS)
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(a=st.lists(lines(12), max_size=6), b=st.lists(lines(12), max_size=6), config=st.sampled_from(CONFIGS),
       share=st.booleans())
def test_pairwise_matrix_generated(backend, a, b, config, share):
    if a and share:
        b = b + a[:2]  # shared and duplicate strings
    got = pairwise_matrix(a, b, backend=backend, **config)
    want = [[oracle(x, [y], **config) for y in b] for x in a]
    assert len(got) == len(a)
    for row, wrow in zip(got, want):
        assert same(row, wrow)


def test_matrix_real_sentences_and_numpy():
    a = ["The cat sat on the mat.", "A cat sat on a mat!", "Dogs bark.", "The cat sat on the mat."]
    b = ["the cat is on the mat", "There is a cat on the mat.", "Dogs bark."]
    want = [[oracle(x, [y]) for y in b] for x in a]
    for backend in BACKENDS:
        got = pairwise_matrix(a, b, backend=backend)
        assert all(same(r, w) for r, w in zip(got, want))
    np = pytest.importorskip("numpy")
    arr = pairwise_matrix(a, b, as_numpy=True)
    assert arr.shape == (4, 3) and arr.dtype == np.float64
    assert same(arr.ravel().tolist(), [x for row in want for x in row])


def test_sentence_scores_settings_and_multi_refs():
    hyps = ["The cat sat.", "", "a b c d e f g", "İSTANBUL is big"]
    refs = [["the cat sat .", "A cat sat."], ["x"], ["a b c", None, "a b c d e f g h"], "istanbul is big"]
    for config in CONFIGS + [{"max_ngram_order": 2}, {"max_ngram_order": 6}]:
        bleu_kw = {k: v for k, v in config.items() if k != "max_ngram_order"}
        order = config.get("max_ngram_order", 4)
        metric = sacrebleu.BLEU(max_ngram_order=order,
                                effective_order=bleu_kw.pop("use_effective_order", True),
                                smooth_method=bleu_kw.pop("smooth_method", "exp"), **bleu_kw)
        want = [metric.sentence_score(h, [r] if isinstance(r, str) else [x for x in r if x is not None]).score
                for h, r in zip(hyps, refs)]
        for backend in BACKENDS:
            assert same(sentence_scores(hyps, refs, backend=backend, **config), want), config


def test_mbr_select():
    cands = ["the cat sat on the mat", "a cat sat on the mat", "the cat sat on a mat", "dogs"]
    index, value = mbr_select(cands)
    expected = []
    for i, c in enumerate(cands):
        others = [oracle(c, [d]) for j, d in enumerate(cands) if j != i]
        expected.append(sum(others) / len(others))
    assert index == max(range(len(cands)), key=lambda i: (expected[i], -i))
    assert value == expected[index]
    assert mbr_select(["x", "x"]) == (0, oracle("x", ["x"]))  # tie: the lowest index
    i, v = mbr_select(["only"])
    assert i == 0 and math.isnan(v)
    with pytest.raises(ValueError):
        mbr_select([])


def test_errors():
    with pytest.raises(ValueError):
        sentence_scores(["a"], [["a"], ["b"]])
    with pytest.raises(TypeError):
        sentence_scores("abc", [["a"]] * 3)
    with pytest.raises(TypeError):
        sentence_scores(["a"], [[1]])
    with pytest.raises(ValueError):
        sentence_scores(["a"], [["a"]], smooth_method="bogus")
    with pytest.raises(ValueError):
        pairwise_matrix(["a"], ["b"], tokenize="bogus")
    with pytest.raises(TypeError):
        pairwise_matrix(["a"], [None])


def test_sentence_layout_errors_are_the_python_backends():
    """The core checks the batch layout as it reads it; the errors stay the Python backend's."""
    cases = [
        (["a", "a b"], [["a"], []]),
        (["a", "a b"], [["a"], [None]]),
        (["a", "a b"], [["a"], {"a b": 1}]),      # a dict is not a sequence (its keys are str)
        (["a", "a b"], [["a"], b"ab"]),
        (["a", "a b"], [["a"], ["x", 3]]),
        (["a", 3], [["a"], ["x"]]),
        (["a", "a b"], [["a"], None]),
        (["a", "a b"], [[], ["x", 3]]),           # the first fault wins
        ([3, "a b"], [["a"], []]),                # a reference fault before a hypothesis fault
    ]
    for hyps, refs in cases:
        errors = []
        for backend in ("native", "python"):
            with pytest.raises((TypeError, ValueError)) as info:
                sentence_scores(hyps, refs, backend=backend)
            errors.append((info.type, str(info.value)))
        assert errors[0] == errors[1], (hyps, refs)


def test_a_reference_list_changed_while_read_is_an_error_not_a_crash():
    class Sneaky(str):
        def lower(self):  # runs while the core reads the list in place
            refs[0].clear()
            return str.lower(self)

    refs = [[Sneaky("Äb c"), "d e", "f g"]]
    with pytest.raises(RuntimeError, match="changed during the call"):
        sentence_scores(["a b"], refs, lowercase=True, backend="native")


SMOOTHINGS = [("exp", None, True), ("exp", None, False), ("floor", 0.01, True), ("add-k", 0.5, True),
              ("add-k", 1, False), ("none", None, False), ("none", None, True)]


@pytest.mark.skipif("native" not in BACKENDS, reason="the compiled core is not built")
@pytest.mark.parametrize("threads", [1, 2, 3])
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(groups=st.lists(st.tuples(st.lists(lines(), min_size=1, max_size=3), segments()),
                       min_size=1, max_size=6),
       repeat=st.integers(1, 12), order=st.sampled_from([1, 2, 4, 5]),
       smoothing=st.sampled_from(SMOOTHINGS))
def test_core_scores_each_row_where_it_counts_it(threads, groups, repeat, order, smoothing):
    """The native kernel's sentence_scores: the core's workers score each row where they count
    it and keep no table of rows (core.sentence_statistics with ``scores`` and ``out=None``).
    Every score must be bleu_scores' of the rows counted apart, bit for bit: for rows counted
    afresh, and for an item whose hypothesis and references are the item before's (its score
    copied: completions repeated ``repeat`` times run into each other and across the threads'
    chunks of 32 items). Rows and scores asked together are both as when asked alone."""
    kernel = kernels.load("native")
    method, value, effective = smoothing
    config = BLEUConfig.create("13a", False, method, value, order, effective)
    hyps, refs = [], []
    for completions, (_, group_refs) in groups:
        for completion in completions:
            hyps += [completion] * repeat
            refs += [group_refs or ["x"]] * repeat
    rows = kernel.sentence_statistics(hyps, refs, config.tokenizer, False, order, threads)
    want = kernel.bleu_scores(rows, config)
    got = kernel.sentence_scores(hyps, refs, config, threads)
    assert same(list(got), list(want))
    core = native_core()
    both_rows = array("q", bytes(len(rows.data) * 8))
    both_scores = array("d", bytes(len(got) * 8))
    core.sentence_statistics(hyps, refs, core.MODE_13A, False, order, threads, both_rows,
                             scores=both_scores, smooth=config.smooth_code,
                             smooth_value=float(config.smoothing or 0),
                             effective_order=config.effective_order)
    assert both_rows == rows.data and same(list(both_scores), list(want))


@pytest.mark.skipif("native" not in BACKENDS, reason="the compiled core is not built")
def test_core_scores_buffer_errors():
    """A scores buffer of the wrong size or type, an unknown smoothing code, and neither rows
    nor scores nor totals: one clear error each, before any work."""
    core = native_core()
    call = lambda out, **kw: core.sentence_statistics(["a b", "c"], [["a b"], ["c"]],  # noqa: E731
                                                      core.MODE_13A, False, 4, 1, out, **kw)
    with pytest.raises(ValueError, match="scores must hold one double per hypothesis"):
        call(None, scores=array("d", [0.0]))
    with pytest.raises(ValueError, match="unknown smoothing code"):
        call(None, scores=array("d", [0.0, 0.0]), smooth=7)
    with pytest.raises(TypeError, match="a totals buffer"):
        call(None)
    scores = array("d", [-1.0, -1.0])
    assert call(None, scores=scores) == -1
    assert list(scores) == [oracle("a b", ["a b"]), oracle("c", ["c"])]


@pytest.mark.skipif("native" not in BACKENDS, reason="the compiled core is not built")
@pytest.mark.parametrize("threads", [1, 2])
def test_core_scores_with_kept_logs_of_small_counts(threads):
    """The core's workers keep the logs of the precisions of totals under 64, and the
    brevity penalties of reference lengths under 64, from call to call (bleu/score.h,
    tb_log_memo). Hypotheses of 1 to 70 tokens (totals on both sides of 64) against
    references 2 tokens shorter to 4 longer, from a small vocabulary so that most counts of
    matches occur, scored in calls that alternate the smoothings and orders: every score is
    bleu_scores' of its row, and the Python scores', bit for bit, in every call."""
    kernel = kernels.load("native")
    rng = random.Random(7)
    words = [f"w{i}" for i in range(6)]
    hyps, refs = [], []
    for length in range(1, 71):
        for ref_length in range(max(1, length - 2), length + 5):  # brevity penalties too
            hyps.append(" ".join(rng.choice(words) for _ in range(length)))
            refs.append([" ".join(rng.choice(words) for _ in range(ref_length))])
    for _ in range(2):
        for (method, value, effective), order in zip(SMOOTHINGS, [4, 4, 2, 4, 5, 4, 1]):
            config = BLEUConfig.create("13a", False, method, value, order, effective)
            rows = kernel.sentence_statistics(hyps, refs, config.tokenizer, False, order, threads)
            want = kernel.bleu_scores(rows, config)
            got = kernel.sentence_scores(hyps, refs, config, threads)
            assert same(list(got), list(want))
            assert same(list(got), list(python_bleu_scores(rows.data, config)))
