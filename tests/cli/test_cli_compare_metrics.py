"""``truebleu compare`` with several metrics, scores computed elsewhere and a gold metric.

``-m bleu chrf ter`` takes the scoring command's metric flags; ``--scores NAME=FILE``
reads external segment scores (systems named as compare names the ``-i`` files);
``--higher-is-better`` / ``--lower-is-better`` / ``--gold`` shape the agreement. The
command must print what the API (``compare_metrics``) computes, in every format, with
every lexical score equal to sacreBLEU's; bad flags and bad files are one-line errors.
"""

from __future__ import annotations

import json

import pytest

np = pytest.importorskip("numpy")
sacrebleu = pytest.importorskip("sacrebleu")

from truebleu import BLEU, CHRF, TER  # noqa: E402
from truebleu.cli import main as truebleu_main  # noqa: E402
from truebleu.cli.inputs import system_names  # noqa: E402
from truebleu.significance import compare_metrics  # noqa: E402
from truebleu.significance.metric_formats import to_record  # noqa: E402

REFS = ["the cat sat on the mat", "a dog barks loudly today", "one two three four five",
        "it is raining in the city", "we will meet again tomorrow", "the weather is fine"] * 3
SYSTEMS = {
    "Online-A": ["the cat sat on a mat", "a dog barks today", "one two three four five",
                 "it rains in the city", "we meet again tomorrow", "the weather is good"] * 3,
    "Online-B": ["cat sat on mat", "a dog barked", "one two three", "raining city",
                 "we will meet", "weather fine"] * 3,
    "UEdin": ["mat", "dog", "five four", "city", "tomorrow", "the"] * 3,
}
N = len(REFS)
RNG = np.random.default_rng(3)
COMET = {s: (level + RNG.normal(0, 0.05, N)).tolist()
         for s, level in (("Online-A", 0.8), ("Online-B", 0.7), ("UEdin", 0.3))}
MQM = {s: np.round(level + RNG.normal(0, 1.0, N)).tolist() for s, level in
       (("Online-A", 1.0), ("Online-B", 3.0), ("UEdin", 8.0))}


def write(path, lines):
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return str(path)


@pytest.fixture
def files(tmp_path):
    paths = {"ref": write(tmp_path / "newstest.en-de.ref.A.de", REFS)}
    for name, lines in SYSTEMS.items():
        paths[name] = write(tmp_path / f"newstest.en-de.hyp.{name}.de", lines)
    paths["comet"] = write(tmp_path / "COMET.seg.score",
                           [f"{s}\t{v!r}" for s in COMET for v in COMET[s]])
    paths["mqm"] = write(tmp_path / "mqm.tsv", ["\t".join(MQM)] + [
        "\t".join(repr(MQM[s][k]) for s in MQM) for k in range(N)])
    return paths


def run(capsys, *argv):
    status = truebleu_main(["compare", *argv])
    out, err = capsys.readouterr()
    return status, out, err


def systems_args(files):
    return [files["ref"], "-i", *(files[name] for name in SYSTEMS)]


def test_systems_are_named_as_the_viewer_names_them():
    """compare cut names at '-' too: Online-A and Online-B were 'A' and 'B', which no score
    file names them."""
    paths = [f"x/newstest.en-de.hyp.{name}.de" for name in SYSTEMS]
    assert system_names(paths) == list(SYSTEMS)


def test_several_metrics_score_as_sacrebleu_and_print_what_the_api_computes(files, capsys):
    status, out, err = run(capsys, *systems_args(files), "-m", "bleu", "chrf", "ter", "-cw", "2",
                           "--scores", f"COMET={files['comet']}", "--scores",
                           f"MQM={files['mqm']}", "--lower-is-better", "MQM", "--gold", "MQM",
                           "-n", "100", "--agreement-samples", "200", "-f", "json")
    assert (status, err) == (0, "")
    record = json.loads(out)
    assert [m["metric"] for m in record["metrics"]] == ["BLEU", "chrF2++", "TER", "COMET", "MQM"]
    oracles = [sacrebleu.BLEU(), sacrebleu.CHRF(word_order=2), sacrebleu.TER()]
    for oracle, metric in zip(oracles, record["metrics"]):
        assert {s["name"]: s["score"] for s in metric["systems"]} == {
            name: oracle.corpus_score(hyps, [REFS]).score for name, hyps in SYSTEMS.items()}
    assert {s["name"]: s["score"] for s in record["metrics"][3]["systems"]} == {
        name: np.mean(values) for name, values in COMET.items()}
    refs = [REFS]
    api = compare_metrics(SYSTEMS, [BLEU(references=refs), CHRF(references=refs, word_order=2),
                                    TER(references=refs)],
                          scores={"COMET": COMET, "MQM": MQM}, higher_is_better={"MQM": False},
                          gold="MQM", n_samples=100, n_permutations=200)
    assert record == json.loads(json.dumps(to_record(api)))


@pytest.mark.parametrize("fmt,expected", [
    ("text", ["== BLEU (higher is better) ==", "== MQM (lower is better; scores computed "
              "elsewhere) ==", "Metric agreement over 3 systems", "Against the gold MQM"]),
    ("latex", [r"\label{tab:significance-bleu}", r"\label{tab:significance-mqm}",
               r"\label{tab:agreement}", r"\label{tab:agreement-gold}"]),
    ("tsv", ["metric\trank\tcluster\tsystem", "metric_a\tmetric_b\tagreeing_pairs",
             "metric\tgold\taccuracy", "better\tworse\tstatistic"]),
])
def test_every_format(files, capsys, fmt, expected):
    status, out, err = run(capsys, *systems_args(files), "-m", "bleu", "chrf", "--scores",
                           f"MQM={files['mqm']}", "--lower-is-better", "MQM", "--gold", "mqm",
                           "-n", "50", "--agreement-samples", "50", "-f", fmt)
    assert (status, err) == (0, "")
    for text in expected:
        assert text in out


