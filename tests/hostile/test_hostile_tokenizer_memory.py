"""Many tokenizer objects do not keep memory (issue 26, item 8: "Tokenizers leak").

A tokenizing cache keyed by the tokenizer kept every tokenizer alive, each with its MeCab tagger
or SentencePiece model: 300 ``BLEU(tokenize="ja-mecab")`` objects scoring one sentence each grew
the process by 975 MB (sacreBLEU 2.6.0 by 969 MB). Now one tagger or model serves every tokenizer
of the same setting and the line caches hold no tokenizer, so 2,000 objects of each tokenizer
must grow the process by less than 50 MB. Each count is taken in its own interpreter.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from spm_models import train_tiny_spm

OBJECTS = 2000
LIMIT_MB = 50

MEASURE = r"""
import gc, json, sys
from truebleu.metrics import BLEU, TER

def rss_mb():
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * 4096 / 2**20

name, backend, model, n = sys.argv[1], sys.argv[2], sys.argv[3] or None, int(sys.argv[4])

def metric():
    if name == "tercom":
        return TER(backend=backend)
    return BLEU(tokenize=name, backend=backend, **({"spm_model": model} if model else {}))

metric().corpus_score(["warm up 東京"], [["warm up"]])  # imports, the first tagger or model
gc.collect()
start = rss_mb()
for i in range(n):
    metric().corpus_score([f"sentence number {i} 東京 안녕 {i * 7}"], [[f"sentence {i} 東京"]])
gc.collect()
print(json.dumps({"grew_mb": rss_mb() - start}))
"""


def _growth(name: str, backend: str, model: str = "") -> float:
    done = subprocess.run([sys.executable, "-c", MEASURE, name, backend, model, str(OBJECTS)],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    grew: float = json.loads(done.stdout)["grew_mb"]
    return grew


pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/statm")


@pytest.mark.parametrize("name", ["13a", "intl", "zh", "char", "none", "tercom"])
@pytest.mark.parametrize("backend", ["python", "native"])
def test_many_tokenizers_keep_no_memory(name, backend):
    if backend == "native":
        pytest.importorskip("truebleu._native_core", reason="compiled core not built")
    assert _growth(name, backend) < LIMIT_MB


@pytest.mark.parametrize("name,package", [("ja-mecab", "MeCab"), ("ko-mecab", "mecab_ko")])
def test_many_mecab_tokenizers_share_one_tagger(name, package):
    pytest.importorskip(package)
    assert _growth(name, "python") < LIMIT_MB


def test_many_sentencepiece_tokenizers_share_one_model(tmp_path):
    model = train_tiny_spm(tmp_path, "tiny.model")
    assert _growth("flores200", "python", str(model)) < LIMIT_MB


def test_one_tagger_and_one_model_per_setting(tmp_path):
    from truebleu.tokenizers import get_tokenizer

    pytest.importorskip("MeCab")
    assert get_tokenizer("ja-mecab")._tagger is get_tokenizer("ja-mecab")._tagger
    model = train_tiny_spm(tmp_path, "tiny.model")
    a, b = get_tokenizer("flores200", spm_model=model), get_tokenizer("flores101", spm_model=model)
    assert a._model == b._model and a("the cat sat") == b("the cat sat")
