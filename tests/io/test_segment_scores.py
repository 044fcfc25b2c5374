"""Reading external segment scores: mt-metrics-eval's layout, TSV with a header, JSON Lines.

Each layout is written here from the same generated numbers and read back for the systems
compared, in their order; every bad file gives one error naming the file and the line (or,
for a system the file lacks, the file and the systems it has).
"""

from __future__ import annotations

import bz2
import gzip
import json
import random

import pytest

from truebleu.core.segment_scores import SegmentScores
from truebleu.io import InputError
from truebleu.io.scores import read_segment_scores, read_system_scores, system_score_file

SYSTEMS = ["UEdin", "Online-W", "ref-B"]
N = 7


def generated(seed: int = 1) -> dict[str, list[float]]:
    rng = random.Random(seed)
    return {system: [rng.uniform(-25, 1) for _ in range(N)] for system in SYSTEMS}


def write_mtme(path, scores, order=None) -> str:
    lines = [f"{system}\t{value!r}" for system in (order or scores) for value in scores[system]]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return str(path)


def write_tsv(path, scores) -> str:
    rows = ["\t".join(scores)] + ["\t".join(repr(scores[s][k]) for s in scores) for k in range(N)]
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return str(path)


def write_jsonl(path, scores) -> str:
    rows = [json.dumps({s: scores[s][k] for s in scores}) for k in range(N)]
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return str(path)


WRITERS = {"COMET.seg.score": write_mtme, "comet.tsv": write_tsv, "comet.jsonl": write_jsonl}


@pytest.mark.parametrize("file_name", list(WRITERS))
def test_every_layout_reads_the_systems_compared_in_their_order(tmp_path, file_name):
    scores = generated()
    path = WRITERS[file_name](tmp_path / file_name, scores)
    read = read_segment_scores(path, "COMET", ["ref-B", "UEdin"], N)
    assert isinstance(read, SegmentScores) and read.name == "COMET"
    assert read.systems == ("ref-B", "UEdin")
    assert {s: list(v) for s, v in read.segments.items()} == {
        s: scores[s] for s in ("ref-B", "UEdin")}
    assert read.system_scores is None
    assert [tuple(row) for row in read.rows("UEdin").rows()] == [(v, 1.0) for v in scores["UEdin"]]


def test_interleaved_lines_keep_each_systems_order(tmp_path):
    scores = generated()
    lines = [f"{s}\t{scores[s][k]!r}" for k in range(N) for s in SYSTEMS]  # segment-major
    path = tmp_path / "x.seg.score"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    read = read_segment_scores(path, "X", SYSTEMS, N)
    assert {s: list(v) for s, v in read.segments.items()} == scores


def test_blanks_instead_of_a_tab_and_compressed_files(tmp_path):
    scores = generated()
    text = "".join(f"{s}   {v!r}\n" for s in SYSTEMS for v in scores[s])
    for opener, ending in ((gzip.open, ".gz"), (bz2.open, ".bz2")):
        path = tmp_path / f"x.seg.score{ending}"
        with opener(path, "wt", encoding="utf-8") as handle:
            handle.write(text)
        assert list(read_segment_scores(path, "X", ["UEdin"], N).segments["UEdin"]) == \
            scores["UEdin"]
    tsv = tmp_path / "x.tsv.gz"
    with gzip.open(tsv, "wt", encoding="utf-8") as handle:
        handle.write("\t".join(SYSTEMS) + "\n" + "".join(
            "\t".join(repr(scores[s][k]) for s in SYSTEMS) + "\n" for k in range(N)))
    assert list(read_segment_scores(tsv, "X", ["ref-B"], N).segments["ref-B"]) == scores["ref-B"]


def test_the_system_file_beside_a_seg_score_file_gives_the_official_scores(tmp_path):
    scores = generated()
    seg = write_mtme(tmp_path / "MQM.seg.score", scores)
    assert system_score_file(seg) is None
    (tmp_path / "MQM.sys.score").write_text(
        "Online-W\t-1.5\nnot-compared\tNone\nUEdin\t-0.25\nref-B\t3\n", encoding="utf-8")
    assert system_score_file(seg) == str(tmp_path / "MQM.sys.score")
    read = read_segment_scores(seg, "MQM", ["UEdin", "Online-W"], N)
    assert read.system_scores == {"UEdin": -0.25, "Online-W": -1.5}
    other = tmp_path / "official.txt"
    other.write_text("UEdin\t1\nOnline-W\t2\n", encoding="utf-8")
    read = read_segment_scores(write_tsv(tmp_path / "m.tsv", scores), "M", ["UEdin", "Online-W"],
                               N, system_scores=other)
    assert read.system_scores == {"UEdin": 1.0, "Online-W": 2.0}


