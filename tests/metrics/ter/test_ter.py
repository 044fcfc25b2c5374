"""TER against sacreBLEU 2.6.0 on generated inputs, on every backend.

sacreBLEU is the oracle for the tokenizer (every option), the segment
statistics (several, missing and empty references, Unicode, long reordered
segments that drive the shift search to its limits), the scores, the
signatures, the bootstrap confidence interval and the function API.
"""

from __future__ import annotations

import json
import random
from array import array

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import truebleu
from strategies import PIECES, SEPARATORS
from truebleu.metrics.ter import TER, TERScore, TERSignature
from truebleu.metrics.ter import spec as _reference_ter
from truebleu.tokenizers import get_tokenizer
from truebleu.tokenizers.tokenizer_ter import TercomTokenizer

sacrebleu = pytest.importorskip("sacrebleu")
from sacrebleu.metrics import TER as SacreTER  # noqa: E402
from sacrebleu.tokenizers.tokenizer_ter import TercomTokenizer as SacreTercom  # noqa: E402

OPTIONS = ["normalized", "no_punct", "asian_support", "case_sensitive"]
ALL_OPTIONS = [dict(zip(OPTIONS, (bits >> k & 1 == 1 for k in range(4)))) for bits in range(16)]

# what tercom's rules look at, beyond the shared pieces
TER_PIECES = [
    "'s", "John's", "it's", "'S", "3-4", "a-b", "1.5", "x.", ".y", ",", "?", ":", ";", "!", '"',
    "(", ")", "&quot;", "&amp;quot;", "\n-", "-\n", "\n", "中文", "漢字", "\u3400", "\u4dbf",
    "\u31c0", "\u2e80", "\u3300", "\uf900", "\ufe30", "\u3200", "\u3f22", "\u3f23", "ひらがな",
    "カタカナ", "\u31f0", "、", "。", "〈", "】", "〔", "〟", "｡", "･", "・", "．", "，", "？",
    "：", "；", "！", "＂", "（", "）", "ｶﾀ",
]
relaxed = settings(max_examples=30, deadline=None,
                   suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                          HealthCheck.function_scoped_fixture])

piece = st.one_of(st.sampled_from(PIECES), st.sampled_from(TER_PIECES), st.text(max_size=3))


@st.composite
def ter_segments(draw, max_pieces: int = 10) -> str:
    parts = draw(st.lists(piece, max_size=max_pieces))
    seps = draw(st.lists(st.sampled_from(SEPARATORS), min_size=len(parts), max_size=len(parts)))
    return "".join(p + s for p, s in zip(parts, seps))


@st.composite
def ter_corpus(draw, max_refs: int = 3, max_segments: int = 4):
    """(hypotheses, reference streams) with overlapping words, some None and empty references."""
    n_seg = draw(st.integers(1, max_segments))
    n_refs = draw(st.integers(1, max_refs))
    refs = [[draw(ter_segments()) for _ in range(n_seg)] for _ in range(n_refs)]
    hyps = []
    for i in range(n_seg):
        if draw(st.booleans()):  # a reordering of a reference: shifts pay off
            words = refs[0][i].split()
            hyps.append(" ".join(draw(st.permutations(words))))
        else:
            hyps.append(draw(ter_segments()))
    for i in range(n_seg):
        for k in range(1, n_refs):
            if draw(st.integers(0, 4)) == 0:
                refs[k][i] = None
    return hyps, refs


def same_score(ours: TERScore, theirs) -> None:
    assert ours.score == theirs.score
    assert ours.num_edits == theirs.num_edits
    assert ours.ref_length == theirs.ref_length
    assert str(ours) == str(theirs)
    assert ours.format(width=4) == theirs.format(width=4)


def expected_signature(theirs, short: bool = False) -> str:
    text = theirs.format(short)
    version_key = "v" if short else "version"
    return text.replace(f"{version_key}:{sacrebleu.__version__}",
                        f"{version_key}:truebleu-{truebleu.__version__}")


