"""The core's n-gram matcher (ngram.c) == the Python specification, on each of its paths.

The matcher numbers a segment's common tokens 0..C-1 and finds the id of an n-gram
from (id of its prefix, last token) either in a direct table of (ids x (C + 1)) cells, used
while that takes at most 2**18 cells, or in a hash table above; the direct table's
cells are tagged with an era that wraps every 2**14 - 1 segments of one thread. The
cases below sit on both sides of each of those limits; every entry point that matches
(prepared references, sentence batches, the one-pass stream, pairs) must give the
Python backend's rows.
"""

from __future__ import annotations

import random
from array import array

import pytest

core = pytest.importorskip("truebleu._native_core", reason="compiled core not built")

from truebleu.metrics.bleu.kernels import PythonKernel  # noqa: E402
from truebleu.metrics.bleu.native import NativeKernel  # noqa: E402
from truebleu.tokenizers import get_tokenizer  # noqa: E402

NATIVE, PYTHON = NativeKernel(), PythonKernel()
NONE_TOK = get_tokenizer("none")  # tokens are the whitespace-separated words: cases built by hand

DIRECT_MAX_CELLS = 1 << 18   # ngram.c's limit of the direct table
ERA_SEGMENTS = (1 << 14) - 1  # segments of one thread before the era tags wrap


def cells(hyp: str, refs: list[str], order: int) -> int:
    """The number of direct cells ngram.c needs for a segment (its rule, restated: a
    row per id, a column per common token and one for a token the references lack)."""
    hyp_tokens, ref_tokens = set(hyp.split()), {t for r in refs for t in r.split()}
    common = len(hyp_tokens & ref_tokens)
    bound = sum(max(0, len(r.split()) - n + 1) for r in refs for n in range(2, order + 1))
    return (common + bound) * (common + 1)


def check_every_path(hyps: list[str], refs: list[list[str]], order: int, threads: int = 1,
                     tokenize: str = "none"):
    """Rows of every native entry point == the Python backend's rows."""
    tok = get_tokenizer(tokenize)
    want = PYTHON.statistics(hyps, PYTHON.prepare_references(refs, tok, False, order), tok, False, order)
    prepared = NATIVE.prepare_references(refs, tok, False, order)
    assert NATIVE.statistics(hyps, prepared, tok, False, order, threads=threads) == want
    assert NATIVE.sentence_statistics(hyps, refs, tok, False, order, threads=threads) == want
    width = max(len(r) for r in refs)
    streams = [[r[k] if k < len(r) else None for r in refs] for k in range(width)]
    got, _ = NATIVE.stream_statistics(hyps, streams, tok, False, order, threads=threads)
    assert got == want
    if len(hyps) <= 50:  # pairs: hypothesis i against reference segment i (tb_segment_row)
        mode = getattr(core, f"MODE_{tokenize.upper()}")
        hyp_prepared = core.prepare([[h] for h in hyps], mode, False, threads)
        index = array("q", range(len(hyps)))
        rows = array("q", [0]) * len(want.data)
        core.pair_statistics(hyp_prepared, prepared.core, index, index, order, threads, rows)
        assert rows == want.data


def words(rng: random.Random, vocabulary: int, length: int) -> str:
    return " ".join(f"w{rng.randrange(vocabulary)}" for _ in range(length))


@pytest.mark.parametrize("order", [1, 2, 3, 4, 5, 8])
@pytest.mark.parametrize("vocabulary", [3, 40, 5000])
def test_small_and_large_vocabularies(order, vocabulary):
    """Tiny vocabularies (every n-gram repeats, as with tokenize='char') to huge ones;
    1-6 references of 0-120 tokens; orders 1-8."""
    rng = random.Random(order * 1000 + vocabulary)
    hyps, refs = [], []
    for _ in range(120):
        hyps.append(words(rng, vocabulary, rng.randrange(0, 120)))
        refs.append([words(rng, vocabulary, rng.randrange(0, 120)) for _ in range(rng.randrange(1, 7))])
    check_every_path(hyps, refs, order)


