"""The official WMT21 files (../shared/data/wmt21/xml) read, cached and scored as sacreBLEU does.

- :func:`read_wmt_xml` + :func:`sacrebleu_fields` give sacreBLEU's fields for all seven files;
- ``--wmt-xml FILE`` scores every system against each reference as sacreBLEU scores
  the same segments extracted to text;
- a cache laid out as sacreBLEU leaves it after downloading ``wmt21`` (the raw
  archive and ``raw/test/newstest2021.ru-en.xml``) serves ``-t wmt21 -l ru-en``
  offline, and the ``sacrebleu`` command prints the same (``--echo``, scores, ``-d``).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tarfile

import pytest

from conftest import needs_wmt21, wmt21_dir
from truebleu.cli import main as cli_main
from truebleu.io.wmt_xml import keep_referenced, read_wmt_xml, sacrebleu_fields

sacrebleu = pytest.importorskip("sacrebleu")
pytestmark = needs_wmt21


def xml_files() -> list:
    folder = wmt21_dir() / "xml"
    return sorted(folder.glob("*.xml")) if folder.is_dir() else []


@pytest.mark.parametrize("path", xml_files(), ids=lambda p: p.name.split(".")[1])
def test_fields_equal_sacrebleus_processing(path):
    from sacrebleu.dataset.wmt_xml import WMTXMLDataset

    theirs = WMTXMLDataset._unwrap_wmt21_or_later(str(path))
    theirs = {key: [WMTXMLDataset._clean(line) for line in lines] for key, lines in theirs.items()}
    testset = read_wmt_xml(path)
    ours = sacrebleu_fields(testset)
    assert sorted(ours) == sorted(theirs)
    for key in theirs:
        assert ours[key] == theirs[key], key
    # the loader keeps every (non-test-suite) segment, with None where a stream lacks it
    assert len(testset.doc_ids) == len(testset.source) == len(testset.origlang)
    assert all(len(v) == len(testset) for v in [*testset.references.values(),
                                                *testset.systems.values()])
    assert len(keep_referenced(testset)) == len(theirs["src"])


# all seven files (two references in ru-en, the ja-mecab tokenizer in en-ja); sacreBLEU scores
# one system of each, the first or the last in turn (all of them take minutes on a busy machine)
@pytest.mark.parametrize("index, path", list(enumerate(xml_files())),
                         ids=[p.name.split(".")[1] for p in xml_files()])
def test_wmt_xml_command_equals_sacrebleu_on_extracted_text(index, path, capsys):
    testset = read_wmt_xml(path)
    assert cli_main(["--wmt-xml", str(path), "-f", "json", "-w", "4"]) == 0
    rows = {row["system"]: row for row in json.loads(capsys.readouterr().out)}
    assert sorted(rows) == sorted(testset.systems)
    extracted = sacrebleu_fields(testset)
    pair = f"{testset.src_lang}-{testset.trg_lang}"
    for translator in testset.references:
        refs = extracted[f"ref:{translator}"]
        covered = [i for i, ref in enumerate(refs) if ref]
        bleu = sacrebleu.BLEU(trg_lang=testset.trg_lang, references=[[refs[i] for i in covered]])
        system = list(testset.systems)[-index % 2]
        expected = bleu.corpus_score([extracted[system][i] for i in covered], None)
        assert rows[system][f"BLEU (ref {translator})"] == f"{expected.score:.4f}", \
            (pair, system, translator)
    if len(testset.references) > 1:   # all references together (ru-en: A and B cover the same)
        names = list(testset.references)
        refs = [extracted[f"ref:{t}"] for t in names]
        system = list(testset.systems)[0]
        expected = sacrebleu.BLEU(trg_lang=testset.trg_lang).corpus_score(extracted[system], refs)
        assert rows[system][f"BLEU (refs {'+'.join(names)})"] == f"{expected.score:.4f}"


# -- the wmt21 ru-en entry of a sacreBLEU cache, offline ------------------------------------

def _fill_cache(folder):
    raw = folder / "wmt21" / "raw"
    (raw / "test").mkdir(parents=True)
    shutil.copyfile(wmt21_dir() / "xml" / "newstest2021.ru-en.all.xml",
                    raw / "test" / "newstest2021.ru-en.xml")
    with tarfile.open(raw / "wmt21.test.tgz", "w:gz") as tar:   # what sacreBLEU downloaded
        tar.add(raw / "test" / "newstest2021.ru-en.xml", "test/newstest2021.ru-en.xml")


@pytest.fixture(scope="module")
def wmt21_caches(tmp_path_factory):
    theirs, ours = tmp_path_factory.mktemp("sacrebleu"), tmp_path_factory.mktemp("truebleu")
    _fill_cache(theirs)
    _fill_cache(ours)
    return theirs, ours


HYP = "newstest2021.ru-en.hyp.{}.en"


_VERSION = re.compile(r'(version:|"version": ")(2\.6\.0|truebleu-[^|"\s]+)')


def _run(command, cache, args):
    """Exit status and standard output of ``python -m <command>``, the version masked."""
    env = {**os.environ, "SACREBLEU": str(cache), "NO_COLOR": "1"}
    env.pop("SACREBLEU_FORMAT", None)
    env.pop("TRUEBLEU_FORMAT", None)
    result = subprocess.run([sys.executable, "-m", command, *args], env=env, capture_output=True,
                            text=True, encoding="utf-8", timeout=300)
    return result.returncode, _VERSION.sub(r"\1VERSION", result.stdout)


def _same_output(wmt21_caches, args):
    theirs, ours = wmt21_caches
    return _run("sacrebleu", theirs, args), _run("truebleu", ours, args)


@pytest.mark.parametrize("args", [
    ["--echo", "src"],
    ["--echo", "ref", "docid", "origlang"],
    ["-i", "{Online-B}"],
    ["-i", "{Online-B}", "-d", "-w", "3"],
    ["-i", "{Online-B}", "{NiuTrans}", "-f", "text"],
    ["-i", "{AFRL}", "-ol", "ru", "-b"],
], ids=["echo-src", "echo-meta", "score", "detail", "two-systems", "origlang"])
def test_wmt21_ru_en_from_the_cache_as_the_sacrebleu_command(wmt21_caches, args):
    outputs = wmt21_dir() / "system-outputs"
    args = ["-t", "wmt21", "-l", "ru-en"] + [
        str(outputs / HYP.format(a[1:-1])) if a.startswith("{") else a for a in args]
    (status, expected), (our_status, ours) = _same_output(wmt21_caches, args)
    assert status == 0 and our_status == 0
    assert "VERSION" in ours or "--echo" in args or "-b" in args
    assert ours == expected


def test_the_processed_text_files_are_the_same(wmt21_caches):
    theirs, ours = wmt21_caches
    for folder in (theirs, ours):   # both tools have processed ru-en by now (or do it here)
        _run("sacrebleu" if folder == theirs else "truebleu", folder,
             ["-t", "wmt21", "-l", "ru-en", "--echo", "src"])
    names = sorted(p.name for p in (theirs / "wmt21").iterdir() if p.is_file())
    assert names == sorted(p.name for p in (ours / "wmt21").iterdir() if p.is_file())
    assert "wmt21.ru-en.ref-A" in names and "wmt21.ru-en.Online-B" in names
    for name in names:
        assert (theirs / "wmt21" / name).read_bytes() == (ours / "wmt21" / name).read_bytes(), name


@pytest.mark.parametrize("args", [["--list"], ["--list", "-l", "ru-en"], ["--list", "-l", "en-zh"]])
def test_list_as_the_sacrebleu_command(wmt21_caches, args):
    (status, expected), (our_status, ours) = _same_output(wmt21_caches, args)
    assert status == our_status == 0 and ours == expected
