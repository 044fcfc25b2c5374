"""torchmetrics ``TranslationEditRate`` / ``translation_edit_rate`` (torchmetrics 1.9): the specification.

torchmetrics' TER runs sacreBLEU's tercom algorithm (beam edit distance plus
greedy shifts) and sacreBLEU's tercom tokenizer, with these differences, found
by comparing the two on generated text:

* **the roles are swapped**: each reference is shifted and edited towards the
  prediction (the edit function is called with ``(reference, prediction)``).
  Shifts are not symmetric, so the edit count can differ from sacreBLEU's; and
  the empty-side rule follows the swap: an *empty prediction* costs 0 edits
  (TER 0 for that segment, where sacreBLEU counts every reference word); an
  empty reference costs every predicted word in both (sentence TER 1.0);
* a shift moves at most **9** words (sacreBLEU and tercom: 10; torchmetrics
  counts block lengths with ``range(1, 10)``): where the two sides share a run
  of 10 words, the edit count can differ (1 segment in 20,000 of WMT21 en-de);
* references are tokenized once (sacreBLEU tokenizes them twice, which with
  ``normalize=True`` can split ``it's,`` further);
* the defaults are sacreBLEU's (``lowercase=True`` is ``case_sensitive=False``);
* edits and average reference lengths are float32 tensors, added in float32:
  the average of several references is ``float32(sum) / k`` rounded to
  float32, and the corpus sums round once they leave the integers (several
  references of different lengths) or pass 2**24; the score is
  ``edits / length`` in float32 (1.0 when the length is 0 and there are edits,
  else 0.0), a fraction, not a percentage.

The float32 operations are emulated exactly by rounding each one (:func:`f32`).
"""

from __future__ import annotations

from typing import Sequence

from ..core.kernels import backend_name, native_core
from ..metrics.ter.spec import translation_edit_rate
from ..tokenizers.tokenizer_ter import TercomTokenizer
from ._base import Dialect, DialectScore, check_bool
from .torchmetrics_chrf import f32

#: the longest block of words one shift moves in torchmetrics (sacreBLEU: 10)
MAX_SHIFT_SIZE = 9


def tokenizer_of(normalize: bool, no_punctuation: bool, lowercase: bool,
                 asian_support: bool) -> TercomTokenizer:
    """sacreBLEU's tercom tokenizer under torchmetrics' option names."""
    return TercomTokenizer(normalized=normalize, no_punct=no_punctuation,
                           asian_support=asian_support, case_sensitive=not lowercase)


def words(line: str, tokenizer: TercomTokenizer) -> list[str]:
    """A line's words: trailing whitespace stripped, tokenized once, split."""
    return tokenizer(line.rstrip()).split()


def tokenized_lines(lines: Sequence[str], tokenizer: TercomTokenizer) -> list[str]:
    """Each line tokenized once, after its trailing whitespace is stripped, as one string.

    The compiled core's ``ter_tokenize`` (``reference=False``: once) is the C twin of
    the tercom tokenizer, tested against it on generated text; one call does every
    line. Without the core, or with ``TRUEBLEU_BACKEND=python``, the tokenizer itself.
    """
    if backend_name() == "native":
        return list(native_core().ter_tokenize(list(lines), **tokenizer.options(),
                                               reference=False))
    return [tokenizer(line.rstrip()) for line in lines]


def segment(prediction: str, references: Sequence[str], tokenizer: TercomTokenizer
            ) -> tuple[int, float]:
    """``(fewest edits over the references, float32 average reference length)``."""
    return segment_of_words(words(prediction, tokenizer),
                            [words(reference, tokenizer) for reference in references])


def segment_of_words(pred: list[str], references: Sequence[list[str]]) -> tuple[int, float]:
    """:func:`segment` on the words of the prediction and of each reference."""
    if not references:
        raise ValueError("a segment needs at least one reference")
    best = None
    length = 0.0
    for ref in references:
        # swapped, as torchmetrics calls it; an empty prediction is torchmetrics' "empty
        # reference" and costs nothing (sacreBLEU's rule would count the reference's words)
        edits = translation_edit_rate(ref, pred, MAX_SHIFT_SIZE)[0] if pred else 0
        length = f32(length + len(ref))
        if best is None or edits < best:
            best = edits
    assert best is not None
    return best, f32(length / len(references))


def ter_fraction(edits: float, length: float) -> float:
    """torchmetrics' TER of (summed) statistics, in float32."""
    if length > 0 and edits > 0:
        return f32(f32(edits) / f32(length))
    return 1.0 if length == 0 and edits > 0 else 0.0


class TorchmetricsTerDialect(Dialect):
    """torchmetrics' TER; ``score`` is the fraction, ``bleu`` the percentage
    (``100 * score``), ``precisions`` the sentence scores."""

    name = "torchmetrics-ter"

    def __init__(self, normalize: bool = False, no_punctuation: bool = False,
                 lowercase: bool = True, asian_support: bool = False) -> None:
        super().__init__()
        self.options = tuple(check_bool(value, name) for value, name in (
            (normalize, "normalize"), (no_punctuation, "no_punctuation"),
            (lowercase, "lowercase"), (asian_support, "asian_support")))
        self.tokenizer = tokenizer_of(*self.options)

    def statistics(self, hypotheses: Sequence[str], references: Sequence[Sequence[str]]
                   ) -> tuple[float, float, list[float]]:
        """Total edits and length (float32 sums, in order) and the sentence scores."""
        total_edits = total_length = 0.0
        scores = []
        preds = tokenized_lines(hypotheses, self.tokenizer)
        flat = iter(tokenized_lines([ref for refs in references for ref in refs], self.tokenizer))
        for pred, refs in zip(preds, references):
            edits, length = segment_of_words(pred.split(), [next(flat).split() for _ in refs])
            total_edits = f32(total_edits + edits)
            total_length = f32(total_length + length)
            scores.append(ter_fraction(edits, length))
        return total_edits, total_length, scores

    def _options(self) -> list[tuple[str, str]]:
        names = ("norm", "punct-removed", "lowercase", "asian")
        return [*((name, "yes" if value else "no") for name, value in zip(names, self.options)),
                ("roles", "swapped"), ("float", "float32")]

    def _corpus(self, hypotheses: list[str], refs: list[list[str]]) -> DialectScore:
        edits, length, scores = self.statistics(hypotheses, refs)
        score = ter_fraction(edits, length)
        return DialectScore(dialect=self.name, score=score, bleu=100 * score, precisions=scores,
                            bp=1.0, sys_len=int(edits), ref_len=int(length))
