"""A metric's configuration: every setting that changes its numbers, frozen once checked.

Each metric has one :class:`MetricConfig` subclass (``BLEUConfig``,
``ChrfConfig``, ``TERConfig``). The metric builds it once, checking every
setting, and from then on only reads it: the kernels, the score function and
the signature all take their settings from it, so a configuration cannot
change between the statistics and the score.

:meth:`MetricConfig.key` is the configuration as plain values (a tokenizer by
its signature). It decides equality, what two accumulators must share to
merge, and what the Spark executors rebuild the metric from.

Written out rather than a ``@dataclass(frozen=True)``: importing
:mod:`dataclasses` imports :mod:`inspect`, a tenth of the command line's
start-up.
"""

from __future__ import annotations

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: importing typing costs about 16 M instructions
if TYPE_CHECKING:
    from typing import Any, ClassVar



class FrozenFields:
    """Frozen fields; a subclass names them in ``__match_args__`` and sets them in
    ``__init__`` through :meth:`_set` (assignment afterwards raises
    ``dataclasses.FrozenInstanceError``); compared, hashed and shown by them.

    What ``@dataclass(frozen=True)`` gives, without importing :mod:`dataclasses`
    (which imports :mod:`inspect`: a sizeable part of a short command's start-up).
    """

    __match_args__: ClassVar[tuple[str, ...]] = ()

    def _set(self, **values: Any) -> None:
        """Set the fields (once, in ``__init__``)."""
        self.__dict__.update(values)

    def key(self) -> tuple[object, ...]:
        """The settings as plain, comparable, picklable values (objects with a
        ``signature()``, such as tokenizers, by their signature)."""
        return tuple(_plain(getattr(self, name)) for name in self.__match_args__)

    def __setattr__(self, name: str, value: object) -> None:
        from dataclasses import FrozenInstanceError  # only on this mistake

        raise FrozenInstanceError(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        from dataclasses import FrozenInstanceError

        raise FrozenInstanceError(f"cannot delete field {name!r}")

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        assert isinstance(other, FrozenFields)
        return self.key() == other.key()

    def __hash__(self) -> int:
        return hash(self.key())

    def __repr__(self) -> str:
        fields = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.__match_args__)
        return f"{type(self).__qualname__}({fields})"


class MetricConfig(FrozenFields):
    """A metric's frozen settings (the fields each metric's ``config.py`` names)."""


def _plain(value: object) -> object:
    signature = getattr(value, "signature", None)
    return signature() if callable(signature) else value
