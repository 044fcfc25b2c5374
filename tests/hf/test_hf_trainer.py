"""truebleu.hf.compute_metrics: decoding an EvalPrediction as a Seq2SeqTrainer gives it, and a
real Seq2SeqTrainer.evaluate with a tiny model built from a config (nothing downloaded). The
numbers are the hub modules' on the decoded text."""

from __future__ import annotations

import pytest

pytest.importorskip("evaluate")
np = pytest.importorskip("numpy")
pytest.importorskip("tokenizers")
transformers = pytest.importorskip("transformers")

from hf_support import (
    hub_module,
    needs_oracles,
    offline,  # noqa: F401 - a fixture
)
from transformers import EvalPrediction, PreTrainedTokenizerFast

import truebleu.hf
from tokenizers import Tokenizer, models, pre_tokenizers, processors

WORDS = "the cat sat on a mat dog barks big small red . , über Straße 猫".split()
HEADLINE = {"sacrebleu": "score", "bleu": "bleu", "chrf": "score", "ter": "score"}
PAD, EOS, IGNORE = 0, 1, -100


@pytest.fixture(scope="module")
def tokenizer():
    """A word-level tokenizer built here: ``<pad>`` 0, ``</s>`` 1 (added to every sequence),
    ``<unk>`` 2, then the words."""
    vocab = {"<pad>": PAD, "</s>": EOS, "<unk>": 2, **{w: i + 3 for i, w in enumerate(WORDS)}}
    core = Tokenizer(models.WordLevel(vocab, unk_token="<unk>"))
    core.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    core.post_processor = processors.TemplateProcessing(single="$A </s>", special_tokens=[("</s>", EOS)])
    return PreTrainedTokenizerFast(tokenizer_object=core, pad_token="<pad>", eos_token="</s>",
                                   unk_token="<unk>")


def padded(rows, width, value):
    return np.array([row + [value] * (width - len(row)) for row in rows])


def expected_scores(tokenizer, cache, predictions, labels, metrics):
    """The hub modules' headline numbers on the text an EvalPrediction holds."""
    def text(ids):
        ids = np.where(ids == IGNORE, PAD, ids)
        return [line.strip() for line in tokenizer.batch_decode(ids.tolist(), skip_special_tokens=True)]

    hyps, refs = text(predictions), [[line] for line in text(labels)]
    return {name: float(hub_module(name, cache).compute(predictions=hyps, references=refs,
                                                        **kwargs)[HEADLINE[name]])
            for name, kwargs in metrics.items()}


SOURCES = ["the cat sat on the mat .", "a dog barks", "the big red dog , über Straße", "猫 sat"]
OUTPUTS = ["the cat sat on a mat .", "a dog", "big red dog barks , Straße", "猫 猫 sat"]


def generated(tokenizer):
    """(predictions, labels) as the trainer gathers them: ids padded with -100."""
    labels = [tokenizer(s)["input_ids"] for s in SOURCES]
    preds = [[PAD] + tokenizer(s)["input_ids"] for s in OUTPUTS]  # decoder start, then tokens
    width = max(map(len, labels + preds)) + 2
    return padded(preds, width, IGNORE), padded(labels, width, IGNORE)


@needs_oracles
def test_generated_ids_decoded_and_scored_as_the_hub_modules(tokenizer, offline):  # noqa: F811
    predictions, labels = generated(tokenizer)
    metrics = {"sacrebleu": {}, "bleu": {}, "chrf": {"word_order": 2}, "ter": {"case_sensitive": True}}
    compute = truebleu.hf.compute_metrics(tokenizer, metrics)
    result = compute(EvalPrediction(predictions=predictions, label_ids=labels))
    assert result == expected_scores(tokenizer, offline, predictions, labels, metrics)
    assert all(type(value) is float for value in result.values())
    assert compute((predictions, labels)) == result  # a plain pair as well


