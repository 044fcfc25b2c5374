"""The Python API against sacreBLEU 2.6.0 on generated inputs, on every backend."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import truebleu
from strategies import corpus, segments

sacrebleu = pytest.importorskip("sacrebleu")

NATIVE_TOKENIZERS = ["13a", "intl", "zh", "char", "none"]
SMOOTHING = [("exp", None), ("none", None), ("floor", None), ("floor", 0.3),
             ("add-k", None), ("add-k", 2), ("add-k", 0.5)]

relaxed = settings(max_examples=60, deadline=None,
                   suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                          HealthCheck.function_scoped_fixture])


def same_score(ours, theirs) -> None:
    """Bit-identical: every field, compared with == (floats included)."""
    assert ours.score == theirs.score
    assert list(ours.counts) == list(theirs.counts)
    assert list(ours.totals) == list(theirs.totals)
    assert ours.precisions == theirs.precisions
    assert ours.bp == theirs.bp
    assert (ours.sys_len, ours.ref_len) == (theirs.sys_len, theirs.ref_len)
    assert ours.ratio == theirs.ratio
    assert str(ours) == str(theirs)


def same_signature(ours, theirs, order: int = 4) -> None:
    """sacreBLEU's signature, but for truebleu's version and the order it leaves out."""
    for short in (False, True):
        expected = theirs.format(short)
        version_key = "v" if short else "version"
        extra = f"{'N' if short else 'order'}:{order}|" if order != 4 else ""
        expected = expected.replace(f"{version_key}:{sacrebleu.__version__}",
                                    f"{extra}{version_key}:truebleu-{truebleu.__version__}")
        assert ours.format(short) == expected


@relaxed
@given(data=corpus(max_refs=4, allow_none=True), tok=st.sampled_from(NATIVE_TOKENIZERS),
       smooth=st.sampled_from(SMOOTHING), lowercase=st.booleans(), eff=st.booleans(),
       order=st.sampled_from([4, 4, 1, 2, 3, 5, 6]))
def test_corpus_score_matches_sacrebleu(backend, data, tok, smooth, lowercase, eff, order):
    hyps, refs = data
    kwargs = dict(tokenize=tok, smooth_method=smooth[0], smooth_value=smooth[1],
                  lowercase=lowercase, effective_order=eff, max_ngram_order=order)
    ours = truebleu.BLEU(**kwargs, backend=backend)
    theirs = sacrebleu.BLEU(**kwargs)
    same_score(ours.corpus_score(hyps, refs), theirs.corpus_score(hyps, refs))
    same_signature(ours.get_signature(), theirs.get_signature(), order)


@relaxed
@given(hyp=segments(), refs=st.lists(segments(), min_size=1, max_size=4),
       tok=st.sampled_from(NATIVE_TOKENIZERS), smooth=st.sampled_from(SMOOTHING),
       lowercase=st.booleans(), eff=st.booleans())
def test_sentence_bleu_matches_sacrebleu(backend, hyp, refs, tok, smooth, lowercase, eff):
    kwargs = dict(smooth_method=smooth[0], smooth_value=smooth[1], lowercase=lowercase,
                  tokenize=tok, use_effective_order=eff)
    same_score(truebleu.sentence_bleu(hyp, refs, backend=backend, **kwargs),
               sacrebleu.sentence_bleu(hyp, refs, **kwargs))


@relaxed
@given(data=corpus(max_refs=3), smooth=st.sampled_from(SMOOTHING), force=st.booleans())
def test_corpus_bleu_function_matches_sacrebleu(backend, data, smooth, force):
    hyps, refs = data
    kwargs = dict(smooth_method=smooth[0], smooth_value=smooth[1], force=force)
    same_score(truebleu.corpus_bleu(hyps, refs, backend=backend, **kwargs),
               sacrebleu.corpus_bleu(hyps, refs, **kwargs))


@relaxed
@given(data=corpus(max_refs=2))
def test_raw_corpus_bleu_matches_sacrebleu(data):
    hyps, refs = data
    same_score(truebleu.raw_corpus_bleu(hyps, refs), sacrebleu.raw_corpus_bleu(hyps, refs))


def test_reference_cache_scores_many_systems(backend):
    refs = [["the cat is on the mat", "a dog barks"], ["there is a cat on the mat", "dogs bark"]]
    systems = [["the cat the cat on the mat", "a dog barks"], ["on the mat", "a dog"], ["", ""]]
    ours = truebleu.BLEU(references=refs, backend=backend)
    theirs = sacrebleu.BLEU(references=refs)
    for system in systems:
        same_score(ours.corpus_score(system, None), theirs.corpus_score(system, None))
        same_signature(ours.get_signature(), theirs.get_signature())


@pytest.mark.parametrize("trg_lang,expected", [("zh", "zh"), ("ja", "ja-mecab"), ("ko", "ko-mecab"),
                                               ("de", "13a"), ("", "13a")])
def test_language_defaults(trg_lang, expected):
    if expected.endswith("mecab"):
        pytest.importorskip("MeCab" if expected == "ja-mecab" else "mecab_ko")
    metric = truebleu.BLEU(trg_lang=trg_lang)
    assert metric.tokenizer.name == expected
    assert metric.tokenizer_signature == sacrebleu.BLEU(trg_lang=trg_lang).tokenizer_signature


@pytest.mark.parametrize("tok", ["ja-mecab", "ko-mecab"])
def test_mecab_scores(tok, backend):
    pytest.importorskip("MeCab" if tok == "ja-mecab" else "mecab_ko")
    hyps = ["猫がマットの上に座っている。", "今日は良い天気です", "안녕하세요 세계"]
    refs = [["猫はマットの上に座っています。", "今日はいい天気ですね", "안녕 세계"]]
    same_score(truebleu.corpus_bleu(hyps, refs, tokenize=tok, backend=backend),
               sacrebleu.corpus_bleu(hyps, refs, tokenize=tok))


def test_seed_example_sentence_bleu():
    """The worked example of the seed documents: p = 5/7, 4/6, 2/5, 1/4."""
    score = truebleu.sentence_bleu("the cat the cat on the mat",
                                   ["the cat is on the mat", "there is a cat on the mat"])
    assert score.counts == [5, 4, 2, 1] and score.totals == [7, 6, 5, 4]
    assert round(score.score, 2) == 46.71


def test_inputs_are_not_mutated(backend):
    hyps = ["a b c", "d e"]
    refs = [["a b c", "d e f"], ["a c", None]]
    hyps_copy, refs_copy = [*hyps], [list(r) for r in refs]
    truebleu.corpus_bleu(hyps, refs, backend=backend, smooth_method="add-k")
    assert hyps == hyps_copy and refs == refs_copy


class TestBadArguments:
    def test_unknown_smoothing(self):
        with pytest.raises(ValueError, match="smooth_method"):
            truebleu.BLEU(smooth_method="laplace")

    def test_bad_order(self):
        with pytest.raises(ValueError, match="max_ngram_order"):
            truebleu.BLEU(max_ngram_order=0)

    def test_bad_smooth_value(self):
        with pytest.raises(TypeError, match="smooth_value"):
            truebleu.BLEU(smooth_method="floor", smooth_value="0.1")

    def test_hypotheses_must_be_strings(self):
        with pytest.raises(TypeError, match="hypotheses"):
            truebleu.corpus_bleu("a string", [["a"]])
        with pytest.raises(TypeError, match=r"hypotheses\[1\]"):
            truebleu.corpus_bleu(["a", 3], [["a", "b"]])

    def test_references_must_be_streams(self):
        with pytest.raises(TypeError, match="references"):
            truebleu.corpus_bleu(["a"], "a")
        with pytest.raises(TypeError, match=r"references\[0\]"):
            truebleu.corpus_bleu(["a"], ["a"])

    def test_length_mismatch_is_an_error_not_a_truncation(self):
        with pytest.raises(ValueError, match="2 hypotheses but 1 reference segments"):
            truebleu.corpus_bleu(["a", "b"], [["a"]])
        with pytest.raises(ValueError, match="differ in length"):
            truebleu.corpus_bleu(["a", "b"], [["a", "b"], ["a"]])

    def test_segment_without_any_reference(self):
        with pytest.raises(ValueError, match="segment 1 has no reference"):
            truebleu.corpus_bleu(["a", "b"], [["a", None]])

    def test_no_references_at_all(self):
        with pytest.raises(ValueError, match="no references"):
            truebleu.BLEU().corpus_score(["a"], None)

    def test_signature_before_scoring(self):
        with pytest.raises(ValueError, match="Number of references unknown"):
            truebleu.BLEU().get_signature()

    def test_unknown_backend(self):
        with pytest.raises(ValueError, match="backend"):
            truebleu.BLEU(backend="fortran")


def test_signature_adds_what_sacrebleu_leaves_out():
    metric = truebleu.BLEU(max_ngram_order=3, smooth_method="floor", smooth_value=0.125)
    metric.corpus_score(["a b c"], [["a b c"]])
    sig = metric.get_signature()
    assert sig.format() == ("nrefs:1|case:mixed|eff:no|tok:13a|smooth:floor[0.125]|order:3|"
                            f"version:truebleu-{truebleu.__version__}")
    assert sig.format(short=True) == ("#:1|c:mixed|e:no|tok:13a|s:floor[0.125]|N:3|"
                                      f"v:truebleu-{truebleu.__version__}")


class TestDialectArgument:
    HYPS = ["the cat the cat on the mat", "It is raining , today ."]
    REFS = [["the cat is on the mat", "It rains today."], ["there is a cat on the mat", "Rain today."]]

    def test_nltk_dialect_through_corpus_bleu(self):
        nltk_bleu = pytest.importorskip("nltk.translate.bleu_score")
        ours = truebleu.corpus_bleu(self.HYPS, self.REFS, dialect="nltk")
        refs = [[r.split() for r in seg] for seg in zip(*self.REFS)]
        assert ours.score == nltk_bleu.corpus_bleu(refs, [h.split() for h in self.HYPS])
        assert "dialect:nltk" in ours.signature

    def test_nltk_dialect_through_sentence_bleu(self):
        nltk_bleu = pytest.importorskip("nltk.translate.bleu_score")
        refs = [self.REFS[0][0], self.REFS[1][0]]
        ours = truebleu.sentence_bleu(self.HYPS[0], refs, dialect="nltk", weights=(0.5, 0.5))
        assert ours.score == nltk_bleu.sentence_bleu([r.split() for r in refs],
                                                     self.HYPS[0].split(), weights=(0.5, 0.5))

    def test_sacrebleu_options_do_not_leak_into_dialects(self):
        with pytest.raises(ValueError, match="lowercase do not apply to dialect 'nltk'"):
            truebleu.corpus_bleu(self.HYPS, self.REFS, dialect="nltk", lowercase=True)

    def test_unknown_dialect(self):
        with pytest.raises(ValueError, match="dialect"):
            truebleu.corpus_bleu(self.HYPS, self.REFS, dialect="bleu.pl")


@relaxed
@given(pairs=st.lists(st.tuples(segments(), st.lists(segments(), min_size=1, max_size=3)),
                      min_size=1, max_size=8),
       smooth=st.sampled_from(SMOOTHING), eff=st.booleans())
def test_batched_sentence_bleu_is_each_single_call(backend, pairs, smooth, eff):
    hyps = [h for h, _ in pairs]
    refs = [r for _, r in pairs]
    kwargs = dict(smooth_method=smooth[0], smooth_value=smooth[1], use_effective_order=eff)
    batch = truebleu.sentence_bleu(hyps, refs, backend=backend, **kwargs)
    floats = truebleu.sentence_scores(hyps, refs, backend=backend, **kwargs)
    assert len(batch) == len(floats) == len(pairs)
    for (hyp, hyp_refs), ours, value in zip(pairs, batch, floats):
        theirs = sacrebleu.sentence_bleu(hyp, hyp_refs, **kwargs)
        same_score(ours, theirs)
        assert value == theirs.score


def test_batched_sentence_bleu_arguments():
    assert truebleu.sentence_bleu([], []) == []
    with pytest.raises(ValueError, match="2 hypotheses but 1 reference lists"):
        truebleu.sentence_bleu(["a", "b"], [["a"]])
    assert truebleu.sentence_bleu(["a b c d"], ["a b c d"])[0].score == \
        sacrebleu.sentence_bleu("a b c d", ["a b c d"]).score


def test_corpus_bleu_reuses_prepared_references_only_when_equal(backend):
    refs = [["the cat is on the mat", "a dog barks"], ["there is a cat", "dogs bark"]]
    systems = [["the cat the cat on the mat", "a dog barks"], ["on the mat", "a dog"]]
    for system in systems:  # same reference lists: prepared once, reused
        same_score(truebleu.corpus_bleu(system, refs, backend=backend),
                   sacrebleu.corpus_bleu(system, refs))
    refs[1][0] = "the cat the cat on the mat"  # changed in place: must be noticed
    same_score(truebleu.corpus_bleu(systems[0], refs, backend=backend),
               sacrebleu.corpus_bleu(systems[0], refs))
    same_score(truebleu.corpus_bleu(systems[0], refs, backend=backend, lowercase=True),
               sacrebleu.corpus_bleu(systems[0], refs, lowercase=True))
    refs.append(["a third reference", None])  # one more stream
    same_score(truebleu.corpus_bleu(systems[0], refs, backend=backend),
               sacrebleu.corpus_bleu(systems[0], refs))
