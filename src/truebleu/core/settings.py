"""The checks every metric's settings go through, once, where its configuration is built.

A setting of the wrong type or out of range is one clear error naming the setting, before any
work starts: never a score of ``nan``, a bare ``OverflowError`` or ``MemoryError`` later, and
never a silent reading of a value that does not mean what it says (``lowercase="False"`` is a
non-empty string, so Python's truth would lowercase).
"""

from __future__ import annotations

import math

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: importing typing costs about 16 M instructions
if TYPE_CHECKING:
    from numbers import Integral, Real

    from typing_extensions import TypeIs

#: The largest n-gram order any metric accepts (BLEU's ``max_ngram_order``, chrF's character
#: and word orders): far beyond any use, and small enough that a row of statistics stays small.
ORDER_LIMIT = 1000


def is_integral(value: object) -> TypeIs[Integral]:
    """``isinstance(value, numbers.Integral)`` (bools included): :mod:`numbers` and its ABCs
    (about 1.4 M instructions to import) are loaded only for a value that is not an int."""
    if type(value) is int:
        return True
    import numbers

    return isinstance(value, numbers.Integral)


def is_real(value: object) -> TypeIs[Real]:
    """``isinstance(value, numbers.Real)``, as :func:`is_integral`: an int or a float needs no
    :mod:`numbers`."""
    if type(value) is float or type(value) is int:
        return True
    import numbers

    return isinstance(value, numbers.Real)


def check_flag(name: str, value: object) -> bool:
    """``value`` as a bool: True/False, 0/1 or a NumPy bool; TypeError naming ``name`` otherwise."""
    if isinstance(value, bool):
        return value
    if is_integral(value) and value in (0, 1):
        return bool(value)
    dtype = getattr(value, "dtype", None)
    if getattr(dtype, "kind", None) == "b" and getattr(value, "ndim", None) == 0:  # NumPy's bool
        return bool(value)
    raise TypeError(f"{name} must be True or False, got {value!r}")


def check_int(name: str, value: object, low: int, high: int) -> int:
    """``value`` as an int in ``low..high``; TypeError or ValueError naming ``name`` otherwise."""
    if isinstance(value, bool) or not is_integral(value):
        raise TypeError(f"{name} must be an integer, got {value!r}")
    number = int(value)
    if not low <= number <= high:
        raise ValueError(f"{name} must be an integer from {low} to {high}, got {value!r}")
    return number


def check_real(name: str, value: object, low: float, high: float) -> float:
    """``value`` as a finite float in ``[low, high]``; TypeError or ValueError naming ``name``."""
    if isinstance(value, bool) or not is_real(value):
        raise TypeError(f"{name} must be a number, got {value!r}")
    number = float(value)
    if not math.isfinite(number) or not low <= number <= high:
        raise ValueError(f"{name} must be a finite number from {low:g} to {high:g}, got {value!r}")
    return number
