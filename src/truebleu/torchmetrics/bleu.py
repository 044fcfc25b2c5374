"""``BLEUScore`` and ``SacreBLEUScore``: torchmetrics' BLEU, its numbers, truebleu's core.

The statistics of a batch are counted by the compiled core in one call; the score is
torchmetrics' arithmetic (the ``torchmetrics`` dialect, :mod:`truebleu.dialects.torchmetrics_bleu`).

**The states and their dtype.** torchmetrics keeps ``preds_len``, ``target_len``,
``numerator`` and ``denominator`` as float32 tensors and adds every n-gram count into them
in float32. These classes keep the same four states as **int64** counts, registered with
``dist_reduce_fx="sum"``, and convert them to float32 only in :meth:`compute`. Integer sums
do not depend on the order of additions, so a ``torch.distributed`` run gives exactly the
one-process number, however the data is split. The result is bit-identical to torchmetrics
as long as its float32 sums are exact, that is while every count stays below 2**24 (16.7
million n-grams of one order since the last ``reset``); beyond that torchmetrics' own sums
round at each addition (and differ between one process and several), where these classes
keep counting exactly and round once.
"""

from __future__ import annotations

from array import array
from typing import Any, Optional, Sequence

from ..core.kernels import backend_name, native_core, thread_count
from ..metrics.bleu.spec import max_reference_counts, ngram_counts
from ..tokenizers import get_tokenizer
from ._require import Metric, torch
from .inputs import bleu_inputs
from .pairs import Pairs, first_best

#: SacreBLEUScore's tokenizers, as torchmetrics 1.9 names them
TOKENIZERS = ("none", "13a", "zh", "intl", "char", "ja-mecab", "ko-mecab", "flores101", "flores200")


def _modes() -> dict[str, int]:
    core = native_core()
    return {"none": core.MODE_NONE, "13a": core.MODE_13A, "intl": core.MODE_INTL,
            "zh": core.MODE_ZH, "char": core.MODE_CHAR}


def bleu_rows(hypotheses: list[str], references: list[list[str]], mode: int,
              n_gram: int) -> Any:
    """An int64 tensor of one row per prediction: ``[pred length, reference length,
    matches 1..n, n-grams 1..n]``, the reference length chosen as torchmetrics chooses it
    (the closest, ties to the *first* listed; the core's rows tie to the shorter)."""
    core = native_core()
    width = 2 + 2 * n_gram
    out = array("q", bytes(8 * width * len(hypotheses)))
    threads = thread_count(None)
    core.sentence_statistics(hypotheses, references, mode, False, n_gram, threads, out)
    rows = torch.frombuffer(out, dtype=torch.int64).view(len(hypotheses), width) if out else \
        torch.zeros((0, width), dtype=torch.int64)
    if any(len(refs) > 1 for refs in references):
        rows[:, 1] = _closest_first(rows[:, 0], references, mode, threads)
    return rows


def _closest_first(pred_lengths: Any, references: list[list[str]], mode: int, threads: int) -> Any:
    """Per prediction, the length of its first reference among the closest in length."""
    core = native_core()
    flat = [ref for refs in references for ref in refs]
    out = array("q", bytes(8 * 4 * len(flat)))  # order 1: a row is 4 wide, [0] the length
    core.sentence_statistics(flat, [[""]] * len(flat), mode, False, 1, threads, out)
    pairs = Pairs(references)
    lengths = pairs.table(torch.frombuffer(out, dtype=torch.int64).view(len(flat), 4)[:, 0], 0)
    distance = pairs.table((lengths[pairs.segment, pairs.rank] - pred_lengths[pairs.segment]).abs(),
                           1 << 62)
    _, first = first_best(distance, "less")
    return lengths[torch.arange(len(references)), first]


