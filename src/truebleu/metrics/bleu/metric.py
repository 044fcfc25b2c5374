"""The BLEU metric object: sacreBLEU's ``BLEU`` class, on truebleu's layers.

``BLEU(...)`` fixes the configuration (tokenizer, case, smoothing, order);
``corpus_score`` and ``sentence_score`` take text and return
:class:`~truebleu.score.BLEUScore`; ``get_signature`` names the configuration.
Keyword names and defaults are sacreBLEU 2.x's. What truebleu adds is
keyword-only: ``spm_model``, ``backend``, ``threads``.
"""

from __future__ import annotations

import copy
import numbers
from collections.abc import Sequence
from typing import Optional

from ...core.log import logger
from ...core.backends import get_backend
from ...core.references import check_reference_streams, check_str_sequence, check_strings
from .config import BLEUConfig, check_threads, preferred_tokenizer_warning
from .score import MAX_NGRAM_ORDER, SMOOTH_DEFAULTS, BLEUScore, compute_bleu, score_from_statistics
from ...core.signature import Signature
from .statistics import Statistics
from ...tokenizers import TOKENIZERS

_TOKENIZED_PERIOD_WARNING_AT = 100


def count_tokenized_periods(hypotheses: Sequence[str], backend: Optional[str] = None) -> int:
    """Lines ending in " .": a sign of tokenized (not detokenized) output.

    sacreBLEU's rule, ``hyp.endswith(" .")`` on each line as given; the compiled
    core counts it without a Python call per line (see the backends).
    """
    return get_backend(backend).tokenized_periods(hypotheses)


def warn_if_tokenized(count: int) -> None:
    """sacreBLEU's warning when 100 or more lines look tokenized."""
    if count >= _TOKENIZED_PERIOD_WARNING_AT:
        logger.warning("That's 100 lines that end in a tokenized period ('.')")
        logger.warning("It looks like you forgot to detokenize your test data, "
                       "which may hurt your score.")
        logger.warning("If you insist your data is detokenized, or don't care, "
                       "you can suppress this message with the `force` parameter.")


