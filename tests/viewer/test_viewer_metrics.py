"""Every metric in the viewer's data: ``report(..., metrics=, scores=)`` and ``-m``/``--scores``.

The oracles: sacreBLEU 2.6.0 for BLEU, chrF and TER (corpus and sentence scores),
:func:`truebleu.significance.compare_metrics` for intervals, clusters and agreement
(itself checked against mt-metrics-eval), and plain NumPy for external means.
"""

from __future__ import annotations

import random

import pytest

np = pytest.importorskip("numpy")
sacrebleu = pytest.importorskip("sacrebleu")

from truebleu.cli.viewer import build_parser, build_report, main  # noqa: E402
from truebleu.metrics import CHRF  # noqa: E402
from truebleu.significance import compare_metrics  # noqa: E402
from truebleu.viewer import report  # noqa: E402

WORDS = "the a cat dog sat on mat house red blue runs quickly , . is was".split()


def sentences(rng: random.Random, n: int) -> list[str]:
    return [" ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 14))) for _ in range(n)]


@pytest.fixture(scope="module")
def inputs():
    rng = random.Random(7)
    n = 60
    refs = [sentences(rng, n), sentences(rng, n)]
    systems = {name: [ref if rng.random() < quality else hyp
                      for ref, hyp in zip(refs[0], sentences(rng, n))]
               for name, quality in (("good", 0.7), ("fair", 0.4), ("poor", 0.1))}
    comet = {name: [rng.random() for _ in range(n)] for name in systems}
    return refs, systems, comet


def metric(payload: dict, name: str) -> dict:
    return next(m for m in payload["metrics"]["list"] if m["name"] == name)


def test_without_metrics_the_page_is_bleus_alone(inputs):
    refs, systems, _ = inputs
    assert "metrics" not in report(refs, systems, n_samples=50).data.payload()


def test_every_metric_equals_sacrebleu_and_compare_metrics(inputs):
    refs, systems, comet = inputs
    data = report(refs, systems, metrics=["bleu", "chrf", "ter"], scores={"COMET": comet},
                  higher_is_better={"COMET": True}, n_samples=200, seed=3).data.payload()
    assert [m["name"] for m in data["metrics"]["list"]] == ["BLEU", "chrF2", "TER", "COMET"]
    names = list(systems)
    for k, name in enumerate(names):
        hyps = systems[name]
        bleu, chrf, ter = metric(data, "BLEU"), metric(data, "chrF2"), metric(data, "TER")
        assert bleu["score"][k] == sacrebleu.corpus_bleu(hyps, refs).score
        assert chrf["score"][k] == pytest.approx(sacrebleu.corpus_chrf(hyps, refs).score, abs=1e-9)
        assert ter["score"][k] == pytest.approx(sacrebleu.corpus_ter(hyps, refs).score, abs=1e-9)
        pairs = list(zip(hyps, zip(*refs)))
        assert bleu["sentence"][k] == pytest.approx(
            [sacrebleu.sentence_bleu(h, list(r)).score for h, r in pairs], abs=1e-9)
        # the BLEU column is the page's own sentence BLEU
        assert bleu["sentence"][k] == data["systems"][k]["sentence_bleu"]
        assert chrf["sentence"][k] == pytest.approx(
            [sacrebleu.sentence_chrf(h, list(r)).score for h, r in pairs], abs=1e-9)
        assert ter["sentence"][k] == pytest.approx(
            [sacrebleu.sentence_ter(h, list(r)).score for h, r in pairs], abs=1e-9)
        assert metric(data, "COMET")["score"][k] == pytest.approx(np.mean(comet[name]), abs=1e-12)
        assert metric(data, "COMET")["sentence"][k] == comet[name]
    assert [m["higher_is_better"] for m in data["metrics"]["list"]] == [True, True, False, True]
    assert [m["external"] for m in data["metrics"]["list"]] == [False, False, False, True]
    # intervals, ranks and clusters are compare_metrics' with the report's seed and samples
    from truebleu.metrics import BLEU, TER
    oracle = compare_metrics(systems, [BLEU(references=refs, force=True), CHRF(references=refs),
                                       TER(references=refs)],
                             scores={"COMET": comet}, n_samples=200, seed=3, ci_samples=200)
    for entry, ranking in zip(data["metrics"]["list"], oracle.rankings):
        by_name = {s.name: s for s in ranking.systems}
        assert entry["ci"] == [by_name[name].ci for name in names]
        assert entry["cluster"] == [by_name[name].cluster for name in names]
        assert entry["rank"] == [by_name[name].rank for name in names]
    agreement = data["metrics"]["agreement"]
    assert [(p["a"], p["b"], p["accuracy"], p["tau"]) for p in agreement["pairs"]] == [
        (p.metric_a, p.metric_b, p.accuracy, p.kendall_tau) for p in oracle.agreement.systems]


def test_metric_objects_keep_their_settings(inputs):
    refs, systems, _ = inputs
    data = report(refs, systems, metrics=[CHRF(word_order=2, references=refs)],
                  n_samples=50).data.payload()
    entry = metric(data, "chrF2++")
    assert entry["score"][0] == pytest.approx(
        sacrebleu.corpus_chrf(systems["good"], refs, word_order=2).score, abs=1e-9)


def test_a_gold_metric_adds_wmts_figures(inputs):
    refs, systems, comet = inputs
    data = report(refs, systems, metrics=["chrf"], scores={"human": comet}, gold="human",
                  n_samples=50, n_permutations=20).data.payload()
    agreement = data["metrics"]["agreement"]
    assert agreement["gold"] == "human"
    assert [g["metric"] for g in agreement["against_gold"]] == ["chrF2"]


def files(tmp_path, inputs):
    refs, systems, comet = inputs
    ref = tmp_path / "ref.txt"
    ref.write_text("\n".join(refs[0]) + "\n", encoding="utf-8")
    paths = []
    for name, hyps in systems.items():
        path = tmp_path / name
        path.write_text("\n".join(hyps) + "\n", encoding="utf-8")
        paths.append(str(path))
    scores = tmp_path / "COMET.seg.score"
    scores.write_text("".join(f"{name}\t{value!r}\n" for name, values in comet.items()
                              for value in values), encoding="utf-8")
    return str(ref), paths, str(scores)


def test_command_line_takes_the_scoring_commands_metric_flags(tmp_path, inputs):
    refs, systems, comet = inputs
    ref, paths, scores = files(tmp_path, inputs)
    args = build_parser("report").parse_args(
        [ref, "-i", *paths, "-o", str(tmp_path / "r.html"), "-m", "bleu", "chrf", "ter",
         "-cw", "2", "--ter-case-sensitive", "--scores", f"MQM={scores}",
         "--lower-is-better", "MQM", "--n-samples", "50"])
    data = build_report(args).data.payload()
    assert [m["name"] for m in data["metrics"]["list"]] == ["BLEU", "chrF2++", "TER", "MQM"]
    assert metric(data, "chrF2++")["score"][0] == pytest.approx(
        sacrebleu.corpus_chrf(systems["good"], [refs[0]], word_order=2).score, abs=1e-9)
    assert metric(data, "TER")["score"][0] == pytest.approx(
        sacrebleu.corpus_ter(systems["good"], [refs[0]], case_sensitive=True).score, abs=1e-9)
    assert metric(data, "MQM")["higher_is_better"] is False
    assert metric(data, "MQM")["sentence"][1] == comet["fair"]
    # no -m: the BLEU-only page
    args = build_parser("report").parse_args([ref, "-i", *paths, "-o", "x.html"])
    assert "metrics" not in build_report(args).data.payload()


def test_command_line_errors_name_the_file_and_line(tmp_path, inputs, capsys):
    ref, paths, scores = files(tmp_path, inputs)
    lines = open(scores, encoding="utf-8").read().split("\n")
    lines[4] = lines[4].split("\t")[0] + "\tnan"
    bad = tmp_path / "bad.seg.score"
    bad.write_text("\n".join(lines), encoding="utf-8")
    out = tmp_path / "r.html"
    assert main(["report", ref, "-i", *paths, "-o", str(out), "--scores", f"X={bad}"]) == 1
    err = capsys.readouterr().err
    assert f"{bad}, line 5" in err and not out.exists()
    assert main(["report", ref, "-i", *paths, "-o", str(out), "--gold", "BLEU"]) == 1
    assert "--gold" in capsys.readouterr().err
    # a score file is an input: the report is never written over it
    assert main(["report", ref, "-i", *paths, "-o", scores, "--scores", f"X={scores}"]) == 1
    assert open(scores, encoding="utf-8").read().startswith("good\t")


def test_spread_and_the_pages_own_bleu(inputs):
    """The disagreement's unit is each metric's standard deviation of sentence scores over
    every system and segment; the entry of the page's own BLEU says so (its columns are
    the list's)."""
    refs, systems, comet = inputs
    from truebleu.metrics import BLEU
    data = report(refs, systems, metrics=["bleu", "ter"],
                  scores={"COMET": comet}, n_samples=20).data.payload()
    entries = data["metrics"]["list"]
    assert [m["own_bleu"] for m in entries] == [True, False, False]
    # a BLEU object of other settings is a metric of its own, with its own columns
    other = report(refs, systems, metrics=[BLEU(references=refs, lowercase=True)],
                   n_samples=20).data.payload()
    assert [m["own_bleu"] for m in other["metrics"]["list"]] == [False]
    for m in entries:
        assert m["spread"] == pytest.approx(np.std(np.array(m["sentence"])), rel=1e-12)
    assert metric(data, "COMET")["spread"] == pytest.approx(np.std([comet[s] for s in systems]))


def test_ters_alignments_are_its_search(inputs):
    """The compact alignments rebuild, for every system and segment, exactly what
    TER(...).sentence_alignment returns (the metric's own settings; a segment without
    references has none)."""
    from truebleu.metrics import TER

    refs, systems, _ = inputs
    refs = [list(refs[0]), [None if i % 7 == 0 else line for i, line in enumerate(refs[1])]]
    refs[0][3] = None  # (a segment without any reference is an error of every metric)
    ter = TER(case_sensitive=True, references=refs)
    data = report(refs, systems, metrics=[ter], n_samples=20).data.payload()
    alignment = metric(data, "TER")["alignment"]
    api = TER(case_sensitive=True)
    letters = {"m": "match", "s": "substitute", "d": "delete", "i": "insert"}
    for k, hyps in enumerate(systems.values()):
        entry = alignment["systems"][k]
        for i, hyp in enumerate(hyps):
            given = [r[i] for r in refs if r[i] is not None]
            expected = api.sentence_alignment(hyp, given)
            words = entry["hyp"][i].split()
            reference = alignment["references"][entry["ref"][i]][i].split()
            assert tuple(words) == expected.hypothesis and tuple(reference) == expected.reference
            assert given[expected.reference_index] == refs[entry["ref"][i]][i]
            steps, h, r = [], 0, 0
            for op in entry["ops"][i]:
                hw = words[entry["order"][i][h]] if op != "i" else None
                rw = reference[r] if op != "d" else None
                h, r = h + (op != "i"), r + (op != "d")
                steps.append((letters[op], hw, rw))
            assert steps == [(e.operation, e.hypothesis_word, e.reference_word)
                             for e in expected.edits]
            assert entry["shifts"][i] == [[list(s.origin), s.start, s.to]
                                          for s in expected.shifts]


def test_serve_takes_the_same_flags(tmp_path, inputs):
    refs, systems, comet = inputs
    ref, paths, scores = files(tmp_path, inputs)
    args = build_parser("serve").parse_args(
        [ref, "-i", *paths, "-m", "ter", "--scores", f"COMET={scores}", "--gold", "comet",
         "--n-samples", "20"])
    data = build_report(args).data.payload()
    assert [m["name"] for m in data["metrics"]["list"]] == ["TER", "COMET"]
    assert data["metrics"]["agreement"]["gold"] == "COMET"
