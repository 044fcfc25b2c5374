"""BLEU's configuration, validated once: every setting that changes the number.

:class:`BLEUConfig` is built once (by :class:`~truebleu.metrics.bleu.BLEU`, the batch
functions of :mod:`truebleu.metrics.bleu.batch` and :func:`truebleu.metrics.bleu.explain.explain`) and
then only read: by the backends, the score functions, the signature and the
significance code. It is frozen, so a configuration cannot change between
the statistics and the score.

The checks of BLEU's own settings live here and nowhere else (``threads`` and
``backend`` are every metric's, checked in :mod:`truebleu.core.kernels`):

* :func:`check_smoothing`: the method is one of ``none``, ``floor``,
  ``add-k``, ``exp``; a value for ``floor`` or ``add-k`` is a finite number
  >= 0 (a ``floor`` value above a segment's n-gram count makes a precision, and
  BLEU, exceed 100%, as in sacreBLEU, which the drop-ins must reproduce: it is
  accepted). sacreBLEU accepts any float and then fails with "math domain error"
  (floor < 0 with an order without matches, add-k < 0 when a count drops to 0
  or below) or returns NaN (inf, NaN); a negative add-k that happens to keep
  every count positive gives sacreBLEU a number that is no smoothing at all.
  0 stays accepted for both (sacreBLEU gives a well-defined score: a zero
  precision is floored in the log). ``exp`` and ``none`` take no value, and
  ignore one, as sacreBLEU does.
* :func:`check_order`: ``max_ngram_order`` is an int from 1 to
  :data:`MAX_ORDER_LIMIT` (1000), checked before anything is allocated, for
  both backends.
"""

from __future__ import annotations

import math

from ...core.config import MetricConfig
from ...core.settings import ORDER_LIMIT, check_flag, is_integral, is_real
from ...core.signature import Signature, smoothing_text
from ...tokenizers import LANGUAGE_DEFAULTS, Tokenizer, default_tokenizer, get_tokenizer

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: importing typing costs about 16 M instructions
if TYPE_CHECKING:
    from typing import Optional

MAX_NGRAM_ORDER = 4
MAX_ORDER_LIMIT = ORDER_LIMIT  # every metric's limit (core.settings)

# Default smoothing values; None means the method takes no value.
SMOOTH_DEFAULTS: dict[str, Optional[float]] = {
    "none": None,
    "floor": 0.1,
    "add-k": 1,
    "exp": None,
}

# The largest smoothing value: sacreBLEU computes a smoothed precision as
# 100 * (matches + value) / (total + value), and 100 * value overflows to inf from
# about 1.8e306 on; below this limit every score is finite and equals sacreBLEU's.
SMOOTH_VALUE_LIMIT = 1e300

# the compiled core's codes for the smoothing methods
SMOOTH_CODES = {"none": 0, "floor": 1, "add-k": 2, "exp": 3}


def check_smoothing(method: str, value: Optional[float], *, method_name: str = "smooth_method",
                    value_name: str = "smooth_value") -> None:
    """Raise ValueError/TypeError naming the parameter when the smoothing is unusable."""
    if method not in SMOOTH_DEFAULTS:
        raise ValueError(f"unknown {method_name} {method!r}; "
                         f"choose one of: {', '.join(SMOOTH_DEFAULTS)}")
    if value is None:
        return
    if isinstance(value, bool) or not is_real(value):
        raise TypeError(f"{value_name} must be a number or None, got {value!r}")
    if SMOOTH_DEFAULTS[method] is None:
        return  # exp and none ignore the value, as in sacreBLEU
    if not math.isfinite(value) or not 0 <= value <= SMOOTH_VALUE_LIMIT:
        raise ValueError(f"{value_name} for {method_name} {method!r} must be a finite number "
                         f">= 0 and <= {SMOOTH_VALUE_LIMIT:g}, got {value!r}")


def check_order(max_order: object, name: str = "max_ngram_order") -> int:
    """``max_order`` as an int in 1..MAX_ORDER_LIMIT, or a clear error."""
    if isinstance(max_order, bool) or not is_integral(max_order):
        raise TypeError(f"{name} must be an int, got {type(max_order).__name__}")
    order = int(max_order)
    if not 1 <= order <= MAX_ORDER_LIMIT:
        raise ValueError(f"{name} must be between 1 and {MAX_ORDER_LIMIT}, got {max_order}")
    return order