def test_other_systems_may_be_incomplete_but_not_malformed(tmp_path):
    """mt-metrics-eval marks missing human scores None: fine for a system not compared."""
    scores = generated()
    path = tmp_path / "h.seg.score"
    text = "".join(f"{s}\t{v!r}\n" for s in ("UEdin",) for v in scores[s])
    path.write_text(text + "human-P\tNone\n" * 3, encoding="utf-8")
    assert list(read_segment_scores(path, "H", ["UEdin"], N).segments["UEdin"]) == scores["UEdin"]
    path.write_text(text + "human P None\n", encoding="utf-8")
    with pytest.raises(InputError, match=rf"^{path}, line 8: expected SYSTEM<TAB>SCORE, found 3"):
        read_segment_scores(path, "H", ["UEdin"], N)


def mtme_text(scores, replace=None) -> str:
    lines = [f"{s}\t{v!r}" for s in SYSTEMS for v in scores[s]]
    for line_no, text in (replace or {}).items():
        lines[line_no - 1] = text
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("line_no,text,message", [
    (3, "UEdin\tabc", r"line 3: score of system 'UEdin': 'abc' is not a number"),
    (3, "UEdin\tNone", r"line 3: score of system 'UEdin' is missing \('None'\)"),
    (9, "Online-W\tnan", r"line 9: score of system 'Online-W' is 'nan'; every score must be a "
                         r"finite number"),
    (9, "Online-W\t-inf", r"line 9: score of system 'Online-W' is '-inf'"),
    (9, "Online-W\t1e999", r"line 9: score of system 'Online-W' is '1e999'"),
    (2, "UEdin", r"line 2: expected SYSTEM<TAB>SCORE, found 1 field"),
    (2, "UEdin\t0.5\t0.7", r"line 2: expected SYSTEM<TAB>SCORE, found 3 field"),
])
def test_bad_values_name_the_file_and_line(tmp_path, line_no, text, message):
    path = tmp_path / "c.seg.score"
    path.write_text(mtme_text(generated(), {line_no: text}), encoding="utf-8")
    with pytest.raises(InputError, match=f"^{path}, {message}"):
        read_segment_scores(path, "C", SYSTEMS, N)


def test_wrong_counts_and_missing_systems(tmp_path):
    scores = generated()
    path = tmp_path / "c.seg.score"
    path.write_text(mtme_text(scores), encoding="utf-8")
    with pytest.raises(InputError, match=rf"^{path}, line {N}: system 'UEdin' has more than "
                                         rf"{N - 1} scores"):
        read_segment_scores(path, "C", SYSTEMS, N - 1)
    with pytest.raises(InputError, match=rf"^{path}: system 'UEdin' has {N} scores, system "
                                         rf"'Online-W' has {N} scores, system 'ref-B' has {N} "
                                         rf"scores, but the references have {N + 1} segments"):
        read_segment_scores(path, "C", SYSTEMS, N + 1)
    with pytest.raises(InputError, match=rf"^{path}: no scores for system\(s\) 'ICL' \(systems "
                                         r"are named as truebleu names the -i files\); the file "
                                         r"scores: 'UEdin', 'Online-W', 'ref-B'"):
        read_segment_scores(path, "C", ["UEdin", "ICL"], N)
    path.write_text("", encoding="utf-8")
    with pytest.raises(InputError, match="the file scores: none"):
        read_segment_scores(path, "C", ["UEdin"], N)


def test_tsv_errors(tmp_path):
    scores = generated()
    path = tmp_path / "c.tsv"
    write_tsv(path, scores)
    with pytest.raises(InputError, match=rf"^{path}, line 1: no scores for system\(s\) 'ICL'"):
        read_segment_scores(path, "C", ["ICL"], N)
    with pytest.raises(InputError, match=rf"^{path}, line {N + 1}: system 'UEdin' has more than"):
        read_segment_scores(path, "C", ["UEdin"], N - 1)
    lines = path.read_text(encoding="utf-8").splitlines()
    lines[4] = lines[4].rsplit("\t", 1)[0]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(InputError, match=rf"^{path}, line 5: 2 tab-separated scores, but the "
                                         r"header names 3 systems"):
        read_segment_scores(path, "C", ["UEdin"], N)
    path.write_text("A\tB\tA\n1\t2\t3\n", encoding="utf-8")
    with pytest.raises(InputError, match=rf"^{path}, line 1: system\(s\) named twice in the "
                                         r"header: 'A'"):
        read_segment_scores(path, "C", ["A"], 1)
    path.write_text("A\t0.5\n", encoding="utf-8")  # mt-metrics-eval's layout, named .tsv
    with pytest.raises(InputError, match=rf"^{path}, line 1: a .tsv score file starts with a "
                                         r"header naming the systems"):
        read_segment_scores(path, "C", ["A"], 1)


