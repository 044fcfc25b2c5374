"""A metric written in a few lines works everywhere once registered with one line.

``Toy`` counts, per segment, the hypothesis words equal to the first reference's
word at the same position, and the hypothesis length; its score is
``100 * matches / words``. It has no flags of its own (the template's defaults),
one kernel in Python, and is registered with ``monkeypatch.setitem(METRICS,
"toy", Toy)``. Then ``compare``, the scoring command, ``metric.accumulator()``
and ``truebleu.metrics.streaming.score_files`` take it unchanged. The expected
numbers are counted here from the texts, not asked of the metric.
"""

from __future__ import annotations

import json
from array import array
from fractions import Fraction

import pytest

from truebleu.cli import main as truebleu_main
from truebleu.core.config import MetricConfig
from truebleu.core.kernels import KernelLoader
from truebleu.core.signature import ABBREVIATIONS, Signature
from truebleu.core.statistics import RowTable
from truebleu.metrics import METRICS
from truebleu.metrics.base import Metric, Score
from truebleu.metrics.streaming import score_files

# -- the metric ----------------------------------------------------------------------


class ToyScore(Score):
    def __init__(self, score: float) -> None:
        super().__init__("Toy", score)


class ToySignature(Signature):
    ABBREVIATIONS = {key: ABBREVIATIONS[key] for key in
                     ("nrefs", "bs", "ar", "seed", "test", "lang", "origlang", "subset", "case",
                      "version")}


class ToyKernel:
    """Both backends' kernel: the first reference's words; [matches, words] rows."""

    name = "python"

    def prepare(self, segments: list[list[str]]) -> list[list[str]]:
        return [references[0].split() for references in segments]

    def statistics(self, hypotheses, prepared) -> RowTable:
        rows = array("q")
        for hypothesis, reference in zip(hypotheses, prepared):
            words = hypothesis.split()
            rows.extend([sum(h == r for h, r in zip(words, reference)), len(words)])
        return RowTable(2, rows)


KERNEL = ToyKernel()


class Toy(Metric):
    score_type = ToyScore
    signature_type = ToySignature
    kernels = KernelLoader(python=lambda: KERNEL, native=lambda: KERNEL)

    def __init__(self, references=None, *, backend=None, threads=None) -> None:
        super().__init__(MetricConfig(), references, backend=backend, threads=threads)

    def _prepare(self, segments):
        return self._kernel.prepare(segments)

    def _statistics(self, hypotheses, prepared):
        return self._kernel.statistics(hypotheses, prepared)

    def score_from_statistics(self, totals) -> ToyScore:
        matches, words = totals[0], totals[1]
        return ToyScore(100 * matches / words if words else 0.0)

    def _signature_settings(self) -> dict:
        return {"case": "mixed"}


# -- the texts, and what the toy metric must make of them -----------------------------

REF = ["the cat sat on the mat", "a dog barks", "", "one two three four"]
REF_B = ["a b c", "d e f", "g", "h"]  # a second reference: the toy metric reads the first only
SYSTEMS = {
    "A": ["the cat sat on a mat", "a dog barks", "", "four three two one"],
    "B": ["the dog sat", "a cat barks loudly", "nothing", "one two three four"],
    "C": ["cat the", "dog", "x y", "one"],
}
# matching words / hypothesis words, counted by hand
COUNTED = {"A": Fraction(5 + 3, 6 + 3 + 4), "B": Fraction(2 + 2 + 4, 3 + 4 + 1 + 4),
           "C": Fraction(1, 2 + 1 + 2 + 1)}


def counts(hypotheses: list[str], references: list[str]) -> tuple[int, int]:
    """(words at the position of an equal reference word, hypothesis words)."""
    matches = words = 0
    for hypothesis, reference in zip(hypotheses, references):
        pairs = list(zip(hypothesis.split(), reference.split()))
        matches += len([1 for h, r in pairs if h == r])
        words += len(hypothesis.split())
    return matches, words


def expected(name: str, lines: slice = slice(None)) -> float:
    matches, words = counts(SYSTEMS[name][lines], REF[lines])
    return 100 * matches / words


def test_the_expected_numbers_are_the_hand_counted_ones():
    for name, fraction in COUNTED.items():
        assert Fraction(*counts(SYSTEMS[name], REF)) == fraction


@pytest.fixture
def toy(monkeypatch):
    monkeypatch.setitem(METRICS, "toy", Toy)  # the one line that registers a metric
    return Toy


