"""The metric family: its registry, and sacreBLEU's ``sacrebleu.metrics`` module paths.

:data:`METRICS` maps each name the command line takes (``-m bleu chrf ter``)
to its :class:`~truebleu.metrics.base.Metric` class. A metric is one folder
(``metrics/<name>/``) and one line here; every layer above (significance,
reports, the viewer, Spark, the accumulator, streaming, the command line)
works with it unchanged.

``from truebleu.metrics import BLEU, CHRF, TER`` works as with sacreBLEU; so do
``truebleu.metrics.bleu``, ``.chrf``, ``.ter``, ``.base`` and ``.helpers``.
Everything loads on first use.
"""

from __future__ import annotations

from collections.abc import Iterator, MutableMapping
from importlib import import_module

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: importing typing costs about 16 M instructions
if TYPE_CHECKING:  # the lazy names for type checkers, re-exported (`name as name`)
    from typing import Any, Union

    from .base import Metric
    from .bleu.metric import BLEU as BLEU
    from .chrf.metric import CHRF as CHRF
    from .ter.metric import TER as TER


class MetricRegistry(MutableMapping[str, "type[Metric[Any]]"]):
    """Names to metric classes; an entry may be ``"module:Class"`` (relative to this
    package), imported when first looked up, so that a name costs nothing until used."""

    def __init__(self, entries: dict[str, Union[str, type[Metric[Any]]]]) -> None:
        self._entries = dict(entries)

    def __getitem__(self, name: str) -> type[Metric[Any]]:
        entry = self._entries[name]
        if isinstance(entry, str):
            module, _, attribute = entry.partition(":")
            metric: type[Metric[Any]] = getattr(import_module(module, __name__), attribute)
            entry = self._entries[name] = metric
        return entry

    def __setitem__(self, name: str, metric: Union[str, type[Metric[Any]]]) -> None:
        self._entries[name] = metric

    def __delitem__(self, name: str) -> None:
        del self._entries[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._entries)

    def __len__(self) -> int:
        return len(self._entries)

    def __repr__(self) -> str:
        return f"MetricRegistry({', '.join(self._entries)})"

    def command_line(self, name: str) -> Any:
        """What adds and checks metric ``name``'s flags: an object with the
        ``add_arguments(parser)`` and ``check_args(args)`` of the metric class.

        For a metric registered by path and not loaded yet, that is the ``cli``
        module of its package (``.chrf`` -> ``.chrf.cli``: where truebleu's metrics
        keep their flags, their ``flags_module``), so that a command's parser, which
        shows every metric's flags, loads no metric; otherwise (a class registered, a
        package without ``cli``) the class itself.
        """
        entry = self._entries[name]
        if isinstance(entry, str):
            module = entry.partition(":")[0] + ".cli"
            if module.startswith("."):  # relative to this package, as the entries here
                module = __name__ + module
            try:
                return import_module(module)
            except ModuleNotFoundError as exc:
                if exc.name != module:
                    raise
        return self[name]


#: every metric, by its command-line name
METRICS = MetricRegistry({
    "bleu": ".bleu:BLEU",
    "chrf": ".chrf:CHRF",
    "ter": ".ter:TER",
})

_LAZY = {"BLEU": "bleu", "CHRF": "chrf", "TER": "ter"}

__all__ = list(_LAZY)  # sacreBLEU's names (METRICS is truebleu's)


def __getattr__(name: str) -> type[Metric[Any]]:
    if name in _LAZY:
        value = METRICS[_LAZY[name]]
        globals()[name] = value
        return value
    raise AttributeError(f"module 'truebleu.metrics' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))
