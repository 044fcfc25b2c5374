"""The report's BLEU rows counted on its tokens' word ids (viewer/tokens.py's
``statistics_of_tokens``, the core's ``ids_statistics_streams``): each stream is tokenized
once, for the page and the rows alike. Checked against the rows BLEU counts on the text
(``systems_statistics``: the references prepared, the systems tokenized again), which is
what the report took before and still takes wherever the ids cannot be used."""

from __future__ import annotations

import json
import random

import pytest

pytest.importorskip("numpy")

from test_viewer_tokens import awkward_lines  # noqa: E402

from conftest import needs_wmt21, wmt21_dir  # noqa: E402


def native_or_skip():
    from truebleu.core.kernels import native_available

    if not native_available():
        pytest.skip("the compiled core is not built (rows on ids are the core's)")


def streams_of(seed: int, n: int, n_refs: int, n_systems: int):
    """Awkward lines (every tokenizer's hard cases) without missing segments, a few empty."""
    lines = [line if line is not None else "" for line in awkward_lines(seed, n * (n_refs + n_systems))]
    random.Random(seed).shuffle(lines)
    cut = [lines[k * n:(k + 1) * n] for k in range(n_refs + n_systems)]
    return cut[:n_refs], cut[n_refs:]


@pytest.mark.parametrize("n_refs", [1, 3])
@pytest.mark.parametrize("max_order", [1, 4, 7])
@pytest.mark.parametrize("lowercase", [False, True])
@pytest.mark.parametrize("tokenize", ["13a", "intl", "char", "zh", "none"])
def test_rows_on_token_ids_equal_the_rows_on_the_text(tokenize, lowercase, max_order, n_refs):
    native_or_skip()
    from truebleu import BLEU
    from truebleu.viewer.tokens import Vocabulary, statistics_of_tokens, stream_tokens

    refs, systems = streams_of(max_order * 10 + n_refs, 300, n_refs, 2)
    options = dict(tokenize=tokenize, lowercase=lowercase, max_ngram_order=max_order, force=True)
    want = BLEU(**options, references=refs).systems_statistics(systems)
    metric = BLEU(**options)
    words = Vocabulary()

    def tokens(lines):
        return stream_tokens(lines, metric.kernel, metric.tokenizer, metric.lowercase, words)

    system_tokens = [tokens(hyps) for hyps in systems]
    ref_tokens = [tokens(stream) for stream in refs]
    for hyps, expected in zip(system_tokens, want):
        for threads in (1, 2):
            got = statistics_of_tokens(hyps, ref_tokens, metric.kernel, max_order, threads)
            assert got is not None and got.to_numpy().tolist() == expected.to_numpy().tolist()


def test_no_rows_on_ids_where_the_tokens_are_not_the_cores_in_one_vocabulary():
    native_or_skip()
    from truebleu import BLEU
    from truebleu.viewer.tokens import Vocabulary, statistics_of_tokens, stream_tokens

    refs, systems = streams_of(3, 40, 1, 1)
    metric = BLEU()
    words = Vocabulary()
    hyps = stream_tokens(systems[0], metric.kernel, metric.tokenizer, False, words)
    same = stream_tokens(refs[0], metric.kernel, metric.tokenizer, False, words)
    other = stream_tokens(refs[0], metric.kernel, metric.tokenizer, False, Vocabulary())
    missing = stream_tokens(refs[0][:-1] + [None], metric.kernel, metric.tokenizer, False, words)
    python = BLEU(backend="python")
    assert statistics_of_tokens(hyps, [same], metric.kernel, 4, None) is not None
    assert statistics_of_tokens(hyps, [other], metric.kernel, 4, None) is None  # two vocabularies
    assert statistics_of_tokens(hyps, [same, missing], metric.kernel, 4, None) is None  # a None
    assert statistics_of_tokens(hyps, [], metric.kernel, 4, None) is None
    assert statistics_of_tokens(hyps, [same], python.kernel, 4, None) is None