@needs_oracles
def test_logits_and_tuple_outputs(tokenizer, offline):  # noqa: F811
    predictions, labels = generated(tokenizer)
    vocab = len(tokenizer)
    logits = np.full(predictions.shape + (vocab,), -1.0, dtype=np.float32)
    ids = np.where(predictions == IGNORE, PAD, predictions)
    np.put_along_axis(logits, ids[..., None], 5.0, axis=-1)
    compute = truebleu.hf.compute_metrics(tokenizer)  # sacrebleu and chrf
    expected = expected_scores(tokenizer, offline, predictions, labels, {"sacrebleu": {}, "chrf": {}})
    assert compute(EvalPrediction(predictions=logits, label_ids=labels)) == expected
    assert compute(EvalPrediction(predictions=(logits, np.zeros(3)), label_ids=labels)) == expected


def test_bleu_of_nothing_generated_is_zero_not_an_error(tokenizer):
    _, labels = generated(tokenizer)
    nothing = np.full(labels.shape, PAD)
    compute = truebleu.hf.compute_metrics(tokenizer, ["bleu", "sacrebleu"])
    assert compute(EvalPrediction(predictions=nothing, label_ids=labels)) == {"bleu": 0.0,
                                                                             "sacrebleu": 0.0}


def test_bad_settings_are_refused(tokenizer):
    with pytest.raises(ValueError, match="sacrebleu, bleu, chrf, ter"):
        truebleu.hf.compute_metrics(tokenizer, ["rouge"])
    with pytest.raises(ValueError, match="no metric"):
        truebleu.hf.compute_metrics(tokenizer, [])

    class NoPad:
        pad_token_id = None

    with pytest.raises(ValueError, match="pad_token_id"):
        truebleu.hf.compute_metrics(NoPad())
    compute = truebleu.hf.compute_metrics(tokenizer)
    with pytest.raises(ValueError, match="no labels"):
        compute(EvalPrediction(predictions=np.zeros((1, 2), dtype=int), label_ids=None))


@needs_oracles
def test_a_seq2seq_trainer_evaluates_with_it(tokenizer, offline, tmp_path):  # noqa: F811
    torch = pytest.importorskip("torch")
    from transformers import (
        DataCollatorForSeq2Seq,
        Seq2SeqTrainer,
        Seq2SeqTrainingArguments,
        T5Config,
        T5ForConditionalGeneration,
    )

    torch.manual_seed(2026)
    config = T5Config(vocab_size=len(tokenizer), d_model=16, d_ff=32, d_kv=8, num_layers=1,
                      num_decoder_layers=1, num_heads=2, pad_token_id=PAD, eos_token_id=EOS,
                      decoder_start_token_id=PAD)
    model = T5ForConditionalGeneration(config)
    model.generation_config.min_new_tokens = 3  # a random model would often stop at once
    model.generation_config.suppress_tokens = [PAD, 2]
    dataset = [{"input_ids": tokenizer(s)["input_ids"], "labels": tokenizer(t)["input_ids"]}
               for s, t in zip(SOURCES * 2, OUTPUTS * 2)]
    seen = []
    compute = truebleu.hf.compute_metrics(tokenizer, ("sacrebleu", "chrf", "ter"))

    def recording(eval_prediction):
        seen.append(eval_prediction)
        return compute(eval_prediction)

    args = Seq2SeqTrainingArguments(output_dir=str(tmp_path / "out"), per_device_eval_batch_size=3,
                                    predict_with_generate=True, generation_max_length=8,
                                    report_to=[], use_cpu=True, disable_tqdm=True)
    trainer = Seq2SeqTrainer(model=model, args=args, eval_dataset=dataset, processing_class=tokenizer,
                             data_collator=DataCollatorForSeq2Seq(tokenizer, model=model),
                             compute_metrics=recording)
    result = trainer.evaluate()
    assert len(seen) == 1
    expected = expected_scores(tokenizer, offline, seen[0].predictions, seen[0].label_ids,
                               {"sacrebleu": {}, "chrf": {}, "ter": {}})
    assert {name: result[f"eval_{name}"] for name in expected} == expected