def test_the_gold_may_be_named_by_its_m_name(files, capsys):
    status, out, _ = run(capsys, *systems_args(files), "-m", "bleu", "chrf", "--gold", "chrf",
                         "-n", "50", "--agreement-samples", "0", "-f", "json")
    assert status == 0
    assert json.loads(out)["agreement"]["gold"] == "chrF2"


def test_a_system_file_beside_the_scores_gives_official_system_scores(files, tmp_path, capsys):
    write(tmp_path / "COMET.sys.score", ["UEdin\t0.99", "Online-A\t0.1", "Online-B\t0.5",
                                         "ref-A\t1.0"])
    status, out, _ = run(capsys, *systems_args(files), "--scores", f"COMET={files['comet']}",
                         "-n", "50", "-f", "json")
    assert status == 0
    comet = json.loads(out)["metrics"][1]
    assert comet["official_system_scores"] is True
    assert [(s["name"], s["score"]) for s in comet["systems"]] == [
        ("UEdin", 0.99), ("Online-B", 0.5), ("Online-A", 0.1)]


def test_one_metric_prints_the_report_compare_always_printed(files, capsys):
    status, out, _ = run(capsys, *systems_args(files), "-m", "chrf", "-n", "50", "-f", "json")
    record = json.loads(out)
    assert status == 0 and record["metric"] == "chrF2" and "agreement" not in record


@pytest.mark.parametrize("flags,message", [
    (["--scores", "COMET"], "--scores takes NAME=FILE, got 'COMET'"),
    (["--scores", "C=a", "--scores", "C=b"], "--scores names 'C' twice"),
    (["--lower-is-better", "BLEU"], "--lower-is-better BLEU: no --scores BLEU=FILE"),
    (["--scores", "C={comet}", "--lower-is-better", "C", "--higher-is-better", "C"],
     "C is given both --higher-is-better and --lower-is-better"),
    (["--gold", "HUMAN"], "--gold HUMAN: not a metric compared (BLEU)"),
    (["--system-scores", "C=x"], "--system-scores C=...: no --scores C=FILE"),
    (["--scores", "BLEU={comet}"], "metric name(s) given twice: 'BLEU'"),
    (["--agreement-samples", "-1"], "--agreement-samples must be >= 0"),
])
def test_bad_flags_are_one_line_errors(files, capsys, flags, message):
    flags = [flag.format(comet=files["comet"]) for flag in flags]
    status, out, err = run(capsys, *systems_args(files), "-n", "20", *flags)
    assert (status, out) == (1, "")
    assert err == f"truebleu compare: error: {message}\n" or message in err
    assert err.count("\n") == 1


def test_a_score_file_without_a_system_names_the_file_and_the_systems(files, tmp_path, capsys):
    path = write(tmp_path / "c.seg.score", [f"A\t{v!r}" for v in COMET["UEdin"]])
    status, _, err = run(capsys, *systems_args(files), "--scores", f"C={path}", "-n", "20")
    assert status == 1
    assert err == (f"truebleu compare: error: {path}: no scores for system(s) 'Online-A', "
                   "'Online-B', 'UEdin' (systems are named as truebleu names the -i files); "
                   "the file scores: 'A'\n")
    bad = write(tmp_path / "d.seg.score", [f"{s}\t{'nan' if s == 'UEdin' and k == 4 else repr(v)}"
                                           for s in COMET for k, v in enumerate(COMET[s])])
    status, _, err = run(capsys, *systems_args(files), "--scores", f"C={bad}", "-n", "20")
    assert status == 1 and err == (f"truebleu compare: error: {bad}, line {2 * N + 5}: score of "
                                   "system 'UEdin' is 'nan'; every score must be a finite "
                                   "number\n")


def test_hostile_file_and_metric_names(tmp_path, capsys):
    """Names from the security corpus that a file system takes (no '/', no NUL)."""
    from hostile_text import LATEX, NAMES, PAYLOADS

    names = [name for name in dict.fromkeys(NAMES + PAYLOADS[16:19] + LATEX[1:])
             if "/" not in name and "\x00" not in name and "\ud800" not in name][:3]
    paths = [write(tmp_path / f"hyp.{k}{name}.txt", lines)
             for k, (name, lines) in enumerate(zip(names, SYSTEMS.values()))]
    shown_names = system_names(paths)
    scores = write(tmp_path / "s.seg.score", [f"{name}\t{v!r}" for name, values
                                              in zip(shown_names, COMET.values())
                                              for v in values])
    metric = PAYLOADS[16] + LATEX[1] + "\x1b[31m"  # "=" would end NAME in NAME=FILE
    for fmt in ("text", "latex", "json", "tsv"):
        status, out, err = run(capsys, write(tmp_path / "ref.txt", REFS), "-i", *paths,
                               "--scores", f"{metric}={scores}", "-n", "20",
                               "--agreement-samples", "0", "-f", fmt)
        assert (status, err) == (0, "")
        hidden = "".join(ch for ch in out if ch not in "\n\t" and (ord(ch) < 32 or 0x7f <= ord(ch) < 0xa0
                                                             or 0x202a <= ord(ch) <= 0x202e))
        assert hidden == ""
        if fmt == "json":
            record = json.loads(out)
            assert record["metrics"][1]["metric"] == metric
            assert {s["name"] for s in record["metrics"][1]["systems"]} == set(shown_names)
