"""One validated configuration for every BLEU path (issue 11 items 5, 9 and 18)."""

from __future__ import annotations

import dataclasses
import math
import tracemalloc

import pytest
import sacrebleu

import truebleu
from conftest import available_backends
from truebleu.metrics.bleu import BLEUBatchScorer, batch
from truebleu.metrics.bleu.config import MAX_ORDER_LIMIT, BLEUConfig
from truebleu.metrics.bleu.explain import explain
from truebleu.metrics.bleu.score import compute_bleu

INF, NAN = float("inf"), float("nan")
BAD_SMOOTHING = [("add-k", -5), ("add-k", -0.5), ("add-k", INF), ("add-k", NAN),
                 ("floor", -0.1), ("floor", -INF), ("floor", INF), ("floor", NAN)]
HYPS = ["the cat sat on the mat today", "a b c d", "x"]
REFS = ["the cat sat on a mat now", "a b c e", "y"]


def entry_points(method, value, backend):
    """Every public BLEU path, called with one smoothing (or order) setting."""
    s = dict(smooth_method=method, smooth_value=value)
    return {
        "BLEU": lambda: truebleu.BLEU(**s, backend=backend),
        "corpus_bleu": lambda: truebleu.corpus_bleu(HYPS, [REFS], **s, backend=backend),
        "sentence_bleu": lambda: truebleu.sentence_bleu(HYPS[0], [REFS[0]], **s, backend=backend),
        "sentence_bleu batched": lambda: truebleu.sentence_bleu(HYPS, REFS, **s, backend=backend),
        "sentence_scores": lambda: batch.sentence_scores(HYPS, REFS, **s, backend=backend),
        "pairwise_matrix": lambda: batch.pairwise_matrix(HYPS, REFS, **s, backend=backend),
        "mbr_select": lambda: batch.mbr_select(HYPS, **s, backend=backend),
        "explain": lambda: explain(HYPS[0], [REFS[0]], **s),
        "compute_bleu": lambda: compute_bleu([1, 0, 0, 0], [3, 2, 1, 0], 3, 3, **s),
        "BLEUBatchScorer": lambda: BLEUBatchScorer(**s),  # significance's vectorised BLEU
    }


NAMES = list(entry_points("exp", None, "python"))


@pytest.mark.parametrize("backend", available_backends())
@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("method,value", BAD_SMOOTHING)
def test_unusable_smoothing_values_are_refused_everywhere(method, value, name, backend):
    with pytest.raises(ValueError, match=f"smooth_value for smooth_method '{method}' must be a "
                                         "finite number >= 0"):
        entry_points(method, value, backend)[name]()


@pytest.mark.parametrize("backend", available_backends())
@pytest.mark.parametrize("method,value", [("add-k", 0), ("add-k", 0.5), ("floor", 0),
                                          ("floor", 0.0001), ("exp", -5), ("none", NAN)])
def test_values_sacrebleu_scores_are_kept(method, value, backend):
    """floor 0 and add-k 0 are well defined in sacreBLEU; exp/none ignore the value."""
    s = dict(smooth_method=method, smooth_value=value)
    want = sacrebleu.corpus_bleu(HYPS, [REFS], **s).score
    assert truebleu.corpus_bleu(HYPS, [REFS], **s, backend=backend).score == want
    for hyp, ref, got in zip(HYPS, REFS, batch.sentence_scores(HYPS, REFS, **s, backend=backend)):
        assert got == sacrebleu.sentence_bleu(hyp, [ref], **s).score


def test_the_command_line_names_the_option(capsys, tmp_path):
    from truebleu.cli import main

    (tmp_path / "ref").write_text("a b c\n")
    (tmp_path / "hyp").write_text("a b d\n")
    try:
        status = main([str(tmp_path / "ref"), "-i", str(tmp_path / "hyp"), "-s", "add-k", "-sv", "-5"])
    except SystemExit as exc:
        status = exc.code
    assert status not in (0, None)
    assert ("--smooth-value for --smooth-method 'add-k' must be a finite number >= 0 and "
            "<= 1e+300, got -5") in capsys.readouterr().err


