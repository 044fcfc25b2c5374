"""The mergeable accumulator: any split and any merge order give the one-pass score.

Oracles: ``truebleu.corpus_bleu`` on the whole corpus, and sacreBLEU 2.6.0's
``corpus_bleu`` on the same input (both must equal the merged score to the bit).
"""

from __future__ import annotations

import pickle
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import truebleu
from strategies import corpus
from truebleu.core.accumulator import Accumulator, configuration_of

sacrebleu = pytest.importorskip("sacrebleu")

CONFIGS = st.fixed_dictionaries({
    "lowercase": st.booleans(),
    "tokenize": st.sampled_from(["13a", "intl", "char", "none", "zh"]),
    "smooth_method": st.sampled_from(["exp", "floor", "add-k", "none"]),
    "max_ngram_order": st.integers(1, 5),
    "effective_order": st.booleans(),
})


def fields(score) -> tuple:
    return (score.score, list(score.counts), list(score.totals), list(score.precisions),
            score.bp, score.sys_len, score.ref_len, score.ratio)


def pieces(hyps, refs, cuts):
    """The corpus cut at the sorted positions ``cuts`` (empty pieces allowed)."""
    bounds = [0, *sorted(cuts), len(hyps)]
    return [(hyps[a:b], [stream[a:b] for stream in refs]) for a, b in zip(bounds, bounds[1:])]


def merge_in_random_tree(accs, rng):
    """Merge by repeatedly joining two random accumulators (any tree, any order)."""
    accs = list(accs)
    while len(accs) > 1:
        i, j = rng.sample(range(len(accs)), 2)
        joined = accs[i].merge(accs[j]) if rng.random() < 0.5 else accs[i] + accs[j]
        accs = [a for k, a in enumerate(accs) if k not in (i, j)] + [joined]
    return accs[0]


@settings(max_examples=150, deadline=None)
@given(data=corpus(max_segments=12, allow_none=True), config=CONFIGS,
       cuts=st.lists(st.integers(0, 12), max_size=6), seed=st.integers(0, 2**32 - 1),
       pickle_some=st.booleans())
def test_any_split_and_merge_order_gives_the_one_pass_score(data, config, cuts, seed, pickle_some):
    hyps, refs = data
    metric = truebleu.BLEU(force=True, **config)
    cuts = [min(c, len(hyps)) for c in cuts]
    accs = []
    for part_hyps, part_refs in pieces(hyps, refs, cuts):
        acc = metric.accumulator()
        if part_hyps:
            acc.update(part_hyps, part_refs)
        if pickle_some:
            acc = pickle.loads(pickle.dumps(acc))
        accs.append(acc)
    merged = merge_in_random_tree(accs, random.Random(seed))

    single = truebleu.BLEU(force=True, **config)
    one_pass = single.corpus_score(hyps, refs)
    assert fields(merged.score()) == fields(one_pass)
    assert merged.segments == len(hyps)
    assert str(merged.signature()) == str(single.get_signature())
    assert merged.score().score == sacrebleu.BLEU(force=True, **config).corpus_score(hyps, refs).score


@settings(max_examples=40, deadline=None)
@given(data=corpus(max_segments=10, allow_none=True), split=st.integers(0, 10))
def test_kept_segment_rows_equal_the_corpus_statistics(data, split):
    hyps, refs = data
    metric = truebleu.BLEU()
    first = metric.accumulator(keep_segments=True).update(hyps[:split], [s[:split] for s in refs])
    second = metric.accumulator(keep_segments=True).update(hyps[split:], [s[split:] for s in refs])
    merged = pickle.loads(pickle.dumps(first)).merge(second)
    assert merged.statistics() == metric.corpus_statistics(hyps, refs)


def test_merge_is_commutative_and_associative_on_wmt_like_batches():
    rng = random.Random(7)
    words = "the a cat dog sat on mat . , is was and of to".split()
    lines = [" ".join(rng.choice(words) for _ in range(rng.randint(0, 25))) for _ in range(300)]
    refs = [" ".join(rng.choice(words) for _ in range(rng.randint(1, 25))) for _ in range(300)]
    metric = truebleu.BLEU()
    a, b, c = (metric.accumulator().update(lines[i:i + 100], [refs[i:i + 100]]) for i in (0, 100, 200))
    left = (a + b) + c
    right = a + (b + c)
    swapped = (c + a) + b
    expected = fields(truebleu.corpus_bleu(lines, [refs]))
    assert fields(left.score()) == fields(right.score()) == fields(swapped.score()) == expected
    assert a.segments == 100  # + leaves its operands alone


def test_an_accumulator_is_small_when_pickled():
    acc = truebleu.BLEU(references=[["a reference, prepared once"]]).accumulator()
    acc.update(["some hypothesis"] * 5000, [["some reference"] * 5000])
    assert len(pickle.dumps(acc)) < 1000


def test_an_empty_accumulator_scores_like_an_empty_corpus_and_is_the_merge_identity():
    metric = truebleu.BLEU()
    empty = metric.accumulator()
    assert fields(empty.score()) == fields(truebleu.corpus_bleu([], [[]]))
    full = metric.accumulator().update(["the cat sat"], [["the cat sat down"]])
    assert fields((empty + full).score()) == fields((full + empty).score()) == fields(full.score())
    with pytest.raises(ValueError, match="nothing accumulated"):
        empty.signature()


def test_variable_reference_counts_give_nrefs_var():
    metric = truebleu.BLEU()
    two = metric.accumulator().update(["a b"], [["a b"], ["a c"]])
    one = metric.accumulator().update(["a b"], [["a b"]])
    assert str(two.signature()).startswith("nrefs:2|")
    assert str((two + one).signature()).startswith("nrefs:var|")


def test_merging_different_configurations_is_refused():
    base = truebleu.BLEU().accumulator()
    for other in (truebleu.BLEU(lowercase=True), truebleu.BLEU(tokenize="intl"),
                  truebleu.BLEU(smooth_method="floor"), truebleu.BLEU(max_ngram_order=3),
                  truebleu.BLEU(effective_order=True), truebleu.BLEU(smooth_method="floor",
                                                                      smooth_value=0.2)):
        with pytest.raises(ValueError, match="different configurations"):
            base.merge(other.accumulator())
    with pytest.raises(ValueError, match="keep_segments"):
        base.merge(truebleu.BLEU().accumulator(keep_segments=True))
    with pytest.raises(TypeError, match="another Accumulator"):
        base.merge([1, 2, 3])
    # settings that do not change the number do not block a merge
    base.merge(truebleu.BLEU(force=True, threads=1).accumulator())


def test_statistics_without_kept_rows_is_an_error():
    with pytest.raises(ValueError, match="keep_segments=True"):
        truebleu.BLEU().accumulator().statistics()


def test_update_checks_its_input_like_corpus_statistics():
    acc = truebleu.BLEU().accumulator()
    with pytest.raises(ValueError, match="2 hypotheses but 1 reference segments"):
        acc.update(["a", "b"], [["a"]])
    with pytest.raises(TypeError):
        acc.update(["a", 3], [["a", "b"]])
    assert acc.segments == 0 and acc.sums == [0] * 10


def test_a_metric_without_integer_rows_or_configuration_is_refused():
    class FloatMetric:
        def configuration(self):
            return ()

        def corpus_statistics(self, hyps, refs):
            from truebleu.core.statistics import RowTable
            return RowTable(3, typecode="d")

    with pytest.raises(TypeError, match="not integer rows"):
        Accumulator(FloatMetric())
    with pytest.raises(TypeError, match="configuration"):
        configuration_of(object())