def python_bleu_rows(hyp_tokens: list[list[str]], ref_tokens: list[list[list[str]]],
                     n_gram: int) -> Any:
    """:func:`bleu_rows` in plain Python, from tokens (the ``torchmetrics`` dialect's rules)."""
    rows = []
    for pred, targets in zip(hyp_tokens, ref_tokens):
        lengths = [len(target) for target in targets]
        distances = [abs(len(pred) - length) for length in lengths]
        clip = max_reference_counts(targets, n_gram)
        matches, totals = [0] * n_gram, [0] * n_gram
        for ngram, count in ngram_counts(pred, n_gram).items():
            totals[len(ngram) - 1] += count
            matches[len(ngram) - 1] += min(count, clip.get(ngram, 0))
        rows.append([len(pred), lengths[distances.index(min(distances))], *matches, *totals])
    return torch.tensor(rows, dtype=torch.int64).view(len(rows), 2 + 2 * n_gram)


def bleu_fraction(preds_len: Any, target_len: Any, numerator: Any, denominator: Any,
                  weights: Sequence[float], smooth: bool) -> Any:
    """torchmetrics' BLEU of summed counts: float32 operations in its order."""
    device = numerator.device
    numerator, denominator = numerator.float(), denominator.float()
    preds_len, target_len = preds_len.float(), target_len.float()
    if min(numerator) == 0.0:  # also with smoothing: the check comes first
        return torch.tensor(0.0, device=device)
    n_gram = len(numerator)
    if smooth:
        ones = torch.ones(n_gram, device=device)
        precision = torch.div(torch.add(numerator, ones), torch.add(denominator, ones))
        precision[0] = numerator[0] / denominator[0]
    else:
        precision = numerator / denominator
    log_precision = torch.tensor(weights, device=device) * torch.log(precision)
    geometric_mean = torch.exp(torch.sum(log_precision))
    if preds_len > target_len:
        brevity_penalty = torch.tensor(1.0, device=device)
    else:
        brevity_penalty = torch.exp(1 - (target_len / preds_len))
    return brevity_penalty * geometric_mean


