"""The reward factories: a metric's settings, a scale, and the input kind, fixed once.

The reward of a completion is its sentence score (sacreBLEU's ``sentence_bleu``,
``sentence_chrf``, ``sentence_ter`` with the same settings, to the last bit)
on a 0..1 scale, higher is better:

* BLEU and chrF: ``score / 100 * scale``;
* TER (an error rate, lower is better): ``max(0, 1 - score / 100) * scale``,
  or ``(1 - score / 100) * scale`` with ``clip=False`` (TER exceeds 100 when the
  completion needs more edits than the reference has words; unclipped, such
  completions keep being ranked, and the reward goes below 0).

Every factory checks its settings when called, not at the first batch.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Collection, Sequence
from functools import partial
from typing import TYPE_CHECKING, Any, Optional, Union

from ..metrics.base import Metric
from ..metrics.bleu.batch import sentence_scores_with
from ..metrics.bleu.config import BLEUConfig
from ..metrics.bleu.metric import BLEU
from ..metrics.chrf.batch import sentence_chrf_scores
from ..metrics.chrf.metric import CHRF
from ..metrics.ter.metric import TER
from ..metrics.token_ids import bleu_ids_scores_with
from .reward import CombinedReward, IdScorer, MetricReward, Reward, Scorer, Transform

if TYPE_CHECKING:
    from ..tokenizers import Tokenizer


def _check_scale(scale: object) -> float:
    if isinstance(scale, bool) or not isinstance(scale, numbers.Real):
        raise TypeError(f"scale must be a number, got {scale!r}")
    if not math.isfinite(scale) or scale <= 0:
        raise ValueError(f"scale must be a finite number > 0 (a reward is higher-is-better), "
                         f"got {scale!r}")
    return float(scale)


def _check_name(name: object) -> str:
    if not isinstance(name, str) or not name:
        raise TypeError(f"name must be a non-empty string (TRL logs the reward under it), "
                        f"got {name!r}")
    return name


def _signature(metric: Metric[Any], **fields: object) -> str:
    """The metric's sacreBLEU signature (``nrefs:var``: the number of references is the data's)
    with the reward's fields before the version."""
    metric.num_refs = -1
    text = metric.get_signature().format()
    head, sep, version = text.rpartition("|version:")
    extra = "|".join(f"{key}:{value}" for key, value in fields.items())
    return f"{head}|{extra}{sep}{version}" if sep else f"{text}|{extra}"


# The transforms and scorers are module functions bound with functools.partial, not closures,
# so that a reward pickles: TRL's asynchronous GRPO sends reward functions to a spawned process.


def _upward(scores: list[float], scale: float) -> list[float]:
    """BLEU's and chrF's rewards."""
    return [score / 100 * scale for score in scores]


def _ter_clipped(scores: list[float], scale: float) -> list[float]:
    """TER's rewards: 1 - TER, clipped at 0."""
    return [max(0.0, 1.0 - score / 100) * scale for score in scores]


def _ter_unclipped(scores: list[float], scale: float) -> list[float]:
    return [(1.0 - score / 100) * scale for score in scores]


def _ter_scores(metric: TER, hypotheses: list[str], references: list[list[str]]) -> list[float]:
    return metric.sentence_scores(hypotheses, references)


def _reward(name: str, metric: Metric[Any], scorer: Scorer, transform: Transform, formula: str,
            scale: float, column: str, token_ids: bool, ids_column: str,
            pad_id: Optional[int], skip_ids: Collection[int],
            ids_scorer: Optional[IdScorer] = None, **fields: object) -> MetricReward:
    signature = _signature(metric, reward=formula, scale=f"{scale:g}", **fields,
                           input="ids" if token_ids else "text")
    return MetricReward(_check_name(name), signature, scorer, transform, column=column,
                        ids_column=ids_column if token_ids else None, pad_id=pad_id,
                        skip_ids=skip_ids, ids_scorer=ids_scorer if token_ids else None)


def make_bleu_reward(*, smooth_method: str = "exp", smooth_value: Optional[float] = None,
                     effective_order: bool = True,
                     tokenize: Optional[Union[str, Tokenizer]] = None, lowercase: bool = False,
                     max_ngram_order: int = 4, scale: float = 1.0, name: str = "bleu",
                     column: str = "references", token_ids: bool = False,
                     ids_column: str = "reference_ids", pad_id: Optional[int] = None,
                     skip_ids: Collection[int] = (), threads: Optional[int] = None,
                     backend: Optional[str] = None) -> MetricReward:
    """A sentence-BLEU reward: ``sentence_bleu(completion, references, ...).score / 100 * scale``.

    The defaults are sacreBLEU's ``sentence_bleu``'s (``exp`` smoothing, effective
    order, ``13a``). ``column`` names the dataset column of reference strings.
    With ``token_ids=True`` the reward scores TRL's ``completion_ids`` against
    the ``ids_column`` column of token ids (``pad_id`` and ``skip_ids`` removed,
    e.g. ``tokenizer.all_special_ids``, since TRL's completion ids end with EOS):
    each id is a token (``tokenize="none"``), and nothing is decoded.
    """
    if token_ids:
        if tokenize not in (None, "none") or lowercase:
            raise ValueError("token_ids=True scores ids as tokens: tokenize and lowercase do not "
                             "apply (leave them unset)")
        tokenize = "none"
    elif tokenize is None:
        tokenize = "13a"
    metric = BLEU(lowercase=lowercase, tokenize=tokenize,
                  smooth_method=smooth_method, smooth_value=smooth_value,
                  max_ngram_order=max_ngram_order, effective_order=effective_order,
                  backend=backend, threads=threads)
    config = BLEUConfig.create(metric.tokenizer, lowercase, smooth_method, smooth_value,
                               max_ngram_order, effective_order)
    scorer: Scorer = partial(sentence_scores_with, config, threads=threads, backend=backend)
    ids_scorer: Optional[IdScorer] = None
    if token_ids:  # the ids counted as they are, never written (config: tokenize "none")
        ids_scorer = partial(bleu_ids_scores_with, config, threads=threads, backend=backend,
                             what="completion_ids")
    scale = _check_scale(scale)
    return _reward(name, metric, scorer, partial(_upward, scale=scale), "score/100", scale,
                   column, token_ids, ids_column, pad_id, skip_ids, ids_scorer)


