"""The native core on all of WMT21 (../shared/data/wmt21): identical to Python and sacreBLEU.

Every system output goes through the native backend in full; the pure-Python
backend checks every 20th segment of every output, sacreBLEU every 100th.
"""

from __future__ import annotations

import logging
from collections import defaultdict
from pathlib import Path

import pytest

core = pytest.importorskip("truebleu._native_core", reason="compiled core not built")

from conftest import shared_dir  # noqa: E402
from truebleu.metrics.bleu.kernels import PythonKernel  # noqa: E402
from truebleu.metrics.bleu.native import NativeKernel  # noqa: E402
from truebleu.tokenizers import get_tokenizer  # noqa: E402

SHARED = shared_dir()
WMT21 = SHARED / "data" / "wmt21"
pytestmark = pytest.mark.skipif(not (WMT21 / "system-outputs").is_dir(),
                                reason=f"WMT21 data not found at {WMT21} (set TRUEBLEU_SHARED)")
logging.getLogger("sacrebleu").setLevel(logging.ERROR)

NATIVE, PYTHON = NativeKernel(), PythonKernel()
PY_STEP, SACRE_STEP = 20, 100


def read_lines(path: Path) -> list[str]:
    text = path.read_text(encoding="utf-8")
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def load_sets() -> dict[str, dict]:
    """{'newstest2021.de-en': {'refs': [paths], 'hyps': [paths], 'trg': 'en'}}"""
    sets: dict[str, dict] = defaultdict(lambda: {"refs": [], "hyps": []})
    for path in sorted((WMT21 / "references").iterdir()):
        name = path.name.split(".ref.")[0]
        sets[name]["refs"].append(path)
        sets[name]["trg"] = path.suffix[1:]
    for path in sorted((WMT21 / "system-outputs").iterdir()):
        sets[path.name.split(".hyp.")[0]]["hyps"].append(path)
    return dict(sets)


SETS = load_sets() if (WMT21 / "system-outputs").is_dir() else {}


@pytest.mark.parametrize("name", sorted(SETS))
def test_wmt21_all_outputs(name):
    sacrebleu = pytest.importorskip("sacrebleu")
    info = SETS[name]
    streams = [read_lines(p) for p in info["refs"]]
    n = len(streams[0])
    assert all(len(s) == n for s in streams)
    segments = [[s[i] for s in streams] for i in range(n)]
    tok_name = "zh" if info["trg"] == "zh" else "13a"
    tok = get_tokenizer(tok_name)
    lowercase = info["trg"] == "en"  # exercise lowercasing on the into-English sets
    prepared = NATIVE.prepare_references(segments, tok, lowercase, 4)
    py_rows = list(range(0, n, PY_STEP))
    py_prepared = PYTHON.prepare_references([segments[i] for i in py_rows], tok, lowercase, 4)
    sacre_rows = list(range(0, n, SACRE_STEP))
    bleu = sacrebleu.BLEU(tokenize=tok_name, lowercase=lowercase)
    checked = 0
    for path in info["hyps"]:
        hyps = read_lines(path)
        assert len(hyps) == n, path
        got = NATIVE.statistics(hyps, prepared, tok, lowercase, 4)
        # the cold path (a corpus_bleu without cached references): one pass, nothing kept
        assert NATIVE.stream_statistics(hyps, streams, tok, lowercase, 4) == (got, len(streams)), path
        want = PYTHON.statistics([hyps[i] for i in py_rows], py_prepared, tok, lowercase, 4)
        assert [got.row(i) for i in py_rows] == list(want.rows()), path
        oracle = bleu._extract_corpus_statistics([hyps[i] for i in sacre_rows],
                                                [[s[i] for i in sacre_rows] for s in streams])
        assert [got.row(i) for i in sacre_rows] == [list(map(int, r)) for r in oracle], path
        checked += len(hyps)
    assert checked == n * len(info["hyps"])


@pytest.mark.parametrize("tok_name", ["intl", "char", "none"])
def test_wmt21_other_tokenizers_and_threads(tok_name):
    info = SETS["newstest2021.en-zh" if tok_name == "char" else "newstest2021.de-en"]
    streams = [read_lines(p) for p in info["refs"]]
    segments = [list(refs) for refs in zip(*streams)]
    tok = get_tokenizer(tok_name)
    prepared = NATIVE.prepare_references(segments, tok, False, 4)
    py_rows = list(range(0, len(segments), PY_STEP))
    py_prepared = PYTHON.prepare_references([segments[i] for i in py_rows], tok, False, 4)
    for path in info["hyps"][:6]:
        hyps = read_lines(path)
        one = NATIVE.statistics(hyps, prepared, tok, False, 4, threads=1)
        assert one == NATIVE.statistics(hyps, prepared, tok, False, 4, threads=2)
        assert one == NATIVE.statistics(hyps, prepared, tok, False, 4, threads=8)
        want = PYTHON.statistics([hyps[i] for i in py_rows], py_prepared, tok, False, 4)
        assert [one.row(i) for i in py_rows] == list(want.rows()), path
