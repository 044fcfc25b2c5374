"""mteval's corpus-wide n-gram table is large enough, on a real corpus, to take the
huge-page allocation (``_native/runtime/large_table.c``: 2 MB or more, aligned, zeroed by
hand rather than by calloc). A block freed by one corpus' references is then handed again
to the next corpus' in the same process: the table must start empty every time, or the
second corpus finds the first one's n-grams in it.

Two corpora of different words, each about 25,000 reference words (the table: 262,144
slots of 16 bytes, 4 MB), scored one after the other, each against the specification, in a
child process with a time limit: a table left full of the previous corpus' keys makes the
probe for a free slot go round forever (a hang, not a failure, in this process).
"""

from __future__ import annotations

import gc
import random
import subprocess
import sys
from pathlib import Path

import pytest

from truebleu.core.kernels import backend_name
from truebleu.dialects import get_dialect

pytestmark = pytest.mark.skipif(backend_name() != "native", reason="the compiled core is not built")

SEGMENTS = 1_000
WORDS_PER_LINE = 25


def corpus(seed: int, vocabulary: list[str]) -> tuple[list[str], list[list[str]]]:
    """Hypotheses and one reference stream: references drawn from `vocabulary`, hypotheses
    half copied from their reference (many matches), half drawn freely."""
    rng = random.Random(seed)
    refs, hyps = [], []
    for _ in range(SEGMENTS):
        ref = rng.choices(vocabulary, k=WORDS_PER_LINE)
        refs.append(" ".join(ref))
        hyp = ref[:] if rng.random() < 0.5 else rng.choices(vocabulary, k=WORDS_PER_LINE)
        if rng.random() < 0.3:
            rng.shuffle(hyp)
        hyps.append(" ".join(hyp))
    return hyps, [refs]


def score_three_corpora() -> None:
    """Three corpora one after another in this process, each against the specification."""
    first_words = [f"w{i}" for i in range(300)]
    second_words = [f"v{i}" for i in range(40)]  # (fewer words: more repeated n-grams)
    for seed, words in [(1, first_words), (2, second_words), (3, first_words)]:
        hyps, references = corpus(seed, words)
        dialect = get_dialect("mteval-v13a")
        refs = [list(seg) for seg in zip(*references)]
        assert repr(dialect.counts(hyps, refs)) == repr(dialect.python_counts(hyps, refs))
        del dialect
        gc.collect()  # the references' table is freed before the next corpus'


def test_each_corpus_gets_an_empty_large_table():
    here = Path(__file__).parent
    script = (f"import sys; sys.path.insert(0, {str(here)!r}); "
              "import test_mteval_large_table as t; t.score_three_corpora()")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=120)  # (about 1 s: a hang, not a slow run, reaches it)
    assert done.returncode == 0, done.stderr[-3000:]
