"""A tiny SentencePiece model trained here, for the tests of the SentencePiece tokenizers
(the real models are downloads; this module holds no tests)."""

from __future__ import annotations

import pytest


def train_tiny_spm(folder, filename):
    spm = pytest.importorskip("sentencepiece")
    corpus = folder / "corpus.txt"
    lines = [f"the cat {i} sat on the mat number {i * 7} and the dog barked" for i in range(300)]
    lines += ["猫坐在垫子上 これは日本語です 안녕하세요 세계"] * 20
    corpus.write_text("\n".join(lines), encoding="utf-8")
    prefix = folder / "tiny"
    spm.SentencePieceTrainer.train(input=str(corpus), model_prefix=str(prefix), vocab_size=60,
                                   character_coverage=1.0, minloglevel=2)
    model = folder / filename
    (folder / "tiny.model").rename(model)
    return model
