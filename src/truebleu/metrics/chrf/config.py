"""chrF's configuration, validated once: every setting that changes the number."""

from __future__ import annotations

from ...core.config import MetricConfig
from ...core.settings import ORDER_LIMIT, check_flag, check_int, check_real

#: The largest ``beta`` accepted: recall counts a million times as much as precision there,
#: and beta squared stays far from overflowing (``inf`` and ``nan`` scored ``nan``).
BETA_LIMIT = 1e6


def check_orders(char_order: object, word_order: object, *, char_name: str = "char_order",
                 word_name: str = "word_order") -> tuple[int, int]:
    """Both orders as ints from 0 to ORDER_LIMIT, not both 0, or an error naming the
    parameter (the command line passes its flag names)."""
    chars = check_int(char_name, char_order, 0, ORDER_LIMIT)
    words = check_int(word_name, word_order, 0, ORDER_LIMIT)
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
        check_real("beta", beta, 0, BETA_LIMIT)  # kept as given: an int beta prints as one
        self._set(char_order=char_order, word_order=word_order, beta=beta,
                  lowercase=check_flag("lowercase", lowercase),
                  whitespace=check_flag("whitespace", whitespace),
                  eps_smoothing=check_flag("eps_smoothing", eps_smoothing))

    @property
    def order(self) -> int:
        return self.char_order + self.word_order

    @property
    def width(self) -> int:
        """Numbers in one statistics row."""
        return 3 * self.order

    def preprocess(self, line: str) -> str:
        return line.lower() if self.lowercase else line
