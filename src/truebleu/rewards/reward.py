"""Reward objects: one batch in, one float per completion out, in TRL's and verl's forms.

A :class:`Reward` is a callable object with a ``__name__`` (TRL logs each reward
under it) and a ``signature`` (sacreBLEU's, plus the reward's own settings).
It keeps no state between calls and its settings are fixed at construction,
so one object may be called from any number of threads at once; the compiled
core computes a whole batch in one call, without the GIL.
"""

from __future__ import annotations

import asyncio
from abc import ABC, abstractmethod
from collections.abc import Callable, Collection, Sequence
from typing import Any, Optional

from ..metrics.token_ids import DroppedIds, written_batch
from .inputs import completion_texts, reference_lists

#: sacreBLEU-style scores of texts against their references: (hypotheses, references) -> scores
Scorer = Callable[[list[str], list[list[str]]], list[float]]
#: the same scores of token ids: (completion ids, reference ids, ids removed) -> scores
IdScorer = Callable[[Any, Any, DroppedIds], list[float]]
#: the scores (0..100) of a batch to its rewards, in one pass over the list
Transform = Callable[[list[float]], list[float]]


class Reward(ABC):
    """A reward function: TRL's calling convention, verl's two forms, an async twin.

    Subclasses give :meth:`rewards_of_columns` (what TRL's keyword arguments
    score to) and :meth:`rewards` (texts and their references).
    """

    __name__: str
    #: the settings that make the number: the metric's sacreBLEU signature and the reward's own
    signature: str

    def __call__(self, prompts: Optional[Sequence[Any]] = None,
                 completions: Optional[Sequence[Any]] = None,
                 completion_ids: Optional[Sequence[Any]] = None, **columns: Any) -> list[float]:
        """TRL's form: ``reward(prompts=..., completions=..., completion_ids=..., references=...,
        **other_columns)``, one float per completion. Prompts, and every column the reward does
        not read (``trainer_state``, ``log_extra``, other dataset columns), are ignored."""
        return self.rewards_of_columns(completions, completion_ids, columns)

    @abstractmethod
    def rewards_of_columns(self, completions: Optional[Sequence[Any]],
                           completion_ids: Optional[Sequence[Any]],
                           columns: dict[str, Any]) -> list[float]:
        """The rewards of a batch from what TRL passes (the columns by name)."""

    @abstractmethod
    def rewards(self, completions: Sequence[Any], references: Sequence[Any]) -> list[float]:
        """The reward of each completion (a string or chat messages) against its references
        (``references[i]``: a list of strings, or one string)."""

    # -- verl ---------------------------------------------------------------------------------

    def verl_compute_score(self, data_source: object = None, solution_str: str = "",
                           ground_truth: Any = None, extra_info: object = None,
                           **kwargs: Any) -> float:
        """verl's per-item form (``NaiveRewardManager``): ``ground_truth`` is one reference
        string or a list of them; ``data_source``, ``extra_info`` and any other keyword are
        ignored. Prefer :meth:`verl_compute_score_batch`: one call for the whole batch."""
        return self.rewards([solution_str], [ground_truth])[0]

    def verl_compute_score_batch(self, data_sources: object = None,
                                 solution_strs: Sequence[str] = (),
                                 ground_truths: Sequence[Any] = (),
                                 extra_infos: object = None, **kwargs: Any) -> list[float]:
        """verl's batch form (``BatchRewardManager``): lists in, one float per item out,
        the whole batch in one call of the compiled core."""
        return self.rewards(list(solution_strs), list(ground_truths))

    # -- async --------------------------------------------------------------------------------

    def as_async(self) -> AsyncReward:
        """This reward as a coroutine function, for trainers that await rewards (TRL runs them
        concurrently on its event loop): the batch is scored on a worker thread."""
        return AsyncReward(self)

    def __repr__(self) -> str:
        return f"<reward {self.__name__}: {self.signature}>"


class AsyncReward:
    """An awaitable twin of a :class:`Reward`: same name, signature and numbers.

    TRL detects it as asynchronous (its ``__call__`` is a coroutine function)
    and gathers it with its other asynchronous rewards; the scoring runs on a
    worker thread (:func:`asyncio.to_thread`) so that the event loop stays free.
    """

    def __init__(self, reward: Reward) -> None:
        if not isinstance(reward, Reward):
            raise TypeError(f"AsyncReward wraps a truebleu Reward, got {type(reward).__name__}")
        self.reward = reward
        self.__name__ = reward.__name__
        self.signature = reward.signature

    async def __call__(self, prompts: Optional[Sequence[Any]] = None,
                       completions: Optional[Sequence[Any]] = None,
                       completion_ids: Optional[Sequence[Any]] = None,
                       **columns: Any) -> list[float]:
        """As :meth:`Reward.__call__`, awaited."""
        return await asyncio.to_thread(self.reward.rewards_of_columns, completions,
                                       completion_ids, columns)

    def __repr__(self) -> str:
        return f"<async reward {self.__name__}: {self.signature}>"


