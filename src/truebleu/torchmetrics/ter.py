"""``TranslationEditRate``: torchmetrics' TER, its numbers, truebleu's core.

The rules are the ``torchmetrics-ter`` dialect's (:mod:`truebleu.dialects.torchmetrics_ter`,
the specification): sacreBLEU's tercom tokenizer and edit algorithm with the roles of
prediction and reference swapped. The lines are tokenized in Python (tercom's rules are
regular expressions, cached); the edits of every (reference, prediction) pair of a batch
are computed by the compiled core in one call.

**States.** ``total_num_edits`` is an int64 count (``dist_reduce_fx="sum"``): exact in any
order; torchmetrics adds the same integers in float32, exact below 2**24.
``total_tgt_len`` is float32, as torchmetrics keeps it, because a segment's reference
length is the *average* over its references, ``float32(sum) / k``: with one reference (or
references of one length) it is an integer, the float32 sums are exact below 2**24 and a
``torch.distributed`` run gives exactly the one-process number. Averages that are not
integers are added one by one in float32 as torchmetrics adds them, so one process gives
torchmetrics' bits; across processes torchmetrics' float32 sums (and these) then depend on
how the data is split, in the last bits.
"""

from __future__ import annotations

from array import array
from typing import Any, Sequence, Union

from ..core.kernels import backend_name, native_core, thread_count
from ..dialects.torchmetrics_ter import MAX_SHIFT_SIZE, tokenizer_of
from ..dialects.torchmetrics_ter import segment as spec_segment
from ._require import Metric, torch
from .chrf import concatenated
from .inputs import text_inputs
from .pairs import Pairs, first_best

_EXACT_FLOAT32 = 1 << 24


def segment_statistics(hypotheses: list[str], references: list[list[str]], tokenizer: Any
                       ) -> tuple[Any, Any]:
    """``(fewest edits per segment, int64; float32 average reference length per segment)``
    (without the compiled core, or with ``TRUEBLEU_BACKEND=python``: the dialect's
    specification, segment by segment)."""
    if backend_name() == "python":
        rows = [spec_segment(hyp, refs, tokenizer) for hyp, refs in zip(hypotheses, references)]
        return (torch.tensor([row[0] for row in rows], dtype=torch.int64),
                torch.tensor([row[1] for row in rows], dtype=torch.float32))
    preds = [tokenizer(line.rstrip()) for line in hypotheses]
    refs = [[tokenizer(line.rstrip()) for line in segment] for segment in references]
    pairs = Pairs(refs)
    flat = [ref for refs_of in refs for ref in refs_of]
    pred_of_pair = [preds[i] for i in pairs.segment_list]
    out = array("d", bytes(16 * len(flat)))
    # swapped, as torchmetrics calls its edit function: the reference is shifted and edited
    native_core().ter_statistics(flat, [[pred] for pred in pred_of_pair], thread_count(None), out,
                                 max_shift_size=MAX_SHIFT_SIZE)  # torchmetrics shifts 9 words at most
    edits = torch.frombuffer(out, dtype=torch.float64).view(len(flat), 2)[:, 0].to(torch.int64)
    empty_pred = torch.tensor([not pred for pred in pred_of_pair], dtype=torch.bool)
    edits = torch.where(empty_pred, torch.zeros((), dtype=torch.int64), edits)
    best, _ = first_best(pairs.table(edits, 1 << 62), "less")
    lengths = pairs.table(torch.tensor([ref.count(" ") + 1 if ref else 0 for ref in flat],
                                       dtype=torch.float32), 0.0)
    length_sums = lengths[:, 0]
    for rank in range(1, lengths.shape[1]):
        length_sums = length_sums + lengths[:, rank]  # whole numbers: exact in float32
    counts = torch.tensor(pairs.counts, dtype=torch.float32)
    return best, length_sums / counts


