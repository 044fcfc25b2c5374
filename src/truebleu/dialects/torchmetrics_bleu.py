"""torchmetrics ``BLEUScore`` / ``bleu_score`` and ``SacreBLEUScore`` (torchmetrics 1.x).

What differs from the other dialects:

* tokens: ``str.split()``; an empty line is no tokens. With ``tokenize``
  (``SacreBLEUScore``): sacreBLEU's tokenizer of that name on the line as it is
  (no trailing whitespace stripped first, unlike sacreBLEU: ``13a`` then drops a
  final ``-\n``, ``intl`` splits a final ``1.\n``), lowercased *after*
  tokenizing with ``lowercase`` (``&QUOT;`` stays three tokens, ``İ`` one);
* reference length: the closest, ties to the *first* reference listed
  (``list.index(min(...))``), not the shorter;
* counts are float32 tensors: matches, totals and lengths are accumulated in
  float32, so beyond 2**24 (16.7M) n-grams additions round -- reproduced;
* if any order has no match the score is 0, also with ``smooth=True`` (the
  check comes before the smoothing); ``smooth`` adds one to the matches and
  totals of orders 2..N (the unigram precision stays unsmoothed);
* the final arithmetic is float32 (``log``, weighted ``sum``, ``exp``, BP).

The counts are computed here, in Python. For the final float32 arithmetic the
dialect uses torch when it is importable (bit-identical to torchmetrics);
without torch it emulates float32 by rounding every operation, which matches
in almost all cases but may differ from torch's vectorised ``log``/``exp`` in
the last float32 bit (a relative 6e-8); ``backend`` chooses explicitly.
"""

from __future__ import annotations

import math
import struct
from typing import Callable, Optional, Sequence

from ..metrics.bleu.spec import ngram_counts
from ..tokenizers import get_tokenizer
from ._base import Dialect, DialectScore, ToolError, check_bool
from .core_counts import (
    CORE_TOKENIZERS,
    core_rows,
    flat_lines,
    reference_lengths,
    rstrip_is_harmless,
    within_core_order,
)

_EXACT_FLOAT32_INTS = 2 ** 24


def _f32(value: float) -> float:
    """Round a double to the nearest float32 (ties to even), as a Python float."""
    return struct.unpack("f", struct.pack("f", value))[0]


def _add32(accumulator: float, value: int) -> float:
    total = accumulator + value
    return _f32(total) if total > _EXACT_FLOAT32_INTS else total


def torchmetrics_tokens(tokenize: Optional[str] = None, lowercase: bool = False
                        ) -> Callable[[str], tuple]:
    """The tokens of a line: ``str.split`` (BLEUScore), or sacreBLEU's ``tokenize`` on the
    unstripped line, then lowercased if asked (SacreBLEUScore)."""
    if tokenize is None:
        return lambda line: tuple(line.split())
    tokenizer = get_tokenizer(tokenize)

    def tokens(line: str) -> tuple:
        text = tokenizer(line)
        return tuple((text.lower() if lowercase else text).split())
    return tokens


def torchmetrics_statistics(hypotheses: Sequence[str], references: Sequence[Sequence[str]],
                            n_gram: int = 4,
                            tokens: Callable[[str], tuple] = torchmetrics_tokens()) -> tuple:
    """``(preds_len, target_len, numerator, denominator)`` as torchmetrics accumulates them.

    ``references[i]`` are the references of segment ``i``. Values are Python
    floats holding float32 values.
    """
    numerator = [0.0] * n_gram
    denominator = [0.0] * n_gram
    preds_len = target_len = 0.0
    for line, refs in zip(hypotheses, references):
        pred = tokens(line) if line else ()
        targets = [tokens(ref) if ref else () for ref in refs]
        preds_len = _add32(preds_len, len(pred))
        lengths = [len(target) for target in targets]
        diffs = [abs(len(pred) - length) for length in lengths]
        target_len = _add32(target_len, lengths[diffs.index(min(diffs))])
        counts = ngram_counts(pred, n_gram)
        clip: dict = {}
        for target in targets:
            for ngram, count in ngram_counts(target, n_gram).items():
                if count > clip.get(ngram, 0):
                    clip[ngram] = count
        # additions in the order torchmetrics makes them (insertion order of the counts)
        for ngram, count in counts.items():
            matched = min(count, clip.get(ngram, 0))
            if matched > 0:
                numerator[len(ngram) - 1] = _add32(numerator[len(ngram) - 1], matched)
        for ngram, count in counts.items():
            denominator[len(ngram) - 1] = _add32(denominator[len(ngram) - 1], count)
    return preds_len, target_len, numerator, denominator


def _compute_torch(preds_len, target_len, numerator, denominator, weights, smooth):
    import torch

    num = torch.tensor(numerator, dtype=torch.float32)
    den = torch.tensor(denominator, dtype=torch.float32)
    n_gram = len(numerator)
    if smooth:
        precision = torch.div(torch.add(num, torch.ones(n_gram)),
                              torch.add(den, torch.ones(n_gram)))
        precision[0] = num[0] / den[0]
    else:
        precision = num / den
    geometric_mean = torch.exp(torch.sum(torch.tensor(weights) * torch.log(precision)))
    hyp = torch.tensor(preds_len, dtype=torch.float32)
    ref = torch.tensor(target_len, dtype=torch.float32)
    bp = torch.tensor(1.0) if hyp > ref else torch.exp(1 - (ref / hyp))
    return (bp * geometric_mean).item(), precision.tolist(), bp.item()


