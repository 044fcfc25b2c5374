"""truebleu.hf's modules as ``evaluate`` modules: add/add_batch flows, evaluate's own storage
and checks, combine, names, errors, a cheap import, and no network."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

pytest.importorskip("evaluate")

from hf_support import (
    NAMES,
    OFFLINE,
    assert_same_outcome,
    hub_module,
    needs_oracles,
    offline,  # noqa: F401 - a fixture
    our_module,
    outcome,
)

from conftest import REPO

PREDICTIONS = ["The cat sat on the mat.", "A dog, barking!", "", "über Straße 3.5 猫"]
REFERENCES = [["The cat is on the mat.", "A cat sat on a mat."], ["The dog barks.", "A dog barked!"],
              ["Nothing here", "empty"], ["Über die Straße 3,5", "猫 über"]]


@needs_oracles
@pytest.mark.parametrize("name", NAMES)
def test_add_and_add_batch_then_compute_as_the_hub(name, offline):  # noqa: F811
    hub, ours = hub_module(name, offline), our_module(name, offline)
    expected = outcome(lambda: hub.compute(predictions=PREDICTIONS, references=REFERENCES))
    assert expected[0] == "ok"
    for module in (hub, ours):  # the same flows, through evaluate's cache files
        module.add_batch(predictions=PREDICTIONS[:2], references=REFERENCES[:2])
        module.add(prediction=PREDICTIONS[2], reference=REFERENCES[2])
    assert_same_outcome(
        outcome(lambda: ours.compute(predictions=PREDICTIONS[3:], references=REFERENCES[3:])),
        outcome(lambda: hub.compute(predictions=PREDICTIONS[3:], references=REFERENCES[3:])))
    # after a compute the module is empty again: the direct path gives the same numbers
    assert_same_outcome(
        outcome(lambda: ours.compute(predictions=PREDICTIONS, references=REFERENCES)), expected)
    for module in (hub, ours):
        for prediction, references in zip(PREDICTIONS, REFERENCES):
            module.add(prediction=prediction, reference=references)
    assert_same_outcome(outcome(ours.compute), outcome(hub.compute))


@needs_oracles
@pytest.mark.parametrize("name", NAMES)
def test_batches_kept_in_memory_and_mixed_flows_as_the_hub(name, offline):  # noqa: F811
    """Plain batches stay in memory (no Arrow table is written: the module's writer stays
    None); a batch that is not plain (a NumPy array) writes what was kept first, in order,
    then goes evaluate's way; each flow's result is the hub's, and a module is empty
    after every compute."""
    np = pytest.importorskip("numpy")
    hub, ours = hub_module(name, offline), our_module(name, offline)
    halves = [(PREDICTIONS[:2], REFERENCES[:2]), (PREDICTIONS[2:], REFERENCES[2:])]
    for module in (hub, ours):
        for predictions, references in halves:
            module.add_batch(predictions=predictions, references=references)
    assert ours.writer is None  # kept in memory
    assert_same_outcome(outcome(ours.compute), outcome(hub.compute))
    assert ours._kept is None
    for module in (hub, ours):  # plain, then not plain: the kept batch is written first
        module.add_batch(predictions=PREDICTIONS[:2], references=REFERENCES[:2])
        module.add(prediction=PREDICTIONS[2], reference=REFERENCES[2])
        module.add_batch(predictions=np.array(PREDICTIONS[3:]), references=REFERENCES[3:])
    assert ours.writer is not None
    assert_same_outcome(outcome(ours.compute), outcome(hub.compute))
    assert_same_outcome(outcome(ours.compute), outcome(hub.compute))  # nothing left: as the hub
    single = [refs[0] for refs in REFERENCES]
    for module in (hub, ours):  # references of another form in a later batch: evaluate's verdict
        module.add_batch(predictions=PREDICTIONS[:2], references=REFERENCES[:2])
    assert_same_outcome(
        outcome(lambda: ours.add_batch(predictions=PREDICTIONS[2:], references=single[2:])),
        outcome(lambda: hub.add_batch(predictions=PREDICTIONS[2:], references=single[2:])))
    assert_same_outcome(
        outcome(lambda: ours.compute(predictions=PREDICTIONS[3:], references=REFERENCES[3:])),
        outcome(lambda: hub.compute(predictions=PREDICTIONS[3:], references=REFERENCES[3:])))


@needs_oracles
@pytest.mark.parametrize("name", NAMES)
def test_input_in_other_forms_gives_the_same_result(name, offline):  # noqa: F811
    """NumPy arrays and tuples of references go through evaluate's Arrow table (no direct
    path); a tuple of strings is as plain as a list. Each gives the hub's dict, and the one
    plain lists give."""
    np = pytest.importorskip("numpy")
    from truebleu.hf.inputs import plain_inputs

    hub, ours = hub_module(name, offline), our_module(name, offline)
    single = [refs[0] for refs in REFERENCES]
    cases = [(np.array(PREDICTIONS), single, True), (tuple(PREDICTIONS), single, False),
             (PREDICTIONS, [tuple(refs) for refs in REFERENCES], True)]

    def compare(predictions, references, stored):
        assert (plain_inputs(predictions, references) is None) == stored
        expected = outcome(lambda: hub.compute(predictions=predictions, references=references))
        assert_same_outcome(
            outcome(lambda: ours.compute(predictions=predictions, references=references)), expected)
        as_lists = [list(r) if isinstance(r, tuple) else r for r in references]
        assert_same_outcome(outcome(
            lambda: ours.compute(predictions=list(PREDICTIONS), references=as_lists)), expected)

    for predictions, references, stored in cases:
        compare(predictions, references, stored)


@needs_oracles
def test_the_modules_are_named_as_the_hubs_and_combine_alike(offline):  # noqa: F811
    import evaluate

    for name in NAMES:
        assert our_module(name, offline).name == hub_module(name, offline).name
    ours = evaluate.combine([our_module(name, offline) for name in ("sacrebleu", "chrf")])
    hub = evaluate.combine([hub_module(name, offline) for name in ("sacrebleu", "chrf")])
    assert_same_outcome(outcome(lambda: ours.compute(predictions=PREDICTIONS, references=REFERENCES)),
                        outcome(lambda: hub.compute(predictions=PREDICTIONS, references=REFERENCES)))


@needs_oracles
@pytest.mark.parametrize("name", NAMES)
def test_the_keyword_arguments_and_defaults_are_the_hubs(name, offline):  # noqa: F811
    import inspect

    def parameters(module):
        found = {}
        for key, parameter in inspect.signature(module._compute).parameters.items():
            default = parameter.default
            # bleu's default tokenizer: an object of a class of the same name on both sides
            found[key] = type(default).__name__ if key == "tokenizer" else (type(default), default)
        return found

    assert parameters(our_module(name, offline)) == parameters(hub_module(name, offline))


@needs_oracles
@pytest.mark.parametrize("name", ["sacrebleu", "chrf", "ter"])
def test_a_different_number_of_references_is_refused_as_by_the_hub(name, offline):  # noqa: F811
    references = [["a", "b"], ["c"], ["d", "e"], ["f", "g"]]
    with pytest.raises(ValueError):
        hub_module(name, offline).compute(predictions=PREDICTIONS, references=references)
    with pytest.raises(ValueError, match="same number of references.*prediction 1 has 1"):
        our_module(name, offline).compute(predictions=PREDICTIONS, references=references)


def test_bleu_errors_where_tfnmt_divides_by_zero_or_has_no_reference(offline):  # noqa: F811
    bleu = our_module("bleu", offline)
    with pytest.raises(ZeroDivisionError, match="empty hypotheses"):
        bleu.compute(predictions=["", " "], references=[["a"], ["b"]])
    with pytest.raises(ZeroDivisionError, match="empty references"):
        bleu.compute(predictions=["a", "b"], references=[[""], [" ", ""]])
    with pytest.raises(ValueError, match="prediction 1 has no reference"):
        bleu.compute(predictions=["a", "b"], references=[["a"], []])
    with pytest.raises(ValueError, match="max_order must be at least 1"):
        bleu.compute(predictions=["a"], references=[["a"]], max_order=0)
    with pytest.raises(TypeError, match="max_order must be an int"):
        bleu.compute(predictions=["a"], references=[["a"]], max_order=4.0)


def test_evaluates_own_checks_still_apply(offline):  # noqa: F811
    sacrebleu = our_module("sacrebleu", offline)
    with pytest.raises(ValueError, match="Mismatch in the number of predictions"):
        sacrebleu.compute(predictions=["a", "b"], references=[["a"]])
    with pytest.raises(ValueError, match="don't match the expected format"):
        sacrebleu.compute(predictions=[1, 2], references=[["a"], ["b"]])
    with pytest.raises(TypeError, match="unexpected keyword argument 'bogus'"):
        sacrebleu.compute(predictions=["a"], references=[["a"]], bogus=1)


def test_an_unknown_name_lists_the_modules():
    import truebleu.hf

    with pytest.raises(ValueError, match="sacrebleu, bleu, chrf, ter"):
        truebleu.hf.load("rouge")


def run_python(code: str, tmp_path) -> str:
    env = {**OFFLINE, "PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "HF_HOME": str(tmp_path / "hf"),
           "PYTHONPATH": str(REPO / "src")}
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                          text=True, env=env, cwd=tmp_path, timeout=300)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_importing_truebleu_hf_imports_no_hugging_face_package(tmp_path):
    out = run_python("""
        import sys
        import truebleu.hf
        print(sorted(name for name in ("evaluate", "datasets", "transformers", "torch", "numpy")
                     if name in sys.modules))
    """, tmp_path)
    assert out.strip() == "[]"


def test_without_evaluate_load_says_what_to_install(tmp_path):
    out = run_python("""
        import sys
        sys.modules["evaluate"] = None  # as if it were not installed
        import truebleu.hf
        try:
            truebleu.hf.load("sacrebleu")
        except ImportError as exc:
            print(exc)
    """, tmp_path)
    assert "pip install 'truebleu[hf]'" in out


def test_load_and_compute_work_without_any_network(tmp_path):
    """Every socket connection fails, from before truebleu.hf or evaluate is imported."""
    out = run_python("""
        import socket

        def refuse(*args, **kwargs):
            raise OSError("network access in an offline test")

        socket.socket.connect = refuse
        socket.socket.connect_ex = refuse
        socket.create_connection = refuse
        socket.getaddrinfo = refuse

        import truebleu.hf

        for name in truebleu.hf.NAMES:
            module = truebleu.hf.load(name)
            module.add_batch(predictions=["a b c d", "e f"], references=[["a b c d"], ["e f g"]])
            stored = module.compute()
            direct = module.compute(predictions=["a b c d", "e f"], references=[["a b c d"], ["e f g"]])
            assert stored == direct, (stored, direct)
            print(name, sorted(direct))
    """, tmp_path)
    assert [line.split()[0] for line in out.splitlines()] == list(NAMES)
