"""The compiled chrF core: thread-count independence, no leaks, clear errors."""

from __future__ import annotations

import gc
import os
import sys
from array import array

import pytest

core = pytest.importorskip("truebleu._native_core", reason="compiled core not built")

from truebleu.metrics.chrf import CHRF  # noqa: E402

HYPS = [f"Sentence {i}: ÉTÉ, İstanbul — the (CAT) sat... {i % 13}-{i % 7} 你好 😀" for i in range(3000)]
REFS = [[f"sentence {i}: été, istanbul - the cat sat. {i % 11}", f"A {i} ΣΟΦΟΣ (cat)"]
        for i in range(3000)]


def call(hyps, refs, word_order=2, threads=2, scores=None):
    out = array("q", [0]) * (len(hyps) * 3 * (6 + word_order))
    core.chrf_statistics(hyps, refs, 6, word_order, False, False, 4.0, 5.0, threads, out, scores)
    return out


def test_threads_do_not_change_the_result():
    one = call(HYPS, REFS, threads=1)
    assert call(HYPS, REFS, threads=2) == one == call(HYPS, REFS, threads=7)
    metric = CHRF(word_order=2, backend="native", threads=3)
    assert metric.corpus_statistics(HYPS, [[r[0] for r in REFS], [r[1] for r in REFS]]).data == one


def rss_bytes() -> int:
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * 4096
    except OSError:
        pytest.skip("needs /proc/self/statm")


@pytest.mark.skipif("libasan" in os.environ.get("LD_PRELOAD", ""),
                    reason="AddressSanitizer keeps freed memory in quarantine")
def test_no_leaks():
    scores = array("d", [0.0]) * len(HYPS)
    refcounts = [sys.getrefcount(h) for h in HYPS[:50]]
    for _ in range(3):
        call(HYPS, REFS, scores=scores)
    gc.collect()
    before = rss_bytes()
    for _ in range(15):
        call(HYPS, REFS, scores=scores)
        call(HYPS, REFS, word_order=0, threads=1)
    gc.collect()
    assert rss_bytes() - before < 8 * 2 ** 20
    assert [sys.getrefcount(h) for h in HYPS[:50]] == refcounts


def test_errors():
    out = array("q", [0]) * 18
    with pytest.raises(TypeError, match="must be a string"):
        core.chrf_statistics([b"x"], [["x"]], 6, 0, False, False, 4.0, 5.0, 1, out, None)
    with pytest.raises(TypeError, match="must be a string"):
        core.chrf_statistics(["x"], [[None]], 6, 0, False, False, 4.0, 5.0, 1, out, None)
    with pytest.raises(ValueError, match="no reference"):
        core.chrf_statistics(["x"], [[]], 6, 0, False, False, 4.0, 5.0, 1, out, None)
    with pytest.raises(ValueError, match="one row per hypothesis"):
        core.chrf_statistics(["x", "y"], [["x"], ["y"]], 6, 0, False, False, 4.0, 5.0, 1, out,
                             None)
    with pytest.raises(ValueError, match="between 1 and"):
        core.chrf_statistics(["x"], [["x"]], 0, 0, False, False, 4.0, 5.0, 1, out, None)


def test_reference_streams_read_in_place():
    """sacreBLEU's streams (None: a missing reference) give the rows of per-segment lists."""
    streams = [[r[0] for r in REFS], [None if i % 3 else r[1] for i, r in enumerate(REFS)]]
    segments = [[ref for ref in refs if ref is not None] for refs in zip(*streams)]
    for word_order in (0, 2):
        expected = call(HYPS, segments, word_order=word_order)
        out = array("q", [0]) * len(expected)
        core.chrf_statistics(HYPS, streams, 6, word_order, False, False, 4.0, 5.0, 2, out, None,
                             streams=True)
        assert out == expected
    metric = CHRF(word_order=2, backend="native", references=(tuple(streams[0]), streams[1]))
    assert metric.corpus_statistics(HYPS).data == call(HYPS, segments)
    assert metric.num_refs == -1