class BLEUScore(Metric):
    """torchmetrics' ``BLEUScore``, same arguments and same numbers, counted by truebleu's core.

    Tokens are whitespace-split; the reference length is the closest, ties to the first
    reference; ``smooth`` adds one to the matches and n-grams of orders 2..n, and a corpus
    with an order without any match scores 0 even so. ``compute`` returns a float32
    fraction. States: int64 counts (module docstring: why, and when the numbers can
    differ from torchmetrics' float32 sums).

    :param n_gram: the highest n-gram order (1 or more).
    :param smooth: add-one smoothing of the orders above 1.
    :param weights: one weight per order (default: uniform).
    :param kwargs: torchmetrics' ``Metric`` options (``dist_sync_on_step``, ...).
    """

    is_differentiable: bool = False
    higher_is_better: bool = True
    full_state_update: bool = True
    plot_lower_bound: float = 0.0
    plot_upper_bound: float = 1.0

    preds_len: Any
    target_len: Any
    numerator: Any
    denominator: Any

    def __init__(self, n_gram: int = 4, smooth: bool = False,
                 weights: Optional[Sequence[float]] = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        if isinstance(n_gram, bool) or not isinstance(n_gram, int) or n_gram < 1:
            raise ValueError(f"n_gram must be an integer of 1 or more, got {n_gram!r}")
        if weights is not None and len(weights) != n_gram:
            raise ValueError(f"List of weights has different weights than `n_gram`: "
                             f"{len(weights)} != {n_gram}")
        self.n_gram = n_gram
        self.smooth = smooth
        self.weights = list(weights) if weights is not None else [1.0 / n_gram] * n_gram
        zero = torch.tensor(0, dtype=torch.int64)
        self.add_state("preds_len", zero.clone(), dist_reduce_fx="sum")
        self.add_state("target_len", zero.clone(), dist_reduce_fx="sum")
        self.add_state("numerator", torch.zeros(n_gram, dtype=torch.int64), dist_reduce_fx="sum")
        self.add_state("denominator", torch.zeros(n_gram, dtype=torch.int64), dist_reduce_fx="sum")

    def _token_lines(self, lines: list[str]) -> tuple[list[str], int]:
        """The lines as the core reads them, and the core's tokenizer mode: whitespace split."""
        return lines, _modes()["none"]

    def _tokens(self, line: str) -> list[str]:
        """A line's tokens, in Python (the backend without the core)."""
        return line.split()

    def update(self, preds: Sequence[str], target: Sequence[Sequence[str]]) -> None:
        """Add a batch: ``preds[i]`` and its references ``target[i]`` (a list of str)."""
        hypotheses, references = bleu_inputs(preds, target)
        if not hypotheses:
            return
        if backend_name() == "python":  # no compiled core, or TRUEBLEU_BACKEND=python
            rows = python_bleu_rows([self._tokens(line) for line in hypotheses],
                                    [[self._tokens(ref) for ref in refs] for refs in references],
                                    self.n_gram)
            return self._add(rows.sum(0))
        flat = [ref for refs in references for ref in refs]
        lines, mode = self._token_lines(hypotheses + flat)
        hypotheses, flat = lines[:len(hypotheses)], lines[len(hypotheses):]
        it = iter(flat)
        references = [[next(it) for _ in refs] for refs in references]
        self._add(bleu_rows(hypotheses, references, mode, self.n_gram).sum(0))

    def _add(self, totals: Any) -> None:
        totals = totals.to(self.numerator.device)
        self.preds_len += totals[0]
        self.target_len += totals[1]
        self.numerator += totals[2:2 + self.n_gram]
        self.denominator += totals[2 + self.n_gram:]

    def compute(self) -> Any:
        """The corpus BLEU, a float32 fraction in [0, 1], as torchmetrics computes it."""
        return bleu_fraction(self.preds_len, self.target_len, self.numerator, self.denominator,
                             self.weights, bool(self.smooth))


class SacreBLEUScore(BLEUScore):
    """torchmetrics' ``SacreBLEUScore``: :class:`BLEUScore` on sacreBLEU's tokenizers.

    Same arguments and numbers as torchmetrics, which differ from sacreBLEU's BLEU (use
    :class:`truebleu.torchmetrics.BLEU` for those): torchmetrics' BLEU arithmetic (above),
    lowercasing *after* tokenizing (``&QUOT;`` stays three tokens, ``İ`` one), and lines
    tokenized without stripping trailing whitespace (``13a`` keeps a final ``-\\n`` out,
    ``intl`` splits a final ``1.\\n``).

    :param tokenize: one of ``none``, ``13a``, ``zh``, ``intl``, ``char``, ``ja-mecab``,
        ``ko-mecab``, ``flores101``, ``flores200`` (the last four need their packages).
    :param lowercase: lowercase the tokens.
    """

    def __init__(self, n_gram: int = 4, smooth: bool = False, tokenize: str = "13a",
                 lowercase: bool = False, weights: Optional[Sequence[float]] = None,
                 **kwargs: Any) -> None:
        super().__init__(n_gram=n_gram, smooth=smooth, weights=weights, **kwargs)
        if tokenize not in TOKENIZERS:
            raise ValueError(f"Unsupported tokenizer selected. Please, choose one of {list(TOKENIZERS)}")
        self.tokenize = tokenize
        self.lowercase = lowercase
        self._tokenizer = get_tokenizer(tokenize)

    def _tokens(self, line: str) -> list[str]:
        text = self._tokenizer(line) if line else ""
        return (text.lower() if self.lowercase else text).split()

    def _token_lines(self, lines: list[str]) -> tuple[list[str], int]:
        modes = _modes()
        mode = modes.get(self.tokenize)
        trailing = mode is not None and self.tokenize in ("13a", "intl") and any(
            line[-1:].isspace() for line in lines)
        if mode is not None and not self.lowercase and not trailing:
            return lines, mode  # the core tokenizes exactly as torchmetrics does
        core = native_core()
        tokenized = []
        for line in lines:
            if mode is not None and not line[-1:].isspace():
                text = " ".join(core.tokenize(line, mode, False))
            else:  # sacreBLEU's tokenizer on the line as it is (the core strips it first)
                text = self._tokenizer(line) if line else ""
            tokenized.append(text.lower() if self.lowercase else text)
        return tokenized, modes["none"]
