"""TER's alignment (``TER.sentence_alignment``) against sacreBLEU 2.6.0's own search.

The oracle is sacreBLEU itself: its tokenizer gives the words, its
``translation_edit_rate`` the edits against each reference (so the best one), and
its shift search, driven round by round through ``lib_ter._shift`` as its
``translation_edit_rate`` drives it, gives the hypothesis after every shift and the
final edit path (``BeamEditDistance``'s trace). Three more checks need no oracle:
the Python specification and the compiled core return the same alignment; the
alignment's edits are the statistics' edits; and applying the alignment to the
hypothesis (the shifts, then the edits) gives the reference, word for word.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st
from test_ter import ALL_OPTIONS, relaxed, shuffled_pairs, ter_segments

from conftest import available_backends, needs_wmt21, wmt21_dir
from truebleu.metrics.ter import TER, TERAlignment

sacrebleu = pytest.importorskip("sacrebleu")
from sacrebleu.metrics import TER as SacreTER  # noqa: E402
from sacrebleu.metrics import lib_ter  # noqa: E402

BACKENDS = available_backends()

#: sacreBLEU's trace letters (BeamEditDistance, before its flip) as the alignment's operations:
#: 'd' consumes a hypothesis word alone, 'i' a reference word alone
SACREBLEU_OPERATIONS = {" ": "match", "s": "substitute", "d": "delete", "i": "insert"}


def sacrebleu_search(hyp: list[str], ref: list[str]) -> tuple[int, list[list[str]], list[str]]:
    """sacreBLEU's search, round by round (the loop of its translation_edit_rate, which
    keeps nothing but the count): the edits, the words after each shift, and the
    operations of the final edit path."""
    if not ref:
        return len(hyp), [], ["delete"] * len(hyp)
    distance = lib_ter.BeamEditDistance(ref)
    words, after_each, checked = hyp, [], 0
    while True:
        gain, shifted, checked = lib_ter._shift(words, ref, distance, checked)
        if checked >= lib_ter._MAX_SHIFT_CANDIDATES or gain <= 0:
            break
        words = shifted
        after_each.append(list(words))
    edit_distance, trace = distance(words)
    return len(after_each) + edit_distance, after_each, [SACREBLEU_OPERATIONS[op] for op in trace]


def apply_alignment(alignment: TERAlignment) -> list[str]:
    """The hypothesis edited as the alignment says, written apart from truebleu's code:
    each shift takes its block out at ``start`` and puts it back at ``to``; then the
    edits walk the shifted words, keeping matches, replacing substitutions, dropping
    deletions and adding insertions."""
    words = list(alignment.hypothesis)
    for shift in alignment.shifts:
        block = words[shift.start:shift.start + len(shift.words)]
        assert tuple(block) == shift.words
        rest = words[:shift.start] + words[shift.start + len(block):]
        words = rest[:shift.to] + block + rest[shift.to:]
        assert tuple(alignment.hypothesis[k] for k in shift.origin) == shift.words
    assert tuple(words) == alignment.shifted_hypothesis
    position, edited = 0, []
    for edit in alignment.edits:
        if edit.operation != "insert":  # the edit reads the next hypothesis word
            assert edit.hypothesis_word == words[position]
            assert alignment.hypothesis[edit.hypothesis_position] == edit.hypothesis_word
            position += 1
        if edit.operation == "match":
            assert edit.reference_word == edit.hypothesis_word
            edited.append(edit.hypothesis_word)
        elif edit.operation in ("substitute", "insert"):
            if edit.operation == "substitute":
                assert edit.reference_word != edit.hypothesis_word
            edited.append(edit.reference_word)
        else:
            assert edit.operation == "delete" and edit.reference_word is None
        if edit.reference_word is not None:
            assert alignment.reference[edit.reference_position] == edit.reference_word
    assert position == len(words)
    return edited


def check_alignment(hyp: str, refs: list[str], options: dict) -> TERAlignment:
    """Every backend's alignment of one segment, checked against sacreBLEU and itself."""
    alignments = [TER(**options, backend=name).sentence_alignment(hyp, refs) for name in BACKENDS]
    assert all(found == alignments[0] for found in alignments), "backends disagree"
    alignment = alignments[0]

    theirs = SacreTER(**options)
    hyp_words = theirs._preprocess_segment(hyp).split()
    ref_words = theirs._extract_reference_info([theirs._preprocess_segment(r) for r in refs])["ref_words"]
    searches = [sacrebleu_search(hyp_words, words) for words in ref_words]
    edits = [edits for edits, _, _ in searches]  # each as its translation_edit_rate counts
    assert alignment.hypothesis == tuple(hyp_words)
    assert alignment.reference_index == edits.index(min(edits))
    assert alignment.reference == tuple(ref_words[alignment.reference_index])

    expected_edits, expected_length = theirs._compute_segment_statistics(
        theirs._preprocess_segment(hyp), {"ref_words": ref_words})
    assert (alignment.num_edits, alignment.ref_length) == (expected_edits, expected_length)
    score = TER(**options).sentence_score(hyp, refs)
    assert (alignment.num_edits, alignment.ref_length) == (score.num_edits, score.ref_length)

    _, after_each, operations = searches[alignment.reference_index]
    assert len(alignment.shifts) == len(after_each)
    words = list(alignment.hypothesis)
    for shift, expected in zip(alignment.shifts, after_each):
        block = words[shift.start:shift.start + len(shift.words)]
        words = words[:shift.start] + words[shift.start + len(block):]
        words[shift.to:shift.to] = block
        assert words == expected
    assert [edit.operation for edit in alignment.edits] == operations

    assert apply_alignment(alignment) == list(alignment.reference)
    return alignment