def make_chrf_reward(*, char_order: int = 6, word_order: int = 0, beta: float = 2,
                     lowercase: bool = False, remove_whitespace: bool = True,
                     eps_smoothing: bool = False, scale: float = 1.0, name: str = "chrf",
                     column: str = "references", token_ids: bool = False,
                     ids_column: str = "reference_ids", pad_id: Optional[int] = None,
                     skip_ids: Collection[int] = (), threads: Optional[int] = None,
                     backend: Optional[str] = None) -> MetricReward:
    """A sentence-chrF reward: ``sentence_chrf(completion, references, ...).score / 100 * scale``
    (chrF++ with ``word_order=2``). Other parameters as :func:`make_bleu_reward`; on token ids
    chrF scores the written ids (:mod:`truebleu.metrics.token_ids`)."""
    if token_ids and lowercase:
        raise ValueError("token_ids=True: lowercase does not apply to ids (leave it unset)")
    metric = CHRF(char_order=char_order, word_order=word_order, beta=beta,
                  lowercase=lowercase, whitespace=not remove_whitespace,
                  eps_smoothing=eps_smoothing, backend=backend, threads=threads)
    scorer: Scorer = partial(
        sentence_chrf_scores, char_order=char_order, word_order=word_order, beta=beta,
        lowercase=lowercase, remove_whitespace=remove_whitespace, eps_smoothing=eps_smoothing,
        threads=threads, backend=backend)
    scale = _check_scale(scale)
    return _reward(name, metric, scorer, partial(_upward, scale=scale), "score/100", scale,
                   column, token_ids, ids_column, pad_id, skip_ids)


def make_ter_reward(*, normalized: bool = False, no_punct: bool = False,
                    asian_support: bool = False, case_sensitive: bool = False, clip: bool = True,
                    scale: float = 1.0, name: str = "ter", column: str = "references",
                    token_ids: bool = False, ids_column: str = "reference_ids",
                    pad_id: Optional[int] = None, skip_ids: Collection[int] = (),
                    threads: Optional[int] = None, backend: Optional[str] = None
                    ) -> MetricReward:
    """A TER reward, higher is better: ``max(0, 1 - sentence_ter(...).score / 100) * scale``
    (without the ``max`` when ``clip=False``). TER's options as sacreBLEU's ``TER``; others
    as :func:`make_bleu_reward`."""
    metric = TER(normalized=normalized, no_punct=no_punct, asian_support=asian_support,
                 case_sensitive=case_sensitive, backend=backend, threads=threads)
    scale = _check_scale(scale)
    transform = partial(_ter_clipped if clip else _ter_unclipped, scale=scale)
    formula = "max(0,1-score/100)" if clip else "1-score/100"
    return _reward(name, metric, partial(_ter_scores, metric), transform, formula, scale, column,
                   token_ids, ids_column, pad_id, skip_ids)


def combine_rewards(*parts: tuple[Reward, float], name: Optional[str] = None) -> CombinedReward:
    """A weighted sum of rewards, e.g. ``combine_rewards((bleu_reward, 0.5), (chrf_reward, 0.5))``:
    per completion ``sum(weight * reward)`` in the order given. For a trainer that takes one
    reward function (verl); TRL can also weigh separate functions (``reward_weights``)."""
    if not parts:
        raise ValueError("combine_rewards needs at least one (reward, weight) pair")
    checked: list[tuple[Reward, float]] = []
    for i, part in enumerate(parts):
        if not isinstance(part, Sequence) or len(part) != 2:
            raise TypeError(f"part {i} must be a (reward, weight) pair, got {part!r}")
        reward, weight = part
        if not isinstance(reward, Reward):
            raise TypeError(f"part {i}: {reward!r} is not a truebleu reward")
        if isinstance(weight, bool) or not isinstance(weight, numbers.Real) \
                or not math.isfinite(weight):
            raise TypeError(f"part {i}: the weight must be a finite number, got {weight!r}")
        checked.append((reward, float(weight)))
    if name is None:
        name = "+".join(f"{weight:g}*{reward.__name__}" for reward, weight in checked)
    return CombinedReward(checked, _check_name(name))
