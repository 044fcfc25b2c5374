"""Reproducibility signatures: every setting that changes the number, in one string.

The format is sacreBLEU's (``nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp|version:...``,
and the short form ``#:1|c:mixed|...``). truebleu names itself in ``version``
and adds what sacreBLEU leaves out: the n-gram order when it is not 4, the
smoothing value in full when two decimals would hide it, and the dialect when
it is not sacreBLEU's.
"""

from __future__ import annotations

from .._version import __version__

VERSION = f"truebleu-{__version__}"

# key -> short key; also the order in which keys are printed ("version" goes last)
ABBREVIATIONS = {
    "nrefs": "#",
    "bs": "bs",
    "ar": "ar",
    "seed": "rs",
    "test": "t",
    "lang": "l",
    "origlang": "o",
    "subset": "S",
    "dialect": "d",
    "case": "c",
    "eff": "e",
    "tok": "tok",
    "smooth": "s",
    "order": "N",
    "version": "v",
}


class Signature:
    """An ordered set of ``key:value`` settings; ``None`` values are left out.

    A metric with other settings subclasses it with its own ``ABBREVIATIONS``
    (its keys in printing order, "version" last).
    """

    ABBREVIATIONS = ABBREVIATIONS

    def __init__(self, **info: object) -> None:
        unknown = set(info) - set(self.ABBREVIATIONS)
        if unknown:
            raise ValueError(f"unknown signature keys: {sorted(unknown)}")
        self.info = {key: info.get(key) for key in self.ABBREVIATIONS}
        if self.info["version"] is None:
            self.info["version"] = VERSION

    def update(self, key: str, value: object) -> None:
        if key not in self.ABBREVIATIONS:
            raise ValueError(f"unknown signature key {key!r}")
        self.info[key] = value

    def format(self, short: bool = False) -> str:
        parts = []
        for key, value in self.info.items():
            if value is None:
                continue
            if isinstance(value, bool):
                value = "yes" if value else "no"
            parts.append(f"{self.ABBREVIATIONS[key] if short else key}:{value}")
        return "|".join(parts)

    def __str__(self) -> str:
        return self.format()

    __repr__ = __str__


def smoothing_text(method: str, value: float | None, default: float | None) -> str:
    """``exp``, ``floor[0.10]``, ``add-k[1.00]``; more digits only when needed."""
    if default is None:
        return method
    if value is None:
        value = default
    text = f"{value:.2f}"
    if float(text) != float(value):
        text = repr(float(value))
    return f"{method}[{text}]"