@pytest.mark.parametrize("line,message", [
    ('{"UEdin": "0.5", "ICL": 1}', r"line 2: score of system 'UEdin': \"0.5\" is not a number"),
    ('{"UEdin": true, "ICL": 1}', r"line 2: score of system 'UEdin': true is not a number"),
    ('{"UEdin": NaN, "ICL": 1}', r"line 2: score of system 'UEdin' is 'NaN'"),
    ('{"UEdin": 1e400, "ICL": 1}', r"line 2: score of system 'UEdin' is 'Infinity'"),
    ('{"ICL": 1}', r"line 2: no scores for system\(s\) 'UEdin'"),
    ('[0.5, 1]', r"line 2: expected a JSON object mapping systems to scores, found list"),
    ('{"UEdin": 0.5,', r"line 2: not a JSON object"),
])
def test_jsonl_errors(tmp_path, line, message):
    path = tmp_path / "c.jsonl"
    path.write_text('{"UEdin": 0.25, "ICL": 2}\n' + line + "\n", encoding="utf-8")
    with pytest.raises(InputError, match=f"^{path}, {message}"):
        read_segment_scores(path, "C", ["UEdin", "ICL"], 2)


def test_system_score_file_errors(tmp_path):
    path = tmp_path / "c.sys.score"
    path.write_text("A\t1\nB\tx\n", encoding="utf-8")
    with pytest.raises(InputError, match=rf"^{path}, line 2: score of system 'B': 'x' is not a"):
        read_system_scores(path, ["A", "B"])
    path.write_text("A\t1\nA\t2\n", encoding="utf-8")
    with pytest.raises(InputError, match=rf"^{path}, line 2: system 'A' is scored twice"):
        read_system_scores(path, ["A"])
    path.write_text("A\t1\n", encoding="utf-8")
    with pytest.raises(InputError, match=rf"^{path}: no system score for 'B' .*the file scores: "
                                         r"'A'"):
        read_system_scores(path, ["A", "B"])


def test_the_input_file_is_left_as_it_was(tmp_path):
    path = tmp_path / "c.seg.score"
    path.write_text(mtme_text(generated()), encoding="utf-8")
    before = path.read_bytes(), path.stat().st_mtime_ns
    read_segment_scores(path, "C", SYSTEMS, N)
    assert (path.read_bytes(), path.stat().st_mtime_ns) == before


# -- the same checks on scores given to the API --------------------------------------


@pytest.mark.parametrize("segments,message", [
    ({"A": [0.5, "0.7"]}, r"scores\['C'\]\['A'\], segment 2: '0.7' is not a number"),
    ({"A": [0.5, True]}, r"scores\['C'\]\['A'\], segment 2: True is not a number"),
    ({"A": [float("nan")]}, r"scores\['C'\]\['A'\], segment 1: nan is not a finite number"),
    ({"A": [0.5], "B": [0.5, 0.6]}, r"scores\['C'\]: systems have different numbers of segment "
                                    r"scores: 'A' 1, 'B' 2"),
    ({"A": []}, r"scores\['C'\]: no segment scores"),
    ({}, r"scores\['C'\] must map each system's name"),
    ({"A": "0.5"}, r"scores\['C'\]\['A'\] must be a sequence of numbers"),
])
def test_api_scores_are_checked_as_files_are(segments, message):
    with pytest.raises(ValueError, match=message):
        SegmentScores("C", segments)


def test_api_system_scores_name_exactly_the_systems():
    with pytest.raises(ValueError, match="missing 'B'; unknown 'Z'"):
        SegmentScores("C", {"A": [1.0], "B": [2.0]}, {"A": 1.0, "Z": 3.0})
    with pytest.raises(ValueError, match="system score of 'A' for 'C': inf is not a finite"):
        SegmentScores("C", {"A": [1.0]}, {"A": float("inf")})
    scores = SegmentScores("C", {"A": [1.0, 3.0], "B": [2.0, 2.0]}, {"A": 9.0, "B": 8.0})
    assert scores.select(["B"]).system_scores == {"B": 8.0}
    with pytest.raises(ValueError, match=r"^f.tsv: no C scores for system\(s\) 'Q'; scores are "
                                         r"given for 'A', 'B'"):
        scores.select(["Q"], "f.tsv")
