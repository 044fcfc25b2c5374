"""The four ``evaluate`` modules: ``evaluate.Metric`` subclasses scored by truebleu.

Each is a drop-in for the hub module of its name: the class name (so ``module.name``,
its cache folder and ``evaluate.combine``'s prefixes are the hub's), the input
features, ``add``/``add_batch``/``compute`` (``evaluate``'s own, distributed runs
included), the keyword arguments, defaults, errors and returned dict. Nothing is
downloaded: the code is here, and scoring needs no data file.

``compute(predictions=..., references=...)`` with nothing added before and plain
input (:func:`~truebleu.hf.inputs.plain_inputs`) scores the lists directly instead of
writing them to ``evaluate``'s Arrow table and reading them back, which gives the
same lists and would cost more than the scoring.
"""

from __future__ import annotations

from typing import Any, Optional

from .info import metric_info
from .inputs import PerPrediction, plain_inputs
from .names import import_optional
from .scores import chrf_scores, sacrebleu_scores, ter_scores
from .tfnmt import TOKENIZER_13A, tfnmt_scores

evaluate = import_optional("evaluate")
#: the base class (``Any`` to the type checker: ``evaluate`` carries no types)
_Metric: Any = evaluate.Metric


class _Module(_Metric):
    """What the four modules share: their info and the direct path of ``compute``."""

    name_on_hub = ""

    def _info(self) -> Any:
        return metric_info(self.name_on_hub)

    def compute(self, *, predictions: Any = None, references: Any = None,
                **kwargs: Any) -> Optional[dict[str, Any]]:
        """The score of everything added, and of ``predictions``/``references`` if given;
        ``kwargs`` are the module's keyword arguments (evaluate appends their description).
        """
        if self.writer is None and self.num_process == 1:
            plain = plain_inputs(predictions, references)
            if plain is not None:
                result: dict[str, Any] = self._compute(predictions=plain[0], references=plain[1],
                                                       **kwargs)
                return result
        done: Optional[dict[str, Any]] = evaluate.Metric.compute(
            self, predictions=predictions, references=references, **kwargs)
        return done


class Sacrebleu(_Module):
    """sacreBLEU's corpus BLEU (``evaluate.load("sacrebleu")``)."""

    name_on_hub = "sacrebleu"

    def _compute(self, predictions: list[str], references: PerPrediction,
                 smooth_method: str = "exp", smooth_value: Optional[float] = None,
                 force: bool = False, lowercase: bool = False, tokenize: Optional[str] = None,
                 use_effective_order: bool = False) -> dict[str, Any]:
        return sacrebleu_scores(predictions, references, smooth_method, smooth_value, force,
                                lowercase, tokenize, use_effective_order)


class Bleu(_Module):
    """tensorflow/nmt's BLEU (``evaluate.load("bleu")``)."""

    name_on_hub = "bleu"

    def _compute(self, predictions: list[str], references: PerPrediction,
                 tokenizer: Any = TOKENIZER_13A, max_order: int = 4,
                 smooth: bool = False) -> dict[str, Any]:
        return tfnmt_scores(predictions, references, tokenizer, max_order, smooth)


class ChrF(_Module):
    """sacreBLEU's chrF and chrF++ (``evaluate.load("chrf")``)."""

    name_on_hub = "chrf"

    def _compute(self, predictions: list[str], references: PerPrediction, char_order: int = 6,
                 word_order: int = 0, beta: int = 2, lowercase: bool = False,
                 whitespace: bool = False, eps_smoothing: bool = False) -> dict[str, Any]:
        return chrf_scores(predictions, references, char_order, word_order, beta, lowercase,
                           whitespace, eps_smoothing)


class Ter(_Module):
    """sacreBLEU's TER (``evaluate.load("ter")``)."""

    name_on_hub = "ter"

    def _compute(self, predictions: list[str], references: PerPrediction,
                 normalized: bool = False, ignore_punct: bool = False,
                 support_zh_ja_chars: bool = False, case_sensitive: bool = False) -> dict[str, Any]:
        return ter_scores(predictions, references, normalized, ignore_punct, support_zh_ja_chars,
                          case_sensitive)


#: the module classes by their ``evaluate.load`` name
MODULES: dict[str, type[_Module]] = {"sacrebleu": Sacrebleu, "bleu": Bleu, "chrf": ChrF, "ter": Ter}