def test_reference_stream_errors():
    out = array("q", [0]) * 36
    args = (6, 0, False, False, 4.0, 5.0, 1, out, None)
    with pytest.raises(TypeError, match=r"references\[1\]\[0\] must be a string or None, got int"):
        core.chrf_statistics(["x", "y"], [["x", "y"], [3, "y"]], *args, streams=True)
    with pytest.raises(ValueError, match="segment 1 has no reference"):
        core.chrf_statistics(["x", "y"], [["x", None], ["y", None]], *args, streams=True)
    with pytest.raises(ValueError, match="2 hypotheses but 1 reference segments"):
        core.chrf_statistics(["x", "y"], [["x"]], *args, streams=True)
    with pytest.raises(TypeError, match=r"references\[0\] must be a list or tuple"):
        core.chrf_statistics(["x", "y"], ["xy"], *args, streams=True)
    with pytest.raises(TypeError, match=r"references\[0\]\[1\] must be a string or None"):
        CHRF(backend="native", lowercase=True).corpus_score(["a", "b"], [["a", b"b"]])


def packed_path_cases() -> list[tuple[str, list[str]]]:
    """Pairs aimed at each way the core counts n-grams (chrf/chrf.c count_packed): anchors
    (trigrams) a reference repeats, overlapping and not; a hypothesis agreeing with a once-held
    anchor's position for 3, 4, 5 or 6 characters; more than 127 distinct characters (no
    direct unigram table), more than 2^16 / 6 bits a symbol (chained ids); astral and NUL
    characters (on one side or both, among several references); lines shorter than the orders;
    pairs after pairs that matched far at the same reference positions."""
    wide = "".join(chr(0x4E00 + i) for i in range(300))
    astral = "😀😁😀😁x😀"
    return [
        ("abcabcabcabd", ["abcabcabcabc abcab"]),
        ("aaaaaaaaaa", ["aaaaaaa"]),
        ("abcdefgh abcdxyz abcdefq", ["abcdefgh zz abcdeq abcdefgh"]),
        ("the cat sat on the mat", ["the cat sat on the hat, the cat"]),
        ("abcXdefY", ["abcdefabcdef"]),
        (wide, [wide[::-1] + wide[:40]]),
        (wide[:50] + "abcabc", [wide[10:60] + "abcabcab"]),
        (astral, ["😀😁😀x😀😁"]),
        ("a😀b cab", ["ab cab"]),  # one side astral: both counted with chained ids
        ("abc abd", ["a😀bc", "abd abc", "x😀"]),
        ("a\x00b\x00a\x00b", ["\x00a\x00b\x00"]),
        ("ab", ["abc"]),
        ("abc", ["ab"]),
        ("", ["abc"]),
        ("abc", [""]),
        ("x y z x y z", ["x y z, x y z x"]),
        # a pair whose hypothesis agrees far with once-held anchors, then pairs that agree less
        # at the same reference positions (the core's per-position agreements start at 0 again)
        ("abcdefgh", ["zzzzzabcdefgh", "abcdefgh zzzzzabcdefgh"]),
        ("qqqabcqqq", ["zzzzzabcdefgh"]),
    ]


def assert_native_rows_equal_the_specification(cases: list[tuple[str, list[str]]], config) -> None:
    """The core's statistics rows of each (hypothesis, references) pair, and of each pair both
    ways round (the first reference as the hypothesis), equal the Python specification's."""
    from truebleu.metrics.chrf.kernels import NativeKernel, PythonKernel

    hyps = [h for h, _ in cases] + [r[0] for _, r in cases]
    refs = [r for _, r in cases] + [[h] for h, _ in cases]
    native, python = NativeKernel(), PythonKernel()
    got = native.statistics(hyps, native.prepare(refs, config), config, threads=1)
    want = python.statistics(hyps, python.prepare(refs, config), config)
    for i, (g, w) in enumerate(zip(got.rows(), want.rows())):
        assert list(g) == list(w), (hyps[i], refs[i])


@pytest.mark.parametrize("char_order,word_order", [(6, 0), (6, 2), (3, 0), (2, 1), (1, 0), (8, 3),
                                                   (12, 0), (30, 0)])
def test_packed_counting_equals_the_specification(char_order, word_order):
    from truebleu.metrics.chrf.config import ChrfConfig

    config = ChrfConfig(char_order, word_order, 2, False, False, False)
    assert_native_rows_equal_the_specification(packed_path_cases(), config)


