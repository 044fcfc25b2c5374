"""The run-time stand-ins for typing's names keep the public types usable at run time.

Type checkers see typing's own ``Generic``, ``TypeVar``, ``cast`` and ``overload``
(``mypy`` checks that in CI); what is tested here is the interpreter's side: subscripting a
generic class, subclassing it, pickling its instances, and the protocol classes moved out
of the command's path.
"""

from __future__ import annotations

import pickle
import types
import typing

from truebleu.core.kernels import KernelLoader
from truebleu.core.typing_stubs import Generic, TypeVar, cast, overload
from truebleu.metrics.base import Metric
from truebleu.metrics.bleu import BLEU, BLEUScore


def test_a_generic_class_subscripts_as_builtin_generics_do():
    alias = Metric[BLEUScore]
    assert isinstance(alias, types.GenericAlias)
    assert alias.__origin__ is Metric and alias.__args__ == (BLEUScore,)
    assert KernelLoader[typing.Any].__origin__ is KernelLoader
    assert BLEU[BLEUScore].__origin__ is BLEU  # subclasses too


def test_annotations_naming_generic_classes_evaluate():
    def scored(metric: Metric[BLEUScore]) -> KernelLoader[int]: ...

    hints = typing.get_type_hints(scored)
    assert hints["metric"] == Metric[BLEUScore]


def test_a_subclass_of_a_generic_class_is_an_ordinary_class():
    T = TypeVar("T")

    class Box(Generic[T]):
        def __init__(self, item: T) -> None:
            self.item = item

    assert pickle.loads(pickle.dumps(BLEU())).corpus_score(["a b"], [["a b"]]).score == 0.0
    assert Box(3).item == 3 and Generic in Box.__mro__


def test_cast_and_overload_do_what_typing_s_do_at_run_time():
    value = object()
    assert cast("list[int]", value) is value

    def function(x: int) -> int:
        return x

    assert overload(function) is function


def test_the_scorer_protocols_are_still_reachable_from_scoring():
    from truebleu import significance
    from truebleu.significance import protocols, scoring

    assert scoring.BatchScorer is protocols.BatchScorer is significance.BatchScorer
    assert scoring.CoreScorer is protocols.CoreScorer
    assert scoring.ApproximateScorer is protocols.ApproximateScorer
    assert typing.Protocol in protocols.BatchScorer.__mro__