def ter_fraction(edits: Any, length: Any) -> Any:
    """torchmetrics' TER of float32 edits and lengths (any shape): ``edits / length``, 1.0
    when the length is 0 and there are edits, else 0.0."""
    edits = edits.to(torch.float32)
    one, zero = torch.ones((), device=edits.device), torch.zeros((), device=edits.device)
    ratio = torch.where((length > 0) & (edits > 0), edits / length, zero)
    return torch.where((length == 0) & (edits > 0), one, ratio)


class TranslationEditRate(Metric):
    """torchmetrics' ``TranslationEditRate``, same arguments and same numbers, edits by truebleu's core.

    Differs from sacreBLEU's TER (use :class:`truebleu.torchmetrics.TER` for sacreBLEU's
    numbers) in the ways the ``torchmetrics-ter`` dialect lists: the reference is shifted
    towards the prediction (an empty prediction scores 0), references are tokenized once,
    float32 sums, a fraction. ``compute`` returns a float32 fraction, and with
    ``return_sentence_level_score`` also the float32 sentence scores.

    :param normalize: tercom's general tokenization.
    :param no_punctuation: remove punctuation.
    :param lowercase: compare lowercased text (the default, as sacreBLEU's).
    :param asian_support: tokenize CJK characters (with ``normalize``) and punctuation.
    :param return_sentence_level_score: also return each sentence's score.
    """

    is_differentiable: bool = False
    higher_is_better: bool = False
    full_state_update: bool = False
    plot_lower_bound: float = 0.0
    plot_upper_bound: float = 1.0

    total_num_edits: Any
    total_tgt_len: Any
    sentence_ter: Any

    def __init__(self, normalize: bool = False, no_punctuation: bool = False,
                 lowercase: bool = True, asian_support: bool = False,
                 return_sentence_level_score: bool = False, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        for name, value in (("normalize", normalize), ("no_punctuation", no_punctuation),
                            ("lowercase", lowercase), ("asian_support", asian_support)):
            if not isinstance(value, bool):
                raise ValueError(f"Expected argument `{name}` to be of type boolean but got {value}.")
        self.tokenizer = tokenizer_of(normalize, no_punctuation, lowercase, asian_support)
        self.return_sentence_level_score = return_sentence_level_score
        self.add_state("total_num_edits", torch.tensor(0, dtype=torch.int64), dist_reduce_fx="sum")
        self.add_state("total_tgt_len", torch.tensor(0.0), dist_reduce_fx="sum")
        if return_sentence_level_score:
            self.add_state("sentence_ter", [], dist_reduce_fx="cat")

    def update(self, preds: Union[str, Sequence[str]],
               target: Union[Sequence[str], Sequence[Sequence[str]]]) -> None:
        """Add a batch: a prediction or a list, with its references (torchmetrics' layouts)."""
        hypotheses, references = text_inputs(preds, target, need_reference=True)
        if not hypotheses:
            return
        edits, lengths = segment_statistics(hypotheses, references, self.tokenizer)
        device = self.total_tgt_len.device
        self.total_num_edits += edits.sum().to(device)
        self.total_tgt_len = added_in_float32(self.total_tgt_len, lengths.to(device))
        if self.return_sentence_level_score:
            self.sentence_ter.append(ter_fraction(edits, lengths).to(device))

    def compute(self) -> Any:
        """The corpus TER (float32 fraction), and the sentence scores when asked for."""
        score = ter_fraction(self.total_num_edits, self.total_tgt_len)
        if not self.return_sentence_level_score:
            return score
        return score, concatenated(self.sentence_ter, self.total_tgt_len.device)


def added_in_float32(total: Any, values: Any) -> Any:
    """``total`` plus each value in turn, in float32 (torchmetrics' order): at once when
    the values are integers and the sum stays exact, else one addition at a time."""
    exact_sum = float(total) + float(values.double().sum())
    integral = float(total).is_integer() and bool((values == values.round()).all())
    if integral and exact_sum < _EXACT_FLOAT32:
        return torch.tensor(exact_sum, dtype=torch.float32, device=total.device)
    for value in values:
        total = total + value
    return total
