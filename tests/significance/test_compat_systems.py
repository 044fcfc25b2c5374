"""paired_cells takes every system's statistics in one call where the metric's class has
``systems_statistics``, and one ``corpus_statistics`` call per system otherwise."""

from __future__ import annotations

from truebleu import BLEU
from truebleu.significance.compat import paired_cells

REFS = [["The cat sat on the mat .", "A dog ran .", "It is long .", "Yes ."]]
NAMED = [("base", ["The cat sat on a mat .", "A dog ran away .", "It is .", "Yes ."]),
         ("a", ["a cat", "", "It is long .", "No ."]),
         ("b", ["The cat sat on the mat .", "A dog ran .", "It is long .", "Yes ."])]


class Delegating:
    """Wraps a metric, scores against other references, delegates the rest (as
    sacrebleu_names' wrapper of ``PairedTest(references=...)`` does)."""

    def __init__(self, metric, references):
        self._metric, self._references = metric, references

    def corpus_statistics(self, hypotheses):
        return self._metric.corpus_statistics(hypotheses, self._references)

    def __getattr__(self, name):
        return getattr(self._metric, name)


def cells(metric, test="bs"):
    seed, found = paired_cells(NAMED, metric, test, 100, seed=7)
    return seed, [vars(c) for c in found]


def test_one_call_for_every_system(monkeypatch):
    calls = []
    real = BLEU.systems_statistics

    def counted(self, systems, *args, **kwargs):
        calls.append(len(systems))
        return real(self, systems, *args, **kwargs)

    for test in ("bs", "ar"):
        want = cells(BLEU(references=REFS), test)
        monkeypatch.setattr(BLEU, "systems_statistics", counted)
        assert cells(BLEU(references=REFS), test) == want
        monkeypatch.undo()
    assert calls == [3, 3]


def test_a_wrapper_keeps_its_own_references():
    other = [["x y z"] * 4]
    want = cells(BLEU(references=other))
    assert cells(Delegating(BLEU(references=REFS), other)) == want
    assert cells(Delegating(BLEU(references=REFS), other)) != cells(BLEU(references=REFS))
