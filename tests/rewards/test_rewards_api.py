"""The rewards' calling conventions: TRL's keywords, chat messages, names, signatures, errors,
threads, the awaitable twin, the weighted combination and the token-id mode.

Numbers are checked against sacreBLEU (or against the same reward on the text path);
none is typed by hand.
"""

from __future__ import annotations

import asyncio
import threading

import numpy as np
import pytest

from truebleu.rewards import (
    AsyncReward,
    bleu_reward,
    chrf_reward,
    combine_rewards,
    make_bleu_reward,
    make_chrf_reward,
    make_ter_reward,
    ter_reward,
)

sacrebleu = pytest.importorskip("sacrebleu")

COMPLETIONS = ["the cat sat on the mat .", "a dog runs", "", "the the the"]
REFERENCES = [["the cat is on the mat .", "a cat sat on a mat ."], "a dog runs fast .",
              ["nothing here"], ("the cat", None, "the dog")]
AS_LISTS = [["the cat is on the mat .", "a cat sat on a mat ."], ["a dog runs fast ."],
            ["nothing here"], ["the cat", "the dog"]]


def expected_bleu() -> list[float]:
    return [sacrebleu.sentence_bleu(h, r).score / 100 for h, r in zip(COMPLETIONS, AS_LISTS)]


def test_trl_keywords_and_extra_columns():
    got = bleu_reward(prompts=["p1", "p2", "p3", "p4"], completions=COMPLETIONS,
                      completion_ids=[[1], [2], [3], [4]], references=REFERENCES,
                      trainer_state=object(), log_extra=print, log_metric=print,
                      other_column=[1, 2, 3, 4])
    assert got == expected_bleu()
    assert all(type(value) is float for value in got)


def test_chat_completions_score_the_assistants_content():
    chat = [[{"role": "assistant", "content": text}] for text in COMPLETIONS]
    chat[1] = [{"role": "assistant", "content": [{"type": "text", "text": "a dog "},
                                                 {"type": "image"}, {"type": "text", "text": "runs"}]}]
    chat[2] = [{"role": "assistant", "content": None, "tool_calls": []},
               {"role": "tool", "content": "ignored"}]
    assert bleu_reward(completions=chat, references=REFERENCES) == expected_bleu()
    prompts = [[{"role": "user", "content": "translate"}]] * 4
    assert chrf_reward(prompts=prompts, completions=chat, references=REFERENCES) == \
        chrf_reward(completions=COMPLETIONS, references=REFERENCES)


def test_names_and_signatures():
    assert (bleu_reward.__name__, chrf_reward.__name__, ter_reward.__name__) == ("bleu", "chrf", "ter")
    # the metric's sacreBLEU signature, then the reward's fields, the version last
    sacre = sacrebleu.BLEU(effective_order=True)
    sacre.sentence_score("a", ["a"])
    for key in str(sacre.get_signature()).split("|")[1:-1]:
        assert key in bleu_reward.signature
    assert "reward:score/100|scale:1|input:text|version:" in bleu_reward.signature
    assert "reward:max(0,1-score/100)" in ter_reward.signature
    custom = make_chrf_reward(word_order=2, scale=5, name="chrf++")
    assert custom.__name__ == "chrf++" and "nw:2" in custom.signature and "scale:5" in custom.signature
    assert "tok:none" in make_bleu_reward(token_ids=True).signature
    assert "input:ids" in make_bleu_reward(token_ids=True).signature


def test_clear_errors_name_the_index():
    with pytest.raises(ValueError, match="missing the 'references' column"):
        bleu_reward(prompts=["p"], completions=["a"])
    with pytest.raises(ValueError, match="2 completions but 1 entries in 'references'"):
        bleu_reward(completions=["a", "b"], references=[["a"]])
    with pytest.raises(ValueError, match=r"references\[1\] is empty: completion 1"):
        chrf_reward(completions=["a", "b"], references=[["a"], []])
    with pytest.raises(TypeError, match=r"references\[0\]\[1\] must be a string"):
        ter_reward(completions=["a"], references=[["a", 3]])
    with pytest.raises(TypeError, match=r"completions\[1\] must be a string or a list of chat"):
        bleu_reward(completions=["a", 5], references=["a", "b"])
    with pytest.raises(ValueError, match=r"completions\[0\] holds no assistant message"):
        bleu_reward(completions=[[{"role": "user", "content": "x"}]], references=["a"])
    with pytest.raises(ValueError, match="missing the 'solution' column"):
        make_bleu_reward(column="solution")(completions=["a"], references=["a"])
    with pytest.raises(ValueError, match="scale must be a finite number > 0"):
        make_bleu_reward(scale=-1)
    with pytest.raises(ValueError, match="smooth_method"):
        make_bleu_reward(smooth_method="nope")
    with pytest.raises(ValueError, match="tokenize and lowercase do not apply"):
        make_bleu_reward(token_ids=True, tokenize="13a")
    with pytest.raises(ValueError, match="needs completion_ids"):
        make_bleu_reward(token_ids=True)(completions=["a"], reference_ids=[[1]])


def test_custom_column_and_one_string_per_completion():
    reward = make_bleu_reward(column="solution")
    assert reward(completions=COMPLETIONS, solution=REFERENCES) == expected_bleu()
    assert bleu_reward(completions=["a b c d"], references=np.array(["a b c d"])) == \
        bleu_reward(completions=["a b c d"], references=[["a b c d"]])


