"""``BLEU``, ``CHRF``, ``TER``: torchmetrics metrics with sacreBLEU's numbers and option names.

Each wraps the truebleu metric of the same name (:class:`truebleu.metrics.BLEU`, ``CHRF``,
``TER``: sacreBLEU 2.6's numbers, bit for bit) in torchmetrics' interface: ``update(preds,
target)`` with references grouped per prediction (``target[i]`` is the list of references
of ``preds[i]``; a segment may have fewer references than another), ``compute``, ``reset``,
``forward``, and distributed sync.

**States.** ``statistics`` is the column sum of the metric's rows (the numbers truebleu's
metrics add: BLEU's lengths and n-gram counts, chrF's n-gram counts, TER's edits and average
reference length), ``dist_reduce_fx="sum"``. BLEU and chrF rows are int64: a
``torch.distributed`` run gives exactly the one-process score, however the data is split.
TER's rows are float64 (a segment's reference length is the *average* of its references'):
with one reference per segment (or references of one length) they are integers and the
sums are exact up to 2**53, so the same holds; averages that are not integers add with
float64 rounding, which can differ in the last bits between splits, as sacreBLEU's own sum
does between orders. ``compute`` returns the score as a float64 tensor holding exactly
sacreBLEU's Python float (0-100, not a fraction).
"""

from __future__ import annotations

from typing import Any, Optional, Sequence, Union

from ..metrics import BLEU as _BLEU
from ..metrics import CHRF as _CHRF
from ..metrics import TER as _TER
from ..metrics.base import Metric as _TruebleuMetric
from ._require import Metric, torch
from .chrf import concatenated
from .inputs import text_inputs


def reference_streams(references: list[list[str]]) -> list[list[Optional[str]]]:
    """sacreBLEU's layout (``streams[k][i]``, ``None`` where segment ``i`` has fewer)."""
    width = max(len(refs) for refs in references)
    return [[refs[k] if k < len(refs) else None for refs in references] for k in range(width)]


class _SacreBLEUMetric(Metric):
    """A truebleu metric's rows summed in a torchmetrics state; sacreBLEU's score."""

    is_differentiable: bool = False
    full_state_update: bool = False

    statistics: Any
    sentence_score: Any

    def __init__(self, metric: _TruebleuMetric[Any], return_sentence_level_score: bool,
                 **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.metric = metric
        self.return_sentence_level_score = return_sentence_level_score
        dtype = torch.int64 if metric.integer_rows else torch.float64
        self.add_state("statistics", torch.zeros(metric.row_width(), dtype=dtype),
                       dist_reduce_fx="sum")
        if return_sentence_level_score:
            self.add_state("sentence_score", [], dist_reduce_fx="cat")

    def update(self, preds: Union[str, Sequence[str]],
               target: Union[Sequence[str], Sequence[Sequence[str]]]) -> None:
        """Add a batch: predictions with their references (``target[i]``: a list of str)."""
        hypotheses, references = text_inputs(preds, target, need_reference=True)
        if not hypotheses:
            return
        table = self.metric.corpus_statistics(hypotheses, reference_streams(references),
                                              check_inputs=False)
        # the table's own column sums, in segment order as corpus_score adds them (a torch sum
        # adds float rows in another order: TER's averaged lengths then differ in the last bit)
        sums = torch.tensor(table.sum(), dtype=self.statistics.dtype)
        self.statistics += sums.to(self.statistics.device)
        if self.return_sentence_level_score:
            scores = [self.metric.score_from_statistics(row).score for row in table.rows()]
            self.sentence_score.append(torch.tensor(scores, dtype=torch.float64,
                                                    device=self.statistics.device))

    def compute(self) -> Any:
        """sacreBLEU's corpus score (float64, 0-100), and the sentence scores when asked for."""
        totals = self.statistics.tolist()
        score = torch.tensor(self.metric.score_from_statistics(totals).score, dtype=torch.float64,
                             device=self.statistics.device)
        if not self.return_sentence_level_score:
            return score
        return score, concatenated(self.sentence_score, self.statistics.device).double()


class BLEU(_SacreBLEUMetric):
    """sacreBLEU's BLEU as a torchmetrics metric: :class:`truebleu.metrics.BLEU`'s options
    and numbers. An empty corpus scores 0.

    ``return_sentence_level_score`` gives each segment's BLEU under the same options (as
    ``BLEU(...).corpus_score`` on that one segment; sacreBLEU's ``sentence_score`` would
    also turn on ``effective_order``).
    """

    higher_is_better: bool = True
    plot_lower_bound: float = 0.0
    plot_upper_bound: float = 100.0

    def __init__(self, lowercase: bool = False, force: bool = False,
                 tokenize: Optional[str] = None, smooth_method: str = "exp",
                 smooth_value: Optional[float] = None, max_ngram_order: int = 4,
                 effective_order: bool = False, trg_lang: str = "",
                 return_sentence_level_score: bool = False, **kwargs: Any) -> None:
        metric = _BLEU(lowercase=lowercase, force=force, tokenize=tokenize,
                       smooth_method=smooth_method, smooth_value=smooth_value,
                       max_ngram_order=max_ngram_order, effective_order=effective_order,
                       trg_lang=trg_lang)
        super().__init__(metric, return_sentence_level_score, **kwargs)


class CHRF(_SacreBLEUMetric):
    """sacreBLEU's chrF (``word_order=2``: chrF++) as a torchmetrics metric:
    :class:`truebleu.metrics.CHRF`'s options and numbers."""

    higher_is_better: bool = True
    plot_lower_bound: float = 0.0
    plot_upper_bound: float = 100.0

    def __init__(self, char_order: int = 6, word_order: int = 0, beta: int = 2,
                 lowercase: bool = False, whitespace: bool = False, eps_smoothing: bool = False,
                 return_sentence_level_score: bool = False, **kwargs: Any) -> None:
        metric = _CHRF(char_order=char_order, word_order=word_order, beta=beta,
                       lowercase=lowercase, whitespace=whitespace, eps_smoothing=eps_smoothing)
        super().__init__(metric, return_sentence_level_score, **kwargs)


class TER(_SacreBLEUMetric):
    """sacreBLEU's TER as a torchmetrics metric: :class:`truebleu.metrics.TER`'s options
    and numbers (lower is better)."""

    higher_is_better: bool = False
    plot_lower_bound: float = 0.0

    def __init__(self, normalized: bool = False, no_punct: bool = False,
                 asian_support: bool = False, case_sensitive: bool = False,
                 return_sentence_level_score: bool = False, **kwargs: Any) -> None:
        metric = _TER(normalized=normalized, no_punct=no_punct, asian_support=asian_support,
                      case_sensitive=case_sensitive)
        super().__init__(metric, return_sentence_level_score, **kwargs)
