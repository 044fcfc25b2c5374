"""The ``bleu`` module's numbers: tensorflow/nmt's ``compute_bleu`` on the compiled core.

The hub's ``bleu`` tokenizes every reference, then every prediction, with
``tokenizer`` (by default sacreBLEU's 13a, as a function returning a list of
tokens) and runs tf/nmt's ``compute_bleu`` (:mod:`truebleu.dialects.tfnmt`): n-grams
clipped by their largest count in any reference, the *shortest* reference's length,
optional add-one smoothing of every order.

Its counts are sacreBLEU's BLEU statistics except for the reference length, which
sacreBLEU takes from the reference *closest* in length to the hypothesis. The
closest reference to an empty hypothesis is the shortest one, so a second pass of
the core with empty hypotheses over the same prepared references gives tf/nmt's
length (only when some prediction has several references). The score then follows
from the sums, in tf/nmt's arithmetic (:func:`truebleu.dialects.tfnmt.score_counts`).
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence
from itertools import chain
from typing import Any, Optional

from ..dialects import ToolError
from ..dialects.core_counts import rstrip_is_harmless, shortest_length_counts
from ..dialects.tfnmt import compute_bleu, score_counts
from ..metrics.bleu.config import MAX_ORDER_LIMIT
from ..tokenizers import get_tokenizer
from .inputs import PerPrediction, per_prediction


class Tokenizer13a:
    """sacreBLEU's 13a tokenizer as a function from a line to its list of tokens.

    The ``bleu`` module's default ``tokenizer``; with it, the compiled core tokenizes
    (the object is called only when a line's trailing whitespace holds a newline, which
    the core would strip first: see
    :func:`truebleu.dialects.core_counts.rstrip_is_harmless`). Any other callable is
    called on every line, as the hub module calls it.
    """

    def __init__(self) -> None:
        self._tokenizer = get_tokenizer("13a")

    def __call__(self, line: str) -> list[str]:
        tokens: list[str] = self._tokenizer(line).split()
        return tokens

    def __repr__(self) -> str:
        return "Tokenizer13a()"


#: the ``bleu`` module's default tokenizer (one object: a default argument, as the hub's)
TOKENIZER_13A = Tokenizer13a()


class EmptyCorpusError(ToolError, ZeroDivisionError):
    """tf/nmt's BLEU divides by the length of the references and by that of the predictions;
    either is zero. The hub module raises ZeroDivisionError there, so this is one too."""


def tfnmt_scores(predictions: list[str], references: PerPrediction,
                 tokenizer: Callable[[str], Sequence[Any]] = TOKENIZER_13A, max_order: int = 4,
                 smooth: bool = False) -> dict[str, Any]:
    """tf/nmt BLEU of ``predictions``, as the hub's ``bleu`` returns it.

    ``smooth`` is read for its truth value, as tf/nmt reads it. Any number of
    references per prediction, but at least one.
    """
    per = per_prediction(references)
    try:
        order = operator.index(max_order)
    except TypeError:
        raise TypeError(f"max_order must be an int, got {max_order!r}") from None
    for i, refs in enumerate(per):
        if not refs:
            raise ValueError(f"prediction {i} has no reference: tf/nmt's BLEU needs at least one")
    if order < 1:
        raise ValueError(f"max_order must be at least 1, got {max_order!r}")
    try:
        if isinstance(tokenizer, Tokenizer13a) and order <= MAX_ORDER_LIMIT \
                and rstrip_is_harmless("13a", [*predictions, *chain.from_iterable(per)]):
            counts = shortest_length_counts(None, predictions, per, "13a", order)
            result = score_counts(counts, order, smooth)
        else:
            result = _tokenized_scores(predictions, per, tokenizer, order, smooth)
    except ToolError as exc:
        raise EmptyCorpusError(str(exc)) from None
    bleu, precisions, bp, ratio, hyp_len, ref_len = result
    return {"bleu": bleu, "precisions": precisions, "brevity_penalty": bp, "length_ratio": ratio,
            "translation_length": hyp_len, "reference_length": ref_len}


def _tokenized_scores(predictions: list[str], per: list[Sequence[str]],
                      tokenizer: Callable[[str], Sequence[Any]], order: int,
                      smooth: bool) -> tuple[Any, ...]:
    """The score with ``tokenizer`` called on each line in Python (references first, as the
    hub module does). Token lists of strings that survive a join on spaces and a split are
    counted by the core; any others (token ids, tokens with spaces, a tokenizer returning a
    string, whose "tokens" are then its characters) by tf/nmt's function in Python."""
    ref_tokens = [[tokenizer(ref) for ref in refs] for refs in per]
    hyp_tokens = [tokenizer(line) for line in predictions]
    joined = _rejoined(hyp_tokens, ref_tokens) if order <= MAX_ORDER_LIMIT else None
    if joined is None:
        return compute_bleu(ref_tokens, hyp_tokens, max_order=order, smooth=smooth)
    hyps, refs = joined
    return score_counts(shortest_length_counts(None, hyps, refs, "none", order), order, smooth)


def _rejoined(hyp_tokens: list[Any], ref_tokens: list[list[Any]]
              ) -> Optional[tuple[list[str], list[list[str]]]]:
    """Each token list joined with spaces, if splitting gives it back exactly, else None."""
    def join(tokens: Any) -> Optional[str]:
        if not isinstance(tokens, (list, tuple)) or not all(type(t) is str for t in tokens):
            return None
        line = " ".join(tokens)
        return line if line.split() == list(tokens) else None

    hyps = [join(tokens) for tokens in hyp_tokens]
    refs = [[join(tokens) for tokens in refs] for refs in ref_tokens]
    if None in hyps or any(None in seg for seg in refs):
        return None
    return hyps, refs  # type: ignore[return-value]
