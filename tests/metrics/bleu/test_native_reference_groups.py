"""The one-pass jobs visit items with the same references together (bleu/groups.c) and
tokenize those references once: the rows must stay the specification's, in the items'
own order, whatever the grouping hint says (texts that only look alike to it included)."""

from __future__ import annotations

from array import array

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

pytest.importorskip("truebleu._native_core", reason="compiled core not built")

from native_strategies import segments  # noqa: E402
from truebleu.metrics.bleu.kernels import PythonKernel  # noqa: E402
from truebleu.metrics.bleu.native import NativeKernel  # noqa: E402
from truebleu.metrics.bleu.statistics import row_width  # noqa: E402
from truebleu.tokenizers import get_tokenizer  # noqa: E402

NATIVE, PYTHON = NativeKernel(), PythonKernel()

# Lines of one length whose first, middle and last 8 bytes agree: the grouping hint
# (length and three sampled words) cannot tell them apart, only the comparison of
# the texts can. Each differs from the others in a word between the sampled ones.
BASE = "The cat sat on the mat, said the dog. And then it all went on for a while."
LOOK_ALIKES = [BASE, BASE.replace("said", "told"), BASE.replace("dog.", "cow."),
               BASE.replace("then", "THEN"), BASE.replace("all", "ALL")]
assert len({len(x) for x in LOOK_ALIKES}) == 1 and len(set(LOOK_ALIKES)) == len(LOOK_ALIKES)
HYPS = ["The cat sat on the mat, said the dog.", "the dog told the cat to go on for a while .",
        "And THEN it ALL went on for a while.", "a cow . And then it all went", ""]


def utf8_rows(hyps, refs, tok, lowercase, order, threads):
    """The command line's path: the lines as UTF-8 buffers, one per reference stream."""
    width = max(len(r) for r in refs)
    buffers = [bytearray("".join(h + "\n" for h in hyps).encode())]
    for s in range(width):
        buffers.append(bytearray("".join(r[s] + "\n" for r in refs).encode()))
    totals = array("q", [0]) * row_width(order)
    stats, _, _ = NATIVE.utf8_statistics(buffers, [len(b) for b in buffers], len(hyps), tok,
                                         lowercase, order, totals, threads=threads)
    return stats


def check_all_paths(hyps, refs, lowercase, threads, name="13a"):
    tok = get_tokenizer(name)
    want = PYTHON.sentence_statistics(hyps, refs, tok, lowercase, 4)
    assert NATIVE.sentence_statistics(hyps, refs, tok, lowercase, 4, threads=threads) == want
    streams = [list(s) for s in zip(*refs)]  # every segment has the same number here
    got, _ = NATIVE.stream_statistics(hyps, streams, tok, lowercase, 4, threads=threads)
    assert got == want
    assert utf8_rows(hyps, refs, tok, lowercase, 4, threads) == want


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("lowercase", [False, True])
def test_look_alike_references_far_apart(threads, lowercase):
    """Systems concatenated: each reference set repeats far from its first use, and
    the look-alike lines (one hint for all) each keep their own tokens."""
    refs = [[x] for x in LOOK_ALIKES] * 7
    hyps = [HYPS[(k * 3) % len(HYPS)] for k in range(len(refs))]
    check_all_paths(hyps, refs, lowercase, threads)
    # two references per segment: the same pair again, a pair in the other order
    pairs = [[LOOK_ALIKES[k % 5], LOOK_ALIKES[(k + 1) % 5]] for k in range(5)]
    refs2 = pairs + [p[::-1] for p in pairs] + pairs
    hyps2 = [HYPS[k % len(HYPS)] for k in range(len(refs2))]
    check_all_paths(hyps2, refs2, lowercase, threads)


@pytest.mark.parametrize("threads", [1, 2])
def test_look_alike_hypotheses_against_shared_references(threads):
    """An item whose hypothesis is the one of the item before takes its row; one that
    only looks alike to the grouping (same length and sampled bytes) is scored itself."""
    hyps = [LOOK_ALIKES[k % 5] for k in range(23)] + [LOOK_ALIKES[0]] * 4 + LOOK_ALIKES[::-1]
    for refs_of_all in ([BASE.replace("mat", "hat")], [HYPS[1], BASE.replace("went", "goes")]):
        refs = [list(refs_of_all) for _ in hyps]
        check_all_paths(hyps, refs, False, threads)
        check_all_paths(hyps, refs, True, threads)


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("lowercase", [False, True])
def test_few_repeats_in_the_natural_order(threads, lowercase):
    """One test set's few duplicate lines are not worth grouping: the items keep their
    order, and the job compares the references of neighbours only when their first
    looks (count, lengths, first 8 bytes) agree. Neighbours that agree on those but
    differ further on (or are too short to have 8 bytes) keep their own tokens; true
    duplicates, next to each other or apart, give the same rows as the specification."""
    distinct = [f"Line {k} of the test set, with words of its own: {k * 7919}." for k in range(200)]
    refs = [[x] for x in distinct]
    refs[10:10] = [[LOOK_ALIKES[0]], [LOOK_ALIKES[1]], [LOOK_ALIKES[3]]]  # one first look, three texts
    refs[30:30] = [["a b c"], ["x y z"], ["a b c"]]  # short: their lengths alone
    refs[40:40] = [[distinct[5]], [distinct[5]]]  # duplicates: neighbours, and far from the first
    refs.append([LOOK_ALIKES[1], "and a second reference"])
    refs.append([LOOK_ALIKES[1], "and a second Reference"])
    hyps = [HYPS[k % len(HYPS)] if k % 3 else refs[k][0] for k in range(len(refs))]
    check_all_paths(hyps, [r if len(r) == 2 else r + [r[0]] for r in refs], lowercase, threads)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 5), st.integers(0, len(HYPS) - 1)), min_size=1, max_size=80),
       st.sampled_from(["13a", "char", "intl"]), st.booleans(), st.sampled_from([1, 2]))
