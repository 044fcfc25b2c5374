"""Several systems' statistics in one call (``BLEU.systems_statistics``, the core's
``systems_statistics``) == one ``corpus_statistics`` call per system, in order."""

from __future__ import annotations

import logging
from array import array

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

core = pytest.importorskip("truebleu._native_core", reason="compiled core not built")

from native_strategies import lines, segments  # noqa: E402
from truebleu import BLEU  # noqa: E402
from truebleu.metrics.base import Metric  # noqa: E402
from truebleu.metrics.bleu.native import MODES, NativeKernel  # noqa: E402
from truebleu.tokenizers import get_tokenizer  # noqa: E402

NATIVE = NativeKernel()
REFS = [["The cat sat on the mat .", "A dog ran .", "", "It is 3.5 km long ."]]
SYSTEMS = [
    ["The cat sat on a mat .", "A dog ran away .", "", "It is 3.5 km ."],
    ["a cat", "", "something else", "It is 3.5 km long ."],
    ["The cat sat on the mat .", "A dog ran .", "", "It is 3.5 km long ."],
    ["", "", "", ""],
]


def one_by_one(metric, systems, references=None):
    return [metric.corpus_statistics(hyps, references) for hyps in systems]


def datas(tables):
    return [table.data for table in tables]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(corpus=st.lists(segments(), min_size=1, max_size=6), data=st.data(),
       name=st.sampled_from(sorted(MODES)), lowercase=st.booleans(), order=st.integers(1, 5),
       n_systems=st.integers(1, 4), threads=st.sampled_from([1, 2, 3]))
def test_generated_systems_match_one_call_each(corpus, data, name, lowercase, order, n_systems,
                                               threads):
    refs = [r for _, r in corpus]
    systems = [[h for h, _ in corpus]] + [
        data.draw(st.lists(lines(), min_size=len(corpus), max_size=len(corpus)))
        for _ in range(n_systems - 1)]
    tokenizer = get_tokenizer(name)
    prepared = NATIVE.prepare_references(refs, tokenizer, lowercase, order)
    tables, periods = NATIVE.systems_statistics(systems, prepared, tokenizer, lowercase, order,
                                                threads=threads)
    assert datas(tables) == datas(NATIVE.statistics(hyps, prepared, tokenizer, lowercase, order)
                                  for hyps in systems)
    assert periods == [NATIVE.tokenized_periods(hyps) for hyps in systems]


@pytest.mark.parametrize("options", [{}, {"lowercase": True}, {"tokenize": "char"},
                                     {"tokenize": "none"}, {"max_ngram_order": 2}])
@pytest.mark.parametrize("threads", [1, 2])
def test_systems_of_different_content_in_order(options, threads):
    metric = BLEU(references=REFS, threads=threads, **options)
    want = one_by_one(metric, SYSTEMS)
    assert len({bytes(w.data) for w in want}) == len(SYSTEMS)  # each system's own rows
    assert datas(metric.systems_statistics(SYSTEMS)) == datas(want)
    assert datas(metric.systems_statistics(SYSTEMS[::-1])) == datas(want[::-1])
    assert datas(metric.systems_statistics(SYSTEMS[2:3])) == datas(want[2:3])  # one system
    assert metric.systems_statistics([]) == []


def test_references_given_to_the_call():
    metric = BLEU()
    assert datas(metric.systems_statistics(SYSTEMS, REFS)) == datas(one_by_one(BLEU(), SYSTEMS, REFS))
    assert metric.num_refs == 1


def test_python_backend_and_python_tokenizers_take_the_template_way(monkeypatch):
    want = datas(one_by_one(BLEU(references=REFS), SYSTEMS))
    assert datas(BLEU(references=REFS, backend="python").systems_statistics(SYSTEMS)) == want
    # a tokenizer the core does not run: the kernel declines, one call per system
    metric = BLEU(references=REFS)
    monkeypatch.setattr("truebleu.metrics.bleu.native.core_mode", lambda tokenizer: None)
    assert datas(metric.systems_statistics(SYSTEMS)) == want


def test_the_template_loops_over_corpus_statistics():
    metric = BLEU(references=REFS)
    assert datas(Metric.systems_statistics(metric, SYSTEMS)) == datas(one_by_one(metric, SYSTEMS))


def errors_and_logs(call, caplog):
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="sacrebleu"):
        try:
            call()
        except (TypeError, ValueError) as exc:
            return type(exc), str(exc), caplog.messages
    return None, None, caplog.messages


@pytest.mark.parametrize("bad", [
    ["one line"],                          # another length
    ["x", "y", 3, "z"],                    # not a str
    "abcd",                                # a str, not a sequence of str
    iter(["a", "b", "c", "d"]),            # not a sequence
])
def test_errors_and_warnings_as_one_call_per_system(bad, caplog):
    tokenized = ["a b ."] * 100  # sacreBLEU's warning about tokenized output
    long_refs = [["a b c ."] * 100]
    systems = [tokenized, ["x"] * 100, bad if not isinstance(bad, list) else bad * 25]
    if isinstance(bad, list) and len(bad) == 1:
        systems[2] = ["x"] * 99
    want = errors_and_logs(lambda: one_by_one(BLEU(references=long_refs), systems), caplog)
    got = errors_and_logs(lambda: BLEU(references=long_refs).systems_statistics(systems), caplog)
    assert want[0] is not None and want[2]  # an error, after system 0's warning
    assert got == want


def test_tokenized_output_warns_per_system_as_before(caplog):
    systems = [["a b ."] * 100, ["a b"] * 100, ["c ."] * 100]
    refs = [["a b c ."] * 100]
    for force in (False, True):
        want = errors_and_logs(
            lambda force=force: one_by_one(BLEU(references=refs, force=force), systems), caplog)
        got = errors_and_logs(
            lambda force=force: BLEU(references=refs, force=force).systems_statistics(systems),
            caplog)
        assert got == want
        assert len(got[2]) == (0 if force else 6)
        silent = errors_and_logs(lambda: BLEU(references=refs).systems_statistics(
            systems, check_inputs=False), caplog)
        assert silent == (None, None, [])


def test_core_checks_its_buffers():
    tokenizer = get_tokenizer("13a")
    prepared = NATIVE.prepare_references([["a b"], ["c"]], tokenizer, False, 4).core
    rows = array("q", [0]) * 20
    with pytest.raises(ValueError, match="2 systems but 1 out buffers"):
        core.systems_statistics([["a", "b"], ["a", "b"]], prepared, core.MODE_13A, False, 4, 1,
                                [rows])
    with pytest.raises(ValueError, match="out"):
        core.systems_statistics([["a", "b"]], prepared, core.MODE_13A, False, 4, 1,
                                [array("q", [0]) * 10])
    with pytest.raises(ValueError, match="3 hypotheses but 2 reference segments"):
        core.systems_statistics([["a", "b", "c"]], prepared, core.MODE_13A, False, 4, 1, [rows])
    assert core.systems_statistics((("a b .", "c"),), prepared, core.MODE_13A, False, 4, 2,
                                   (rows,)) == (1,)
