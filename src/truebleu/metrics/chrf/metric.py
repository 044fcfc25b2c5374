"""chrF and chrF++ (Popović 2015, 2017): sacreBLEU's ``CHRF`` class on the metric template.

``CHRF(...)`` fixes the configuration; ``corpus_score`` and ``sentence_score``
take text and return a :class:`CHRFScore`; ``corpus_statistics`` gives the
additive rows (``[hyp, ref, match]`` per character order, then per word
order) that significance tests resample. Keyword names and defaults are
sacreBLEU 2.x's; truebleu adds the keyword-only ``backend`` and ``threads``.
The statistics are specified in :mod:`.spec`.
"""

from __future__ import annotations

from collections.abc import Sequence

from ...core.references import ReferenceStreams, check_reference_streams
from ...core.signature import ABBREVIATIONS, Signature
from ...core.statistics import RowTable
from ..base import Metric, Score
from .config import ChrfConfig, check_orders
from .kernels import kernels
from .spec import PUNCTUATION, f_score

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: importing typing costs about 16 M instructions
if TYPE_CHECKING:
    from typing import Any, Optional

    from .matches import ChrfMatches
    from .rows import CHRFBatchScorer

__all__ = ["CHRF", "CHRFScore", "CHRFSignature", "ChrfConfig", "check_orders"]


class CHRFSignature(Signature):
    """chrF's signature: ``nrefs:1|case:mixed|eff:yes|nc:6|nw:0|space:no|version:...``."""

    ABBREVIATIONS = {**{k: v for k, v in ABBREVIATIONS.items() if k != "version"},
                     "nc": "nc", "nw": "nw", "space": "s", "version": "v"}


class CHRFScore(Score):
    """A chrF score: ``score``, ``char_order``, ``word_order``, ``beta``, named ``chrF2++``-style."""

    def __init__(self, score: float, char_order: int, word_order: int, beta: float) -> None:
        self.beta = beta
        self.char_order = char_order
        self.word_order = word_order
        super().__init__(f"chrF{beta}" + "+" * word_order, score)


class CHRF(Metric[CHRFScore]):
    """chrF (``word_order=0``) or chrF++ (``word_order=2``), as ``sacrebleu.CHRF``.

    :param char_order: largest character n-gram order (6).
    :param word_order: largest word n-gram order (0: chrF; 2: chrF++).
    :param beta: weight of recall against precision (2).
    :param lowercase: case-insensitive.
    :param whitespace: keep whitespace in character n-grams.
    :param eps_smoothing: chrF++.py/NLTK/Moses smoothing (every order counts);
        default: average over the orders that have n-grams (sacreBLEU's default).
    :param references: reference streams to prepare once and reuse across systems.
    :param backend: ``"native"`` or ``"python"``; default: ``$TRUEBLEU_BACKEND`` or the best available.
    :param threads: worker threads of the native backend (default: the available cores).
    """

    CHAR_ORDER = 6
    WORD_ORDER = 0
    BETA = 2
    _PUNCTS = PUNCTUATION

    score_type = CHRFScore
    signature_type = CHRFSignature
    kernels = kernels
    flags_module = "truebleu.metrics.chrf.cli"
    config: ChrfConfig

    def __init__(self, char_order: int = CHAR_ORDER, word_order: int = WORD_ORDER,
                 beta: float = BETA, lowercase: bool = False, whitespace: bool = False,
                 eps_smoothing: bool = False,
                 references: Optional[ReferenceStreams] = None, *,
                 backend: Optional[str] = None, threads: Optional[int] = None) -> None:
        config = ChrfConfig(char_order, word_order, beta, lowercase, whitespace, eps_smoothing)
        # sacreBLEU's attributes
        self.char_order = config.char_order
        self.word_order = config.word_order
        self.order = config.order
        self.beta = config.beta
        self.lowercase = config.lowercase
        self.whitespace = config.whitespace
        self.eps_smoothing = config.eps_smoothing
        super().__init__(config, references, backend=backend, threads=threads)

    @property
    def name(self) -> str:
        return f"chrF{self.beta}" + "+" * self.word_order

    # -- statistics: the template's hooks -------------------------------------

    def _prepare(self, segments: list[list[str]]) -> Any:
        return self._kernel.prepare(segments, self.config, self.threads)

    def _prepare_streams(self, streams: ReferenceStreams) -> tuple[int, Any]:
        """The kernel takes sacreBLEU's streams as they are (the core reads them in place)."""
        check_reference_streams(streams)
        n_segments, self.num_refs, prepared = self._kernel.prepare_streams(
            streams, self.config, self.threads)
        return n_segments, prepared

    def _statistics(self, hypotheses: Sequence[str], prepared: Any) -> RowTable:
        rows: RowTable = self._kernel.statistics(hypotheses, prepared, self.config, self.threads)
        return rows

    # -- scores -------------------------------------------------------------

    def score_from_statistics(self, totals: Sequence[float]) -> CHRFScore:
        """chrF from summed statistics (a row of ``3 * (char_order + word_order)`` numbers)."""
        if len(totals) != 3 * self.order:
            raise ValueError(f"expected {3 * self.order} statistics, got {len(totals)}")
        return CHRFScore(f_score(totals, self.beta, self.eps_smoothing), self.char_order,
                         self.word_order, self.beta)

    def score_name(self) -> str:
        return self.name

    def batch_scorer(self, **options: Any) -> CHRFBatchScorer:
        """chrF of many summed rows at once (:mod:`.rows`: the same floats as
        :meth:`score_from_statistics`, vectorised); chrF takes no scorer options."""
        from .rows import CHRFBatchScorer

        return CHRFBatchScorer(lambda hyps: self.corpus_statistics(hyps).to_numpy(), self.beta,
                               self.eps_smoothing, self.score_name())

    def row_width(self) -> int:
        return self.config.width

    def sentence_matches(self, hypothesis: str, references: Sequence[str]) -> ChrfMatches:
        """Which character (and, for chrF++, word) n-grams of ``hypothesis`` matched its best
        reference, per order, with their counts and spans (:mod:`.matches`); per order the
        counts add up to :meth:`sentence_score`'s statistics."""
        from ..explanation import check_sentence
        from .matches import sentence_matches

        check_sentence(hypothesis, references)
        return sentence_matches(hypothesis, list(references), self.config)

    # -- signature ----------------------------------------------------------

    def _signature_settings(self) -> dict[str, object]:
        return {"case": "lc" if self.lowercase else "mixed",
                "eff": "no" if self.eps_smoothing else "yes",
                "nc": self.char_order,
                "nw": self.word_order,
                "space": "yes" if self.whitespace else "no"}