def test_deterministic_and_thread_safe():
    rng = np.random.default_rng(7)
    words = np.array("the cat dog sat on a mat red big small house runs fast".split())
    completions = [" ".join(rng.choice(words, 12)) for _ in range(64)]
    references = [[" ".join(rng.choice(words, 12)) for _ in range(4)] for _ in range(64)]
    rewards = [bleu_reward, chrf_reward, ter_reward]
    expected = [reward(completions=completions, references=references) for reward in rewards]
    failures: list[str] = []
    barrier = threading.Barrier(6)

    def worker(k: int) -> None:
        barrier.wait()
        for _ in range(15):
            reward = rewards[k % 3]
            if reward(completions=completions, references=references) != expected[k % 3]:
                failures.append(reward.__name__)

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []


def test_async_twin_is_awaited_like_trl_does():
    trl_utils = pytest.importorskip("trl.trainer.utils")
    twin = bleu_reward.as_async()
    assert isinstance(twin, AsyncReward)
    assert trl_utils.is_async_callable(twin) and not trl_utils.is_async_callable(bleu_reward)
    assert trl_utils.get_callable_name(twin) == "bleu" == trl_utils.get_callable_name(bleu_reward)
    assert twin.signature == bleu_reward.signature

    async def gather():
        return await asyncio.gather(
            twin(prompts=None, completions=COMPLETIONS, completion_ids=None, references=REFERENCES),
            ter_reward.as_async()(completions=COMPLETIONS, references=REFERENCES))

    bleu, ter = asyncio.run(gather())
    assert bleu == expected_bleu()
    assert ter == ter_reward(completions=COMPLETIONS, references=REFERENCES)


def test_weighted_combination():
    combined = combine_rewards((bleu_reward, 0.7), (chrf_reward, 0.2), (ter_reward, 0.1))
    assert combined.__name__ == "0.7*bleu+0.2*chrf+0.1*ter"
    parts = [r(completions=COMPLETIONS, references=REFERENCES)
             for r in (bleu_reward, chrf_reward, ter_reward)]
    expected = [0.0 + 0.7 * b + 0.2 * c + 0.1 * t for b, c, t in zip(*parts)]
    assert combined(completions=COMPLETIONS, references=REFERENCES) == expected
    assert combined.verl_compute_score_batch(["x"] * 4, COMPLETIONS, REFERENCES) == expected
    assert "0.7 * bleu[" in combined.signature
    assert combine_rewards((bleu_reward, 1), name="b").__name__ == "b"
    with pytest.raises(TypeError, match="part 0"):
        combine_rewards((print, 1.0))  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="finite number"):
        combine_rewards((bleu_reward, float("nan")))


@pytest.mark.parametrize("make", [make_bleu_reward, make_chrf_reward, make_ter_reward])
def test_token_id_mode_scores_the_written_ids_without_decoding(make):
    torch = pytest.importorskip("torch")
    pad, eos = 0, 2
    completion_ids = [[5, 6, 7, 8, eos], [9, 5, 6, eos, pad, pad], [eos], [11, 11, 11]]
    reference_ids = [[[5, 6, 7, 9], [5, 6]], [9, 5, 6, 7], [[12]], torch.tensor([[11, 5], [11, 0]])]
    reward = make(token_ids=True, pad_id=pad, skip_ids=[eos])
    got = reward(prompts=None, completions=["decoded text, unused"] * 4,
                 completion_ids=completion_ids, reference_ids=reference_ids, references=None)
    # the text twin on the written ids (BLEU: each id one token)
    text = make(tokenize="none") if make is make_bleu_reward else make()
    written = ["5 6 7 8", "9 5 6", "", "11 11 11"]
    written_refs = [["5 6 7 9", "5 6"], ["9 5 6 7"], ["12"], ["11 5", "11"]]
    assert got == text(completions=written, references=written_refs)
    assert reward.rewards_of_ids(completion_ids, reference_ids) == got
    with pytest.raises(TypeError, match="scores token ids"):
        reward.rewards(["a"], ["a"])
    with pytest.raises(ValueError, match="missing the 'reference_ids' column"):
        reward(completions=["a"], completion_ids=[[1]])


def test_rewards_pickle_into_a_spawned_process():
    """TRL's asynchronous GRPO sends reward functions to a spawned child process."""
    import multiprocessing
    import pickle
    from concurrent.futures import ProcessPoolExecutor

    rewards = [bleu_reward, chrf_reward, make_ter_reward(clip=False, scale=3),
               combine_rewards((bleu_reward, 0.5), (ter_reward, 0.5)),
               make_chrf_reward(token_ids=True, pad_id=0)]
    for reward in rewards:
        copy = pickle.loads(pickle.dumps(reward))
        assert (copy.__name__, copy.signature) == (reward.__name__, reward.signature)
    twin = pickle.loads(pickle.dumps(bleu_reward.as_async()))
    assert asyncio.run(twin(completions=COMPLETIONS, references=REFERENCES)) == expected_bleu()
    with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as pool:
        assert pool.submit(bleu_reward, completions=COMPLETIONS,
                           references=REFERENCES).result(timeout=120) == expected_bleu()
