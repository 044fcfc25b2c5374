"""truebleu's rewards inside a real TRL ``GRPOTrainer``: the rewards it logs are sacreBLEU's.

A tiny randomly initialised Llama-style causal LM (built from a config) and a
word-level tokenizer built locally with ``tokenizers`` (nothing downloaded),
two GRPO steps with ``reward_funcs=[bleu_reward, chrf_reward, an async TER
reward, a token-id BLEU reward]`` on a dataset with ``prompt``, ``references``
and ``reference_ids`` columns, with plain and with conversational prompts. The
trainer's own reward step (``_calculate_rewards``) is observed, not replaced:
for every completion it generated, each reward it computed must equal
sacreBLEU's sentence score of that completion (scaled, as the trainer's float32).
About 5 s per case on two cores.
"""

from __future__ import annotations

import pytest

trl = pytest.importorskip("trl")
torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")
tokenizers = pytest.importorskip("tokenizers")
datasets = pytest.importorskip("datasets")
sacrebleu = pytest.importorskip("sacrebleu")

from truebleu.rewards import bleu_reward, chrf_reward, make_bleu_reward, make_ter_reward  # noqa: E402

# TRL 1.16 still calls transformers 5's deprecated gradient_checkpointing names: theirs, not ours
pytestmark = pytest.mark.filterwarnings("ignore:.*gradient_checkpointing.*:FutureWarning")

WORDS = ("the cat dog sat on a mat red big small house runs fast slowly over under near far "
         "green blue bird tree . ,").split()
SPECIAL = ["<pad>", "<eos>", "<unk>"]


def tiny_tokenizer():
    vocab = {token: i for i, token in enumerate(SPECIAL + WORDS)}
    model = tokenizers.models.WordLevel(vocab=vocab, unk_token="<unk>")
    raw = tokenizers.Tokenizer(model)
    raw.pre_tokenizer = tokenizers.pre_tokenizers.WhitespaceSplit()
    raw.decoder = tokenizers.decoders.WordPiece(prefix="##")  # joins words with spaces
    return transformers.PreTrainedTokenizerFast(tokenizer_object=raw, pad_token="<pad>",
                                                eos_token="<eos>", unk_token="<unk>")


def tiny_model(tokenizer):
    torch.manual_seed(0)
    config = transformers.LlamaConfig(
        vocab_size=len(tokenizer), hidden_size=16, intermediate_size=32, num_hidden_layers=1,
        num_attention_heads=2, num_key_value_heads=2, max_position_embeddings=64,
        pad_token_id=tokenizer.pad_token_id, eos_token_id=tokenizer.eos_token_id,
        bos_token_id=None)
    return transformers.LlamaForCausalLM(config)


@pytest.mark.parametrize("conversational", [False, True], ids=["text", "chat"])
def test_grpo_trainer_computes_sacrebleu_rewards(tmp_path, monkeypatch, conversational):
    for name in ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE", "TRANSFORMERS_OFFLINE"):
        monkeypatch.setenv(name, "1")
    monkeypatch.setenv("WANDB_DISABLED", "true")
    tokenizer = tiny_tokenizer()
    rows = [("the cat sat", ["the cat sat on the mat .", "a cat sat on a mat ."]),
            ("a big dog", ["a big dog runs fast ."]),
            ("the bird", ["the bird sat in the green tree .", "a blue bird ."]),
            ("a small house", ["a small red house near the tree ."])]
    if conversational:  # chat messages in, one assistant message per completion out
        tokenizer.chat_template = ("{% for m in messages %}{{ m['content'] }} {% endfor %}")
    dataset = datasets.Dataset.from_dict({
        "prompt": [[{"role": "user", "content": prompt}] if conversational else prompt
                   for prompt, _ in rows],
        "references": [refs for _, refs in rows],
        "reference_ids": [[tokenizer(ref)["input_ids"] for ref in refs] for _, refs in rows],
        "other": [1, 2, 3, 4],  # a column no reward reads
    })
    id_reward = make_bleu_reward(token_ids=True, skip_ids=tokenizer.all_special_ids,
                                 name="bleu_ids")
    async_ter = make_ter_reward(name="ter_async").as_async()
    args = trl.GRPOConfig(
        output_dir=str(tmp_path), per_device_train_batch_size=4, num_generations=4,
        max_completion_length=8, max_steps=2, learning_rate=1e-3, logging_steps=1,
        report_to=[], use_cpu=True, save_strategy="no", seed=0, bf16=False,
        temperature=1.0, log_completions=False)
    trainer = trl.GRPOTrainer(model=tiny_model(tokenizer), processing_class=tokenizer,
                              reward_funcs=[bleu_reward, chrf_reward, async_ter, id_reward],
                              args=args, train_dataset=dataset)
    assert trainer.reward_func_names == ["bleu", "chrf", "ter_async", "bleu_ids"]
    calls = []  # what the trainer's own reward step got and computed, step by step
    compute = trainer._calculate_rewards

    def recording(inputs, prompts, completions, completion_ids_list):
        rewards = compute(inputs, prompts, completions, completion_ids_list)
        calls.append((inputs, completions, completion_ids_list, rewards.detach().cpu().clone()))
        return rewards

    monkeypatch.setattr(trainer, "_calculate_rewards", recording)
    trainer.train()

    assert len(calls) == 2
    special = set(tokenizer.all_special_ids)

    def float32(value: float) -> float:
        return torch.tensor(value, dtype=torch.float32).item()

    generated = 0
    for inputs, completions, completion_ids, rewards in calls:
        assert rewards.shape == (len(completions), 4)
        for row, (example, completion, ids) in enumerate(zip(inputs, completions, completion_ids)):
            if conversational:
                assert completion[0]["role"] == "assistant"
                completion = completion[0]["content"]
            generated += bool(completion.strip())
            refs = example["references"]
            bleu = sacrebleu.sentence_bleu(completion, refs).score / 100
            chrf = sacrebleu.sentence_chrf(completion, refs).score / 100
            ter = max(0.0, 1.0 - sacrebleu.sentence_ter(completion, refs).score / 100)
            # the token-id reward: the completion's ids (EOS and padding removed) against the
            # reference ids, as written ids with tokenize="none"
            hyp_ids = " ".join(str(t) for t in ids if t not in special)
            ref_ids = [" ".join(map(str, r)) for r in example["reference_ids"]]
            by_ids = sacrebleu.sentence_bleu(hyp_ids, ref_ids, tokenize="none").score / 100
            expected = [float32(bleu), float32(chrf), float32(ter), float32(by_ids)]
            assert rewards[row].tolist() == expected, (completion, refs)
    assert generated >= 4  # the model did generate words
    # what the trainer logged is what it computed
    assert list(trainer._logs["rewards"]["bleu"])[-4:] == calls[-1][3][:, 0].tolist()