def test_repeated_reference_sets_in_any_order(items, name, lowercase, threads):
    """Items drawn from a few reference sets (look-alikes and an unrelated one) in any
    order give the specification's row each, in their own places."""
    sets = [[x] for x in LOOK_ALIKES] + [["Ünïcode ÉTÉ, und so weiter."]]
    refs = [sets[r] for r, _ in items]
    hyps = [HYPS[h] for _, h in items]
    check_all_paths(hyps, refs, lowercase, threads, name)


@settings(max_examples=80, deadline=None)
@given(st.lists(segments(max_refs=3, max_pieces=12), min_size=1, max_size=4),
       st.lists(st.tuples(st.integers(0, 3), st.integers(0, 3)), min_size=2, max_size=30),
       st.sampled_from(["13a", "intl", "zh", "char", "none"]), st.booleans(), st.integers(1, 6))
def test_adversarial_segments_sharing_references(pool, picks, name, lowercase, order):
    """The shared adversarial lines (entities, Unicode spaces, astral characters ...):
    hypotheses of the pool against reference sets of the pool, repeated in any order,
    every order of n-grams; the sentence path (one pass, groups) against the
    specification, item by item."""
    tok = get_tokenizer(name)
    hyps = [pool[h % len(pool)][0] for h, _ in picks]
    refs = [pool[r % len(pool)][1] for _, r in picks]
    if any(not r for r in refs):
        refs = [r or [""] for r in refs]
    want = PYTHON.sentence_statistics(hyps, refs, tok, lowercase, order)
    for threads in (1, 2):
        assert NATIVE.sentence_statistics(hyps, refs, tok, lowercase, order, threads=threads) == want



CHUNK = 32  # the one-pass jobs' chunk of items (bleu/bindings.c)


def straddling_items():
    """Groups of items sharing references whose edges fall on the chunks' edges
    (items 31|32, 63|64) and across them (64 .. 100), the same hypothesis on both
    sides of an edge, with the same references and with other ones. Two references
    a segment (some twice the same line): one stream per reference."""
    sets = [[x, x] for x in LOOK_ALIKES] + [[HYPS[1], LOOK_ALIKES[2]]]
    hyps, refs = [], []

    def group(size, ref, hyp_of):
        for k in range(size):
            hyps.append(hyp_of(k))
            refs.append(list(ref))

    group(CHUNK - 1, sets[0], lambda k: HYPS[k % 4])
    group(2, sets[1], lambda k: HYPS[2])  # items 31|32: one hypothesis twice across the edge
    group(CHUNK - 3, sets[2], lambda k: HYPS[k % 3])  # ends at item 61
    group(2, sets[3], lambda k: HYPS[k])  # items 62, 63: the end of a chunk
    group(1, sets[4], lambda k: HYPS[1])  # item 64: item 63's hypothesis, other references
    group(CHUNK + 5, sets[5], lambda k: HYPS[(k // 2) % 5])  # across the next edge, pairs of duplicates
    return hyps, refs


@pytest.mark.parametrize("threads", [1, 2, 3])
@pytest.mark.parametrize("lowercase", [False, True])
def test_groups_straddling_the_chunks(threads, lowercase):
    """A worker keeps what it holds (the references tokenized and learned, the row
    of the item before) from one of its chunks to the next: the first items of a
    chunk that share the last item's references, or repeat its hypothesis with
    them, use them; one that only repeats the hypothesis, with other references,
    does not. The rows are the specification's, and so are the totals-only sums."""
    hyps, refs = straddling_items()
    assert hyps[CHUNK - 1] == hyps[CHUNK] and refs[CHUNK - 1] == refs[CHUNK]
    assert hyps[2 * CHUNK - 1] == hyps[2 * CHUNK] and refs[2 * CHUNK - 1] != refs[2 * CHUNK]
    tok = get_tokenizer("13a")
    for skip in (0, 1, CHUNK // 2):  # and every edge moved by one item, by half a chunk
        h, r = hyps[skip:], refs[skip:]
        check_all_paths(h, r, lowercase, threads)
        streams = [list(s) for s in zip(*r)]
        want = PYTHON.stream_totals(h, streams, tok, lowercase, 4)
        assert NATIVE.stream_totals(h, streams, tok, lowercase, 4, threads) == want
