"""``CHRFScore``: torchmetrics' chrF/chrF++, its numbers, truebleu's core.

The rules are the ``torchmetrics-chrf`` dialect's (:mod:`truebleu.dialects.torchmetrics_chrf`,
the specification, in plain Python). Here the n-grams of a batch are counted by the compiled
core -- one call for every (prediction, reference) pair of the batch, two when a line holds
whitespace other than the ASCII space (torchmetrics counts it as a character) -- and the
per-reference f-scores, the choice of a reference and the score are torch float32 operations
in torchmetrics' order, so the bits are torchmetrics'.

**States.** One int64 vector ``statistics`` of ``[pred, reference, matched] n-grams`` per
order (character orders, then word orders), ``dist_reduce_fx="sum"``: exact in any order and
on any number of processes; torchmetrics adds the same counts in float32, which is exact
below 2**24 n-grams per order, so the numbers are identical below that. With
``return_sentence_level_score`` the sentence scores are a list state (``"cat"``).
"""

from __future__ import annotations

from array import array
from typing import Any, Sequence, Union

from ..core.kernels import backend_name, native_core, thread_count
from ..dialects.torchmetrics_chrf import EPS, characters, segment
from ._require import Metric, torch
from .inputs import text_inputs
from .pairs import Pairs, first_best


def _core_rows(hypotheses: list[str], references: list[str], char_order: int,
               word_order: int, whitespace: bool) -> Any:
    """The core's chrF rows of each (hypothesis, its one reference) pair, int64 ``[n, 3*orders]``."""
    width = 3 * (char_order + word_order)
    if not hypotheses:
        return torch.zeros((0, width), dtype=torch.int64)
    out = array("q", bytes(8 * width * len(hypotheses)))
    native_core().chrf_statistics(hypotheses, [[ref] for ref in references], char_order,
                                  word_order, whitespace, False, 4.0, 5.0, thread_count(None),
                                  out, None)
    return torch.frombuffer(out, dtype=torch.int64).view(len(hypotheses), width)


def pair_rows(hypotheses: list[str], references: list[str], n_char_order: int,
              n_word_order: int, whitespace: bool) -> Any:
    """torchmetrics' counts of each pair (lowercased already): int64 ``[pairs, 3*orders]``.

    The hypothesis count is left as the core gives it (0 for an order the reference lacks);
    :func:`own_counts` has the hypotheses' own counts.
    """
    if whitespace:  # every character counts, nothing is stripped: the core's own rule
        return _core_rows(hypotheses, references, n_char_order, n_word_order, True)
    hyp_chars = [characters(line, False) for line in hypotheses]
    ref_chars = [characters(line, False) for line in references]
    if len("\0".join(hyp_chars + ref_chars).split()) <= 1:
        # no whitespace left: the core's "remove all whitespace" is torchmetrics' rule
        return _core_rows(hypotheses, references, n_char_order, n_word_order, False)
    rows = _core_rows(hyp_chars, ref_chars, n_char_order, 0, True)
    if n_word_order:
        words = _core_rows(hypotheses, references, 0, n_word_order, False)
        rows = torch.cat([rows, words], dim=1)
    return rows


def own_counts(hypotheses: list[str], n_char_order: int, n_word_order: int,
               whitespace: bool) -> Any:
    """Each hypothesis's n-gram count per order (int64 ``[n, orders]``), whatever the reference."""
    lengths = torch.tensor([len(characters(line, whitespace)) for line in hypotheses],
                           dtype=torch.int64)
    orders = torch.arange(1, n_char_order + 1)
    chars = (lengths[:, None] - orders[None, :] + 1).clamp(min=0)
    if not n_word_order:
        return chars
    words = _core_rows(hypotheses, hypotheses, 0, n_word_order, False)[:, 1::3]
    return torch.cat([chars, words], dim=1)


def f_scores(rows: Any, n_char_order: int, beta: float, present: Any = None) -> Any:
    """torchmetrics' chrF of each row (float32 ``[..., 3*orders]``), float32 ops in its order.

    ``present`` (bool ``[..., orders]``) leaves orders out of the sum, as a sentence leaves
    out the orders its reference has no n-gram of.
    """
    hyp, ref, matches = rows[..., 0::3], rows[..., 1::3], rows[..., 2::3]
    zero = torch.zeros((), dtype=rows.dtype, device=rows.device)
    precision = torch.where(hyp > 0, matches / hyp, zero)
    recall = torch.where(ref > 0, matches / ref, zero)
    eps = torch.tensor(EPS, dtype=rows.dtype, device=rows.device)
    denominator = torch.maximum(beta ** 2 * precision + recall, eps)
    f = (1 + beta ** 2) * precision * recall / denominator
    if present is not None:
        f = torch.where(present, f, zero)
    char_sum = torch.zeros(rows.shape[:-1], dtype=rows.dtype, device=rows.device)
    word_sum = char_sum.clone()
    for k in range(f.shape[-1]):
        if k < n_char_order:
            char_sum = char_sum + f[..., k]
        else:
            word_sum = word_sum + f[..., k]
    return (char_sum + word_sum) / torch.tensor(float(f.shape[-1]), device=rows.device)


