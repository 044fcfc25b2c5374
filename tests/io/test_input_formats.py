"""Input formats: WMT XML, SGML, JSON Lines, TSV references, each plain or compressed.

Every format must give the segments that the plain text files give, and the
same score as sacreBLEU on that text; bad input is an error naming file and line.
"""

from __future__ import annotations

import bz2
import gzip
import json
import lzma

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from _testset_fixtures import SGM_REF, SGM_SRC, WMT_XML
from strategies import segments
from truebleu.cli import main as cli_main
from truebleu.io import InputError
from truebleu.io.segments import read_reference_streams, read_segments
from truebleu.io.sgml import read_sgml, sgml_doc_attribute
from truebleu.io.wmt_xml import clean, keep_referenced, read_wmt_xml, sacrebleu_fields

sacrebleu = pytest.importorskip("sacrebleu")

COMPRESSORS = {"": lambda b: b, ".gz": gzip.compress, ".bz2": bz2.compress, ".xz": lzma.compress}


def write(path, text: str, suffix: str = ""):
    path = path.with_name(path.name + suffix)
    path.write_bytes(COMPRESSORS[suffix](text.encode("utf-8")))
    return path


WHITESPACE = [chr(c) for c in range(0x3001) if chr(c).isspace() or chr(c) in "\u200b\ufeff"]


@settings(max_examples=300, deadline=None)
@given(st.one_of(segments(), st.text(st.sampled_from(WHITESPACE + ["a", "b", "\u00e9"]))))
def test_clean_is_sacrebleus(text):
    from sacrebleu.dataset.base import Dataset

    assert clean(text) == Dataset._clean(text)


@pytest.mark.parametrize("suffix", list(COMPRESSORS))
def test_wmt_xml_loader_keeps_every_segment_in_order(tmp_path, suffix):
    testset = read_wmt_xml(write(tmp_path / "t.xml", WMT_XML, suffix))
    assert testset.source == ["Erster Satz & <Zeichen>.", "Zweiter   Satz,  mit  Leerzeichen .",
                              "Ohne Referenz.", "Dritter Satz.", "Vierter Satz."]
    assert testset.doc_ids == ["news.1"] * 3 + ["speech.7"] * 2      # test suite skipped
    assert testset.seg_ids == [1, 2, 3, 1, 2]
    assert testset.origlang == ["de", "de", "de", "en", "en"]
    assert testset.domains == ["news"] * 3 + ["speech"] * 2
    assert (testset.src_lang, testset.trg_lang, testset.dataset_id) == ("de", "en", "fixture2030")
    assert testset.references["A"][2] == "" and testset.references["B"][2:] == [None] * 3
    assert list(testset.systems) == ["sys-one", "sys-two"]
    assert testset.documents() == {"news.1": [0, 1, 2], "speech.7": [3, 4]}


def test_keep_referenced_any_is_sacrebleus_and_all_needs_every_reference(tmp_path):
    from sacrebleu.dataset.wmt_xml import WMTXMLDataset

    path = write(tmp_path / "t.xml", WMT_XML)
    testset = read_wmt_xml(path)
    assert keep_referenced(testset).seg_ids == [1, 2, 1, 2]
    assert keep_referenced(testset, require="all").doc_ids == ["news.1", "news.1"]
    assert keep_referenced(testset, ["B"]).source[0] == "Erster Satz & <Zeichen>."
    with pytest.raises(ValueError, match="no reference by"):
        keep_referenced(testset, ["C"])
    theirs = WMTXMLDataset._unwrap_wmt21_or_later(str(path))
    ours = sacrebleu_fields(testset)
    assert sorted(ours) == sorted(theirs)
    for key, lines in theirs.items():
        assert ours[key] == [WMTXMLDataset._clean(line) for line in lines]


def test_broken_wmt_xml_names_file_and_line(tmp_path):
    path = write(tmp_path / "bad.xml", WMT_XML.replace("</src>", "</srx>", 1))
    with pytest.raises(InputError, match=r"bad.xml, line \d+, column \d+: invalid XML"):
        read_wmt_xml(path)