@pytest.fixture
def files(tmp_path):
    def write(name, lines):
        path = tmp_path / name
        path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
        return str(path)

    paths = {name: write(f"{name}.txt", lines) for name, lines in SYSTEMS.items()}
    paths["ref"], paths["ref_b"] = write("ref.en", REF), write("ref_b.en", REF_B)
    return paths


# -- the command line ---------------------------------------------------------------


def test_compare_ranks_systems_by_the_toy_metric(toy, files, capsys):
    assert truebleu_main(["compare", files["ref"], "-i", files["A"], files["B"], files["C"],
                          "-m", "toy", "-n", "50", "-f", "json"]) == 0
    record = json.loads(capsys.readouterr().out)
    assert record["metric"] == "Toy"
    assert {system["name"]: system["score"] for system in record["systems"]} == {
        name: expected(name) for name in SYSTEMS}
    assert [system["name"] for system in record["systems"]] == ["B", "A", "C"]  # best first


def test_compare_text_report_and_sentence_comparison(toy, files, capsys):
    assert truebleu_main(["compare", files["ref"], "-i", files["A"], files["B"], files["C"],
                          "--metric", "toy", "-n", "50", "--sentence"]) == 0
    out = capsys.readouterr().out
    assert "Toy" in out and "Segment-level" in out
    for name in SYSTEMS:
        assert f"{expected(name):.2f}" in out


def test_the_scoring_command_scores_with_the_toy_metric(toy, files, capsys):
    assert truebleu_main([files["ref"], files["ref_b"], "-i", files["A"], "-m", "toy",
                          "-w", "6"]) == 0
    record = json.loads(capsys.readouterr().out)
    assert record["name"] == "Toy"
    assert record["score"] == float(f"{expected('A'):.6f}")
    assert record["signature"].startswith("nrefs:2|case:mixed|version:truebleu-")


def test_the_toy_metric_beside_bleu(toy, files, capsys):
    sacrebleu = pytest.importorskip("sacrebleu")
    assert truebleu_main([files["ref"], "-i", files["B"], "-m", "bleu", "toy", "-w", "6"]) == 0
    bleu, toy_record = json.loads(capsys.readouterr().out)  # sorted by name: BLEU, TOY
    assert bleu["score"] == float(f"{sacrebleu.corpus_bleu(SYSTEMS['B'], [REF]).score:.6f}")
    assert (toy_record["name"], toy_record["score"]) == ("Toy", float(f"{expected('B'):.6f}"))


def test_sentence_scores_and_a_table_of_systems(toy, files, capsys):
    assert truebleu_main([files["ref"], "-i", files["C"], "-m", "toy", "-sl", "-b", "-w",
                          "4"]) == 0
    lines = capsys.readouterr().out.split()
    assert lines == [f"{expected('C', slice(i, i + 1)):.4f}" for i in range(len(REF))]
    assert truebleu_main([files["ref"], "-i", files["A"], files["B"], "-m", "toy", "-b",
                          "-w", "3", "-q"]) == 0
    assert json.loads(capsys.readouterr().out) == [
        {"system": files[name], "Toy": f"{expected(name):.3f}"} for name in ("A", "B")]


def test_the_command_line_builds_the_toy_metric_with_the_template_defaults(toy, files):
    from truebleu.cli import score

    args = score.build_parser().parse_args([files["ref"], "-i", files["A"], "-m", "toy",
                                            "--backend", "python", "--threads", "2"])
    (metric,) = score.make_metrics(args, [REF]).values()
    assert isinstance(metric, Toy) and (metric.backend, metric.threads) == ("python", 2)


# -- the accumulator and streaming --------------------------------------------------


def test_accumulator_adds_batches_and_merges(toy):
    hyps = SYSTEMS["B"]
    first = Toy().accumulator().update(hyps[:1], [REF[:1]]).update(hyps[1:2], [REF[1:2]])
    second = Toy().accumulator().update(hyps[2:], [REF[2:]])
    assert first.score().score == expected("B", slice(0, 2))
    merged = first.merge(second)
    assert merged.sums == list(counts(hyps, REF))
    assert merged.score().score == expected("B")
    assert merged.signature().format().startswith("nrefs:1|case:mixed|")


@pytest.mark.parametrize("chunk_lines", [1, 3, 10_000])
def test_score_files_sums_chunks(toy, files, chunk_lines):
    result = score_files(files["A"], [files["ref"], files["ref_b"]], Toy(),
                         chunk_lines=chunk_lines, keep_statistics=True)
    assert result.score.score == expected("A")
    assert result.segments == len(REF)
    assert [tuple(row) for row in result.statistics.rows()] == [
        counts([hyp], [ref]) for hyp, ref in zip(SYSTEMS["A"], REF)]