class BLEU:
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

    def __init__(self, lowercase: bool = False, force: bool = False,
                 tokenize: Optional[str] = None, smooth_method: str = "exp",
                 smooth_value: Optional[float] = None,
                 max_ngram_order: int = MAX_NGRAM_ORDER, effective_order: bool = False,
                 trg_lang: str = "",
                 references: Optional[Sequence[Sequence[str]]] = None, *,
                 spm_model: Optional[str] = None, backend: Optional[str] = None,
                 threads: Optional[int] = None) -> None:
        self.config = BLEUConfig.create(
            tokenize, lowercase, smooth_method, smooth_value, max_ngram_order, effective_order,
            trg_lang=trg_lang or "", spm_model=spm_model)
        self.threads = check_threads(threads)
        self._force = bool(force)
        self.trg_lang = trg_lang or ""
        self.n_bootstrap: Optional[int] = None
        self.seed: Optional[str] = None
        self.num_refs: Optional[int] = None
        hint = preferred_tokenizer_warning(tokenize, self.trg_lang)
        if hint:
            logger.warning(hint)
        self.tokenizer_signature = self.tokenizer.signature()
        self._backend = get_backend(backend)
        self._ref_cache = None
        if references is not None:
            self._ref_cache = self._prepare(references)

    # -- the configuration, read-only (see truebleu.bleu_config) -------------

    @property
    def tokenizer(self):
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

    # -- statistics ---------------------------------------------------------

    @property
    def force(self) -> bool:
        """True when the already-tokenized warning is switched off."""
        return self._force

    @property
    def backend(self) -> str:
        """Name of the backend computing the statistics (``native`` or ``python``)."""
        return self._backend.name

    def _prepare(self, references):
        check_reference_streams(references)
        prepared, n_segments, self.num_refs = self._backend.prepare_reference_streams(
            references, self.tokenizer, self.lowercase, self.max_ngram_order, self.threads)
        return n_segments, prepared

    def corpus_statistics(self, hypotheses: Sequence[str],
                          references: Optional[Sequence[Sequence[str]]] = None, *,
                          check_tokenized: bool = True) -> Statistics:
        """Per-segment statistics of ``hypotheses`` (one row each, in order).

        Without ``references`` the ones given to the constructor are used.
        ``check_tokenized=False`` leaves the already-tokenized warning to the
        caller (streaming counts it over the whole file).
        """
        stats, _ = self._statistics(hypotheses, references, totals_only=False)
        if check_tokenized and not self._force:
            warn_if_tokenized(self._backend.tokenized_periods(hypotheses))
        return stats

    def _statistics(self, hypotheses, references, totals_only: bool):
        """The rows of :meth:`corpus_statistics`, or with ``totals_only`` just their
        column sums (a corpus score needs no table of rows, so none is made) and
        the count for the already-tokenized warning (else None)."""
        check_str_sequence(hypotheses, "hypotheses")
        backend = self._backend
        settings = (self.tokenizer, self.lowercase, self.max_ngram_order, self.threads)
        periods = None
        if references is not None:  # used once: tokenized beside the hypotheses, not kept
            if totals_only:
                result, self.num_refs, periods = backend.stream_totals(hypotheses, references,
                                                                       *settings)
            else:
                result, self.num_refs = backend.stream_statistics(hypotheses, references, *settings)
        elif self._ref_cache is not None:
            n_refs, prepared = self._ref_cache
            if n_refs != len(hypotheses):
                raise ValueError(f"{len(hypotheses)} hypotheses but {n_refs} reference segments")
            try:
                if totals_only:
                    result, periods = backend.totals(hypotheses, prepared, *settings)
                else:
                    result = backend.statistics(hypotheses, prepared, *settings)
            except TypeError:
                check_strings(hypotheses, "hypotheses")  # say which one, when one is not a string
                raise
        else:
            raise ValueError("no references given, and none were given to BLEU(references=...)")
        return result, periods

    # -- scores -------------------------------------------------------------

    def score_from_statistics(self, totals: Sequence) -> BLEUScore:
        """BLEU from summed statistics ``[c, r, matches..., totals...]``."""
        return score_from_statistics(totals, self.config)

    # sacreBLEU's name for the same thing (used by its significance code)
    _compute_score_from_stats = score_from_statistics

    # sacreBLEU's static ``BLEU.compute_bleu(correct, total, sys_len, ref_len, ...)``
    compute_bleu = staticmethod(compute_bleu)

    def corpus_score(self, hypotheses: Sequence[str],
                     references: Optional[Sequence[Sequence[str]]] = None,
                     n_bootstrap: int = 1, *, seed=None) -> BLEUScore:
        """Corpus BLEU; ``n_bootstrap > 1`` adds a bootstrap 95% confidence interval.

        ``seed`` (truebleu's addition) fixes the resampling; by default it is
        ``$SACREBLEU_SEED`` or 12345, as in sacreBLEU.
        """
        if isinstance(n_bootstrap, bool) or not isinstance(n_bootstrap, numbers.Integral):
            raise TypeError(f"n_bootstrap must be an integer, got {n_bootstrap!r}")
        if n_bootstrap <= 1:  # the corpus totals only: no table of rows
            totals, periods = self._statistics(hypotheses, references, totals_only=True)
            if not self._force:
                warn_if_tokenized(periods)
            return self.score_from_statistics(totals)
        from ...significance import bootstrap_confidence

        stats = self.corpus_statistics(hypotheses, references)
        score = self.score_from_statistics(stats.sum())
        self.n_bootstrap = int(n_bootstrap)
        self.seed, score._mean, score._ci = bootstrap_confidence(stats, self, n_bootstrap, seed=seed)
        return score

    def sentence_score(self, hypothesis: str, references: Sequence[str]) -> BLEUScore:
        """BLEU of one hypothesis against its references."""
        if not isinstance(hypothesis, str):
            raise TypeError(f"hypothesis must be a string, got {type(hypothesis).__name__}")
        check_str_sequence(references, "references")
        if not self.effective_order:
            logger.warning("It is recommended to enable `effective_order` for sentence-level BLEU.")
        return self.corpus_score([hypothesis], [[ref] for ref in references])

    def accumulator(self, keep_segments: bool = False):
        """A mergeable, picklable :class:`~truebleu.accumulator.Accumulator` of this configuration.

        Its ``update`` takes references with every batch; references given to
        the constructor are not carried over (they would make it large).
        """
        from ...core.accumulator import Accumulator

        metric = copy.copy(self)
        metric._ref_cache = None
        return Accumulator(metric, keep_segments=keep_segments)

    # -- signature ----------------------------------------------------------

    def get_signature(self) -> Signature:
        """The reproducibility signature (after scoring: ``nrefs`` is known then)."""
        if self.num_refs is None:
            raise ValueError("Number of references unknown, please evaluate the metric first.")
        return self.config.signature(nrefs="var" if self.num_refs == -1 else self.num_refs,
                                     bs=self.n_bootstrap, seed=self.seed)
