"""BLEU and chrF on token ids: what a training loop holds, without detokenizing.

A sequence of token ids is scored as its **written form**: the ids in decimal,
separated by single spaces (``[464, 3290, 13]`` is ``"464 3290 13"``). Every
score here is bit-identical to sacreBLEU on those strings: BLEU with
``tokenize="none"`` (each id is one token, so n-grams are n-grams of ids), chrF
on the same string with the same settings (its character n-grams are then
over the digits; chrF++'s word n-grams, ``word_order=2``, are n-grams of ids).
:func:`ids_to_text` gives the written form, so any number here can be checked
against ``sacrebleu.sentence_bleu(ids_to_text(h), [ids_to_text(r)], tokenize="none")``.

Why ids: a reward or a validation metric on token ids skips decoding and the
tokenizer (13a's regular expressions), and is independent of how a
detokenizer joins sub-words. It measures overlap of *model tokens*, so it is
comparable only between runs with the same vocabulary.

Accepted inputs, without importing NumPy or torch unless given such objects:

* one sequence: a list or tuple of ints (Python or NumPy integers), a 1-D
  integer NumPy array or torch tensor (on any device; read with ``tolist()``);
* a batch: a sequence of such sequences, or a 2-D integer array or tensor
  (one row per sequence);
* references, one entry per hypothesis: one sequence (a single reference) or
  a sequence of sequences (several; ``None`` entries are dropped, as sacreBLEU
  drops missing references); a 2-D array is one reference per hypothesis, a
  3-D array ``(batch, k, length)`` is ``k`` references each. An empty list is
  one empty reference.

Which positions are removed before scoring (all of them, wherever they are, so
left and right padding, and a pad id equal to the EOS id, all work):

* ``pad_id``: the tokenizer's padding id (``tokenizer.pad_token_id``);
* ``skip_ids``: any other ids to drop, e.g. ``tokenizer.all_special_ids``, as
  ``decode(..., skip_special_tokens=True)`` drops them (TRL's completion ids
  end with the EOS token);
* :data:`IGNORE_INDEX` (-100), always: the label value PyTorch's cross-entropy
  and Hugging Face's collators use for positions to ignore. It is never a
  token, so removing it cannot change a real sequence.

Any other negative id, a float, a bool or a nested sequence where an id is
expected is an error that names the sequence and the position.

How BLEU is computed: on the ids themselves, not on text. Equal ids are equal
written tokens, so counting the n-grams of the ids gives the written form's
counts; the compiled core copies the ids of a batch into C arrays and counts
there, without the GIL; the Python kernel counts them with the specification's
functions. A sequence the kernel does not read as it is (a NumPy integer or an
int subclass inside a list, an id beyond int64, a bad id) sends the call to the
written form, which converts what it accepts and names what it does not. chrF
always scores the written form: its character n-grams are over the digits.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from typing import TYPE_CHECKING, Any, Optional, Union

from ..core.kernels import check_threads
from .bleu.config import BLEUConfig
from .bleu.kernels import kernels as bleu_kernels
from .bleu.metric import warn_if_sentence_order_not_effective
from .bleu.score import score_from_statistics
from .chrf.batch import sentence_chrf_scores
from .chrf.metric import CHRF
from .id_sequences import (
    AS_GIVEN,
    IGNORE_INDEX,
    DroppedIds,
    NotReadAsGiven,
    SequenceForm,
    TokenIdBatch,
    TokenIdReferences,
    TokenIds,
    WrittenForm,
)

if TYPE_CHECKING:
    from .bleu.score import BLEUScore
    from .chrf.metric import CHRFScore

__all__ = [
    "IGNORE_INDEX", "DroppedIds", "TokenIds", "TokenIdBatch", "TokenIdReferences",
    "ids_to_text", "texts_of_ids", "references_of_ids", "written_batch",
    "bleu_ids_config", "bleu_ids_scores_with", "sentence_bleu_ids_scores", "sentence_bleu_ids",
    "corpus_bleu_ids", "sentence_chrf_ids_scores", "sentence_chrf_ids", "corpus_chrf_ids",
]


def ids_to_text(ids: TokenIds, *, pad_id: Optional[int] = None,
                skip_ids: Collection[int] = ()) -> str:
    """The written form of one sequence of ids: what every score here is the score of."""
    return WrittenForm(DroppedIds(pad_id, skip_ids)).sequence(ids, "ids")


def texts_of_ids(batch: TokenIdBatch, *, pad_id: Optional[int] = None,
                 skip_ids: Collection[int] = (), what: str = "hypotheses") -> list[str]:
    """The written form of each sequence of a batch (a sequence of sequences, or a 2-D array)."""
    return WrittenForm(DroppedIds(pad_id, skip_ids)).batch(batch, what)


def references_of_ids(references: TokenIdReferences, n_hypotheses: int, *,
                      pad_id: Optional[int] = None, skip_ids: Collection[int] = ()
                      ) -> list[list[str]]:
    """Each hypothesis's references in written form (the layouts of the module docstring)."""
    return WrittenForm(DroppedIds(pad_id, skip_ids)).references(references, n_hypotheses)