def test_wmt_xml_command_scores_every_system_against_each_reference(tmp_path, capsys):
    path = write(tmp_path / "t.xml", WMT_XML, ".gz")
    testset = read_wmt_xml(path)
    assert cli_main(["--wmt-xml", str(path), "-f", "json", "-w", "6"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [row["system"] for row in rows] == ["sys-one", "sys-two"]
    for translator in ("A", "B"):
        covered = [i for i, ref in enumerate(testset.references[translator]) if ref]
        refs = [[testset.references[translator][i] for i in covered]]
        for row in rows:
            hyps = [testset.systems[row["system"]][i] for i in covered]
            expected = sacrebleu.corpus_bleu(hyps, refs)
            assert row[f"BLEU (ref {translator})"] == f"{expected.score:.6f}"
    both = [i for i in range(len(testset)) if testset.references["A"][i] and
            testset.references["B"][i]]
    for row in rows:
        expected = sacrebleu.corpus_bleu([testset.systems[row["system"]][i] for i in both],
                                         [[testset.references[t][i] for i in both]
                                          for t in ("A", "B")])
        assert row["BLEU (refs A+B)"] == f"{expected.score:.6f}"
    assert cli_main(["--wmt-xml", str(path), "--wmt-ref", "B", "--wmt-system", "sys-two",
                     "-f", "text"]) == 0
    out = capsys.readouterr().out
    assert "BLEU (ref B)" in out and "sys-two" in out and "sys-one" not in out
    assert cli_main(["--wmt-xml", str(path), "--wmt-system", "nobody"]) == 1
    assert "no system 'nobody'" in capsys.readouterr().err


@pytest.mark.parametrize("suffix", ["", ".gz", ".xz"])
def test_sgml_segments_are_sacrebleus(tmp_path, suffix):
    from sacrebleu.dataset.fake_sgml import FakeSGMLDataset

    plain = write(tmp_path / "src.de.sgm", SGM_SRC)
    FakeSGMLDataset("x", data=[], langpairs={})._convert_format(str(plain), str(tmp_path / "out"))
    expected = (tmp_path / "out").read_text(encoding="utf-8").splitlines()
    assert read_sgml(write(tmp_path / "src.de.sgm", SGM_SRC, suffix)) == expected == [
        "Ein Satz hier.", "Noch einer.", "Sport ist gut."]
    assert sgml_doc_attribute(SGM_SRC.splitlines(), "genre") == ["news", "news", "sport"]


def test_sgml_reference_scores_as_its_text(tmp_path, capsys):
    ref = write(tmp_path / "ref.en.sgm", SGM_REF, ".gz")
    plain = write(tmp_path / "ref.en", "A sentence here.\nAnother one.\nSport is good.\n")
    hyp = write(tmp_path / "hyp.en", "A sentence here.\nAnother one !\nSport is fine.\n")
    assert cli_main([str(ref), "-i", str(hyp), "-b", "-w", "6"]) == 0
    by_sgml = capsys.readouterr().out
    assert cli_main([str(plain), "-i", str(hyp), "-b", "-w", "6"]) == 0
    assert by_sgml == capsys.readouterr().out
    expected = sacrebleu.corpus_bleu(read_segments(hyp), [read_segments(plain)])
    assert by_sgml == f"{expected.score:.6f}\n"


@pytest.mark.parametrize("suffix", ["", ".gz", ".bz2"])
def test_jsonl_fields_score_as_the_text(tmp_path, capsys, suffix):
    rows = [{"id": 1, "hyp": "The cat sat on the mat. ", "ref": "The cat is on the mat.",
             "refs": ["The cat is on the mat.", "A cat sits on the mat."]},
            {"id": 2, "hyp": "It rains.", "ref": "It is raining.", "refs": ["It is raining."]}]
    data = write(tmp_path / "data.jsonl", "".join(json.dumps(r) + "\n" for r in rows), suffix)
    assert read_segments(data, field="hyp") == ["The cat sat on the mat.", "It rains."]
    assert read_reference_streams(data, field="refs") == [
        ["The cat is on the mat.", "It is raining."], ["A cat sits on the mat.", None]]
    assert cli_main([str(data), "-i", str(data), "-b", "-w", "6"]) == 0
    expected = sacrebleu.corpus_bleu([r["hyp"].rstrip() for r in rows], [[r["ref"] for r in rows]])
    assert capsys.readouterr().out == f"{expected.score:.6f}\n"
    assert cli_main([str(data), "--ref-field", "refs", "-i", str(data), "-b", "-w", "6"]) == 0
    expected = sacrebleu.corpus_bleu([r["hyp"].rstrip() for r in rows],
                                     [["The cat is on the mat.", "It is raining."],
                                      ["A cat sits on the mat.", None]])
    assert capsys.readouterr().out == f"{expected.score:.6f}\n"


@pytest.mark.parametrize("text, message", [
    ('{"hyp": "a"}\n{"hyp": 3}\n', r"data.jsonl, line 2: field 'hyp' holds int"),
    ('{"hyp": "a"}\n\n', r"data.jsonl, line 2: not a JSON object"),
    ('{"hyp": "a"}\n["a"]\n', r"data.jsonl, line 2: expected a JSON object"),
    ('{"hyp": "a"}\n{"ref": "b"}\n', r"data.jsonl, line 2: no field 'hyp' \(fields: ref\)"),
])
def test_bad_jsonl_names_file_and_line(tmp_path, text, message):
    data = write(tmp_path / "data.jsonl", text)
    with pytest.raises(InputError, match=message):
        read_segments(data, field="hyp")


def test_tsv_references_compressed(tmp_path, capsys):
    refs = write(tmp_path / "refs.tsv", "The cat is on the mat.\tA cat sits on the mat.\n"
                 "It is raining.\tRain falls.\n", ".xz")
    hyp = write(tmp_path / "hyp", "The cat sat on the mat.\nIt rains.\n", ".gz")
    assert cli_main([str(refs), "-nr", "2", "-i", str(hyp), "-b", "-w", "6"]) == 0
    expected = sacrebleu.corpus_bleu(["The cat sat on the mat.", "It rains."],
                                     [["The cat is on the mat.", "It is raining."],
                                      ["A cat sits on the mat.", "Rain falls."]])
    assert capsys.readouterr().out == f"{expected.score:.6f}\n"
