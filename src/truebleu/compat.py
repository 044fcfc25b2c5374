"""sacreBLEU's function API: change the import, keep the call.

``corpus_bleu``, ``sentence_bleu``, ``raw_corpus_bleu``, ``corpus_ter`` and
``sentence_ter`` take sacreBLEU's
arguments with sacreBLEU's defaults (note that they differ: ``sentence_bleu``
uses the effective order by default, ``corpus_bleu`` does not).

Nothing is kept between calls: each call prepares its references afresh. To
score many systems against the same references, prepare them once,
explicitly: ``metric = BLEU(references=refs)``, then ``metric.corpus_score(hyps)``
for each system.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal, Optional, Union, overload

from .core.references import ReferenceStreams
from .metrics.bleu.config import SMOOTH_DEFAULTS
from .metrics.bleu.metric import BLEU
from .metrics.bleu.score import BLEUScore
from .metrics.chrf.metric import CHRF, CHRFScore

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .dialects import Dialect, DialectScore
    from .metrics.ter.metric import TERScore

#: the references of each hypothesis of a batch: a list of strings, or one string
ReferencesPerHypothesis = Sequence[Union[str, Sequence[str]]]

_SACREBLEU_DEFAULTS = {"smooth_method": "exp", "smooth_value": None, "force": False,
                       "lowercase": False, "tokenize": "13a"}


def _dialect(name: str, sacrebleu_args: Mapping[str, object], options: dict[str, Any]
             ) -> Dialect:
    """The dialect object for ``dialect=name``; sacreBLEU's own arguments must stay default."""
    from .dialects import get_dialect

    changed = [key for key, value in sacrebleu_args.items() if value != _SACREBLEU_DEFAULTS[key]]
    if changed:
        raise ValueError(f"sacreBLEU option(s) {', '.join(changed)} do not apply to dialect "
                         f"{name!r}, which takes its own options (see truebleu.dialects)")
    return get_dialect(name, **options)


@overload
def corpus_bleu(hypotheses: Sequence[str], references: ReferenceStreams,
                smooth_method: str = "exp", smooth_value: Optional[float] = None,
                force: bool = False, lowercase: bool = False, tokenize: str = "13a",
                use_effective_order: bool = False, *, dialect: Literal["sacrebleu"] = "sacrebleu",
                **options: Any) -> BLEUScore: ...


@overload
def corpus_bleu(hypotheses: Sequence[str], references: Sequence[Sequence[str]],
                smooth_method: str = "exp", smooth_value: Optional[float] = None,
                force: bool = False, lowercase: bool = False, tokenize: str = "13a",
                use_effective_order: bool = False, *, dialect: str,
                **options: Any) -> Union[BLEUScore, DialectScore]: ...


# (the overloads give the types of the references: a dialect takes no None)
def corpus_bleu(hypotheses: Sequence[str], references: Any,
                smooth_method: str = "exp", smooth_value: Optional[float] = None,
                force: bool = False, lowercase: bool = False, tokenize: str = "13a",
                use_effective_order: bool = False, *, dialect: str = "sacrebleu",
                **options: Any) -> Union[BLEUScore, DialectScore]:
    """Corpus BLEU of ``hypotheses`` against reference streams ``references``.

    ``options`` are truebleu's keyword-only extras of :class:`BLEU`
    (``max_ngram_order``, ``trg_lang``, ``spm_model``, ``backend``, ``threads``),
    or, with ``dialect="nltk"``, ``"mteval-v13a"``, ... that tool's options;
    a dialect returns a :class:`truebleu.dialects.DialectScore`.
    """
    if dialect != "sacrebleu":
        sacre = dict(smooth_method=smooth_method, smooth_value=smooth_value, force=force,
                     lowercase=lowercase, tokenize=tokenize)
        if use_effective_order:
            raise ValueError(f"use_effective_order is a sacreBLEU option, not {dialect!r}'s")
        return _dialect(dialect, sacre, options).corpus_score(hypotheses, references)
    metric = BLEU(lowercase=lowercase, force=force, tokenize=tokenize,
                  smooth_method=smooth_method, smooth_value=smooth_value,
                  effective_order=use_effective_order, **options)
    return metric.corpus_score(hypotheses, references)