def test_the_cores_call_refuses_streams_that_do_not_agree():
    native_or_skip()
    import numpy as np

    from truebleu.core.kernels import native_core

    core = native_core()
    ids = np.array([0, 1, 2, 1], dtype=np.int32)
    lengths = np.array([3, 1], dtype=np.int64)
    ref = (np.array([0, 1, 1], dtype=np.int64), np.array([2, 1], dtype=np.int64))
    out = np.zeros(2 * 10, dtype=np.int64)
    core.ids_statistics_streams(ids, lengths, [ref], 4, 1, out)
    # the rows of the ids' written form, each id one token (tokenize="none")
    from truebleu import BLEU

    written = BLEU(tokenize="none", references=[["0 1", "1"]]).systems_statistics([["0 1 2", "1"]])
    assert out.tolist() == written[0].to_numpy().ravel().tolist()
    cases = [
        (ids, np.array([3, 2], dtype=np.int64), [ref], ValueError, "add up to 5 ids, but there are 4"),
        (ids, np.array([3, -1, 2], dtype=np.int64)[:2], [ref], ValueError, "line 1 has -1 ids"),
        (ids, lengths, [(ref[0], np.array([3], dtype=np.int64))], ValueError, "1 lengths for 2"),
        (ids, lengths, [ref[0]], TypeError, "must be a pair"),
        (ids, lengths, [], ValueError, "at least one reference stream"),
        (ids.astype(np.float64), lengths, [ref], TypeError, "hyp_ids must be a buffer of int64"),
        (np.array([0, -1, 2, 1], dtype=np.int32), lengths, [ref], ValueError, "not be negative"),
    ]
    for hyp_ids, hyp_lengths, refs, error, words in cases:
        with pytest.raises(error, match=words):
            core.ids_statistics_streams(hyp_ids, hyp_lengths, refs, 4, 1, out)
    with pytest.raises(ValueError):
        core.ids_statistics_streams(ids, lengths, [ref], 4, 1, np.zeros(3, dtype=np.int64))


def payload_text(data) -> str:
    document = data.payload()
    for system in document["systems"]:
        system["stats"] = list(system["stats"])
    return json.dumps(document, sort_keys=True)


def both_ways(monkeypatch, references, systems, **options):
    """The report's payload with its rows counted on the tokens' ids, and with them counted
    on the text (the statistics of the tokens refused), and whether the ids were used."""
    from truebleu.viewer import model

    taken = []
    counted = model._statistics_of_tokens

    def spy(*args):
        found = counted(*args)
        taken.append(found is not None)
        return found

    def build():
        inputs = model.ReportInputs(references, [f"ref{k}" for k in range(len(references))],
                                    systems, [f"sys{k}" for k in range(len(systems))])
        return payload_text(model.build_report_data(inputs, options, n_samples=50))

    monkeypatch.setattr(model, "_statistics_of_tokens", spy)
    on_ids = build()
    monkeypatch.setattr(model, "_statistics_of_tokens", lambda *args: None)
    on_text = build()
    return on_ids, on_text, taken[0]


@pytest.mark.parametrize("options", [{}, {"tokenize": "intl", "lowercase": True},
                                     {"tokenize": "char", "max_ngram_order": 6},
                                     {"tokenize": "zh", "smooth_method": "floor"}])
def test_the_report_counts_on_token_ids_the_rows_it_counted_on_the_text(monkeypatch, options):
    native_or_skip()
    refs, systems = streams_of(11, 400, 2, 3)
    on_ids, on_text, taken = both_ways(monkeypatch, refs, systems, **options)
    assert taken and on_ids == on_text


def test_the_report_counts_on_the_text_where_it_cannot_on_ids(monkeypatch):
    refs, systems = streams_of(12, 60, 2, 2)
    refs[1][7] = None  # one segment with one reference fewer
    on_ids, on_text, taken = both_ways(monkeypatch, refs, systems)
    assert not taken and on_ids == on_text
    refs[1][7] = "back"
    for options in ({"force": False}, {"backend": "python"}, {"tokenize": "ja-mecab"}):
        if options.get("tokenize") == "ja-mecab":
            pytest.importorskip("MeCab")
        on_ids, on_text, taken = both_ways(monkeypatch, refs, systems, **options)
        assert not taken and on_ids == on_text


def test_a_hypothesis_that_is_not_text_is_refused_as_bleu_refuses_it():
    from truebleu import BLEU
    from truebleu.viewer.model import ReportInputs, build_report_data

    refs, systems = streams_of(13, 20, 1, 2)
    systems[1][4] = 17
    with pytest.raises(TypeError) as bleu_says:
        BLEU(references=refs, force=True).systems_statistics(systems)
    with pytest.raises(TypeError) as report_says:
        build_report_data(ReportInputs(refs, ["ref"], systems, ["a", "b"]), n_samples=20)
    assert str(report_says.value) == str(bleu_says.value)


@needs_wmt21
def test_wmt21_report_on_token_ids_equals_the_report_on_the_text(monkeypatch):
    native_or_skip()
    data_dir = wmt21_dir()

    def lines(path):
        return path.read_text(encoding="utf-8").split("\n")[:-1]

    refs = [lines(data_dir / "references" / f"newstest2021.en-de.ref.{k}.de") for k in "ACD"]
    paths = sorted((data_dir / "system-outputs").glob("newstest2021.en-de.hyp.*.de"))[:4]
    on_ids, on_text, taken = both_ways(monkeypatch, refs, [lines(p) for p in paths])
    assert taken and on_ids == on_text
