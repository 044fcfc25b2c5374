"""``explain`` prints the arithmetic actually performed (issue 11 item 14).

For every smoothing method, with and without the effective order: each
printed ``p_n = FORMULA = VALUE`` evaluates to VALUE and to the precision the
score used; the printed mean over the effective order reproduces the printed
BLEU; and the score is sacreBLEU's.
"""

from __future__ import annotations

import math
import re

import pytest
import sacrebleu

from truebleu.metrics.bleu.explain import explain
from truebleu.metrics.bleu.score import LOG_ZERO

CASES = [
    ("the cat ran on it", ["the cat sat on the mat"]),        # orders without a match
    ("the cat sat on the mat", ["the cat sat on the mat"]),   # all match
    ("a b", ["a b c d e"]),                                  # orders without n-grams
    ("the dog", ["a cat is here"]),                          # no match at all
    ("x y z x y", ["x y z", "z x y x"]),
]
SETTINGS = [dict(smooth_method="none"), dict(smooth_method="exp"),
            dict(smooth_method="floor"), dict(smooth_method="floor", smooth_value=0.5),
            dict(smooth_method="floor", smooth_value=0), dict(smooth_method="add-k"),
            dict(smooth_method="add-k", smooth_value=0.25), dict(smooth_method="add-k", smooth_value=0)]
P_LINE = re.compile(r"^  p_(\d+) = (.+?) = (\d+\.\d{4})(?:   \((.*)\))?$")
BLEU_LINE = re.compile(r"^BLEU = BP \* exp\(\((.+)\) / (\d+)\) = (\d\.\d{4}) \* exp\(\((.+)\) / \2\)"
                       r" = (\d\.\d{4})   \(sacreBLEU scale: [\d.]+\)$")


@pytest.mark.parametrize("order", [4, 6])
@pytest.mark.parametrize("effective_order", [False, True])
@pytest.mark.parametrize("settings", SETTINGS, ids=lambda s: "-".join(map(str, s.values())))
@pytest.mark.parametrize("hyp,refs", CASES)
def test_printed_arithmetic_reproduces_the_numbers(hyp, refs, settings, effective_order, order):
    result = explain(hyp, refs, effective_order=effective_order, max_ngram_order=order, **settings)
    text = result.to_text()
    want = sacrebleu.BLEU(effective_order=effective_order, max_ngram_order=order,
                          **settings).corpus_score([hyp], [[r] for r in refs]).score
    assert result.score == want

    printed = {}
    for line in text.splitlines():
        match = P_LINE.match(line)
        if match:
            n, formula, value = int(match[1]), match[2], match[3]
            got = eval(formula, {"__builtins__": {}})  # only numbers, + * / and parentheses
            assert f"{got:.4f}" == value, line
            assert math.isclose(got * 100, result.orders[n - 1].precision_value,
                                rel_tol=1e-12, abs_tol=0), line
            printed[n] = float(value)
    counted = [t.n for t in result.orders if t.counted]
    assert sorted(printed) == counted
    for table in result.orders:
        if not table.counted:
            assert f"p_{table.n}: not counted (no " in text

    if not any(t.matches for t in result.orders):
        assert "BLEU = 0 (no matches)" in text
        assert result.score == 0
        return
    bleu_line = [line for line in text.splitlines() if line.startswith("BLEU = BP")]
    match = BLEU_LINE.match(bleu_line[0])
    assert match, bleu_line
    e = int(match[2])
    assert e == len(counted) == result.effective_order
    assert match[1] == " + ".join(f"log p_{n}" for n in counted)
    bp, logs = float(match[3]), match[4].split(" + ")
    values = [float(x.removeprefix("log ")) for x in logs]
    assert values == [printed[n] for n in counted]
    mean = sum(math.log(v) if v else LOG_ZERO for v in values) / e
    assert abs(bp * math.exp(mean) - float(match[5])) < 2e-3
    assert float(match[5]) == float(f"{result.bleu:.4f}")


def test_add_k_shows_the_smoothing_step():
    text = explain("the cat ran on it", ["the cat sat on the mat"], smooth_method="add-k").to_text()
    assert "p_3 = (0 + 1)/(3 + 1) = 0.2500   (add-k smoothing, k = 1)" in text
    assert "p_1 = 3/5 = 0.6000" in text  # add-k leaves unigrams alone


def test_effective_order_divides_by_the_orders_used():
    text = explain("a b", ["a b c d e"], smooth_method="exp", effective_order=True).to_text()
    assert "p_3: not counted (no 3-grams: the effective order is 2)" in text
    assert "exp((log p_1 + log p_2) / 2)" in text