# -- tokenizer ---------------------------------------------------------------

@relaxed
@given(line=ter_segments(max_pieces=20))
def test_tokenizer_matches_sacrebleu_for_every_option(line):
    for options in ALL_OPTIONS:
        assert TercomTokenizer(**options)(line) == SacreTercom(**options)(line), options


def test_tokenizer_on_every_asian_code_point():
    """Each code point of the CJK blocks alone, between words, with every option."""
    lines = [f"a{chr(c)}b {chr(c)}" for c in range(0x2E80, 0x4E10)]
    lines += [f"x{chr(c)}" for c in range(0xF900, 0xFFF0)]
    for options in ALL_OPTIONS:
        if not (options["normalized"] or options["no_punct"]) or options["case_sensitive"]:
            continue
        ours, theirs = TercomTokenizer(**options), SacreTercom(**options)
        assert [ours(line) for line in lines] == [theirs(line) for line in lines], options


def test_references_are_tokenized_twice_as_in_sacrebleu(backend):
    """sacreBLEU's TER tokenizes references twice; with normalized that shows."""
    hyps, refs = ["it 's , fine"], [["It's, fine"]]
    ours, theirs = TER(normalized=True, backend=backend), SacreTER(normalized=True)
    assert theirs.corpus_score(hyps, refs).score == 0.0  # "it's ," then "it 's ,"
    same_score(ours.corpus_score(hyps, refs), theirs.corpus_score(hyps, refs))


def test_tokenizer_registry_and_signature():
    tok = get_tokenizer("tercom")
    assert isinstance(tok, TercomTokenizer) and tok.signature() == "tercom"
    assert "tercom" not in truebleu.BLEU.TOKENIZERS  # not a BLEU tokenizer
    assert tok("Hello ,  World") == "hello , world"
    assert TercomTokenizer(case_sensitive=True)("") == ""


# -- statistics and scores ---------------------------------------------------

@relaxed
@given(data=ter_corpus(), options=st.sampled_from(ALL_OPTIONS))
def test_corpus_matches_sacrebleu(backend, data, options):
    hyps, refs = data
    theirs = SacreTER(**options)
    ours = TER(**options, backend=backend)
    expected_rows = [[float(x) for x in row] for row in theirs._extract_corpus_statistics(hyps, refs)]
    assert list(ours.corpus_statistics(hyps, refs).rows()) == expected_rows
    same_score(ours.corpus_score(hyps, refs), theirs.corpus_score(hyps, refs))
    for short in (False, True):
        assert ours.get_signature().format(short) == expected_signature(theirs.get_signature(), short)


@relaxed
@given(hyp=ter_segments(), refs=st.lists(ter_segments(), min_size=1, max_size=3),
       options=st.sampled_from(ALL_OPTIONS))
def test_sentence_matches_sacrebleu(backend, hyp, refs, options):
    same_score(TER(**options, backend=backend).sentence_score(hyp, refs),
               SacreTER(**options).sentence_score(hyp, refs))
    same_score(truebleu.sentence_ter(hyp, refs, backend=backend, **options),
               sacrebleu.sentence_ter(hyp, refs, **options))


