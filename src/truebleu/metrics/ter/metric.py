"""The TER metric object: sacreBLEU's ``TER`` class, on the metric template.

``TER(...)`` fixes the tokenizer options; ``corpus_score`` and
``sentence_score`` take text and return :class:`TERScore`; ``get_signature``
names the configuration. Keyword names and defaults are sacreBLEU 2.6.0's;
``backend`` and ``threads`` are truebleu's (keyword-only).

Per segment the statistics are ``[edits, reference length]`` (float64): the
fewest edits over the references and their *average* length (see
:mod:`.spec`). The corpus score is ``100 * edits / length``
over the column sums. ``sentence_alignment`` shows which edits a segment's
statistics count (:mod:`.alignment`).
"""

from __future__ import annotations

from collections.abc import Sequence

from ...core.references import ReferenceStreams, check_str_sequence, check_strings
from ...core.signature import ABBREVIATIONS, Signature
from ...core.statistics import RowTable
from ..base import Metric, Score
from .config import TERConfig
from .kernels import RawAlignment, kernels, ter_reference, ter_tokens

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: importing typing costs about 16 M instructions
if TYPE_CHECKING:
    from typing import Any, Optional, Union

    from .alignment import TERAlignment


class TERScore(Score):
    """A TER score: ``score`` (percent), ``num_edits`` (int), ``ref_length`` (float)."""

    def __init__(self, score: float, num_edits: float, ref_length: float) -> None:
        super().__init__("TER", score)
        self.num_edits = int(num_edits)
        self.ref_length = ref_length


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


class TER(Metric[TERScore]):
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

    higher_is_better = False  # an error rate
    best_score = 0.0
    score_type = TERScore
    signature_type = TERSignature
    row_typecode = "d"  # sacreBLEU's float statistics: their sums depend on the order
    kernels = kernels
    flags_module = "truebleu.metrics.ter.cli"
    config: TERConfig

    def __init__(self, normalized: bool = False, no_punct: bool = False,
                 asian_support: bool = False, case_sensitive: bool = False,
                 references: Optional[ReferenceStreams] = None, *,
                 backend: Optional[str] = None, threads: Optional[int] = None) -> None:
        config = TERConfig(normalized, no_punct, asian_support, case_sensitive)
        # sacreBLEU's attributes
        self.normalized = config.normalized
        self.no_punct = config.no_punct
        self.asian_support = config.asian_support
        self.case_sensitive = config.case_sensitive
        self.tokenizer = config.tokenizer
        self.tokenizer_signature = self.tokenizer.signature()
        super().__init__(config, references, backend=backend, threads=threads)

    # -- statistics: the template's hooks -------------------------------------

    def _prepare(self, segments: list[list[str]]) -> Any:
        return self._kernel.prepare(segments, self.tokenizer)

    def _statistics(self, hypotheses: Sequence[str], prepared: Any) -> RowTable:
        rows: RowTable = self._kernel.statistics(hypotheses, prepared, self.tokenizer, self.threads)
        return rows

    # -- scores -------------------------------------------------------------

    def score_from_statistics(self, totals: Sequence[float]) -> TERScore:
        """TER from summed statistics ``[edits, reference length]``."""
        return score_from_totals(totals[0], totals[1])

    def score_name(self) -> str:
        return "TER"

    def row_width(self) -> int:
        return 2

    def sentence_scores(self, hypotheses: Sequence[str],
                        references: Sequence[Union[str, Sequence[str]]]) -> list[float]:
        """One sentence TER per hypothesis (``references[i]``: its list of references),
        each identical to ``sentence_score(hypotheses[i], references[i]).score``."""
        segments = self._sentence_segments(hypotheses, references)
        stats = self._statistics(hypotheses, self._prepare(segments))
        return [score_from_totals(*row).score for row in stats.rows()]

    # -- alignments ---------------------------------------------------------

    def sentence_alignment(self, hypothesis: str, references: Sequence[str]) -> TERAlignment:
        """The edits ``sentence_score(hypothesis, references)`` counts: the shifts,
        insertions, deletions and substitutions that turn the hypothesis into its best
        reference, as TER's search found them (:class:`~.alignment.TERAlignment`; its
        ``num_edits`` and ``ref_length`` are the score's)."""
        if not isinstance(hypothesis, str):
            raise TypeError(f"hypothesis must be a string, got {type(hypothesis).__name__}")
        check_str_sequence(references, "references")
        return self.alignments([hypothesis], [references])[0]

    def corpus_alignments(self, hypotheses: Sequence[str]) -> list[RawAlignment]:
        """What the search did to each hypothesis against the references given to the
        constructor, in the kernel's compact form (:class:`~.kernels.RawAlignment`: the
        reference chosen among the segment's, its shifts and edit path). Each one's
        ``(edits, ref_length)`` is :meth:`corpus_statistics`' row: a caller who needs both
        (the viewer) runs the search once."""
        check_str_sequence(hypotheses, "hypotheses")
        if self._ref_cache is None:
            raise ValueError("no references given to TER(references=...)")
        n_segments, prepared = self._ref_cache
        if len(hypotheses) != n_segments:
            raise ValueError(f"{len(hypotheses)} hypotheses but {n_segments} reference segments")
        found: list[RawAlignment] = self._kernel.alignments(hypotheses, prepared, self.tokenizer,
                                                            self.threads)
        return found

    def alignments(self, hypotheses: Sequence[str],
                   references: Sequence[Union[str, Sequence[str]]]) -> list[TERAlignment]:
        """:meth:`sentence_alignment` of each hypothesis (``references[i]``: its list of
        references, or one string), in one call to the kernel."""
        from .alignment import read_alignment  # (dataclasses and inspect: not for scoring)

        segments = self._sentence_segments(hypotheses, references)
        found = self._kernel.alignments(hypotheses, self._prepare(segments), self.tokenizer,
                                        self.threads)
        return [read_alignment(ter_tokens(hyp, self.tokenizer),
                               ter_reference(refs[raw.reference], self.tokenizer).split(), raw)
                for hyp, refs, raw in zip(hypotheses, segments, found)]

    @staticmethod
    def _sentence_segments(hypotheses: Sequence[str],
                           references: Sequence[Union[str, Sequence[str]]]) -> list[list[str]]:
        """Each hypothesis's references as a list of strings, checked (TypeError,
        ValueError naming the entry)."""
        check_str_sequence(references, "references")
        if len(references) != len(hypotheses):
            raise ValueError(f"{len(hypotheses)} hypotheses but {len(references)} reference lists")
        segments: list[list[str]] = []
        for i, given in enumerate(references):
            refs = [given] if isinstance(given, str) else list(given)
            check_strings(refs, f"references[{i}]")
            if not refs:
                raise ValueError(f"references[{i}] is empty")
            segments.append(refs)
        check_str_sequence(hypotheses, "hypotheses")
        check_strings(hypotheses, "hypotheses")
        return segments

    # -- signature ----------------------------------------------------------

    def _signature_settings(self) -> dict[str, object]:
        return {"case": "mixed" if self.case_sensitive else "lc",
                "tok": self.tokenizer_signature,
                "norm": self.normalized,
                "punct": not self.no_punct,
                "asian": self.asian_support}