class BLEUConfig(MetricConfig):
    """Every setting that changes a BLEU number, validated on construction.

    ``smooth_value`` is the value as given (None = the method's default, which
    the signature prints as such); :attr:`smoothing` is the value used.
    Frozen: setting or deleting a field raises ``dataclasses.FrozenInstanceError``.
    """

    __match_args__ = ("tokenizer", "lowercase", "smooth_method", "smooth_value",
                      "max_ngram_order", "effective_order")
    tokenizer: Tokenizer
    lowercase: bool
    smooth_method: str
    smooth_value: Optional[float]
    max_ngram_order: int
    effective_order: bool

    def __init__(self, tokenizer: Tokenizer, lowercase: bool = False, smooth_method: str = "exp",
                 smooth_value: Optional[float] = None, max_ngram_order: int = MAX_NGRAM_ORDER,
                 effective_order: bool = False) -> None:
        if not callable(tokenizer) or not hasattr(tokenizer, "signature"):
            raise TypeError(f"tokenizer must be a truebleu tokenizer, got {tokenizer!r}")
        check_smoothing(smooth_method, smooth_value)
        self._set(tokenizer=tokenizer, lowercase=check_flag("lowercase", lowercase),
                  smooth_method=smooth_method, smooth_value=smooth_value,
                  max_ngram_order=check_order(max_ngram_order),
                  effective_order=check_flag("effective_order", effective_order))

    @classmethod
    def create(cls, tokenize: Optional[str | Tokenizer] = "13a", lowercase: bool = False,
               smooth_method: str = "exp", smooth_value: Optional[float] = None,
               max_ngram_order: int = MAX_NGRAM_ORDER, effective_order: bool = False, *,
               trg_lang: str = "", spm_model: Optional[str] = None) -> "BLEUConfig":
        """The configuration from sacreBLEU's argument names.

        Cheap checks come first, so a bad smoothing or order fails before a
        tokenizer (MeCab, a SentencePiece model) is loaded.
        """
        check_smoothing(smooth_method, smooth_value)
        check_order(max_ngram_order)
        if tokenize is None:
            tokenize = default_tokenizer(trg_lang or "")
        tokenizer = (get_tokenizer(tokenize, spm_model=spm_model) if isinstance(tokenize, str)
                     else tokenize)
        return cls(tokenizer, lowercase, smooth_method, smooth_value, max_ngram_order,
                   effective_order)

    @property
    def smoothing(self) -> Optional[float]:
        """The smoothing value used: the one given, else the method's default."""
        return SMOOTH_DEFAULTS[self.smooth_method] if self.smooth_value is None else self.smooth_value

    @property
    def smooth_code(self) -> int:
        return SMOOTH_CODES[self.smooth_method]

    @property
    def row_width(self) -> int:
        return 2 + 2 * self.max_ngram_order

    def signature_settings(self) -> dict[str, object]:
        """The signature's fields that name these settings."""
        return {"case": "lc" if self.lowercase else "mixed",
                "eff": "yes" if self.effective_order else "no",
                "tok": self.tokenizer.signature(),
                "smooth": smoothing_text(self.smooth_method, self.smooth_value,
                                         SMOOTH_DEFAULTS[self.smooth_method]),
                "order": None if self.max_ngram_order == MAX_NGRAM_ORDER else self.max_ngram_order}

    def signature(self, **fields: object) -> Signature:
        """The signature of this configuration; ``fields`` adds nrefs, bs, seed, ..."""
        return Signature(**self.signature_settings(), **fields)


def preferred_tokenizer_warning(tokenize: Optional[str | Tokenizer], trg_lang: str) -> Optional[str]:
    """sacreBLEU's hint when ``tokenize`` (a name, or a tokenizer by its name) is not the usual
    one for ``trg_lang``."""
    preferred = LANGUAGE_DEFAULTS.get(trg_lang)
    name = tokenize.name if isinstance(tokenize, Tokenizer) else tokenize
    if name is not None and preferred and name != preferred:
        return f"Consider using the {preferred!r} tokenizer for target language {trg_lang!r}."
    return None