# -- generated text ----------------------------------------------------------------------

@st.composite
def segment_with_references(draw):
    """A hypothesis and 1-3 references; often a reordering of the first reference, where
    shifts pay off."""
    refs = draw(st.lists(ter_segments(), min_size=1, max_size=3))
    if draw(st.booleans()):
        hyp = " ".join(draw(st.permutations(refs[0].split())))
    else:
        hyp = draw(ter_segments())
    return hyp, refs


@pytest.mark.parametrize("options", ALL_OPTIONS, ids=lambda o: "-".join(k for k, v in o.items() if v)
                         or "default")
@relaxed
@given(segment=segment_with_references())
def test_alignment_matches_sacrebleus_search_for_every_option(options, segment):
    hyp, refs = segment
    check_alignment(hyp, refs, options)


@relaxed
@given(hyp=st.lists(st.sampled_from("abcde"), max_size=30),
       ref=st.lists(st.sampled_from("abcdf"), max_size=30))
def test_the_oracles_search_counts_what_sacrebleu_counts(hyp, ref):
    """sacrebleu_search drives sacreBLEU's rounds as its translation_edit_rate does."""
    assert sacrebleu_search(hyp, ref)[0] == lib_ter.translation_edit_rate(hyp, ref)[0]


@pytest.mark.parametrize("length,vocabulary", [(40, 8), (90, 30), (140, 500)])
def test_long_reordered_segments(length, vocabulary):
    """Many shift rounds, the candidate limit (the search stops without its last best
    shift), the widened beam of very unequal lengths."""
    pairs = shuffled_pairs(length, 2 if length < 100 else 1, length, vocabulary)
    pairs += [("a " * 3, "a b " * 60), ("a b " * 60, "b")]
    shifted = 0
    for hyp, ref in pairs:  # the reference backwards first: the second one is the best
        shifted += len(check_alignment(hyp, [" ".join(ref.split()[::-1]), ref], {}).shifts)
    assert shifted > 0


def test_a_reordering_is_one_shift_and_nothing_else():
    alignment = check_alignment("on the mat the cat sat", ["the cat sat on the mat"], {})
    assert [(s.words, s.start, s.to, s.origin) for s in alignment.shifts] == [
        (("on", "the", "mat"), 0, 3, (0, 1, 2))]
    assert alignment.count("match") == 6 and alignment.num_edits == 1