def _compute_python(preds_len, target_len, numerator, denominator, weights, smooth):
    if smooth:
        precision = [_f32(_f32(n + 1.0) / _f32(d + 1.0)) for n, d in zip(numerator, denominator)]
        precision[0] = _f32(numerator[0] / denominator[0])
    else:
        precision = [_f32(n / d) for n, d in zip(numerator, denominator)]
    total = 0.0
    for weight, p in zip(weights, precision):
        total = _f32(total + _f32(_f32(weight) * _f32(math.log(p))))
    geometric_mean = _f32(math.exp(total))
    if preds_len > target_len:
        bp = 1.0
    else:
        bp = _f32(math.exp(_f32(1 - _f32(target_len / preds_len))))
    return _f32(bp * geometric_mean), precision, bp


class TorchmetricsDialect(Dialect):
    """torchmetrics' BLEU (``BLEUScore``; with ``tokenize``, ``SacreBLEUScore``).

    ``backend``: ``"auto"`` (torch if importable), ``"torch"`` or ``"python"``.
    """

    name = "torchmetrics"

    def __init__(self, n_gram: int = 4, smooth: bool = False,
                 weights: Optional[Sequence[float]] = None, backend: str = "auto",
                 tokenize: Optional[str] = None, lowercase: bool = False) -> None:
        super().__init__()
        if not isinstance(n_gram, int) or isinstance(n_gram, bool) or n_gram < 1:
            raise ValueError(f"n_gram must be a positive integer, got {n_gram!r}")
        if weights is not None and len(weights) != n_gram:
            raise ValueError(f"{len(weights)} weights for n_gram={n_gram}")
        if backend not in ("auto", "torch", "python"):
            raise ValueError(f"backend must be 'auto', 'torch' or 'python', got {backend!r}")
        self.n_gram = n_gram
        self.smooth = check_bool(smooth, "smooth")
        self.weights = list(weights) if weights is not None else [1.0 / n_gram] * n_gram
        if backend == "auto":
            try:
                import torch  # noqa: F401

                backend = "torch"
            except ImportError:
                backend = "python"
        self.backend = backend
        self.tokenize, self.lowercase = tokenize, check_bool(lowercase, "lowercase")
        self.tokens = torchmetrics_tokens(tokenize, self.lowercase)

    def _options(self):
        weights = ",".join(repr(w) for w in self.weights)
        tok = "whitespace" if self.tokenize is None else self.tokenize + ("-lc" if self.lowercase else "")
        return [("tok", tok), ("order", str(self.n_gram)), ("weights", weights),
                ("smooth", "add-one-2+" if self.smooth else "none"), ("reflen", "closest-first"),
                ("float", "float32" if self.backend == "torch" else "float32-emulated")]

    def _corpus(self, hypotheses, refs):
        preds_len, target_len, numerator, denominator = self.statistics(hypotheses, refs)
        counts = [int(v) for v in numerator]
        totals = [int(v) for v in denominator]
        if min(numerator) == 0.0:
            return DialectScore(self.name, 0.0, 0.0, [0.0] * self.n_gram, 0.0,
                                int(preds_len), int(target_len), counts, totals)
        compute = _compute_torch if self.backend == "torch" else _compute_python
        try:
            score, precisions, bp = compute(preds_len, target_len, numerator, denominator,
                                            self.weights, self.smooth)
        except ZeroDivisionError:  # pragma: no cover - needs matches without hypothesis words
            raise ToolError("torchmetrics divides by zero on this input") from None
        return DialectScore(
            dialect=self.name, score=score, bleu=100 * score, precisions=precisions, bp=bp,
            sys_len=int(preds_len), ref_len=int(target_len), counts=counts, totals=totals)

    def statistics(self, hypotheses: list[str], refs: list[list[str]]) -> tuple:
        """``(preds_len, target_len, numerator, denominator)``: from the core where its
        tokens are this dialect's, else :func:`torchmetrics_statistics` (the specification).

        torchmetrics clips as sacreBLEU does; its float32 sums are exact integers while
        they stay within 2**24, so larger sums go to the Python path, which rounds as
        torchmetrics does. Its reference length is the closest, ties to the *first*
        reference: from each reference's length (one reference: the closest is it).
        """
        mode = "none" if self.tokenize is None else self.tokenize
        order = self.n_gram
        if (hypotheses and mode in CORE_TOKENIZERS and within_core_order(order)
                and not (self.lowercase and self.tokenize is not None)
                and rstrip_is_harmless(mode, hypotheses)
                and rstrip_is_harmless(mode, flat_lines(refs))):
            rows = core_rows(self._prepared, hypotheses, refs, mode, order)
            sums = [int(x) for x in rows.sum()]
            if len(refs[0]) == 1:
                target_len = sums[1]
            else:
                target_len = 0
                for row, lengths in zip(rows.rows(),
                                        reference_lengths(self._prepared, refs, mode)):
                    diffs = [abs(int(row[0]) - length) for length in lengths]
                    target_len += lengths[diffs.index(min(diffs))]
            if max(sums + [target_len]) <= _EXACT_FLOAT32_INTS:
                return (float(sums[0]), float(target_len), [float(x) for x in sums[2:2 + order]],
                        [float(x) for x in sums[2 + order:]])
        return torchmetrics_statistics(hypotheses, refs, self.n_gram, self.tokens)
