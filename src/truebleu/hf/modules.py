"""The four ``evaluate`` modules: ``evaluate.Metric`` subclasses scored by truebleu.

Each is a drop-in for the hub module of its name: the class name (so ``module.name``,
its cache folder and ``evaluate.combine``'s prefixes are the hub's), the input
features, ``add``/``add_batch``/``compute`` (``evaluate``'s own, distributed runs
included), the keyword arguments, defaults, errors and returned dict. Nothing is
downloaded: the code is here, and scoring needs no data file.

In one process, plain input (:func:`~truebleu.hf.inputs.plain_inputs`) given to
``add``, ``add_batch`` and ``compute`` is kept in memory and scored directly instead of
being written to ``evaluate``'s Arrow table and read back, which gives the same lists
and would cost more than the scoring (:class:`_Module`).
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
    """What the four modules share: their info, and a single process's inputs kept in memory.

    In one process (``num_process == 1``), plain inputs given to ``add``, ``add_batch``
    and ``compute`` are kept as lists until ``compute`` scores them, instead of being
    written to ``evaluate``'s Arrow table and read back (which gives the same lists,
    and would cost more than the scoring). Anything else (a distributed run, keyword
    inputs, input that is not plain, a batch whose references take another form than
    the ones kept) first writes what is kept to ``evaluate``'s table, in order, and
    then goes ``evaluate``'s way, with its checks and errors.
    """

    name_on_hub = ""
    #: the inputs kept so far (predictions, references), or None
    _kept: Optional[tuple[list[str], list[Any]]] = None

    def _info(self) -> Any:
        return metric_info(self.name_on_hub)

    def _in_memory(self) -> bool:
        return self.writer is None and self.num_process == 1

    def _keep(self, plain: tuple[list[str], list[Any]]) -> bool:
        """Keeps a plain batch after the ones kept, if its references have their form."""
        if self._kept is None:
            self._kept = (list(plain[0]), list(plain[1]))
            return True
        predictions, references = self._kept
        if type(references[0]) is not type(plain[1][0]):  # str vs list: evaluate's error
            return False
        predictions.extend(plain[0])
        references.extend(plain[1])
        return True

    def _write_kept(self) -> None:
        """What is kept, written to evaluate's table (before input that goes its way)."""
        if self._kept is not None:
            predictions, references = self._kept
            self._kept = None
            evaluate.Metric.add_batch(self, predictions=predictions, references=references)

    def add_batch(self, *, predictions: Any = None, references: Any = None,
                  **kwargs: Any) -> None:
        """Adds a batch of predictions and their references (``evaluate``'s ``add_batch``)."""
        if not kwargs and self._in_memory():
            plain = plain_inputs(predictions, references)
            if plain is not None and self._keep(plain):
                return
        self._write_kept()
        evaluate.Metric.add_batch(self, predictions=predictions, references=references, **kwargs)

    def add(self, *, prediction: Any = None, reference: Any = None, **kwargs: Any) -> None:
        """Adds one prediction and its references (``evaluate``'s ``add``)."""
        if not kwargs and self._in_memory() and type(prediction) is str:
            plain = plain_inputs([prediction], [reference])
            if plain is not None and self._keep(plain):
                return
        self._write_kept()
        evaluate.Metric.add(self, prediction=prediction, reference=reference, **kwargs)

    def compute(self, *, predictions: Any = None, references: Any = None,
                **kwargs: Any) -> Optional[dict[str, Any]]:
        """The score of everything added, and of ``predictions``/``references`` if given;
        ``kwargs`` are the module's keyword arguments (evaluate appends their description).
        """
        if self._in_memory():
            given = predictions is not None or references is not None
            plain = plain_inputs(predictions, references) if given else None
            if (plain is not None or not given) and (plain is None or self._keep(plain)):
                kept, self._kept = self._kept, None  # (empty after a compute, as evaluate's)
                if kept is not None:
                    result: dict[str, Any] = self._compute(predictions=kept[0],
                                                           references=kept[1], **kwargs)
                    return result
        self._write_kept()
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