class MetricReward(Reward):
    """One metric's sentence scores as rewards (made by the ``make_*_reward`` factories).

    With ``ids_column`` set, the reward scores token ids: ``completion_ids``
    against that column's id sequences (the scores of their written forms, see
    :mod:`truebleu.metrics.token_ids`), and no text is decoded or tokenized.
    ``ids_scorer``, where the metric has one (BLEU), scores the ids without
    writing them; otherwise ``scorer`` scores the written forms.
    """

    def __init__(self, name: str, signature: str, scorer: Scorer, transform: Transform, *,
                 column: str = "references", ids_column: Optional[str] = None,
                 pad_id: Optional[int] = None, skip_ids: Collection[int] = (),
                 ids_scorer: Optional[IdScorer] = None) -> None:
        self.__name__ = name
        self.signature = signature
        self._scorer = scorer
        self._ids_scorer = ids_scorer
        self._transform = transform
        self.column = column
        self.ids_column = ids_column
        self.pad_id = pad_id
        self.skip_ids = tuple(skip_ids)
        self._dropped = DroppedIds(pad_id, self.skip_ids)  # checked here, once

    @property
    def on_token_ids(self) -> bool:
        """Whether this reward scores token ids (``completion_ids``) rather than text."""
        return self.ids_column is not None

    def rewards_of_columns(self, completions: Optional[Sequence[Any]],
                           completion_ids: Optional[Sequence[Any]],
                           columns: dict[str, Any]) -> list[float]:
        if self.ids_column is not None:
            if completion_ids is None:
                raise ValueError(f"reward {self.__name__!r} scores token ids: it needs "
                                 "completion_ids=... (TRL passes them)")
            return self.rewards_of_ids(completion_ids, columns.get(self.ids_column))
        return self._score(completion_texts(completions), columns.get(self.column), self.column)

    def rewards(self, completions: Sequence[Any], references: Sequence[Any]) -> list[float]:
        if self.ids_column is not None:
            raise TypeError(f"reward {self.__name__!r} scores token ids: call rewards_of_ids, "
                            "or make a text reward for text")
        return self._score(completion_texts(completions), references, "references")

    def rewards_of_ids(self, completion_ids: Any, reference_ids: Any) -> list[float]:
        """The rewards of token-id completions against token-id references (one sequence, or
        several, per completion), this reward's ``pad_id`` and ``skip_ids`` removed."""
        if reference_ids is None:
            raise ValueError(f"missing the {self.ids_column or 'reference_ids'!r} column: each "
                             "completion's reference token ids")
        if self._ids_scorer is not None:
            return self._transform(self._ids_scorer(completion_ids, reference_ids,
                                                    self._dropped))
        texts, refs = written_batch(completion_ids, reference_ids, self._dropped,
                                    what="completion_ids")
        return self._transform(self._scorer(texts, refs))

    def _score(self, texts: list[str], references: Any, column: str) -> list[float]:
        return self._transform(self._scorer(texts, reference_lists(references, len(texts),
                                                                   column)))


class CombinedReward(Reward):
    """A weighted sum of rewards: ``sum(weight * reward)`` per completion, in the order given
    (each part scores the batch in one call of the core)."""

    def __init__(self, parts: Sequence[tuple[Reward, float]], name: str) -> None:
        self.parts = tuple(parts)
        self.__name__ = name
        self.signature = " + ".join(f"{weight:g} * {reward.__name__}[{reward.signature}]"
                                    for reward, weight in self.parts)

    def rewards_of_columns(self, completions: Optional[Sequence[Any]],
                           completion_ids: Optional[Sequence[Any]],
                           columns: dict[str, Any]) -> list[float]:
        return self._sum([reward.rewards_of_columns(completions, completion_ids, columns)
                          for reward, _ in self.parts])

    def rewards(self, completions: Sequence[Any], references: Sequence[Any]) -> list[float]:
        return self._sum([reward.rewards(completions, references) for reward, _ in self.parts])

    def _sum(self, per_part: list[list[float]]) -> list[float]:
        totals = [0.0] * len(per_part[0])
        for values, (_, weight) in zip(per_part, self.parts):
            totals = [total + weight * value for total, value in zip(totals, values)]
        return totals