def written_batch(batch: TokenIdBatch, references: TokenIdReferences, dropped: DroppedIds, *,
                  what: str = "hypotheses") -> tuple[list[str], list[list[str]]]:
    """:func:`texts_of_ids` and :func:`references_of_ids` of a batch, with ``dropped``
    checked once (a reward's)."""
    form = WrittenForm(dropped)
    texts = form.batch(batch, what)
    return texts, form.references(references, len(texts))


def _streams(segments: list[list[str]]) -> list[list[Optional[str]]]:
    """Per-hypothesis references as sacreBLEU's streams (``None`` where a segment has fewer)."""
    width = max((len(refs) for refs in segments), default=1)
    return [[refs[k] if k < len(refs) else None for refs in segments] for k in range(width)]


# -- BLEU ------------------------------------------------------------------------------------

#: a walk of the caller's layout in a form: (hypotheses, each one's references)
_Walk = Callable[[SequenceForm], tuple[list[Any], list[list[Any]]]]


def _batch_walk(hypotheses: Any, references: Any, what: str) -> _Walk:
    def walk(form: SequenceForm) -> tuple[list[Any], list[list[Any]]]:
        hyps = form.batch(hypotheses, what)
        return hyps, form.references(references, len(hyps))
    return walk


def _bleu_rows(walk: _Walk, dropped: DroppedIds, config: BLEUConfig, kernel: Any,
               threads: Optional[int], totals_only: bool) -> Any:
    """BLEU's statistics rows of the sequences ``walk`` gives (or, ``totals_only``, their
    column sums): the kernel counts the ids where it reads them as given, and the written
    form is scored where it does not (which also raises the errors, in its order)."""
    order = config.max_ngram_order
    try:
        hyps, refs = walk(AS_GIVEN)
    except (TypeError, ValueError, NotReadAsGiven):  # the written form names the fault
        pass
    else:
        rows = kernel.ids_statistics(hyps, refs, dropped.int64, order, threads, totals_only)
        if rows is not None:
            return rows
    texts, written_refs = walk(WrittenForm(dropped))
    stats = kernel.sentence_statistics(texts, written_refs, config.tokenizer, False, order,
                                       threads)
    return stats.sum() if totals_only else stats


def bleu_ids_config(smooth_method: str = "exp", smooth_value: Optional[float] = None,
                    use_effective_order: bool = True, max_ngram_order: int = 4) -> BLEUConfig:
    """BLEU's checked settings on ids (``sentence_bleu``'s defaults): each id is one token
    (``tokenize="none"``), nothing is lowercased."""
    return BLEUConfig.create("none", False, smooth_method, smooth_value, max_ngram_order,
                             use_effective_order)


def bleu_ids_scores_with(config: BLEUConfig, hypotheses: TokenIdBatch,
                         references: TokenIdReferences, dropped: DroppedIds, *,
                         threads: Optional[int] = None, backend: Optional[str] = None,
                         what: str = "hypotheses") -> list[float]:
    """:func:`sentence_bleu_ids_scores` with its settings checked once, as ``config``
    (:func:`bleu_ids_config`'s) and ``dropped``: for a caller that scores batch after batch
    (a reward; ``what`` names its hypotheses in errors)."""
    kernel = bleu_kernels.load(backend)
    stats = _bleu_rows(_batch_walk(hypotheses, references, what), dropped, config, kernel,
                       check_threads(threads), totals_only=False)
    scores: list[float] = kernel.bleu_scores(stats, config).tolist()
    return scores


def sentence_bleu_ids_scores(hypotheses: TokenIdBatch, references: TokenIdReferences, *,
                             pad_id: Optional[int] = None, skip_ids: Collection[int] = (),
                             smooth_method: str = "exp", smooth_value: Optional[float] = None,
                             use_effective_order: bool = True, max_ngram_order: int = 4,
                             threads: Optional[int] = None, backend: Optional[str] = None
                             ) -> list[float]:
    """The sentence BLEU of each hypothesis against its references, in one call of the core.

    Each float equals ``sacrebleu.sentence_bleu(ids_to_text(h), [ids_to_text(r), ...],
    tokenize="none", ...).score`` with the same settings (sentence_bleu's defaults).
    """
    config = bleu_ids_config(smooth_method, smooth_value, use_effective_order, max_ngram_order)
    return bleu_ids_scores_with(config, hypotheses, references, DroppedIds(pad_id, skip_ids),
                                threads=threads, backend=backend)


