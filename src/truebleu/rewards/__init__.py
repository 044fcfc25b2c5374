"""Rewards for reinforcement learning: sentence BLEU, chrF and TER per completion, in batches.

Ready to use, with sacreBLEU's sentence defaults::

    from truebleu.rewards import bleu_reward, chrf_reward, ter_reward
    GRPOTrainer(..., reward_funcs=[bleu_reward, chrf_reward])   # TRL

A reward is called as TRL calls a reward function, ``reward(prompts=...,
completions=..., completion_ids=..., references=..., **other_columns)``, and
returns one float per completion. ``references`` is a dataset column: each
completion's reference strings (or one string). Completions may be plain
strings or chat messages (the assistant's content is scored). For verl, every
reward has ``verl_compute_score`` (one item) and ``verl_compute_score_batch``
(a whole batch in one call of the compiled core); :mod:`truebleu.rewards.verl`
holds them as module functions for verl's ``custom_reward_function`` setting.

**Scale**: 0..1, higher is better. BLEU and chrF give ``score / 100``; TER,
an error rate, gives ``max(0, 1 - score / 100)``. The score is sacreBLEU's
sentence score to the last bit; ``scale=`` multiplies the reward.
:func:`make_bleu_reward`, :func:`make_chrf_reward` and :func:`make_ter_reward`
take the metric's settings; :func:`combine_rewards` weighs several.

Rewards hold no state between calls: deterministic, and safe to call from
several threads at once. ``reward.as_async()`` is an awaitable twin.
"""

from __future__ import annotations

from .factories import combine_rewards, make_bleu_reward, make_chrf_reward, make_ter_reward
from .reward import AsyncReward, CombinedReward, MetricReward, Reward

__all__ = [
    "AsyncReward", "CombinedReward", "MetricReward", "Reward", "bleu_reward", "chrf_reward",
    "combine_rewards", "make_bleu_reward", "make_chrf_reward", "make_ter_reward", "ter_reward",
]

#: sentence BLEU / 100 (sacreBLEU's ``sentence_bleu`` defaults: 13a, exp smoothing, effective order)
bleu_reward = make_bleu_reward()
#: sentence chrF / 100 (sacreBLEU's ``sentence_chrf`` defaults: chrF2, character 6-grams)
chrf_reward = make_chrf_reward()
#: max(0, 1 - sentence TER / 100) (sacreBLEU's ``sentence_ter`` defaults)
ter_reward = make_ter_reward()
