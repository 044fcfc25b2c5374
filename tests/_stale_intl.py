"""Simulate a compiled ``intl`` table that disagrees with the installed ``regex``.

The core's table is fixed at build time; a ``regex`` release with other
Unicode data makes it stale. :func:`make_stale` fakes that state for the
checks of :mod:`truebleu.metrics.bleu.native` (another table version, a table
that classifies U+20C2 differently) and wraps every core entry point that
takes a tokenizer mode so that a call with the core's ``intl`` mode fails the
test: with a stale table, no path may tokenize ``intl`` in C.
"""

from __future__ import annotations

# (name, position of the mode argument); None: the mode is that of a Prepared argument
MODE_ARGUMENT = {
    "prepare": 1,
    "prepare_streams": 1,
    "statistics": 2,
    "sentence_statistics": 2,
    "tokenize": 1,
    "cross_statistics": None,
    "pair_statistics": None,
}


def make_stale(monkeypatch, core, native_backend) -> list[str]:
    """Fake a stale table; returns the list that records core calls made in intl mode."""
    stale = bytearray(core.class_table())
    stale[0x20C2] ^= 2  # U+20C2, a currency symbol from Unicode 17, not a symbol in the "table"
    monkeypatch.setattr(core, "REGEX_VERSION", "0.0-stale")
    monkeypatch.setattr(core, "class_table", lambda: bytes(stale))
    native_backend._intl_table_matches.cache_clear()
    intl_calls: list[str] = []

    def spy(name, function, position):
        def wrapper(*args, **kwargs):
            if position is None:
                modes = [getattr(arg, "mode", None) for arg in args]
            else:
                modes = [args[position]]
            if core.MODE_INTL in modes:
                intl_calls.append(name)
            return function(*args, **kwargs)
        return wrapper

    for name, position in MODE_ARGUMENT.items():
        if hasattr(core, name):
            monkeypatch.setattr(core, name, spy(name, getattr(core, name), position))
    return intl_calls
