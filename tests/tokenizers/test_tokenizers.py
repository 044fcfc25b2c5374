"""Every tokenizer against sacreBLEU 2.6.0's, on generated and hand-picked text."""

from __future__ import annotations

import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from spm_models import train_tiny_spm
from strategies import segments
from truebleu.tokenizers import SPM_TOKENIZERS, TOKENIZERS, get_tokenizer

sacrebleu_bleu = pytest.importorskip("sacrebleu.metrics.bleu")


def oracle(name: str):
    return sacrebleu_bleu._get_tokenizer(name)()


TRICKY = [
    "", " ", "a.", "a. ", "3.5.", "1,000,000.", "end.", "U.S.A.", "x-ray", "12-3", "a-\nb",
    "&quot;hi&quot; &amp; &lt;b&gt; &apos;", "<skipped> words", "don't", "«quoted»",
    "猫坐在垫子上。", "２０２１年", "Hello,world!How are you?", "1.", "$5.00.", "(1-2)",
    "\u2001\u2a6d\u2a6e\u2000", "\u2f80\u2f81\u2fa1\u2fa2", "𠀀𪛖", "e\u0301.", "٣.٤", "a\u00a0.b",
    "\r\nline\r", "tab\there", "\x1c\x1d\x1e\x1f\x85", "ΣΑΣ. ΟΔΟΣ,", "İI", "ǅ", "ß",
]


@pytest.mark.parametrize("name", ["13a", "intl", "zh", "char", "none"])
@pytest.mark.parametrize("text", TRICKY)
def test_tricky_inputs(name, text):
    assert get_tokenizer(name)(text) == oracle(name)(text)


@pytest.mark.parametrize("name", ["13a", "intl", "zh", "char", "none"])
@settings(max_examples=300, deadline=None)
@given(text=st.one_of(segments(), st.text()))
def test_generated_inputs(name, text):
    assert get_tokenizer(name)(text) == oracle(name)(text)


def test_zh_ranges_match_sacrebleu_for_every_code_point():
    from sacrebleu.tokenizers.tokenizer_zh import TokenizerZh

    from truebleu.tokenizers.tokenizer_zh import is_chinese_char

    ours = [c for c in range(sys.maxunicode + 1) if is_chinese_char(chr(c))]
    theirs = [c for c in range(sys.maxunicode + 1) if TokenizerZh._is_chinese_char(chr(c))]
    assert ours == theirs


@pytest.mark.parametrize("name", ["ja-mecab", "ko-mecab"])
def test_mecab_tokenizers(name):
    pytest.importorskip("MeCab" if name == "ja-mecab" else "mecab_ko")
    texts = ["猫が座っている。", "東京は日本の首都です", "안녕하세요, 세계!",
             "  mixed 日本語 and English. ", ""]
    ours, theirs = get_tokenizer(name), oracle(name)
    assert ours.signature() == theirs.signature()
    for text in texts:
        assert ours(text) == theirs(text)


@pytest.mark.parametrize("name", ["flores101", "flores200", "spm"])
def test_sentencepiece_from_cache_matches_sacrebleu(name, tmp_path, monkeypatch):
    from truebleu.tokenizers.tokenizer_spm import MODEL_FILES

    models = tmp_path / "models"
    models.mkdir()
    train_tiny_spm(models, MODEL_FILES[name][1])
    # both libraries look in the same cache folder; nothing is downloaded
    monkeypatch.setenv("SACREBLEU", str(tmp_path))
    monkeypatch.setenv("TRUEBLEU_CACHE", str(tmp_path / "empty"))
    import sacrebleu.tokenizers.tokenizer_spm as sacre_spm

    monkeypatch.setattr(sacre_spm, "SACREBLEU_DIR", str(tmp_path))
    ours, theirs = get_tokenizer(name), oracle(name)
    assert ours.signature() == theirs.signature()
    for text in ["the cat sat on the mat", "猫坐在垫子上", "", "unseen wörds ✓"]:
        assert ours(text) == theirs(text)


def test_sentencepiece_model_by_path(tmp_path):
    model = train_tiny_spm(tmp_path, "my.model")
    tok = get_tokenizer("flores200", spm_model=model)
    assert tok.signature() == "flores200"
    assert tok("the cat") != ""


def test_every_tokenizer_pickles_and_tokenizes_the_same_after(tmp_path):
    """A metric travels (accumulators, Spark tasks) with its tokenizer: MeCab's tagger and
    SentencePiece's processor are made again where it is unpickled."""
    import pickle

    model = train_tiny_spm(tmp_path, "my.model")
    text = "猫が座っている。 the cat, 3.5 sat -- 안녕하세요"
    for name in TOKENIZERS:
        if name in ("ja-mecab", "ko-mecab"):
            pytest.importorskip("MeCab" if name == "ja-mecab" else "mecab_ko")
        tok = get_tokenizer(name, spm_model=model) if name in SPM_TOKENIZERS else get_tokenizer(name)
        again = pickle.loads(pickle.dumps(tok))
        assert type(again) is type(tok) and again.signature() == tok.signature()
        assert again(text) == tok(text), name


def test_sentencepiece_missing_model_is_a_clear_error(tmp_path, monkeypatch):
    pytest.importorskip("sentencepiece")
    monkeypatch.setenv("SACREBLEU", str(tmp_path))
    monkeypatch.setenv("TRUEBLEU_CACHE", str(tmp_path))
    with pytest.raises(FileNotFoundError, match="sacrebleu_tokenizer_spm.model"):
        get_tokenizer("flores101")


def test_unknown_tokenizer():
    with pytest.raises(ValueError, match="unknown tokenizer"):
        get_tokenizer("moses")


def test_registry_names_match_sacrebleu():
    assert set(TOKENIZERS) == set(sacrebleu_bleu._TOKENIZERS)


@pytest.mark.parametrize("name,package", [("ja-mecab", "MeCab"), ("ko-mecab", "mecab_ko")])
def test_the_shared_tagger_gives_the_same_tokens_under_threads(name, package):
    """Every tokenizer of a setting shares one MeCab tagger: threads must not mix their lines."""
    from concurrent.futures import ThreadPoolExecutor

    pytest.importorskip(package)
    lines = [f"東京タワーは{i}メートルです 서울은 {i}번째 도시입니다" for i in range(2000)]
    alone = [get_tokenizer(name)(line) for line in lines]
    with ThreadPoolExecutor(8) as pool:
        together = list(pool.map(lambda line: get_tokenizer(name)(line + " "), lines))
    assert together == alone  # (the extra space misses the cache; MeCab strips it)
