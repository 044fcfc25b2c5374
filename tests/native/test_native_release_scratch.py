"""truebleu.release_scratch(): the scratch the core keeps between calls, given back on request.

BLEU's and chrF's workers, BLEU's grouping of items by their references and the string
gatherers keep their scratch between calls (runtime/spares.h), up to four of at most 4 MiB
each, so that a training loop's small calls do not allocate and zero tables again. A
long-lived process (a server that scored one large corpus) had no way to give that memory
back before exit. These tests check that the call frees what is kept, that nothing a call
needs is freed under it (another thread's call running meanwhile), and that the numbers
after a release are the same.
"""

from __future__ import annotations

import threading

import pytest

pytest.importorskip("truebleu._native_core", reason="compiled core not built")

import truebleu  # noqa: E402
from truebleu.core import kernels  # noqa: E402


def corpus(n: int, salt: int = 0) -> tuple[list[str], list[list[str]]]:
    refs = [f"The {k * 7 + salt} cats sat on mat number {k % 13}, didn't they?" for k in range(n)]
    hyps = [f"the {k * 7 + salt} cat sat on a mat {(k + 1) % 13} , did n't it ?" for k in range(n)]
    return hyps, [refs]


def test_release_frees_what_calls_kept_and_nothing_twice() -> None:
    hyps, refs = corpus(2000)
    truebleu.release_scratch()  # whatever earlier tests left
    assert truebleu.release_scratch() == 0
    bleu = truebleu.corpus_bleu(hyps, refs, threads=2).score
    chrf = truebleu.corpus_chrf(hyps, refs, threads=2).score
    kept = truebleu.release_scratch()
    # at least one worker's scratch of each metric: a builder's table alone is kilobytes
    assert kept > 16 * 1024
    assert truebleu.release_scratch() == 0
    # the next calls allocate afresh, with the same numbers, and keep again
    assert truebleu.corpus_bleu(hyps, refs, threads=2).score == bleu
    assert truebleu.corpus_chrf(hyps, refs, threads=2).score == chrf
    assert truebleu.release_scratch() > 0


@pytest.mark.parametrize("call", ["bleu", "chrf", "sentence"])
def test_each_kind_of_scratch_is_released(call: str) -> None:
    """Each metric's calls alone leave something that the release finds."""
    hyps, refs = corpus(500, salt=3)
    truebleu.release_scratch()
    if call == "bleu":
        truebleu.corpus_bleu(hyps, refs, threads=1)
    elif call == "chrf":
        truebleu.corpus_chrf(hyps, refs, threads=1)
    else:  # several systems of one test set: grouped by their references, strings gathered
        truebleu.sentence_scores(hyps * 3, refs[0] * 3)
    assert truebleu.release_scratch() > 0


def test_release_while_another_thread_scores() -> None:
    """A release frees only idle scratch: a call running on another thread keeps its own
    (under bench/sanitize.sh a freed table in use would be reported)."""
    hyps, refs = corpus(3000, salt=5)
    expected = (truebleu.corpus_bleu(hyps, refs).score, truebleu.corpus_chrf(hyps, refs).score)
    results: list[tuple[float, float]] = []
    failures: list[BaseException] = []

    def score() -> None:
        try:
            for _ in range(12):
                results.append((truebleu.corpus_bleu(hyps, refs, threads=2).score,
                                truebleu.corpus_chrf(hyps, refs, threads=2).score))
        except BaseException as exc:  # pragma: no cover - reported below
            failures.append(exc)

    worker = threading.Thread(target=score)
    worker.start()
    while worker.is_alive():
        truebleu.release_scratch()
    worker.join()
    assert not failures
    assert results == [expected] * 12


def test_without_the_core_nothing_is_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(kernels, "native_available", lambda: False)
    assert kernels.release_scratch() == 0
