"""The n-gram tables that prepared references keep between calls (bleu/ngram.c: tb_learned).

The second ``statistics`` call on a core ``Prepared`` counts its references' n-grams once
for good, at that call's order; later calls at that order only count their hypotheses
against the kept tables. Each call below uses other hypotheses (a row computed from a
table left stale by an earlier call, or from another segment's table, would differ from
the Python backend's), other orders (kept at one order, never used at another) and
thread counts, with references that repeat their n-grams (clip counts above 1) and
several references per segment (clip counts are maxima over references).
"""

from __future__ import annotations

import random

import pytest

core = pytest.importorskip("truebleu._native_core", reason="compiled core not built")

from truebleu.metrics.bleu.kernels import PythonKernel  # noqa: E402
from truebleu.metrics.bleu.native import NativeKernel  # noqa: E402
from truebleu.tokenizers import get_tokenizer  # noqa: E402

NATIVE, PYTHON = NativeKernel(), PythonKernel()
NONE_TOK = get_tokenizer("none")


def words(rng: random.Random, vocabulary: int, length: int) -> str:
    return " ".join(f"w{rng.randrange(vocabulary)}" for _ in range(length))


def expected(hyps: list[str], refs: list[list[str]], order: int):
    return PYTHON.statistics(hyps, PYTHON.prepare_references(refs, NONE_TOK, False, order),
                             NONE_TOK, False, order)


def hypothesis_sets(rng: random.Random, refs: list[list[str]], vocabulary: int, count: int):
    """Hypothesis sets of their own: random text, and copies of references with a few
    words changed (many matches of every order)."""
    sets = []
    for s in range(count):
        hyps = []
        for segment in refs:
            if s % 2 and segment:
                tokens = rng.choice(segment).split()
                for _ in range(max(1, len(tokens) // 6)):
                    if tokens:
                        tokens[rng.randrange(len(tokens))] = f"w{rng.randrange(vocabulary)}"
                hyps.append(" ".join(tokens))
            else:
                hyps.append(words(rng, vocabulary, rng.randrange(0, 60)))
        sets.append(hyps)
    return sets


@pytest.mark.parametrize("vocabulary", [4, 60, 3000])
def test_every_call_on_one_prepared_gives_the_specification_rows(vocabulary):
    rng = random.Random(vocabulary)
    refs = [[words(rng, vocabulary, rng.randrange(0, 60)) for _ in range(rng.randrange(1, 5))]
            for _ in range(150)]
    prepared = NATIVE.prepare_references(refs, NONE_TOK, False, 4)
    # calls 1 and 2 count the references (2 keeps them), then the kept tables at order 4;
    # orders 2 and 6 are never kept (they count the references, as the first call)
    orders = [4, 4, 4, 2, 4, 6, 4, 4]
    for call, (order, hyps) in enumerate(zip(orders, hypothesis_sets(rng, refs, vocabulary, 8))):
        threads = 1 + call % 3
        assert NATIVE.statistics(hyps, prepared, NONE_TOK, False, order, threads=threads) == \
            expected(hyps, refs, order), (call, order)
        totals, _ = NATIVE.totals(hyps, prepared, NONE_TOK, False, order, threads=threads)
        assert totals == list(expected(hyps, refs, order).sum()), (call, order)
    assert prepared.core.learned_order == 4


def test_the_second_call_keeps_the_tables_and_says_so_in_nbytes():
    """Scored once, a Prepared keeps nothing more; the second call keeps the tables at its
    own order (not the first call's), and nbytes counts them."""
    rng = random.Random(3)
    refs = [[words(rng, 40, 30)] for _ in range(200)]
    hyps = [words(rng, 40, 30) for _ in range(200)]
    prepared = core.prepare(refs, core.MODE_NONE, False, 1)
    before = prepared.nbytes
    out = NATIVE.statistics(hyps, NATIVE.prepare_references(refs, NONE_TOK, False, 3),
                            NONE_TOK, False, 3).data
    core.statistics(hyps, prepared, core.MODE_NONE, False, 3, 1, out)
    assert (prepared.learned_order, prepared.nbytes) == (0, before)
    out = NATIVE.statistics(hyps, NATIVE.prepare_references(refs, NONE_TOK, False, 2),
                            NONE_TOK, False, 2).data
    core.statistics(hyps, prepared, core.MODE_NONE, False, 2, 1, out)
    assert prepared.learned_order == 2
    assert prepared.nbytes > before


def test_two_prepared_references_in_turn_keep_their_own_tables():
    """Two Prepared objects whose segments hold the same tokens in other orders, scored in
    turn on the same threads: a table or a count taken from the other one would change
    the rows."""
    rng = random.Random(9)
    a = [[words(rng, 8, 25)] for _ in range(100)]
    b = [[" ".join(reversed(r[0].split()))] for r in a]
    prepared = {"a": NATIVE.prepare_references(a, NONE_TOK, False, 4),
                "b": NATIVE.prepare_references(b, NONE_TOK, False, 4)}
    for call in range(4):
        for name, refs in (("a", a), ("b", b)):
            hyps = [words(rng, 8, rng.randrange(0, 40)) for _ in refs]
            got = NATIVE.statistics(hyps, prepared[name], NONE_TOK, False, 4, threads=2)
            assert got == expected(hyps, refs, 4), (call, name)


def test_a_prepared_larger_than_the_budget_keeps_nothing():
    """At order 1000, the tables of three 6,000-token references would take more than the
    budget (TB_LEARNED_MAX_BYTES, 256 MiB): nothing is kept, and every call gives the
    first call's rows (the path of test_native_matcher, too slow for the Python backend
    here)."""
    rng = random.Random(1)
    refs = [[words(rng, 50, 6000)] for _ in range(3)]
    hyps = [words(rng, 50, 100) for _ in refs]
    prepared = NATIVE.prepare_references(refs, NONE_TOK, False, 1000)
    first = NATIVE.statistics(hyps, prepared, NONE_TOK, False, 1000)
    for _ in range(2):
        assert NATIVE.statistics(hyps, prepared, NONE_TOK, False, 1000) == first
    assert prepared.core.learned_order == 0