@pytest.mark.parametrize("hyp,refs", [("", ["a b"]), ("a b", [""]), ("", [""]), ("a b", ["", "b"]),
                                      ("x y", ["a b", "x z", "z y", "x y z"])])
def test_empty_sides_and_ties(hyp, refs):
    """An empty hypothesis is all insertions, an empty reference all deletions; among
    references with as few edits, the first is the one counted."""
    check_alignment(hyp, refs, {})


# -- the API around it -----------------------------------------------------------------

@pytest.mark.parametrize("backend", BACKENDS)
def test_alignments_of_a_batch_are_those_of_each_sentence(backend):
    pairs = shuffled_pairs(7, 6, 30, 10)
    hyps = [hyp for hyp, _ in pairs]
    refs = [[ref, hyp[::-1]] for hyp, ref in pairs]
    metric = TER(backend=backend)
    batch = metric.alignments(hyps, refs)
    assert batch == [metric.sentence_alignment(h, r) for h, r in zip(hyps, refs)]
    assert [a.num_edits / a.ref_length * 100 for a in batch] == metric.sentence_scores(hyps, refs)
    if backend == "native":
        assert TER(backend="native", threads=3).alignments(hyps, refs) == batch


def test_the_structure_is_plain_data():
    alignment = TER().sentence_alignment("b a c", ["a b d"])
    data = json.loads(json.dumps(alignment.to_dict()))
    assert data["num_edits"] == alignment.num_edits == 2
    assert data["shifts"] == [{"words": ["b"], "start": 0, "to": 1, "origin": [0]}]
    assert [e["operation"] for e in data["edits"]] == ["match", "match", "substitute"]
    with pytest.raises(AttributeError):
        alignment.reference_index = 3  # frozen


@pytest.mark.parametrize("backend", BACKENDS)
def test_bad_arguments(backend):
    metric = TER(backend=backend)
    with pytest.raises(TypeError, match="hypothesis must be a string"):
        metric.sentence_alignment(None, ["a"])
    with pytest.raises(TypeError, match="references must be a sequence of strings"):
        metric.sentence_alignment("a", "a")
    with pytest.raises(ValueError, match=r"references\[0\] is empty"):
        metric.sentence_alignment("a", [])
    with pytest.raises(TypeError, match=r"references\[0\]\[1\] must be a string"):
        metric.sentence_alignment("a", ["a", None])
    with pytest.raises(ValueError, match="2 hypotheses but 1 reference lists"):
        metric.alignments(["a", "b"], [["a"]])


# -- WMT21 -------------------------------------------------------------------------------

#: (pair, options): into English with its references, English into German (three
#: references) and into Chinese and Japanese (Asian support)
WMT21_CASES = [("de-en", {}), ("de-en", {"normalized": True}), ("en-de", {"case_sensitive": True}),
               ("en-de", {"no_punct": True}), ("en-zh", {"normalized": True, "asian_support": True}),
               ("en-ja", {"no_punct": True, "asian_support": True})]
WMT21_SEGMENTS = 12


def wmt21_sample(pair: str) -> tuple[list[str], list[list[str]]]:
    """The first segments of the pair's first system, with every reference."""
    root = wmt21_dir()
    target = pair.split("-")[1]
    hyp_file = sorted((root / "system-outputs").glob(f"newstest2021.{pair}.hyp.*.{target}"))[0]
    ref_files = sorted((root / "references").glob(f"newstest2021.{pair}.ref.*.{target}"))

    def lines(path):
        with open(path, encoding="utf-8", newline="\n") as handle:
            return [handle.readline().rstrip("\n") for _ in range(WMT21_SEGMENTS)]

    references = [lines(path) for path in ref_files]
    return lines(hyp_file), [list(refs) for refs in zip(*references)]


@needs_wmt21
@pytest.mark.parametrize("pair,options", WMT21_CASES)
def test_wmt21_sentences(pair, options):
    hyps, refs = wmt21_sample(pair)
    assert len(refs[0]) >= 1
    for hyp, segment_refs in zip(hyps, refs):
        check_alignment(hyp, segment_refs, options)
