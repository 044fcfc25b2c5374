"""bench_chrf_ter's ``truebleu-1thread`` runs every task on one thread, as its name says.

A kernel asks for the machine's cores (``default_threads``) exactly when it was given no
``threads``: counting those calls shows which calls ran at the default. The ``truebleu``
label must ask (so that the count can see a call), ``truebleu-1thread`` never, in each task:
corpus, cached references, the sentence batch and the matrix, for chrF, chrF++ and TER
(default and ``normalized``). (Before the fix only the matrix task passed ``threads=1``.)
"""

from __future__ import annotations

import pytest
from bench_support import bench_module

import truebleu.core.kernels as kernels

pytest.importorskip("truebleu.metrics.bleu.native", reason="threads are the native core's")

HYPS, REFS = ["the cat sat on a mat", "a dog"], ["the cat sat on the mat", "the dog"]


def default_thread_requests(monkeypatch, tool: str) -> dict[str, int]:
    bench = bench_module("bench_chrf_ter")
    requests: list[str] = []
    real = kernels.default_threads
    monkeypatch.setattr(kernels, "default_threads", lambda: requests.append("") or real())
    counted = {}

    def count(label, call, *args):
        before = len(requests)
        call(*args)
        counted[label] = len(requests) - before

    for metric in ("chrf", "chrf++", "ter"):
        for normalized in (False, True) if metric == "ter" else (False,):
            corpus, batch, cached = bench.metric_calls(metric, tool, normalized=normalized)
            name = metric + (" normalized" if normalized else "")
            count(f"{name} corpus", corpus, HYPS, [REFS])
            count(f"{name} sentence", batch, HYPS, [[r] for r in REFS])
            count(f"{name} cached", lambda make: make([REFS]).corpus_score(HYPS), cached)
    count("matrix", bench.matrix_call(tool), HYPS)
    return counted


def test_the_default_label_asks_for_the_cores_in_every_task(monkeypatch):
    counted = default_thread_requests(monkeypatch, "truebleu")
    assert len(counted) == 13 and all(counted.values()), counted


def test_the_one_thread_label_never_does(monkeypatch):
    counted = default_thread_requests(monkeypatch, "truebleu-1thread")
    assert {label: n for label, n in counted.items() if n} == {}
