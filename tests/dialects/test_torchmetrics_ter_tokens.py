"""The torchmetrics-ter dialect tokenizes in the core: ``ter_tokenize`` with
``reference=False`` (torchmetrics tokenizes each line once), one call for all lines.

The core's strings must be the tercom tokenizer's (the specification) on the line
without its trailing whitespace, for every option, on generated and hostile text;
and the dialect's statistics must be those of the Python backend.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from strategies import segments
from truebleu.dialects import get_dialect
from truebleu.dialects.torchmetrics_ter import tokenized_lines, tokenizer_of

core = pytest.importorskip("truebleu._native_core")

OPTIONS = [tuple(bits >> k & 1 == 1 for k in range(4)) for bits in range(16)]
HOSTILE = ["İstanbul's ΣΟΦΟΣ. 3-4", "ΑΣ, x&amp;lt;y\n-z", "\ud800 a.\udfff,b", "中文，測試。Ab\u3000",
           "e\u0301.é \u0301'S", "  ", "", "A. B. C.", "c. b a", "x &QUOT; y \t\n", "it's, 1,000.5$ "]
lines = st.lists(st.one_of(segments(), st.sampled_from(HOSTILE)), min_size=1, max_size=8)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(lines, st.sampled_from(OPTIONS))
def test_core_tokens_are_the_tokenizers(text, options):
    tokenizer = tokenizer_of(*options)
    assert tokenized_lines(text, tokenizer) == [tokenizer(line.rstrip()) for line in text]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(segments(), segments(), segments()), min_size=1, max_size=5),
       st.sampled_from(OPTIONS))
def test_statistics_are_the_python_backends(rows, options):
    hyps = [row[0] for row in rows]
    refs = [[row[1], row[2]] for row in rows]
    dialect = get_dialect("torchmetrics-ter", **dict(zip(
        ("normalize", "no_punctuation", "lowercase", "asian_support"), options)))
    native = dialect.statistics(hyps, refs)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("TRUEBLEU_BACKEND", "python")
        assert dialect.statistics(hyps, refs) == native


def test_the_dialect_tokenizes_in_one_core_call(monkeypatch):
    calls = []
    real = core.ter_tokenize

    def spy(lines, **options):
        calls.append(len(lines))
        return real(lines, **options)
    monkeypatch.setattr(core, "ter_tokenize", spy)
    monkeypatch.delenv("TRUEBLEU_BACKEND", raising=False)
    get_dialect("torchmetrics-ter").corpus_score(["a b c", "d e"], [["a c b", "d"], ["a", "e d"]])
    assert calls == [2, 4]