def raw_corpus_bleu(hypotheses: Sequence[str], references: ReferenceStreams,
                    smooth_value: Optional[float] = SMOOTH_DEFAULTS["floor"]) -> BLEUScore:
    """BLEU on untokenized text with floor smoothing, as sacreBLEU's ``raw_corpus_bleu``."""
    return corpus_bleu(hypotheses, references, smooth_method="floor", smooth_value=smooth_value,
                       force=True, tokenize="none", use_effective_order=True)


def _sentence_scores_batch(metric: BLEU, hypotheses: Sequence[str],
                           references: ReferencesPerHypothesis) -> list[BLEUScore]:
    """One sentence BLEU per (hypothesis, references) pair, through one statistics pass."""
    if isinstance(references, str) or not isinstance(references, Sequence):
        raise TypeError("references must be a list with one entry per hypothesis")
    if len(references) != len(hypotheses):
        raise ValueError(f"{len(hypotheses)} hypotheses but {len(references)} reference lists")
    per_hyp = [[refs] if isinstance(refs, str) else list(refs) for refs in references]
    width = max((len(refs) for refs in per_hyp), default=1)
    streams = [[refs[k] if k < len(refs) else None for refs in per_hyp] for k in range(width)]
    if not hypotheses:
        return []
    stats = metric.corpus_statistics(hypotheses, streams)
    return [metric.score_from_statistics(row) for row in stats.rows()]


@overload
def sentence_bleu(hypothesis: str, references: Sequence[str],
                  smooth_method: str = "exp", smooth_value: Optional[float] = None,
                  lowercase: bool = False, tokenize: str = "13a",
                  use_effective_order: bool = True, *, dialect: Literal["sacrebleu"] = "sacrebleu",
                  **options: Any) -> BLEUScore: ...


@overload
def sentence_bleu(hypothesis: Sequence[str], references: ReferencesPerHypothesis,
                  smooth_method: str = "exp", smooth_value: Optional[float] = None,
                  lowercase: bool = False, tokenize: str = "13a",
                  use_effective_order: bool = True, *, dialect: Literal["sacrebleu"] = "sacrebleu",
                  **options: Any) -> list[BLEUScore]: ...


@overload
def sentence_bleu(hypothesis: str, references: Sequence[str],
                  smooth_method: str = "exp", smooth_value: Optional[float] = None,
                  lowercase: bool = False, tokenize: str = "13a",
                  use_effective_order: bool = True, *, dialect: str,
                  **options: Any) -> Union[BLEUScore, DialectScore]: ...


# (the overloads give the types: references per the hypothesis, or per hypothesis)
def sentence_bleu(hypothesis: Any, references: Any,
                  smooth_method: str = "exp", smooth_value: Optional[float] = None,
                  lowercase: bool = False, tokenize: str = "13a",
                  use_effective_order: bool = True, *, dialect: str = "sacrebleu",
                  **options: Any) -> Union[BLEUScore, list[BLEUScore], DialectScore]:
    """BLEU of one hypothesis against its references (a list of strings).

    Batched: given a list of hypotheses and, for each, its list of references
    (or one reference string), returns one :class:`BLEUScore` per pair, each
    identical to the single call (:func:`truebleu.sentence_scores` gives
    the bare floats, faster). ``dialect`` and ``options`` as in :func:`corpus_bleu`.
    """
    if dialect != "sacrebleu":
        sacre = dict(smooth_method=smooth_method, smooth_value=smooth_value,
                     lowercase=lowercase, tokenize=tokenize)
        return _dialect(dialect, sacre, options).sentence_score(hypothesis, references)
    if not isinstance(hypothesis, str) and isinstance(hypothesis, Sequence):
        metric = BLEU(lowercase=lowercase, tokenize=tokenize, force=True,
                      smooth_method=smooth_method, smooth_value=smooth_value,
                      effective_order=use_effective_order, **options)
        return _sentence_scores_batch(metric, hypothesis, references)
    metric = BLEU(lowercase=lowercase, tokenize=tokenize, force=False,
                  smooth_method=smooth_method, smooth_value=smooth_value,
                  effective_order=use_effective_order, **options)
    return metric.sentence_score(hypothesis, references)


