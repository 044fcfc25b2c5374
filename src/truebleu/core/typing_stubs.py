"""``Generic``, ``TypeVar``, ``cast`` and ``overload`` for type checkers, without ``typing`` at run time.

Importing :mod:`typing` costs a process about 16 M instructions (its module body builds
dozens of special forms), and the command imports nothing else that needs it: the modules
on its path write their annotations as strings (``from __future__ import annotations``) and
import typing's names under ``if TYPE_CHECKING:``. What a module uses of typing at run time
comes from here instead: type checkers see typing's own names (this module re-exports them);
the interpreter runs small stand-ins.

- ``Generic``: a base class whose subscript is a :class:`types.GenericAlias`, as ``list[int]``
  is, so ``Metric[BLEUScore]`` still works in annotations evaluated at run time
  (``typing.get_type_hints``), and ``class Metric(Generic[ScoreT])`` subclasses it.
- ``TypeVar``: the variable's name (only ``Generic[...]`` reads it, at run time).
- ``cast`` and ``overload``: what typing's do at run time, without the overload registry.
"""

from __future__ import annotations

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: that would import typing
if TYPE_CHECKING:
    from typing import Generic as Generic
    from typing import TypeVar as TypeVar
    from typing import cast as cast
    from typing import overload as overload
else:
    from types import GenericAlias

    class Generic:
        """A generic class's base: ``Class[T]`` is a :class:`types.GenericAlias`."""

        __slots__ = ()

        def __class_getitem__(cls, parameters):
            return GenericAlias(cls, parameters)

    def TypeVar(name, *constraints, **options):  # noqa: N802  (typing's name)
        return name

    def cast(type_, value):
        return value

    def overload(function):
        return function

__all__ = ["Generic", "TypeVar", "cast", "overload"]