def segment_statistics(hypotheses: list[str], references: list[list[str]], n_char_order: int,
                       n_word_order: int, beta: float, lowercase: bool, whitespace: bool
                       ) -> tuple[Any, Any]:
    """``(summed int64 row, float32 sentence scores)`` of a batch, torchmetrics' rules
    (without the compiled core, or with ``TRUEBLEU_BACKEND=python``: the dialect's
    specification, segment by segment)."""
    if backend_name() == "python":
        rows, scores = zip(*(segment(hyp, refs, n_char_order, n_word_order, beta, lowercase,
                                     whitespace) for hyp, refs in zip(hypotheses, references)))
        return (torch.tensor(rows, dtype=torch.int64).sum(0),
                torch.tensor(scores, dtype=torch.float32))
    if lowercase:
        hypotheses = [line.lower() for line in hypotheses]
        references = [[line.lower() for line in refs] for refs in references]
    orders = n_char_order + n_word_order
    pairs = Pairs(references)
    own = own_counts(hypotheses, n_char_order, n_word_order, whitespace)
    rows = pair_rows([hypotheses[i] for i in pairs.segment_list],
                     [ref for refs in references for ref in refs],
                     n_char_order, n_word_order, whitespace).clone()
    rows[:, 0::3] = own[pairs.segment]
    f = f_scores(rows.float(), n_char_order, beta, present=rows[:, 1::3] > 0)
    best, first = first_best(pairs.table(torch.nan_to_num(f, nan=0.0), 0.0), "greater")
    chosen = best > 0  # torchmetrics keeps a reference only above 0 (NaN never wins)
    totals = torch.zeros((len(hypotheses), 3 * orders), dtype=torch.int64)
    totals[:, 0::3] = own
    picked = pairs.pair_index()[torch.arange(len(hypotheses)), first][chosen]
    totals[chosen, 1::3] = rows[picked, 1::3]
    totals[chosen, 2::3] = rows[picked, 2::3]
    return totals.sum(0), torch.where(chosen, best, torch.zeros(()))


class CHRFScore(Metric):
    """torchmetrics' ``CHRFScore``, same arguments and same numbers, counted by truebleu's core.

    Differs from sacreBLEU's chrF (use :class:`truebleu.torchmetrics.CHRF` for sacreBLEU's
    numbers) in the ways the ``torchmetrics-chrf`` dialect lists: the mean of per-order
    f-scores, float32, a reference kept only if it scores above 0, whitespace other than
    the space counted as characters. ``compute`` returns a float32 fraction, and with
    ``return_sentence_level_score`` also the float32 sentence scores.

    :param n_char_order: character n-gram order (1 or more; 6 is chrF).
    :param n_word_order: word n-gram order (0 or more; 2 is chrF++, 0 chrF).
    :param beta: weight of recall against precision (0 or more).
    :param lowercase: compare lowercased text.
    :param whitespace: keep whitespace in the character n-grams.
    :param return_sentence_level_score: also return each sentence's score.
    """

    is_differentiable: bool = False
    higher_is_better: bool = True
    full_state_update: bool = True
    plot_lower_bound: float = 0.0
    plot_upper_bound: float = 1.0

    statistics: Any
    sentence_chrf_score: Any

    def __init__(self, n_char_order: int = 6, n_word_order: int = 2, beta: float = 2.0,
                 lowercase: bool = False, whitespace: bool = False,
                 return_sentence_level_score: bool = False, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        if not isinstance(n_char_order, int) or n_char_order < 1:
            raise ValueError("Expected argument `n_char_order` to be an integer greater than or equal to 1.")
        if not isinstance(n_word_order, int) or n_word_order < 0:
            raise ValueError("Expected argument `n_word_order` to be an integer greater than or equal to 0.")
        if beta < 0:
            raise ValueError("Expected argument `beta` to be greater than 0.")
        self.n_char_order, self.n_word_order, self.beta = n_char_order, n_word_order, beta
        self.lowercase, self.whitespace = lowercase, whitespace
        self.return_sentence_level_score = return_sentence_level_score
        width = 3 * (n_char_order + n_word_order)
        self.add_state("statistics", torch.zeros(width, dtype=torch.int64), dist_reduce_fx="sum")
        if return_sentence_level_score:
            self.add_state("sentence_chrf_score", [], dist_reduce_fx="cat")

    def update(self, preds: Union[str, Sequence[str]],
               target: Union[Sequence[str], Sequence[Sequence[str]]]) -> None:
        """Add a batch: a prediction or a list, with its references (torchmetrics' layouts)."""
        hypotheses, references = text_inputs(preds, target, need_reference=False)
        if not hypotheses:
            return
        totals, scores = segment_statistics(hypotheses, references, self.n_char_order,
                                            self.n_word_order, float(self.beta),
                                            bool(self.lowercase), bool(self.whitespace))
        self.statistics += totals.to(self.statistics.device)
        if self.return_sentence_level_score:
            self.sentence_chrf_score.append(scores.to(self.statistics.device))

    def compute(self) -> Any:
        """The corpus chrF (float32 fraction), and the sentence scores when asked for."""
        score = f_scores(self.statistics.float(), self.n_char_order, float(self.beta))
        if not self.return_sentence_level_score:
            return score
        return score, concatenated(self.sentence_chrf_score, self.statistics.device)


def concatenated(state: Any, device: Any) -> Any:
    """A list state (or the tensor a sync makes of it) as one float32 tensor."""
    if isinstance(state, torch.Tensor):
        return state
    if not state:
        return torch.zeros(0, device=device)
    return torch.cat(state)