def word_path_cases() -> list[tuple[str, list[str]]]:
    """Pairs aimed at chrF++'s words read in the symbols' pass (chrf/lines.c
    tb_chrf_symbols_words): a punctuation mark split off the end (the word's hash without
    its last symbol), else off the start; one-character words and marks; every whitespace
    str.split() knows (ASCII separators, NEL, NBSP, the Unicode spaces) at either end and
    repeated; the same word with other marks on the other side; a line of 2-byte storage
    against one of 1 byte; one side astral (its words decoded, so both sides are decoded)."""
    spaces = "\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f \x85\xa0\u1680\u2000\u200a\u2028\u2029\u202f\u205f\u3000"
    return [
        ("(cat) 'hello world. a. .a .. . a ...abc abc... !x! x", ["cat, hello (world a .a . .. !x!"]),
        ("the cat.", ["the cat. cat the. (the cat)"]),
        (spaces.join(["a", "b.", "(c", "d"]) + spaces, [spaces + " a b. (c d x"]),
        ("  lead and trail  ", ["lead\u3000and\xa0trail."]),
        ("é café, naïve (été)", ["cafe café. naïve été) (été"]),
        ("ΣΟΦΟΣ, σοφός. «quote» —dash", ["ΣΟΦΟΣ σοφός «quote» — dash."]),
        ("plain ascii words, here.", ["plain ascii wörds, here."]),  # 1-byte against 2-byte
        ("a😀b cab, x.", ["ab cab, x."]),  # one side astral
        ("ab cab, x.", ["a😀b cab, x.", "cab ab x."]),
        ("", ["a b"]),
        ("a b", [""]),
        ("   ", [". ,"]),
        ("a" * 40 + ". " + "a" * 40, ["a" * 40 + " " + "a" * 40 + "."]),
    ]


def colliding_words_case() -> tuple[str, list[str]]:
    """Two different words of two symbols whose hashes are equal (chrf/lines.c
    tb_chrf_hash_run of symbol ids 1135, 1131 and of 1447, 424: 0xa366c, found by search):
    the core's word vocabulary must tell them apart by their symbols. The symbol ids of a
    segment are numbered in order of first appearance, so the hypothesis opens with a word
    of 3000 distinct characters that number them 1..3000."""
    letters = [chr(0x4E00 + i) for i in range(3000)]

    def word(*ids: int) -> str:
        return "".join(letters[i - 1] for i in ids)

    return "".join(letters) + " " + word(1135, 1131), [word(1447, 424)]


@pytest.mark.parametrize("word_order", [1, 2, 3])
@pytest.mark.parametrize("whitespace", [False, True])
def test_words_read_with_the_symbols_equal_the_specification(word_order, whitespace):
    from truebleu.metrics.chrf.config import ChrfConfig

    config = ChrfConfig(6, word_order, 2, False, whitespace, False)
    assert_native_rows_equal_the_specification(word_path_cases(), config)


def test_words_with_equal_hashes_are_told_apart():
    from truebleu.metrics.chrf.config import ChrfConfig

    config = ChrfConfig(6, 2, 2, False, False, False)
    assert_native_rows_equal_the_specification([colliding_words_case()], config)


def test_every_ascii_mark_splits_as_the_specification():
    """chrF++ splits one punctuation mark (string.punctuation) off a word's end, else its start
    (chrf/lines.c is_punct): every printable ASCII character and a few marks outside ASCII at
    either end of a word, doubled, inside, and alone; the core's rows equal the
    specification's, read both in the symbols' pass and decoded (an astral reference)."""
    from truebleu.metrics.chrf.config import ChrfConfig

    marks = [chr(c) for c in range(0x21, 0x7F)] + ["«", "»", "—", "…", "¡", "\x7f", "\x80"]
    cases = [(f"{m}ab ab{m} {m}{m} a{m}b {m}", [f"ab {m} ab{m} {m}ab", f"ab{m} 😀 {m}ab"])
             for m in marks]
    assert_native_rows_equal_the_specification(cases, ChrfConfig(6, 2, 2, False, False, False))
