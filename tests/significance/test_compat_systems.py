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


def test_paired_test_with_references_takes_one_call(monkeypatch):
    """``PairedTest(references=...)``'s wrapper hands the systems over in one call, with
    its own references (each system's table as against BLEU(references=refs))."""
    from truebleu.significance import PairedTest

    other = [["x y z", "A dog ran .", "It is", "No ."]]
    calls = []
    real = BLEU.systems_statistics

    def counted(self, systems, references=None, **kwargs):
        calls.append((len(systems), references))
        return real(self, systems, references, **kwargs)

    want = PairedTest(NAMED, {"BLEU": BLEU(references=other)}, None, "bs", 100)()
    monkeypatch.setattr(BLEU, "systems_statistics", counted)
    got = PairedTest(NAMED, {"BLEU": BLEU(references=REFS)}, other, "bs", 100)()
    assert calls == [(3, other)]
    assert [vars(c) for c in got[1]["BLEU"]] == [vars(c) for c in want[1]["BLEU"]]