def corpus_ter(hypotheses: Sequence[str], references: ReferenceStreams,
               normalized: bool = False, no_punct: bool = False, asian_support: bool = False,
               case_sensitive: bool = False, **options: Any) -> TERScore:
    """Corpus TER, as sacreBLEU's ``corpus_ter``; ``options``: ``backend``, ``threads``."""
    from .metrics.ter.metric import TER

    metric = TER(normalized=normalized, no_punct=no_punct, asian_support=asian_support,
                 case_sensitive=case_sensitive, **options)
    return metric.corpus_score(hypotheses, references)


@overload
def sentence_ter(hypothesis: str, references: Sequence[str], normalized: bool = False,
                 no_punct: bool = False, asian_support: bool = False,
                 case_sensitive: bool = False, **options: Any) -> TERScore: ...


@overload
def sentence_ter(hypothesis: Sequence[str], references: ReferencesPerHypothesis,
                 normalized: bool = False, no_punct: bool = False, asian_support: bool = False,
                 case_sensitive: bool = False, **options: Any) -> list[float]: ...


# (the overloads give the types: references per the hypothesis, or per hypothesis)
def sentence_ter(hypothesis: Any, references: Any,
                 normalized: bool = False, no_punct: bool = False, asian_support: bool = False,
                 case_sensitive: bool = False, **options: Any) -> Union[TERScore, list[float]]:
    """TER of one hypothesis against its references, as sacreBLEU's ``sentence_ter``.

    Batched: given a list of hypotheses and, for each, its list of references
    (or one reference string), returns one float per pair, each identical to
    the ``score`` of the single call.
    """
    from .metrics.ter.metric import TER

    metric = TER(normalized=normalized, no_punct=no_punct, asian_support=asian_support,
                 case_sensitive=case_sensitive, **options)
    if not isinstance(hypothesis, str) and isinstance(hypothesis, Sequence):
        return metric.sentence_scores(hypothesis, references)
    return metric.sentence_score(hypothesis, references)


def corpus_chrf(hypotheses: Sequence[str], references: ReferenceStreams,
                char_order: int = CHRF.CHAR_ORDER, word_order: int = CHRF.WORD_ORDER,
                beta: int = CHRF.BETA, remove_whitespace: bool = True,
                eps_smoothing: bool = False, **options: Any) -> CHRFScore:
    """Corpus chrF (chrF++ with ``word_order=2``) of ``hypotheses`` against reference streams."""
    metric = CHRF(char_order=char_order, word_order=word_order, beta=beta,
                  whitespace=not remove_whitespace, eps_smoothing=eps_smoothing, **options)
    return metric.corpus_score(hypotheses, references)


def sentence_chrf(hypothesis: str, references: Sequence[str],
                  char_order: int = CHRF.CHAR_ORDER, word_order: int = CHRF.WORD_ORDER,
                  beta: int = CHRF.BETA, remove_whitespace: bool = True,
                  eps_smoothing: bool = False, **options: Any) -> CHRFScore:
    """chrF of one hypothesis against its references (a list of strings)."""
    metric = CHRF(char_order=char_order, word_order=word_order, beta=beta,
                  whitespace=not remove_whitespace, eps_smoothing=eps_smoothing, **options)
    return metric.sentence_score(hypothesis, references)
