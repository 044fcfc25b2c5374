"""The torchmetrics interface of the drop-ins: class attributes, argument checks, forward,
reset, state_dict, input errors, and the cheap import."""

from __future__ import annotations

import subprocess
import sys

import pytest

torch = pytest.importorskip("torch")
tm_text = pytest.importorskip("torchmetrics.text")

import truebleu.torchmetrics as tb  # noqa: E402

TM_NAMES = ["BLEUScore", "SacreBLEUScore", "CHRFScore", "TranslationEditRate"]
ALL_NAMES = TM_NAMES + ["BLEU", "CHRF", "TER"]
PREDS = ["the cat sat on the mat", "a dog barked", "", "über alles."]
TARGET = [["the cat is on the mat", "there is a cat on the mat"], ["the dog barked"], ["x"],
          ["über alles ."]]


def test_import_loads_neither_torch_nor_torchmetrics():
    code = "import sys, truebleu.torchmetrics; print('torch' in sys.modules, 'torchmetrics' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]


def test_missing_torch_names_the_extra():
    code = ("import sys; sys.modules['torch'] = None\n"
            "import truebleu.torchmetrics as tb\n"
            "try:\n    tb.BLEUScore\nexcept ImportError as e:\n    print(e)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "pip install 'truebleu[torch]'" in out.stdout


@pytest.mark.parametrize("name", TM_NAMES)
def test_class_attributes_are_torchmetrics(name):
    ours, theirs = getattr(tb, name), getattr(tm_text, name)
    for attribute in ("is_differentiable", "higher_is_better", "full_state_update",
                      "plot_lower_bound", "plot_upper_bound"):
        assert getattr(ours, attribute) == getattr(theirs, attribute), attribute
    assert issubclass(ours, tm_text.BLEUScore.__mro__[1])  # torchmetrics.Metric


@pytest.mark.parametrize("name, options", [
    ("BLEUScore", {"n_gram": 2, "weights": [1.0]}),
    ("SacreBLEUScore", {"tokenize": "nope"}),
    ("SacreBLEUScore", {"weights": [0.5, 0.5]}),
    ("CHRFScore", {"n_char_order": 0}), ("CHRFScore", {"n_char_order": 2.0}),
    ("CHRFScore", {"n_word_order": -1}), ("CHRFScore", {"beta": -1.0}),
    ("TranslationEditRate", {"normalize": "yes"}), ("TranslationEditRate", {"lowercase": 1}),
])
def test_bad_arguments_raise_what_torchmetrics_raises(name, options):
    with pytest.raises(Exception) as theirs:
        getattr(tm_text, name)(**options)
    with pytest.raises(type(theirs.value)):
        getattr(tb, name)(**options)


@pytest.mark.parametrize("name", TM_NAMES)
def test_forward_and_reset_are_torchmetrics(name):
    ours, theirs = getattr(tb, name)(), getattr(tm_text, name)()
    for start in range(0, len(PREDS), 2):
        batch = PREDS[start:start + 2], TARGET[start:start + 2]
        assert torch.equal(ours(*batch), theirs(*batch))  # the batch's own score
    assert torch.equal(ours.compute(), theirs.compute())  # the accumulated score
    ours.reset()
    theirs.reset()
    ours.update(PREDS[:1], TARGET[:1])
    theirs.update(PREDS[:1], TARGET[:1])
    assert torch.equal(ours.compute(), theirs.compute())


@pytest.mark.filterwarnings("ignore:The ``compute`` method")  # restored: compute without update
@pytest.mark.parametrize("name", ALL_NAMES)
def test_state_dict_round_trip_keeps_exact_counts(name):
    metric = getattr(tb, name)()
    metric.persistent(True)
    metric.update(PREDS, TARGET)
    state = metric.state_dict()
    assert state and all(value.dtype in (torch.int64, torch.float32, torch.float64)
                         for value in state.values())
    restored = getattr(tb, name)()
    restored.persistent(True)
    restored.load_state_dict(state)
    assert torch.equal(restored.compute(), metric.compute())


@pytest.mark.parametrize("name", ["BLEUScore", "CHRFScore", "BLEU", "CHRF"])
def test_integer_statistics_are_int64(name):
    metric = getattr(tb, name)()
    metric.update(PREDS, TARGET)
    states = [getattr(metric, state) for state in metric._defaults]
    assert all(state.dtype == torch.int64 for state in states)


def test_ter_states():
    metric = tb.TranslationEditRate()
    metric.update(PREDS, TARGET)
    assert metric.total_num_edits.dtype == torch.int64
    assert metric.total_tgt_len.dtype == torch.float32  # torchmetrics' average lengths


@pytest.mark.parametrize("name", ALL_NAMES)
def test_bad_inputs_are_clear_errors(name):
    metric = getattr(tb, name)()
    with pytest.raises(ValueError, match="same length"):
        metric.update(["a", "b"], [["a"], ["b"], ["c"]])
    with pytest.raises(TypeError, match="str"):
        metric.update([1], [["a"]])
    with pytest.raises(TypeError, match="str"):
        metric.update(["a"], [["a", 2]])


@pytest.mark.parametrize("name", ["BLEUScore", "SacreBLEUScore"])
def test_bleu_takes_lists_only(name):
    # torchmetrics' BLEUScore would iterate the characters of a str
    with pytest.raises(TypeError):
        getattr(tb, name)().update("the cat", [["the cat"]])
    with pytest.raises(TypeError):
        getattr(tb, name)().update(["the cat"], ["the cat"])


@pytest.mark.parametrize("name", ["TranslationEditRate", "BLEU", "TER"])
def test_a_segment_without_reference_is_an_error(name):
    with pytest.raises(ValueError, match="no reference"):
        getattr(tb, name)().update(["a", "b"], [["a"], []])


TRICKY_PREDS = ["a\tb c-\n", "", "İstanbul &QUOT; 1.\n", "d b d c a b e", "the the the"]
TRICKY_TARGET = [["a b c", "a\u00a0b"], ["x"], ["istanbul \" 1 ."], ["a c d b c d c", "a b"], [""]]


@pytest.mark.parametrize("name, options", [
    ("BLEUScore", {}), ("SacreBLEUScore", {"lowercase": True}),
    ("SacreBLEUScore", {"tokenize": "intl"}), ("CHRFScore", {"return_sentence_level_score": True}),
    ("TranslationEditRate", {"return_sentence_level_score": True, "normalize": True})])
def test_python_backend_gives_the_same_numbers(monkeypatch, name, options):
    """Without the compiled core (forced here) the dialects' specifications count."""
    expected = getattr(tm_text, name)(**options)(TRICKY_PREDS + PREDS, TRICKY_TARGET + TARGET)
    for backend in ("native", "python"):
        monkeypatch.setenv("TRUEBLEU_BACKEND", backend)
        got = getattr(tb, name)(**options)(TRICKY_PREDS + PREDS, TRICKY_TARGET + TARGET)
        for e, g in zip(*((expected, got) if isinstance(expected, tuple) else ([expected], [got]))):
            assert g.dtype == e.dtype and torch.equal(g, e), backend
