"""The TER metric object: sacreBLEU's ``TER`` class, on truebleu's layers.

``TER(...)`` fixes the tokenizer options; ``corpus_score`` and
``sentence_score`` take text and return :class:`TERScore`; ``get_signature``
names the configuration. Keyword names and defaults are sacreBLEU 2.6.0's;
``backend`` and ``threads`` are truebleu's (keyword-only).

Per segment the statistics are ``[edits, reference length]`` (float64): the
fewest edits over the references and their *average* length (see
:mod:`truebleu._reference_ter`). The corpus score is ``100 * edits / length``
over the column sums.
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from typing import Optional

from ...core.backends import get_backend
from ...core.references import check_reference_streams, check_str_sequence, check_strings, \
    reference_segments
from ...core.signature import ABBREVIATIONS, Signature
from ...core.statistics import RowTable
from ...tokenizers.tokenizer_ter import TercomTokenizer
from ..base import Metric


class TERScore:
    """A TER score: ``score`` (percent), ``num_edits`` (int), ``ref_length`` (float)."""

    name = "TER"
    _verbose = ""

    def __init__(self, score: float, num_edits: float, ref_length: float) -> None:
        self.score = score
        self.num_edits = int(num_edits)
        self.ref_length = ref_length
        # filled in by bootstrap confidence estimation (-ci); negative = not set
        self._mean = -1.0
        self._ci = -1.0

    def format(self, width: int = 2, score_only: bool = False, signature: str = "",
               is_json: bool = False) -> str:
        """sacreBLEU's text (or JSON) form of the score."""
        from ...reports.single import format_score

        return format_score(self, width=width, score_only=score_only,
                            signature=signature, is_json=is_json)

    def __str__(self) -> str:
        return self.format()

    __repr__ = __str__


class TERSignature(Signature):
    """``nrefs:1|case:lc|tok:tercom|norm:no|punct:yes|asian:no|version:...``.

    The short form keeps sacreBLEU's abbreviations, including ``t`` for both
    the test set and the tokenizer.
    """

    ABBREVIATIONS = {
        **{key: ABBREVIATIONS[key]
           for key in ("nrefs", "bs", "ar", "seed", "test", "lang", "origlang", "subset")},
        "case": "c",
        "tok": "t",
        "norm": "nr",
        "punct": "pn",
        "asian": "as",
        "version": "v",
    }


def score_from_totals(total_edits: float, total_length: float) -> TERScore:
    """TER from summed statistics, with sacreBLEU's rule for empty references."""
    if total_length > 0:
        score = total_edits / total_length
    elif total_edits > 0:
        score = 1.0  # empty reference(s), non-empty hypothesis
    else:
        score = 0.0  # nothing on either side
    return TERScore(100 * score, total_edits, total_length)


class TER(Metric):
    """Translation edit rate, as ``sacrebleu.metrics.TER``.

    :param normalized: tercom's normalization (join lines, unescape XML
        entities, split punctuation; CJK characters too with ``asian_support``).
    :param no_punct: remove punctuation (CJK punctuation too with ``asian_support``).
    :param asian_support: CJK handling for ``normalized`` and ``no_punct``.
    :param case_sensitive: do not lowercase.
    :param references: reference streams to tokenize once and reuse across systems.
    :param backend: ``"native"`` or ``"python"``; default: ``$TRUEBLEU_BACKEND`` or the best available.
    :param threads: worker threads of the native backend (default: the available cores).
    """

    def __init__(self, normalized: bool = False, no_punct: bool = False,
                 asian_support: bool = False, case_sensitive: bool = False,
                 references: Optional[Sequence[Sequence[str]]] = None, *,
                 backend: Optional[str] = None, threads: Optional[int] = None) -> None:
        if threads is not None and (isinstance(threads, bool)
                                    or not isinstance(threads, numbers.Integral) or threads < 1):
            raise ValueError(f"threads must be an integer >= 1, got {threads!r}")
        self.normalized = bool(normalized)
        self.no_punct = bool(no_punct)
        self.asian_support = bool(asian_support)
        self.case_sensitive = bool(case_sensitive)
        self.threads = threads
        self.tokenizer = TercomTokenizer(normalized=self.normalized, no_punct=self.no_punct,
                                         asian_support=self.asian_support,
                                         case_sensitive=self.case_sensitive)
        self.tokenizer_signature = self.tokenizer.signature()
        super().__init__()
        self._backend = get_backend(backend)
        if references is not None:
            self._ref_cache = self._prepare(references)

    @property
    def backend(self) -> str:
        """Name of the backend computing the statistics (``native`` or ``python``)."""
        return self._backend.name

    # -- statistics ---------------------------------------------------------

    def _prepare(self, references):
        check_reference_streams(references)
        segments, self.num_refs = reference_segments(references)
        return self._backend.prepare_ter_references(segments, self.tokenizer)

    def corpus_statistics(self, hypotheses: Sequence[str],
                          references: Optional[Sequence[Sequence[str]]] = None) -> RowTable:
        """Per-segment ``[edits, reference length]`` rows (float64), in input order.

        Without ``references`` the ones given to the constructor are used.
        """
        check_str_sequence(hypotheses, "hypotheses")
        check_strings(hypotheses, "hypotheses")
        if references is not None:
            prepared = self._prepare(references)
        elif self._ref_cache is not None:
            prepared = self._ref_cache
        else:
            raise ValueError("no references given, and none were given to TER(references=...)")
        return self._backend.ter_statistics(hypotheses, prepared, self.tokenizer, self.threads)

    # -- scores -------------------------------------------------------------

    def score_from_statistics(self, totals: Sequence[float]) -> TERScore:
        """TER from summed statistics ``[edits, reference length]``."""
        return score_from_totals(totals[0], totals[1])

    def sentence_scores(self, hypotheses: Sequence[str],
                        references: Sequence[Sequence[str]]) -> list[float]:
        """One sentence TER per hypothesis (``references[i]``: its list of references),
        each identical to ``sentence_score(hypotheses[i], references[i]).score``."""
        check_str_sequence(references, "references")
        if len(references) != len(hypotheses):
            raise ValueError(f"{len(hypotheses)} hypotheses but {len(references)} reference lists")
        segments = []
        for i, refs in enumerate(references):
            refs = [refs] if isinstance(refs, str) else list(refs)
            check_strings(refs, f"references[{i}]")
            if not refs:
                raise ValueError(f"references[{i}] is empty")
            segments.append(refs)
        check_str_sequence(hypotheses, "hypotheses")
        check_strings(hypotheses, "hypotheses")
        prepared = self._backend.prepare_ter_references(segments, self.tokenizer)
        stats = self._backend.ter_statistics(hypotheses, prepared, self.tokenizer, self.threads)
        return [score_from_totals(*row).score for row in stats.rows()]

    # -- signature ----------------------------------------------------------

    def get_signature(self) -> TERSignature:
        """The reproducibility signature (after scoring: ``nrefs`` is known then)."""
        return TERSignature(
            **self._signature_fields(),
            case="mixed" if self.case_sensitive else "lc",
            tok=self.tokenizer_signature,
            norm=self.normalized,
            punct=not self.no_punct,
            asian=self.asian_support,
        )
