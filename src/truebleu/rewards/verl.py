"""verl's reward-function forms, as module functions verl can load by name.

verl loads a custom reward function from ``custom_reward_function.path`` (a
file, or ``pkg://`` a module) and ``.name``::

    custom_reward_function.path=pkg://truebleu.rewards.verl
    custom_reward_function.name=compute_score_batch        # with reward_model.reward_manager=batch
    custom_reward_function.name=compute_score              # with the naive (per-item) manager

``ground_truth`` (the dataset's ``reward_model.ground_truth``) is one
reference string or a list of them. ``compute_score*`` give sentence BLEU / 100,
``chrf_*`` chrF / 100, ``ter_*`` max(0, 1 - TER / 100), with sacreBLEU's
defaults; for other settings, a file of your own binds a configured reward:
``compute_score = make_chrf_reward(word_order=2).verl_compute_score_batch``.
The batch forms score the whole batch in one call of the compiled core.
"""

from __future__ import annotations

from . import bleu_reward, chrf_reward, ter_reward

__all__ = ["chrf_compute_score", "chrf_compute_score_batch", "compute_score",
           "compute_score_batch", "ter_compute_score", "ter_compute_score_batch"]

compute_score = bleu_reward.verl_compute_score
compute_score_batch = bleu_reward.verl_compute_score_batch
chrf_compute_score = chrf_reward.verl_compute_score
chrf_compute_score_batch = chrf_reward.verl_compute_score_batch
ter_compute_score = ter_reward.verl_compute_score
ter_compute_score_batch = ter_reward.verl_compute_score_batch
