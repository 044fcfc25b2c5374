"""chrF's configuration, validated once: every setting that changes the number."""

from __future__ import annotations

import numbers

from ...core.config import MetricConfig


def _check_order(value: object, what: str, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < minimum:
        raise ValueError(f"{what} must be an integer >= {minimum}, got {value!r}")
    return int(value)


def check_orders(char_order: object, word_order: object, *, char_name: str = "char_order",
                 word_name: str = "word_order") -> tuple[int, int]:
    """Both orders as ints, or a ValueError naming the parameter (the command line
    passes its flag names)."""
    chars = _check_order(char_order, char_name, 0)
    words = _check_order(word_order, word_name, 0)
    if chars + words < 1:
        raise ValueError(f"{char_name} + {word_name} must be at least 1")
    return chars, words


class ChrfConfig(MetricConfig):
    """The settings that change chrF statistics or the choice among references.

    Frozen: setting or deleting a field raises ``dataclasses.FrozenInstanceError``.
    """

    __match_args__ = ("char_order", "word_order", "beta", "lowercase", "whitespace",
                      "eps_smoothing")
    char_order: int
    word_order: int
    beta: float
    lowercase: bool
    whitespace: bool
    eps_smoothing: bool

    def __init__(self, char_order: int = 6, word_order: int = 0, beta: float = 2,
                 lowercase: bool = False, whitespace: bool = False,
                 eps_smoothing: bool = False) -> None:
        char_order, word_order = check_orders(char_order, word_order)
        if isinstance(beta, bool) or not isinstance(beta, numbers.Real):
            raise TypeError(f"beta must be a number, got {beta!r}")
        self._set(char_order=char_order, word_order=word_order, beta=beta,
                  lowercase=bool(lowercase), whitespace=bool(whitespace),
                  eps_smoothing=bool(eps_smoothing))

    @property
    def order(self) -> int:
        return self.char_order + self.word_order

    @property
    def width(self) -> int:
        """Numbers in one statistics row."""
        return 3 * self.order

    def preprocess(self, line: str) -> str:
        return line.lower() if self.lowercase else line
