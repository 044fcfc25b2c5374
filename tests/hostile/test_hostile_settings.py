"""Every numeric and boolean setting of every metric is checked once (issue 26, item 9:
"Settings are not validated").

``CHRF(beta=float("nan"))`` scored ``nan``, ``beta=1e300`` raised a bare ``OverflowError``, a huge
order a bare ``MemoryError``, and ``lowercase="False"`` lowercased (a non-empty string is true).
Whatever a setting is given, the metric either scores a finite number at the corpus and the
sentence level, or refuses at construction with one ``ValueError``/``TypeError`` naming the
setting.
"""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from truebleu.metrics import BLEU, CHRF, TER

HYPS = ["the cat sat on the mat", "a dog", ""]
REFS = [["the cat is on the mat", "the dog", "nothing"]]

#: the values a hostile or careless caller passes
HOSTILE = [float("nan"), float("inf"), -float("inf"), 1e300, -1e300, -1, -0.5, 0, 0.0, 0.5, 1, 2,
           3.7, 10**6, 10**12, 2**63, -(2**63), True, False, None, "2", "False", "", [2], (1,), {},
           b"1", complex(1, 1)]
any_value = st.one_of(st.sampled_from(HOSTILE), st.floats(allow_nan=True, allow_infinity=True),
                      st.integers(), st.text(max_size=3), st.booleans())

#: metric, setting, other keywords the setting needs to matter
SETTINGS = [
    (BLEU, "smooth_value", {"smooth_method": "floor"}),
    (BLEU, "smooth_value", {"smooth_method": "add-k"}),
    (BLEU, "max_ngram_order", {}),
    (BLEU, "lowercase", {}),
    (BLEU, "effective_order", {}),
    (CHRF, "char_order", {}),
    (CHRF, "word_order", {}),
    (CHRF, "beta", {}),
    (CHRF, "lowercase", {}),
    (CHRF, "whitespace", {}),
    (CHRF, "eps_smoothing", {}),
    (TER, "normalized", {}),
    (TER, "no_punct", {}),
    (TER, "asian_support", {}),
    (TER, "case_sensitive", {}),
]


def _scores_or_refuses(metric_class, name, extra, value):
    try:
        metric = metric_class(**{name: value}, **extra)
    except (ValueError, TypeError) as error:
        assert name in str(error), f"{metric_class.__name__}({name}={value!r}): {error}"
        return
    corpus = metric.corpus_score(HYPS, REFS).score
    sentence = metric.sentence_score(HYPS[0], [REFS[0][0]]).score
    assert math.isfinite(corpus) and math.isfinite(sentence), (name, value, corpus, sentence)
    if metric_class is CHRF:
        assert 0 <= corpus <= 100 + 1e-9, (name, value, corpus)


@pytest.mark.parametrize("metric_class,name,extra", SETTINGS,
                         ids=[f"{cls.__name__}.{name}-{extra}" for cls, name, extra in SETTINGS])
@pytest.mark.parametrize("value", HOSTILE, ids=repr)
def test_each_hostile_value(metric_class, name, extra, value):
    _scores_or_refuses(metric_class, name, extra, value)


@pytest.mark.parametrize("metric_class,name,extra", SETTINGS,
                         ids=[f"{cls.__name__}.{name}-{extra}" for cls, name, extra in SETTINGS])
@settings(max_examples=60, deadline=None)
@given(value=any_value)
def test_any_value(metric_class, name, extra, value):
    _scores_or_refuses(metric_class, name, extra, value)


@pytest.mark.parametrize("value", ["False", "no", 2, None, [True]])
def test_a_flag_that_is_not_a_bool_is_refused(value):
    """``lowercase="False"`` used to lowercase (a non-empty string is true)."""
    for metric_class, name in ((BLEU, "lowercase"), (CHRF, "whitespace"), (TER, "normalized")):
        with pytest.raises(TypeError, match=name):
            metric_class(**{name: value})


def test_flags_take_numpy_bools_and_zero_or_one():
    numpy = pytest.importorskip("numpy")
    assert BLEU(lowercase=numpy.bool_(True)).corpus_score(["A b c d"], [["a B c D"]]).score > 99.99
    assert CHRF(lowercase=1).corpus_score(["A"], [["a"]]).score == 100.0


@pytest.mark.parametrize("beta", [float("nan"), float("inf"), 1e300, -1])
def test_chrf_beta_out_of_range_is_one_clear_error(beta):
    with pytest.raises(ValueError, match="beta must be a finite number from 0 to 1e\\+06"):
        CHRF(beta=beta)


def test_the_command_line_names_the_flag(tmp_path, capsys):
    from truebleu.cli.entry import main

    ref = tmp_path / "ref.txt"
    ref.write_text("the cat sat on the mat\n", encoding="utf-8")
    assert main([str(ref), "-i", str(ref), "-m", "chrf", "--chrf-beta", "-1"]) != 0
    assert "--chrf-beta must be a finite number" in capsys.readouterr().err
    assert main([str(ref), "-i", str(ref), "-s", "floor", "-sv", "nan"]) != 0
    assert "--smooth-value for --smooth-method 'floor' must be a finite number" in capsys.readouterr().err