def shuffled_pairs(seed: int, count: int, length: int, vocabulary: int):
    """Long references and hypotheses made of their blocks moved around (and edited)."""
    rng = random.Random(seed)
    pairs = []
    for _ in range(count):
        ref = [f"w{rng.randrange(vocabulary)}" for _ in range(rng.randint(length // 2, length))]
        cuts = sorted(rng.sample(range(1, len(ref)), k=min(len(ref) - 1, rng.randint(1, 8))))
        blocks = [ref[a:b] for a, b in zip([0, *cuts], [*cuts, len(ref)])]
        rng.shuffle(blocks)
        hyp = [word for block in blocks for word in block]
        for _ in range(rng.randint(0, len(hyp) // 5)):
            hyp[rng.randrange(len(hyp))] = f"x{rng.randrange(vocabulary)}"
        if rng.random() < 0.3:
            hyp = hyp[: rng.randint(1, len(hyp))]
        pairs.append((" ".join(hyp), " ".join(ref)))
    return pairs


@pytest.mark.parametrize("length,vocabulary", [(40, 8), (90, 30), (140, 500)])
def test_long_reordered_segments_match_sacrebleu(backend, length, vocabulary):
    """Many shift rounds, the candidate limit, the widened beam of unequal lengths."""
    pairs = shuffled_pairs(length, 4, length, vocabulary)
    pairs.append(("a " * 3, "a b " * 60))      # reference 40x longer: widened beam
    pairs.append(("a b " * 60, "b"))           # hypothesis much longer
    hyps = [hyp for hyp, _ in pairs]
    refs = [[ref for _, ref in pairs]]
    theirs = SacreTER()
    expected = [[float(x) for x in row] for row in theirs._extract_corpus_statistics(hyps, refs)]
    assert list(TER(backend=backend).corpus_statistics(hyps, refs).rows()) == expected


def test_candidate_limit_is_reached_and_matches():
    """A segment whose search stops at MAX_SHIFT_CANDIDATES (checked in the spec)."""
    rng = random.Random(3)
    hyp_words = rng.choices("ab", k=50)
    ref_words = rng.choices("ab", k=50)
    distance = _reference_ter.BeamEditDistance(ref_words, len(hyp_words))
    *_, checked = _reference_ter.best_shift(hyp_words, ref_words, distance, 0)
    assert checked >= _reference_ter.MAX_SHIFT_CANDIDATES
    from sacrebleu.metrics.lib_ter import translation_edit_rate
    assert _reference_ter.translation_edit_rate(hyp_words, ref_words) == \
        translation_edit_rate(hyp_words, ref_words)


def test_empty_segments_and_references(backend):
    hyps = ["", "a b", "", "a b c"]
    refs = [["", "", "x y", "a b c"], [None, "b a", None, ""]]
    theirs = SacreTER()
    ours = TER(backend=backend)
    expected = [[float(x) for x in row] for row in theirs._extract_corpus_statistics(hyps, refs)]
    assert list(ours.corpus_statistics(hyps, refs).rows()) == expected
    same_score(ours.corpus_score(hyps, refs), theirs.corpus_score(hyps, refs))
    assert str(ours.get_signature()) == expected_signature(theirs.get_signature())
    for hyp, ref in [("", ""), ("a", ""), ("", "a")]:
        same_score(ours.sentence_score(hyp, [ref]), theirs.sentence_score(hyp, [ref]))


def test_averaged_reference_lengths_sum_like_sacrebleu(backend):
    """Non-integer average lengths: the corpus sum is sacreBLEU's += in segment order."""
    rng = random.Random(5)
    words = ["a", "b", "c", "d", "e"]
    n = 300
    hyps = [" ".join(rng.choices(words, k=rng.randint(0, 9))) for _ in range(n)]
    refs = [[" ".join(rng.choices(words, k=rng.randint(0, 11))) for _ in range(n)]
            for _ in range(3)]
    ours, theirs = TER(backend=backend).corpus_score(hyps, refs), SacreTER().corpus_score(hyps, refs)
    same_score(ours, theirs)


def test_json_format_and_reference_cache(backend):
    hyps = ["the cat sat on the mat", "a dog"]
    refs = [["the cat sat on a mat", "the dog"]]
    theirs = SacreTER(references=refs)
    ours = TER(references=refs, backend=backend)
    t, o = theirs.corpus_score(hyps, None), ours.corpus_score(hyps)
    same_score(o, t)
    sig_t, sig_o = theirs.get_signature(), ours.get_signature()
    assert isinstance(sig_o, TERSignature)
    assert json.loads(o.format(signature=str(sig_o), is_json=True)) == \
        json.loads(t.format(signature=expected_signature(sig_t), is_json=True))
    assert ours.score_from_statistics([3.0, 12.0]).score == theirs._compute_score_from_stats([3, 12]).score
    assert ours._compute_score_from_stats([0.0, 0.0]).score == 0.0


def test_bootstrap_confidence_matches_sacrebleu(backend, monkeypatch):
    monkeypatch.delenv("SACREBLEU_SEED", raising=False)
    rng = random.Random(9)
    words = "the a cat dog sat on mat big".split()
    hyps = [" ".join(rng.choices(words, k=rng.randint(1, 8))) for _ in range(60)]
    refs = [[" ".join(rng.choices(words, k=rng.randint(1, 8))) for _ in range(60)] for _ in range(2)]
    theirs = SacreTER()
    ours = TER(backend=backend)
    t = theirs.corpus_score(hyps, refs, n_bootstrap=200)
    o = ours.corpus_score(hyps, refs, n_bootstrap=200)
    assert (o._mean, o._ci) == (t._mean, t._ci)
    assert str(o) == str(t)
    assert str(ours.get_signature()) == expected_signature(theirs.get_signature())


def test_corpus_ter_function_matches_sacrebleu(backend):
    hyps = ["The cat, it's here.", "zwei  Wörter"]
    refs = [["the cat is here .", "zwei Wörter"], ["Here is the cat", None]]
    for options in ALL_OPTIONS[::5]:
        same_score(truebleu.corpus_ter(hyps, refs, backend=backend, **options),
                   sacrebleu.corpus_ter(hyps, refs, **options))


def test_batched_sentence_ter_equals_single_calls(backend):
    pairs = shuffled_pairs(11, 6, 30, 20)
    hyps = [hyp for hyp, _ in pairs]
    refs = [[ref, ref[::-1]] if i % 2 else ref for i, (_, ref) in enumerate(pairs)]
    batched = truebleu.sentence_ter(hyps, refs, backend=backend)
    singles = [truebleu.sentence_ter(h, [r] if isinstance(r, str) else r, backend=backend).score
               for h, r in zip(hyps, refs)]
    assert batched == singles
    assert truebleu.sentence_ter([], [], backend=backend) == []


def test_backends_agree_and_threads_do_not_change_rows():
    pytest.importorskip("truebleu.metrics.bleu.native")
    pairs = shuffled_pairs(21, 30, 50, 15)
    hyps = [hyp for hyp, _ in pairs]
    refs = [[ref for _, ref in pairs], [hyp[::-1] for hyp in hyps]]
    python_rows = TER(backend="python").corpus_statistics(hyps, refs)
    for threads in (1, 2, 5):
        assert TER(backend="native", threads=threads).corpus_statistics(hyps, refs) == python_rows


def test_native_core_keeps_words_with_lone_surrogates_apart():
    core = pytest.importorskip("truebleu._native_core")
    out = array("d", bytes(32))
    core.ter_statistics(["\ud800 a", "b \udfff"], [["\ud801 a"], ["b \udfff"]], 2, out)
    assert list(out) == [1.0, 2.0, 0.0, 2.0]


def test_errors(backend):
    ter = TER(backend=backend)
    with pytest.raises(ValueError, match="2 hypotheses but 1"):
        ter.corpus_statistics(["a", "b"], [["a"]])
    with pytest.raises(TypeError, match=r"hypotheses\[1\]"):
        ter.corpus_statistics(["a", 3], [["a", "b"]])
    with pytest.raises(ValueError, match="no references"):
        ter.corpus_score(["a"])
    with pytest.raises(ValueError, match="Number of references unknown"):
        TER().get_signature()
    with pytest.raises(ValueError, match="threads"):
        TER(threads=0)
    with pytest.raises(ValueError, match="segment 0 has no reference"):
        ter.corpus_statistics(["a"], [[None], [None]])