def sentence_bleu_ids(hypothesis: TokenIds, references: Union[TokenIds, Sequence[TokenIds]], *,
                      pad_id: Optional[int] = None, skip_ids: Collection[int] = (),
                      smooth_method: str = "exp", smooth_value: Optional[float] = None,
                      use_effective_order: bool = True, max_ngram_order: int = 4,
                      backend: Optional[str] = None) -> BLEUScore:
    """The BLEU of one sequence of ids against its reference(s), as sacreBLEU's ``sentence_bleu``."""
    config = bleu_ids_config(smooth_method, smooth_value, use_effective_order, max_ngram_order)
    dropped = DroppedIds(pad_id, skip_ids)

    def walk(form: SequenceForm) -> tuple[list[Any], list[list[Any]]]:
        return [form.sequence(hypothesis, "ids")], form.references([references], 1)

    totals = _bleu_rows(walk, dropped, config, bleu_kernels.load(backend), None,
                        totals_only=True)
    warn_if_sentence_order_not_effective(use_effective_order)
    return score_from_statistics(totals, config)


def corpus_bleu_ids(hypotheses: TokenIdBatch, references: TokenIdReferences, *,
                    pad_id: Optional[int] = None, skip_ids: Collection[int] = (),
                    smooth_method: str = "exp", smooth_value: Optional[float] = None,
                    use_effective_order: bool = False, max_ngram_order: int = 4,
                    threads: Optional[int] = None, backend: Optional[str] = None) -> BLEUScore:
    """Corpus BLEU of a batch of id sequences, as sacreBLEU's ``corpus_bleu(tokenize="none")``
    on the written forms.

    ``references`` has one entry per hypothesis (this module's layout), not
    sacreBLEU's reference streams: that is how a batch holds them.
    """
    config = bleu_ids_config(smooth_method, smooth_value, use_effective_order, max_ngram_order)
    totals = _bleu_rows(_batch_walk(hypotheses, references, "hypotheses"),
                        DroppedIds(pad_id, skip_ids), config, bleu_kernels.load(backend),
                        check_threads(threads), totals_only=True)
    return score_from_statistics(totals, config)


# -- chrF ------------------------------------------------------------------------------------


def sentence_chrf_ids_scores(hypotheses: TokenIdBatch, references: TokenIdReferences, *,
                             pad_id: Optional[int] = None, skip_ids: Collection[int] = (),
                             char_order: int = 6, word_order: int = 0, beta: float = 2,
                             remove_whitespace: bool = True, eps_smoothing: bool = False,
                             threads: Optional[int] = None, backend: Optional[str] = None
                             ) -> list[float]:
    """The sentence chrF of each hypothesis against its references, in one call of the core.

    Each float equals ``sacrebleu.sentence_chrf(ids_to_text(h), [ids_to_text(r), ...],
    ...).score`` with the same settings.
    """
    texts, refs = written_batch(hypotheses, references, DroppedIds(pad_id, skip_ids))
    return sentence_chrf_scores(texts, refs, char_order=char_order, word_order=word_order,
                                beta=beta, remove_whitespace=remove_whitespace,
                                eps_smoothing=eps_smoothing, threads=threads, backend=backend)


def _chrf(char_order: int, word_order: int, beta: float, remove_whitespace: bool,
          eps_smoothing: bool, threads: Optional[int], backend: Optional[str]) -> CHRF:
    return CHRF(char_order=char_order, word_order=word_order, beta=beta,
                whitespace=not remove_whitespace, eps_smoothing=eps_smoothing, backend=backend,
                threads=threads)


def sentence_chrf_ids(hypothesis: TokenIds, references: Union[TokenIds, Sequence[TokenIds]], *,
                      pad_id: Optional[int] = None, skip_ids: Collection[int] = (),
                      char_order: int = 6, word_order: int = 0, beta: float = 2,
                      remove_whitespace: bool = True, eps_smoothing: bool = False,
                      backend: Optional[str] = None) -> CHRFScore:
    """The chrF of one sequence of ids against its reference(s), as sacreBLEU's ``sentence_chrf``."""
    form = WrittenForm(DroppedIds(pad_id, skip_ids))
    text, refs = form.sequence(hypothesis, "ids"), form.references([references], 1)[0]
    metric = _chrf(char_order, word_order, beta, remove_whitespace, eps_smoothing, None, backend)
    return metric.sentence_score(text, refs)


def corpus_chrf_ids(hypotheses: TokenIdBatch, references: TokenIdReferences, *,
                    pad_id: Optional[int] = None, skip_ids: Collection[int] = (),
                    char_order: int = 6, word_order: int = 0, beta: float = 2,
                    remove_whitespace: bool = True, eps_smoothing: bool = False,
                    threads: Optional[int] = None, backend: Optional[str] = None) -> CHRFScore:
    """Corpus chrF of a batch of id sequences, as sacreBLEU's ``corpus_chrf`` on the written
    forms (``references``: one entry per hypothesis, as :func:`corpus_bleu_ids`)."""
    texts, refs = written_batch(hypotheses, references, DroppedIds(pad_id, skip_ids))
    metric = _chrf(char_order, word_order, beta, remove_whitespace, eps_smoothing, threads,
                   backend)
    return metric.corpus_score(texts, _streams(refs))
