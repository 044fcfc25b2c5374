"""truebleu.hf's modules against the hub scripts of ``evaluate``: generated text, every keyword
argument, and the WMT21 systems. Equal means the same keys, value types and values (floats bit
for bit), or an error from both."""

from __future__ import annotations

import pytest

pytest.importorskip("evaluate")

from hf_support import (
    assert_same_outcome,
    hub_module,
    needs_oracles,
    offline,  # noqa: F401 - a fixture
    our_module,
    outcome,
)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import needs_wmt21, wmt21_dir
from strategies import segments

pytestmark = needs_oracles

EXAMPLES = settings(max_examples=40, deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture,
                                           HealthCheck.too_slow])

#: each module's keyword arguments, every one drawn (sacreBLEU's tokenizers that need no
#: download or extra package)
KWARGS = {
    "sacrebleu": st.fixed_dictionaries({}, optional={
        "smooth_method": st.sampled_from(["exp", "floor", "add-k", "none"]),
        "smooth_value": st.one_of(st.none(), st.sampled_from([0.01, 0.1, 0.5, 1, 2])),
        "force": st.booleans(),
        "lowercase": st.booleans(),
        "tokenize": st.sampled_from([None, "", "13a", "intl", "zh", "char", "none"]),
        "use_effective_order": st.booleans(),
    }),
    "bleu": st.fixed_dictionaries({}, optional={
        "max_order": st.integers(1, 6),
        "smooth": st.booleans(),
        "tokenizer": st.sampled_from([str.split, list, str.lower]),
    }),
    "chrf": st.fixed_dictionaries({}, optional={
        "char_order": st.integers(1, 7),
        "word_order": st.integers(0, 3),
        "beta": st.sampled_from([0, 1, 2, 3, 1.5]),
        "lowercase": st.booleans(),
        "whitespace": st.booleans(),
        "eps_smoothing": st.booleans(),
    }),
    "ter": st.fixed_dictionaries({}, optional={
        "normalized": st.booleans(),
        "ignore_punct": st.booleans(),
        "support_zh_ja_chars": st.booleans(),
        "case_sensitive": st.booleans(),
    }),
}

text = st.one_of(segments(max_pieces=12), st.just(""), st.text(max_size=8))


@st.composite
def inputs(draw, ragged: bool):
    """(predictions, references per prediction): lists of references (as many for every
    prediction unless ``ragged``), or one string per prediction."""
    n = draw(st.integers(1, 5))
    predictions = [draw(text) for _ in range(n)]
    if draw(st.integers(0, 4)) == 0:
        return predictions, [draw(text) for _ in range(n)]
    width = draw(st.integers(1, 3))
    counts = [draw(st.integers(1, 3)) if ragged else width for _ in range(n)]
    return predictions, [[draw(text) for _ in range(k)] for k in counts]


def check(name: str, cache, predictions, references, kwargs) -> None:
    """Both modules on the same input. (In memory: a module whose ``_compute`` raised keeps
    its cache file locked, and the next one would wait a second for it.)"""
    hub = hub_module(name, cache, keep_in_memory=True)
    ours = our_module(name, cache, keep_in_memory=True)
    assert_same_outcome(
        outcome(lambda: ours.compute(predictions=predictions, references=references, **kwargs)),
        outcome(lambda: hub.compute(predictions=predictions, references=references, **kwargs)))


@pytest.mark.parametrize("name", ["sacrebleu", "chrf", "ter"])
def test_sacrebleu_based_modules_on_generated_text(name, offline):  # noqa: F811
    @EXAMPLES
    @given(data=inputs(ragged=False), kwargs=KWARGS[name])
    def run(data, kwargs):
        check(name, offline, *data, kwargs)

    run()


def test_bleu_on_generated_text_with_any_number_of_references(offline):  # noqa: F811
    @EXAMPLES
    @given(data=inputs(ragged=True), kwargs=KWARGS["bleu"])
    def run(data, kwargs):
        check("bleu", offline, *data, kwargs)

    run()


@pytest.mark.parametrize("tokenizer", [
    pytest.param(lambda line: [len(word) for word in line.split()], id="token-ids"),
    pytest.param(lambda line: line.split(" "), id="empty-tokens"),
    pytest.param(lambda line: line, id="returns-a-string"),
])
@pytest.mark.parametrize("max_order", [1, 4])
def test_bleu_with_tokenizers_the_core_cannot_count(tokenizer, max_order, offline):  # noqa: F811
    predictions = ["a b  c d", "d e a", "x"]
    references = [["a b c d e", "a  b"], ["d e a", "e a"], ["x y"]]
    check("bleu", offline, predictions, references, {"tokenizer": tokenizer, "max_order": max_order})


def test_bleu_with_an_order_beyond_the_core(offline):  # noqa: F811
    check("bleu", offline, ["a b c", "d"], [["a b c", "a"], ["d e"]], {"max_order": 1001})


def test_bleu_where_13a_reads_a_trailing_newline(offline):  # noqa: F811
    # sacreBLEU strips a line before 13a, the hub module does not: "-\n" at the end of a line
    # is removed only without the strip
    check("bleu", offline, ["a-\n", "x -\n\n", "y"], [["a", "a-"], ["x -\n", "x"], ["y-\n"]], {})


def wmt21_systems(pair: str, systems: int):
    data = wmt21_dir()
    refs = [path.read_text(encoding="utf-8").splitlines()
            for path in sorted((data / "references").glob(f"newstest2021.{pair}.ref.*"))]
    hyps = sorted((data / "system-outputs").glob(f"newstest2021.{pair}.hyp.*"))[:systems]
    return [(path.read_text(encoding="utf-8").splitlines(), refs) for path in hyps]


@needs_wmt21
@pytest.mark.parametrize("name, kwargs, systems, lines", [
    ("sacrebleu", {}, 2, None),
    ("sacrebleu", {"tokenize": "intl", "lowercase": True}, 1, None),
    ("bleu", {}, 2, None),
    ("bleu", {"smooth": True, "max_order": 2}, 1, None),
    ("chrf", {"word_order": 2}, 1, 400),
    ("ter", {}, 1, 150),  # sacreBLEU's TER takes seconds for a whole system
])
def test_wmt21_systems_against_two_references(name, kwargs, systems, lines, offline):  # noqa: F811
    for hyp, refs in wmt21_systems("de-en", systems):
        n = lines or len(hyp)
        predictions = hyp[:n]
        references = [[ref[i] for ref in refs] for i in range(n)]
        check(name, offline, predictions, references, kwargs)


@needs_wmt21
def test_wmt21_bleu_with_one_reference_string_per_prediction(offline):  # noqa: F811
    hyp, refs = wmt21_systems("en-zh", 1)[0]
    for name in ("bleu", "sacrebleu"):
        check(name, offline, hyp, refs[0], {"tokenize": "zh"} if name == "sacrebleu" else {})