@pytest.mark.parametrize("order", [2, 4])
def test_both_sides_of_the_direct_table_limit(order):
    """255 common tokens (256 columns) and a reference of 255 + extra tokens (at order 4
    with a second of two tokens, its one bigram): around the extra at which the segment
    needs exactly 2**18 cells (3 at order 4, 515 at order 2), one token more tips it into
    the hash table."""
    rng = random.Random(order)
    common = [f"c{i}" for i in range(255)]
    hyp = " ".join(common + rng.choices(common, k=300))
    more = ["c0 c1"] if order == 4 else []
    limit = next(e for e in range(1000)
                 if cells(hyp, [" ".join(common + ["x"] * e)] + more, order) >= DIRECT_MAX_CELLS)
    cases = []
    for extra in range(max(0, limit - 15), limit + 15):
        ref_tokens = common + rng.choices(common, k=extra // 2) + [f"x{i}" for i in range(extra - extra // 2)]
        rng.shuffle(ref_tokens)
        cases.append((hyp, [" ".join(ref_tokens)] + more))
    cases.append((hyp, [hyp]))  # the hypothesis as its reference: every n-gram matches
    sizes = [cells(h, r, order) for h, r in cases]
    assert DIRECT_MAX_CELLS in sizes and max(sizes) > DIRECT_MAX_CELLS
    check_every_path([h for h, _ in cases], [r for _, r in cases], order)


def test_long_segments_with_many_references_use_the_hash_table():
    rng = random.Random(5)
    hyps, refs = [], []
    for vocabulary in (50, 2000):
        for _ in range(3):
            hyp = words(rng, vocabulary, 1500)
            hyps.append(hyp)
            refs.append([words(rng, vocabulary, 1500) for _ in range(4)] + [hyp])
    assert all(cells(h, r, 4) > DIRECT_MAX_CELLS for h, r in zip(hyps, refs))
    check_every_path(hyps, refs, 4)
    check_every_path(hyps, refs, 7)


def characters(rng: random.Random, alphabet: str, length: int) -> str:
    return "".join(rng.choice(alphabet) for _ in range(length))


@pytest.mark.parametrize("order", [1, 2, 4, 5])
@pytest.mark.parametrize("alphabet", ["ab", "abcdefghij ", "".join(map(chr, range(0x4E00, 0x4E00 + 60)))])
def test_characters_every_reference_ngram_counted(order, alphabet):
    """tokenize='char' counts every reference n-gram, not only those of characters the
    hypothesis has (tb_segment_row_all, order 4; other orders take the common tokens'
    way): hypotheses with characters the references lack (and the other way round),
    1-4 references, empty lines, characters repeated so that clipping matters."""
    rng = random.Random(order * 7 + len(alphabet))
    hyps, refs = [], []
    for _ in range(150):
        hyps.append(characters(rng, alphabet + "xyz", rng.randrange(0, 150)))
        count = rng.randrange(1, 5)
        refs.append([characters(rng, alphabet + "XY", rng.randrange(0, 150)) for _ in range(count)])
    check_every_path(hyps, refs, order, tokenize="char")


def test_characters_of_long_segments_use_the_hash_table():
    """As above, on segments whose (reference characters + n-grams) x characters pass
    2**18 cells: the hash table's copy of tb_segment_row_all."""
    rng = random.Random(17)
    alphabet = "".join(map(chr, range(0x4E00, 0x4E00 + 700)))
    hyps, refs = [], []
    for _ in range(4):
        hyp = characters(rng, alphabet, 1500)
        hyps.append(hyp)
        refs.append([characters(rng, alphabet, 1500) for _ in range(2)] + [hyp[:700]])
    assert all((len(set("".join(r))) + sum(3 * len(x) for x in r)) * len(set("".join(r))) > DIRECT_MAX_CELLS
               for r in refs)
    check_every_path(hyps, refs, 4, tokenize="char")


@pytest.mark.parametrize("threads", [1, 2])
def test_the_era_tags_wrap_within_one_call(threads):
    """More segments than one thread's eras: a stale cell read as current would turn an
    unseen n-gram of the hypothesis into a match. Consecutive segments reuse the same
    tokens in other orders, so stale cells are everywhere."""
    rng = random.Random(11)
    vocabulary = [f"t{i}" for i in range(12)]
    hyps, refs = [], []
    for _ in range(ERA_SEGMENTS * threads + 500):
        hyps.append(" ".join(rng.choices(vocabulary, k=rng.randrange(1, 14))))
        refs.append([" ".join(rng.choices(vocabulary, k=rng.randrange(1, 14)))])
    check_every_path(hyps, refs, 4, threads=threads)


def test_cells_of_the_first_era_are_stale_after_the_wrap():
    """One thread, in order: segment 1 writes cells that the next 16,382 small segments
    never touch; segment 16,384 (where the era wraps) reads cells never written, and
    segment 16,385 reads segment 1's cells again. Without the wrap's clearing the first
    would read an id from a zero cell and the second segment 1's ids as its own."""
    a = " ".join(f"a{i}" for i in range(100))
    b = " ".join(f"b{i}" for i in range(300))
    hyps = [a] + ["x"] * (ERA_SEGMENTS - 1) + [b, a]
    refs = [[a]] + [["x"]] * (ERA_SEGMENTS - 1) + [[" ".join(reversed(b.split()))],
                                                   [" ".join(reversed(a.split()))]]
    check_every_path(hyps, refs, 4, threads=1)


@pytest.mark.parametrize("order", [1, 2, 4])
@pytest.mark.parametrize("distinct", [2, 40, 600])
def test_references_without_bigrams(order, distinct):
    """References of one token each have no n-gram of order >= 2, but the hypothesis
    still looks its pairs up: the table must cover every pair of common tokens (the
    first segment of a call found unallocated cells here: a crash found by
    test_api_oracle). 600 common tokens need more than 2**18 cells: the hash table."""
    tokens = [f"t{i}" for i in range(distinct)]
    hyps = [" ".join(tokens + tokens[::-1]), "t0 t1", " ".join(tokens)]
    refs = [tokens, ["t0", "t1"], ["t1", "t0 t1"]]  # each segment's references
    for threads in (1, 2):
        check_every_path(hyps, refs, order, threads=threads)


@pytest.mark.parametrize("order", [1, 4, 6])
@pytest.mark.parametrize("reference_length", [30, 1500])
def test_hypotheses_sharing_references_count_from_where_the_last_one_left(order, reference_length):
    """Hypotheses with the same references one after another: the references' n-grams
    are learned once, and each hypothesis counts its n-grams on top of what the ones
    before it left (ngram.c's base), never resetting them. Each group repeats its
    n-grams past their clip counts, a long hypothesis before short ones and the other
    way round, so a count an earlier hypothesis left, read as this one's, would change a
    match. Short references use the direct table, 1,500-token ones the hash table; a
    build with a small TB_MATCHER_BASE_MAX reaches the restart of the counts."""
    rng = random.Random(order * 7 + reference_length)
    hyps, refs = [], []
    for _ in range(12):
        ref = [words(rng, 6, reference_length) for _ in range(rng.randrange(1, 4))]
        for length in (200, 3, 3, 0, 40, 1, 200, 7):
            hyps.append(words(rng, 6, length))
            refs.append(ref)
    check_every_path(hyps, refs, order)


@pytest.mark.parametrize("order", [1, 2, 3, 4, 5])
@pytest.mark.parametrize("vocabulary", [5, 400])
def test_shared_references_with_tokens_they_lack(order, vocabulary):
    """Hypotheses sharing their references (learned once) with tokens the references
    lack: such a token ends every n-gram that reaches it, which the direct table finds
    in a column kept empty for it (no test of its own), the hash table by a key never
    stored. Hypotheses of 0-6 tokens reach the last positions, counted apart (each with
    its order a constant); n-grams repeat beyond their clip counts. References of 400
    words use the hash table."""
    rng = random.Random(order * 100 + vocabulary)
    scale = 1 if vocabulary == 5 else 80
    lacking = ["zz", "yy"]
    hyps, refs = [], []
    for _ in range(30 if vocabulary == 5 else 4):
        ref = [words(rng, vocabulary, rng.randrange(1, 12) * scale) for _ in range(rng.randrange(1, 3))]
        for _ in range(8):
            length = rng.randrange(0, 7) if rng.random() < 0.7 else rng.randrange(7, 30) * scale
            tokens = [rng.choice(lacking) if rng.random() < 0.3 else f"w{rng.randrange(vocabulary)}"
                      for _ in range(length)]
            hyps.append(" ".join(tokens))
            refs.append(ref)
    check_every_path(hyps, refs, order)


@pytest.mark.parametrize("order", [1, 4, 5])
@pytest.mark.parametrize("tokenize", ["none", "char"])
def test_rows_without_matches_after_rows_with_them(order, tokenize):
    """A row with no match (an empty hypothesis, one without a token in common, empty
    references) after rows with matches, in one buffer the core reuses (the summing
    calls write each row over the one before): the matcher writes the matches only
    where it counts some, so each way out without them must write zeros."""
    cases = [("a b c d e", ["a b c d e"]), ("", ["a b c d e"]),           # empty hypothesis
             ("a b c d e", ["a b c d e"]), ("x y z", ["a b c d e"]),       # nothing in common
             ("a b c d e", ["a b c d e"]), ("a b", [""]),                  # empty reference
             ("a b c d", ["a b c d", "a b"]), ("q", ["a b c d", "a b"])]   # two references
    shared = [(h, ["a b c d e"]) for h in ("a b c d e", "", "x y", "a b c d e", "e")]
    for items in (cases, shared, cases + shared):
        hyps, refs = [h for h, _ in items], [r for _, r in items]
        check_every_path(hyps, refs, order, tokenize=tokenize)
        tok = get_tokenizer(tokenize)
        width = max(len(r) for r in refs)
        streams = [[r[k] if k < len(r) else None for r in refs] for k in range(width)]
        want = PYTHON.stream_totals(hyps, streams, tok, False, order)
        assert NATIVE.stream_totals(hyps, streams, tok, False, order, 1) == want