@pytest.mark.parametrize("backend", available_backends())
@pytest.mark.parametrize("refs", [[], [None], [None, None]])
def test_a_hypothesis_without_references_raises_in_every_batch_path(refs, backend):
    with pytest.raises(ValueError):
        truebleu.sentence_bleu("a b", refs, backend=backend)
    with pytest.raises(ValueError, match="hypothesis 1 has no reference"):
        batch.sentence_scores(["a", "a b"], [["a"], refs], backend=backend)
    with pytest.raises(ValueError, match="1 has no reference"):
        truebleu.sentence_bleu(["a", "a b"], [["a"], refs], backend=backend)


@pytest.mark.parametrize("backend", available_backends())
@pytest.mark.parametrize("order", [0, -1, MAX_ORDER_LIMIT + 1, 10**8, 10**30])
def test_orders_out_of_range_are_refused_before_allocating(order, backend):
    calls = {
        "BLEU": lambda: truebleu.BLEU(max_ngram_order=order, backend=backend),
        "corpus_bleu": lambda: truebleu.corpus_bleu(HYPS, [REFS], max_ngram_order=order,
                                                    backend=backend),
        "sentence_scores": lambda: batch.sentence_scores(HYPS, REFS, max_ngram_order=order,
                                                         backend=backend),
        "pairwise_matrix": lambda: batch.pairwise_matrix(HYPS, REFS, max_ngram_order=order,
                                                         backend=backend),
        "mbr_select": lambda: batch.mbr_select(HYPS, max_ngram_order=order, backend=backend),
        "explain": lambda: explain(HYPS[0], [REFS[0]], max_ngram_order=order),
        "BLEUBatchScorer": lambda: BLEUBatchScorer(max_ngram_order=order),
    }
    for name, call in calls.items():
        tracemalloc.start()
        try:
            with pytest.raises(ValueError, match=f"max_ngram_order must be between 1 and "
                                                 f"{MAX_ORDER_LIMIT}, got {order}"):
                call()
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert peak < 2**22, (name, peak)


@pytest.mark.parametrize("backend", available_backends())
def test_the_largest_order_works_on_both_backends(backend):
    got = batch.sentence_scores(HYPS[:1], REFS[:1], max_ngram_order=MAX_ORDER_LIMIT,
                                backend=backend)
    want = batch.sentence_scores(HYPS[:1], REFS[:1], max_ngram_order=MAX_ORDER_LIMIT,
                                 backend="python")
    assert got == want


@pytest.mark.parametrize("threads", [0, -1, 3_000_000_000, 1.5, True])
def test_threads_are_checked_once(threads):
    for call in (lambda: truebleu.BLEU(threads=threads),
                 lambda: batch.sentence_scores(HYPS, REFS, threads=threads)):
        with pytest.raises((ValueError, TypeError), match="threads must be"):
            call()


def test_the_configuration_is_frozen_and_shared():
    metric = truebleu.BLEU(smooth_method="floor", smooth_value=0.2, max_ngram_order=3)
    config = metric.config
    assert isinstance(config, BLEUConfig)
    with pytest.raises(dataclasses.FrozenInstanceError):
        config.smooth_value = -1
    with pytest.raises(AttributeError):
        metric.smooth_value = -1  # read from the configuration, not a second copy
    assert metric.accumulator().metric.config is config
    metric.corpus_score(HYPS, [REFS])
    assert str(metric.get_signature()) == str(config.signature(nrefs=1))
    assert "smooth:floor[0.20]" in str(metric.get_signature())
    assert "order:3" in str(metric.get_signature())


def test_explain_signature_comes_from_the_configuration():
    got = explain(HYPS[0], [REFS[0]], smooth_method="add-k", smooth_value=0.5,
                  max_ngram_order=3, effective_order=True)
    config = BLEUConfig.create("13a", False, "add-k", 0.5, 3, True)
    assert got.signature == config.signature(nrefs=1).format()
    assert not math.isnan(got.score)


def test_the_language_hint_reads_a_tokenizer_by_its_name():
    """sacreBLEU's hint for a target language's usual tokenizer, given a name or a tokenizer."""
    from truebleu.metrics.bleu.config import preferred_tokenizer_warning
    from truebleu.tokenizers import get_tokenizer

    assert preferred_tokenizer_warning("zh", "zh") is None
    assert preferred_tokenizer_warning(get_tokenizer("zh"), "zh") is None
    assert "'zh' tokenizer" in preferred_tokenizer_warning(get_tokenizer("13a"), "zh")
    assert "'zh' tokenizer" in preferred_tokenizer_warning("13a", "zh")
    assert preferred_tokenizer_warning(None, "zh") is None
