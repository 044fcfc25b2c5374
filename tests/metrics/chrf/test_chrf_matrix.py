"""The chrF matrix for MBR (``chrf_matrix``): each line's profile made once in the core,
every cell sacreBLEU's ``sentence_chrf(h, [r])``, any thread count, clear errors."""

from __future__ import annotations

import gc
import os
import sys
from array import array

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import truebleu
from conftest import needs_wmt21, wmt21_dir
from strategies import segments

sacrebleu = pytest.importorskip("sacrebleu")
core = pytest.importorskip("truebleu._native_core", reason="compiled core not built")

SETTINGS = st.fixed_dictionaries({
    "word_order": st.sampled_from([0, 1, 2, 3]), "char_order": st.sampled_from([6, 3, 1, 0]),
    "beta": st.sampled_from([2, 1, 3]), "remove_whitespace": st.booleans(),
    "eps_smoothing": st.booleans(), "lowercase": st.booleans()}).filter(
        lambda s: s["char_order"] + s["word_order"] > 0)


def sacre_matrix(hyps, refs, options):
    options = dict(options)
    lowercase = options.pop("lowercase", False)
    if lowercase:
        metric = sacrebleu.CHRF(lowercase=True, whitespace=not options["remove_whitespace"],
                                char_order=options["char_order"], word_order=options["word_order"],
                                beta=options["beta"], eps_smoothing=options["eps_smoothing"])
        return [[metric.sentence_score(h, [r]).score for r in refs] for h in hyps]
    return [[sacrebleu.sentence_chrf(h, [r], **options).score for r in refs] for h in hyps]


@settings(max_examples=80, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(cands=st.lists(segments(), max_size=6), repeat=st.integers(0, 3), options=SETTINGS)
def test_mbr_matrix_same_list(backend, cands, repeat, options):
    """One list on both sides (the core's one-profile-per-line path), duplicates included."""
    cands = cands + cands[:repeat]
    ours = truebleu.chrf_matrix(cands, cands, backend=backend, **options)
    assert ours == sacre_matrix(cands, cands, options)


@settings(max_examples=80, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(hyps=st.lists(segments(), max_size=5), refs=st.lists(segments(), max_size=5),
       shared=st.integers(0, 3), options=SETTINGS)
def test_matrix_two_lists_sharing_lines(backend, hyps, refs, shared, options):
    """Different lists that hold some of the same lines (equal n-grams across the sides)."""
    refs = hyps[:shared] + refs
    ours = truebleu.chrf_matrix(hyps, refs, backend=backend, **options)
    assert ours == sacre_matrix(hyps, refs, options)


def call(hyps, refs, word_order=2, threads=2):
    out = array("d", bytes(8 * len(hyps) * len(refs)))
    core.chrf_matrix(hyps, refs, 6, word_order, False, False, 4.0, 5.0, threads, out)
    return out


def wmt21_lines(count):
    data = wmt21_dir() / "system-outputs"
    path = sorted(data.glob("newstest2021.en-de.hyp.*"))[0]
    return path.read_text(encoding="utf-8").split("\n")[:count]


@needs_wmt21
def test_wmt21_matrix_against_the_statistics_and_threads():
    """A 120 x 120 matrix of WMT21 en-de lines equals the batched sentence scores, cell for
    cell, on one thread and on several, and as two lists."""
    lines = wmt21_lines(120)
    for word_order in (0, 2):
        expected = truebleu.sentence_chrf_scores([h for h in lines for _ in lines],
                                                 [[r] for _ in lines for r in lines],
                                                 word_order=word_order, backend="native")
        one = call(lines, lines, word_order, threads=1)
        assert one.tolist() == expected
        assert call(lines, lines, word_order, threads=3) == one
        assert call(lines, list(lines), word_order, threads=2) == one


def test_empty_and_whitespace_lines():
    lines = ["", " ", "a", "a a", "  a  ", "."]
    assert truebleu.chrf_matrix(lines, lines, word_order=2, backend="native") == \
        sacre_matrix(lines, lines, {"word_order": 2, "char_order": 6, "beta": 2,
                                    "remove_whitespace": True, "eps_smoothing": False})
    assert truebleu.chrf_matrix([], lines, backend="native") == []
    assert truebleu.chrf_matrix(lines, [], backend="native") == [[]] * len(lines)


@pytest.mark.skipif("libasan" in os.environ.get("LD_PRELOAD", ""),
                    reason="AddressSanitizer keeps freed memory in quarantine")
def test_no_leaks():
    lines = [f"Sentence {i}: ÉTÉ, İstanbul — the (CAT) sat... {i % 13} 你好 😀" for i in range(200)]
    refcounts = [sys.getrefcount(h) for h in lines[:50]]
    for _ in range(3):
        call(lines, lines)
    gc.collect()
    before = _rss_bytes()
    for _ in range(10):
        call(lines, lines)
        call(lines, lines[::-1], word_order=0, threads=1)
    gc.collect()
    assert _rss_bytes() - before < 8 * 2 ** 20
    assert [sys.getrefcount(h) for h in lines[:50]] == refcounts


def _rss_bytes() -> int:
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * 4096
    except OSError:
        pytest.skip("needs /proc/self/statm")


def test_errors():
    out = array("d", bytes(8))
    with pytest.raises(TypeError, match=r"hypotheses\[0\] must be a string"):
        core.chrf_matrix([b"x"], ["x"], 6, 0, False, False, 4.0, 5.0, 1, out)
    with pytest.raises(TypeError, match=r"references\[0\] must be a string"):
        core.chrf_matrix(["x"], [None], 6, 0, False, False, 4.0, 5.0, 1, out)
    with pytest.raises(ValueError, match="double buffer"):
        core.chrf_matrix(["x", "y"], ["x"], 6, 0, False, False, 4.0, 5.0, 1, out)
    with pytest.raises(ValueError, match="between 1 and"):
        core.chrf_matrix(["x"], ["x"], 0, 0, False, False, 4.0, 5.0, 1, out)
    with pytest.raises(ValueError, match="threads"):
        core.chrf_matrix(["x"], ["x"], 6, 0, False, False, 4.0, 5.0, 0, out)
    with pytest.raises(TypeError, match=r"references\[1\]"):
        truebleu.chrf_matrix(["x"], ["x", 3], backend="native")


def test_word_vocabulary_across_many_lines():
    """chrF++'s words in the matrix's one vocabulary over every line (chrf/profile.c, the
    corpus path's body in chrf/words.c): 400 distinct words met first across 40 lines (the
    table grows several times while it holds earlier lines' words), lines that bring no new
    word between them (their copies are dropped, the older ones kept), words met again many
    lines later, with punctuation split off. Every cell equals sacreBLEU's."""
    pool = [f"w{i}{'éß'[i % 2] * (i % 4)}" for i in range(400)]
    lines = []
    for i in range(40):
        lines.append(" ".join(pool[10 * i + k] + ("," if k % 3 == 0 else "") for k in range(10)))
        lines.append(" ".join(pool[(7 * i + k) % (10 * i + 10)] for k in range(6)))  # no new word
    lines = lines[:60] + [lines[1], "(" + pool[5] + " " + pool[399] + "."]
    options = {"word_order": 2, "char_order": 6, "beta": 2, "remove_whitespace": True,
               "eps_smoothing": False}
    assert truebleu.chrf_matrix(lines, lines, word_order=2, backend="native") == \
        sacre_matrix(lines, lines, options)
    assert truebleu.chrf_matrix(lines[::-1], lines, word_order=2, backend="native") == \
        sacre_matrix(lines[::-1], lines, options)
