"""verl's forms, called as verl's reward managers call them (verl itself is not installed).

What verl does, read from its source (volcengine/verl, ``verl/workers/reward_manager``
``naive.py`` and ``batch.py``, ``verl/trainer/ppo/reward.py``, ``verl/utils/import_utils.py``):

* the function is loaded from ``custom_reward_function.path`` and ``.name``; a path
  ``pkg://a.b.c`` is ``importlib.import_module("a.b.c")``, the function ``getattr``'d;
  the config's ``reward_kwargs`` are merged into every call's keywords;
* the naive manager calls it once per item, with keywords ``data_source``,
  ``solution_str``, ``ground_truth`` (from ``reward_model.ground_truth``) and
  ``extra_info`` (a dict verl adds ``num_turns`` and ``rollout_reward_scores`` to);
* the batch manager calls it once per batch with ``data_sources`` (a NumPy object
  array), ``solution_strs`` (a list), ``ground_truths`` (a list; a list-valued ground
  truth from a Parquet dataset arrives as a NumPy array of str) and ``extra_infos``,
  and reads one float per item.
"""

from __future__ import annotations

import importlib
import inspect

import numpy as np
import pytest

from truebleu.rewards import make_chrf_reward

sacrebleu = pytest.importorskip("sacrebleu")

SOLUTIONS = ["the cat sat on the mat .", "a dog runs", "", "Der Hund läuft schnell ."]
GROUND_TRUTHS = [["the cat is on the mat .", "a cat sat on a mat ."], "a dog runs fast .",
                 np.array(["nothing here"], dtype=object), np.array(["Der Hund rennt schnell ."])]
AS_LISTS = [list(gt) if not isinstance(gt, str) else [gt] for gt in GROUND_TRUTHS]
REWARD_KWARGS = {"some_setting": 1}  # a config's reward_kwargs: passed along, ignored


def load(name: str):
    """verl's loading of ``pkg://truebleu.rewards.verl`` and the config's reward_kwargs."""
    module = importlib.import_module("pkg://truebleu.rewards.verl"[len("pkg://"):])
    function = getattr(module, name)

    def call(*args, **kwargs):
        return function(*args, **kwargs, **REWARD_KWARGS)

    return function, call


ORACLES = {
    "": lambda h, r: sacrebleu.sentence_bleu(h, r).score / 100,
    "chrf_": lambda h, r: sacrebleu.sentence_chrf(h, r).score / 100,
    "ter_": lambda h, r: max(0.0, 1 - sacrebleu.sentence_ter(h, r).score / 100),
}


@pytest.mark.parametrize("prefix", list(ORACLES))
def test_naive_manager_per_item(prefix):
    function, call = load(f"{prefix}compute_score")
    assert not inspect.iscoroutinefunction(function)  # verl runs it in an executor
    for i, (solution, truth) in enumerate(zip(SOLUTIONS, GROUND_TRUTHS)):
        extra_info = {"index": i, "num_turns": None, "rollout_reward_scores": {}}
        score = call(data_source="wmt", solution_str=solution, ground_truth=truth,
                     extra_info=extra_info)
        assert type(score) is float
        assert score == ORACLES[prefix](solution, AS_LISTS[i])


@pytest.mark.parametrize("prefix", list(ORACLES))
def test_batch_manager_one_call_per_batch(prefix):
    _, call = load(f"{prefix}compute_score_batch")
    extras = np.array([{"rollout_reward_scores": {}} for _ in SOLUTIONS], dtype=object)
    scores = call(data_sources=np.array(["wmt"] * len(SOLUTIONS), dtype=object),
                  solution_strs=list(SOLUTIONS), ground_truths=list(GROUND_TRUTHS),
                  extra_infos=extras)
    assert len(scores) == len(SOLUTIONS)
    assert scores == [ORACLES[prefix](h, r) for h, r in zip(SOLUTIONS, AS_LISTS)]


def test_a_configured_reward_in_verls_forms():
    reward = make_chrf_reward(word_order=2)
    expected = [sacrebleu.sentence_chrf(h, r, word_order=2).score / 100
                for h, r in zip(SOLUTIONS, AS_LISTS)]
    assert reward.verl_compute_score_batch(data_sources=None, solution_strs=SOLUTIONS,
                                           ground_truths=GROUND_TRUTHS, extra_infos=None) == expected
    assert [reward.verl_compute_score("wmt", h, gt, {}) for h, gt in
            zip(SOLUTIONS, GROUND_TRUTHS)] == expected
    with pytest.raises(ValueError, match="references\\[0\\] is empty"):
        reward.verl_compute_score("wmt", "x", [], {})
