"""The BLEU metric object: sacreBLEU's ``BLEU`` class, on the metric template.

``BLEU(...)`` fixes the configuration (tokenizer, case, smoothing, order);
``corpus_score`` and ``sentence_score`` take text and return
:class:`~truebleu.metrics.bleu.score.BLEUScore`; ``get_signature`` names the
configuration. Keyword names and defaults are sacreBLEU 2.x's. What truebleu
adds is keyword-only: ``spm_model``, ``backend``, ``threads``.

What BLEU refines of the template (:mod:`truebleu.metrics.base`): references
used once are tokenized beside the hypotheses in one pass of the kernel, and a
corpus score adds its rows up without a table; sacreBLEU's warning about
tokenized output (lines ending in " .").
"""

from __future__ import annotations

from collections.abc import Sequence

from ...core.log import logger
from ...core.references import ReferenceStreams as References
from ...core.references import check_reference_streams, check_str_sequence, check_strings
from ...core.signature import Signature
from ...tokenizers import TOKENIZERS, Tokenizer
from ..base import Metric
from .config import MAX_NGRAM_ORDER, SMOOTH_DEFAULTS, BLEUConfig, preferred_tokenizer_warning
from .kernels import kernels
from .score import BLEUScore, compute_bleu, score_from_statistics
from .statistics import Statistics

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: importing typing costs about 16 M instructions
if TYPE_CHECKING:
    from array import array
    from typing import Any, Optional, Union

    from ...core.statistics import RowTable
    from .rows import BLEUBatchScorer

_TOKENIZED_PERIOD_WARNING_AT = 100


def count_tokenized_periods(hypotheses: Sequence[str], backend: Optional[str] = None) -> int:
    """Lines ending in " .": a sign of tokenized (not detokenized) output.

    sacreBLEU's rule, ``hyp.endswith(" .")`` on each line as given; the compiled
    core counts it without a Python call per line.
    """
    count: int = kernels.load(backend).tokenized_periods(hypotheses)
    return count


def warn_if_tokenized(count: int) -> None:
    """sacreBLEU's warning when 100 or more lines look tokenized."""
    if count >= _TOKENIZED_PERIOD_WARNING_AT:
        logger.warning("That's 100 lines that end in a tokenized period ('.')")
        logger.warning("It looks like you forgot to detokenize your test data, "
                       "which may hurt your score.")
        logger.warning("If you insist your data is detokenized, or don't care, "
                       "you can suppress this message with the `force` parameter.")


def warn_if_sentence_order_not_effective(effective_order: bool) -> None:
    """sacreBLEU's advice when a sentence is scored without effective order."""
    if not effective_order:
        logger.warning("It is recommended to enable `effective_order` for sentence-level BLEU.")


