"""The explain tables reproduce the worked examples of the seed documents."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

import truebleu
from truebleu.metrics.bleu.explain import explain

REFS = ["the cat is on the mat", "there is a cat on the mat"]
TEXTBOOK = {"smooth_method": "none", "effective_order": False}  # the paper's BLEU


def table(result, n):
    return {row.ngram: (row.count, row.max_ref_count, row.clipped)
            for row in result.orders[n - 1].ngrams}


def test_example_1_the_cat_the_cat_on_the_mat():
    result = explain("the cat the cat on the mat", REFS)
    assert [o.precision for o in result.orders] == ["5/7", "4/6", "2/5", "1/4"]
    assert table(result, 1) == {"the": (3, 2, 2), "cat": (2, 1, 1), "on": (1, 1, 1), "mat": (1, 1, 1)}
    assert table(result, 2)["the cat"] == (2, 1, 1)
    assert table(result, 2)["cat the"] == (1, 0, 0)
    assert [row.ngram for row in result.orders[1].ngrams] == [  # in order of first use
        "the cat", "cat the", "cat on", "on the", "the mat"]
    assert (result.c, result.r, result.bp) == (7, 7, 1.0)
    assert round(result.bleu, 4) == 0.4671


def test_example_2_the_the_the():
    result = explain("the the the the the the the the", REFS, **TEXTBOOK)
    assert table(result, 1) == {"the": (8, 2, 2)}
    assert [o.precision for o in result.orders] == ["2/8", "0/7", "0/6", "0/5"]
    assert (result.c, result.r) == (8, 7)
    assert result.bleu == 0.0


def test_paper_example_clipped_unigram_precision():
    """Papineni et al.: 'the the the the the the the' vs two references: 2/7."""
    result = explain("the the the the the the the", ["The cat is on the mat.",
                                                     "There is a cat on the mat."], lowercase=True)
    assert result.orders[0].precision == "2/7"


def test_brevity_penalty_shown_when_short():
    result = explain("the cat", ["the cat is on the mat"])
    assert result.c == 2 and result.r == 6 and result.bp < 1
    assert "BP = exp(1 - r/c)" in result.to_text()


@pytest.mark.parametrize("options", [{}, TEXTBOOK, {"smooth_method": "floor"},
                                     {"tokenize": "char"}, {"lowercase": True},
                                     {"max_ngram_order": 2, "effective_order": True}])
def test_explanation_agrees_with_the_engine(options):
    hyp, refs = "The Cat, the cat on the mat.", ["The cat is on the mat.", "There is a cat on the mat!"]
    result = explain(hyp, refs, **options)
    engine_options = {k: v for k, v in options.items() if k not in ("effective_order",)}
    engine = truebleu.BLEU(smooth_method=options.get("smooth_method", "exp"),
                           **{k: v for k, v in engine_options.items() if k != "smooth_method"},
                           effective_order=options.get("effective_order", True))
    score = engine.corpus_score([hyp], [[r] for r in refs])
    assert result.score == score.score
    assert [o.matches for o in result.orders] == score.counts
    assert [o.total for o in result.orders] == score.totals


def test_json_output_from_the_command():
    out = subprocess.run([sys.executable, "-m", "truebleu", "explain", "--hyp",
                          "the cat the cat on the mat", "--ref", REFS[0], "--ref", REFS[1],
                          "-f", "json"], capture_output=True, text=True, check=True).stdout
    data = json.loads(out)
    assert [o["precision"] for o in data["orders"]] == ["5/7", "4/6", "2/5", "1/4"]
    assert round(data["bleu"], 4) == 0.4671


def test_text_output_from_the_command():
    out = subprocess.run([sys.executable, "-m", "truebleu", "explain", "--hyp",
                          "the the the the the the the the", "--ref", REFS[0], "--ref", REFS[1]],
                         capture_output=True, text=True, check=True).stdout
    assert "p_1 = 2/8" in out


def test_one_sentence_is_explained_with_sentence_bleu_defaults():
    """One sentence pair: the score sacrebleu.sentence_bleu gives, and the signature says how."""
    sacrebleu = pytest.importorskip("sacrebleu")
    hyp, ref = "the cat sat on a mat", "the cat is on the mat"
    expected = sacrebleu.sentence_bleu(hyp, [ref])
    assert explain(hyp, [ref]).score == expected.score
    out = subprocess.run([sys.executable, "-m", "truebleu", "explain", "--hyp", hyp, "--ref", ref],
                         capture_output=True, text=True, check=True).stdout
    assert f"(sacreBLEU scale: {expected.score:.2f})" in out
    assert "eff:yes" in out and "smooth:exp" in out
    textbook = subprocess.run([sys.executable, "-m", "truebleu", "explain", "--hyp", hyp, "--ref", ref,
                               "-s", "none", "--no-effective-order", "-f", "json"],
                              capture_output=True, text=True, check=True).stdout
    assert json.loads(textbook)["score"] == 0.0


def test_bad_arguments():
    with pytest.raises(ValueError):
        explain("a", [])
    with pytest.raises(TypeError):
        explain("a", "a")