class BLEU(Metric[BLEUScore]):
    """BLEU with a fixed configuration, as ``sacrebleu.BLEU``.

    :param lowercase: compute case-insensitive BLEU.
    :param force: do not warn about input that looks tokenized.
    :param tokenize: tokenizer name; ``None`` picks by ``trg_lang`` (zh, ja, ko), else ``13a``.
    :param smooth_method: ``exp`` (default), ``floor``, ``add-k`` or ``none``.
    :param smooth_value: value for ``floor`` (0.1) and ``add-k`` (1); ``None`` for the default.
    :param max_ngram_order: largest n-gram order (4).
    :param effective_order: leave out orders with no n-grams (for sentence BLEU).
    :param trg_lang: target language code, used to choose the tokenizer.
    :param references: reference streams to prepare once and reuse across systems.
    :param spm_model: path of the SentencePiece model for ``flores101``/``flores200``/``spm``.
    :param backend: ``"native"`` or ``"python"``; default: ``$TRUEBLEU_BACKEND`` or the best available.
    :param threads: worker threads of the native backend (default: the available cores).
    """

    SMOOTH_DEFAULTS = SMOOTH_DEFAULTS
    TOKENIZERS = TOKENIZERS
    TOKENIZER_DEFAULT = "13a"

    score_type = BLEUScore
    signature_type = Signature
    empty_corpus_is_error = False  # zero statistics score 0, as the accumulator and Spark give
    kernels = kernels
    flags_module = "truebleu.metrics.bleu.cli"
    config: BLEUConfig

    def __init__(self, lowercase: bool = False, force: bool = False,
                 tokenize: Optional[Union[str, Tokenizer]] = None, smooth_method: str = "exp",
                 smooth_value: Optional[float] = None,
                 max_ngram_order: int = MAX_NGRAM_ORDER, effective_order: bool = False,
                 trg_lang: str = "",
                 references: Optional[References] = None, *,
                 spm_model: Optional[str] = None, backend: Optional[str] = None,
                 threads: Optional[int] = None) -> None:
        config = BLEUConfig.create(
            tokenize, lowercase, smooth_method, smooth_value, max_ngram_order, effective_order,
            trg_lang=trg_lang or "", spm_model=spm_model)
        self._force = bool(force)
        # (hypotheses, their " ." lines) of the last column sums: the kernel counts the lines
        # as it scores them, and input_warnings takes that count instead of a second pass
        self._periods_counted: Optional[tuple[Sequence[str], int]] = None
        self.trg_lang = trg_lang or ""
        hint = preferred_tokenizer_warning(tokenize, self.trg_lang)
        if hint:
            logger.warning(hint)
        self.tokenizer_signature = config.tokenizer.signature()
        super().__init__(config, references, backend=backend, threads=threads)

    # -- the configuration, read-only (see .config) -------------

    @property
    def tokenizer(self) -> Tokenizer:
        return self.config.tokenizer

    @property
    def lowercase(self) -> bool:
        return self.config.lowercase

    @property
    def smooth_method(self) -> str:
        return self.config.smooth_method

    @property
    def smooth_value(self) -> Optional[float]:
        return self.config.smooth_value

    @property
    def max_ngram_order(self) -> int:
        return self.config.max_ngram_order

    @property
    def effective_order(self) -> bool:
        return self.config.effective_order

    @property
    def force(self) -> bool:
        """True when the already-tokenized warning is switched off."""
        return self._force

    # -- statistics: the template's hooks -------------------------------------

    def _settings(self) -> tuple[Tokenizer, bool, int, Optional[int]]:
        config = self.config
        return config.tokenizer, config.lowercase, config.max_ngram_order, self.threads

    def _prepare(self, segments: list[list[str]]) -> Any:
        return self._kernel.prepare_references(segments, *self._settings())

    def _prepare_streams(self, streams: References) -> tuple[int, Any]:
        check_reference_streams(streams)
        prepared, n_segments, self.num_refs = self._kernel.prepare_reference_streams(
            streams, *self._settings())
        return n_segments, prepared

    def _statistics(self, hypotheses: Sequence[str], prepared: Any) -> Statistics:
        try:
            stats: Statistics = self._kernel.statistics(hypotheses, prepared, *self._settings())
            return stats
        except TypeError:
            check_strings(hypotheses, "hypotheses")  # say which one, when one is not a string
            raise

    def _totals(self, hypotheses: Sequence[str], prepared: Any) -> list[float]:
        totals: list[float]
        periods: int
        try:
            totals, periods = self._kernel.totals(hypotheses, prepared, *self._settings())
        except TypeError:
            check_strings(hypotheses, "hypotheses")
            raise
        self._periods_counted = (hypotheses, periods)
        return totals

    def _statistics_once(self, hypotheses: Sequence[str], streams: References,
                         totals_only: bool) -> Union[Statistics, list[float]]:
        """One pass of the kernel: each segment's references tokenized beside its
        hypothesis, nothing kept."""
        totals: list[float]
        stats: Statistics
        periods: int
        if totals_only:
            totals, self.num_refs, periods = self._kernel.stream_totals(hypotheses, streams,
                                                                        *self._settings())
            self._periods_counted = (hypotheses, periods)
            return totals
        stats, self.num_refs = self._kernel.stream_statistics(hypotheses, streams,
                                                              *self._settings())
        return stats

    def systems_statistics(self, systems: Sequence[Sequence[str]],
                           references: Optional[References] = None, *,
                           check_inputs: bool = True) -> list[RowTable]:
        """The template's, in one call of the native kernel: the references prepared once
        (here, or by the constructor), each segment's matched against every system's
        hypothesis in turn. Systems it does not take in one call (one of another length, a
        hypothesis that is not a str, a tokenizer that runs in Python) go the template's
        way, one by one, which raises the errors and logs the warnings as it always has."""
        systems = list(systems)
        found = self._systems_in_one_call(systems, references)
        if found is None:
            return super().systems_statistics(systems, references, check_inputs=check_inputs)
        tables, periods = found
        self._periods_counted = None
        for count in periods if check_inputs else ():
            self.warn_about_inputs(0 if self._force else count)
        return tables

    def _systems_in_one_call(self, systems: list[Sequence[str]],
                             references: Optional[References]
                             ) -> Optional[tuple[list[RowTable], list[int]]]:
        """The native kernel's (tables, counts of " ." lines), or None: no such kernel, no
        references, or an error (which the template's way raises, naming the system)."""
        many = getattr(self._kernel, "systems_statistics", None)
        if many is None or (references is None and self._ref_cache is None):
            return None
        try:
            for hypotheses in systems:
                check_str_sequence(hypotheses, "hypotheses")
            cache = self._prepare_streams(references) if references is not None else self._ref_cache
            found: Optional[tuple[list[RowTable], list[int]]] = many(
                systems, cache[1] if cache is not None else None, *self._settings())
        except (TypeError, ValueError):
            return None
        return found

    def input_warnings(self, hypotheses: Sequence[str]) -> int:
        """Lines ending in " ." (sacreBLEU's sign of tokenized output); 0 with ``force``.

        Right after the column sums of these same hypotheses (``corpus_score``), the count
        the kernel made while scoring them; otherwise a pass of its own.
        """
        counted, self._periods_counted = self._periods_counted, None
        if self._force:
            return 0
        if counted is not None and counted[0] is hypotheses:
            return counted[1]
        count: int = self._kernel.tokenized_periods(hypotheses)
        return count

    def warn_about_inputs(self, count: int) -> None:
        if not self._force:
            warn_if_tokenized(count)

    def reads_utf8(self) -> bool:
        """The native kernel reads UTF-8 lines in place for the tokenizers it runs."""
        reads = getattr(self._kernel, "reads_utf8", None)
        if reads is None:
            return False
        runs: bool = reads(self.tokenizer)
        return runs

    def utf8_statistics(self, buffers: list[bytearray], ends: list[int], n: int,
                        totals: array[int], keep_rows: bool
                        ) -> tuple[Optional[Statistics], list[int], int]:
        stats: Optional[Statistics]
        consumed: list[int]
        periods: int
        stats, consumed, periods = self._kernel.utf8_statistics(
            buffers, ends, n, self.tokenizer, self.lowercase, self.max_ngram_order, totals,
            self.threads, keep_rows=keep_rows)
        self.num_refs = len(buffers) - 1
        return stats, consumed, 0 if self._force else periods

    # -- scores ---------------------------------------------------------------

    def score_from_statistics(self, totals: Sequence[float]) -> BLEUScore:
        """BLEU from summed statistics ``[c, r, matches..., totals...]``."""
        return score_from_statistics(totals, self.config)

    # sacreBLEU's static ``BLEU.compute_bleu(correct, total, sys_len, ref_len, ...)``
    compute_bleu = staticmethod(compute_bleu)

    def sentence_score(self, hypothesis: str, references: Sequence[str]) -> BLEUScore:
        """BLEU of one hypothesis against its references."""
        if not isinstance(hypothesis, str):
            raise TypeError(f"hypothesis must be a string, got {type(hypothesis).__name__}")
        check_str_sequence(references, "references")
        warn_if_sentence_order_not_effective(self.effective_order)
        return super().sentence_score(hypothesis, references)

    # BLEU's scorer takes these two options; the template's takes any and uses none
    def batch_scorer(self, in_place: bool = False,  # type: ignore[override]
                     effective_order: Optional[bool] = None) -> BLEUBatchScorer:
        """BLEU of many summed rows at once (:class:`.rows.BLEUBatchScorer`)."""
        from .rows import BLEUBatchScorer

        return BLEUBatchScorer.from_metric(self, in_place=in_place,
                                           effective_order=effective_order)

    def score_name(self) -> str:
        return "BLEU"

    def row_width(self) -> int:
        return self.config.row_width

    # -- signature ------------------------------------------------------------

    def _signature_settings(self) -> dict[str, object]:
        return self.config.signature_settings()

