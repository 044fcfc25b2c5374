"""Test sets: the registry against sacreBLEU's, processing of every format, downloads, the cache.

sacreBLEU 2.6.0 is the oracle: for small test sets of every format served by a
local HTTP server on 127.0.0.1 (tests/_testset_fixtures.py), sacreBLEU and
truebleu each download and process them into their own cache folder, and the
folders must hold the same files with the same bytes; ``--echo``, ``--list``,
``--origlang``/``--subset`` must print the same. Nothing reaches the internet.
"""

from __future__ import annotations

import contextlib
import io
import os
from pathlib import Path

import pytest

from _testset_fixtures import LocalServer, build_served, with_base_url
from truebleu.cli import main as cli_main
from truebleu.io.testsets import DownloadError, cache, registry
from truebleu.io.testsets.process import get_files, get_reference_files, get_source_file

sacrebleu = pytest.importorskip("sacrebleu")
from sacrebleu import dataset as sb_dataset  # noqa: E402
from sacrebleu import utils as sb_utils  # noqa: E402

SB_CLASSES = {
    "wmt-xml": sb_dataset.WMTXMLDataset,
    "sgml": sb_dataset.FakeSGMLDataset,
    "sgml-or-text": sb_dataset.WMTAdditionDataset,
    "iwslt-xml": sb_dataset.IWSLTXMLDataset,
    "text": sb_dataset.PlainTextDataset,
    "tsv": sb_dataset.TSVDataset,
}


# -- the registry: every fact equals sacreBLEU's ------------------------------------------

def test_registry_holds_every_sacrebleu_test_set_with_the_same_facts():
    assert registry.testset_names() == list(sb_dataset.DATASETS)
    for name, theirs in sb_dataset.DATASETS.items():
        ours = registry.get_testset(name)
        assert isinstance(theirs, SB_CLASSES[ours.format]) and \
            type(theirs) is SB_CLASSES[ours.format], name
        assert list(ours.urls) == theirs.data, name
        assert list(ours.md5) == (theirs.md5 or [None] * len(theirs.data)), name
        assert ours.description == theirs.description and ours.citation == theirs.citation
        assert ours.langpairs == theirs.langpairs, name
        assert list(ours.refs) == theirs.kwargs.get("refs", []), name
    assert registry.subset_annotations() == sb_dataset.SUBSETS


def test_cache_paths_are_sacrebleus(tmp_path, monkeypatch):
    monkeypatch.setenv("SACREBLEU", str(tmp_path))
    monkeypatch.setattr(sb_dataset.base, "SACREBLEU_DIR", str(tmp_path))
    for name, entry in sb_dataset.DATASETS.items():
        theirs = type(entry)(name, data=entry.data, md5=entry.md5, langpairs=entry.langpairs)
        for url in entry.data:
            assert cache.download_path(name, url) == os.path.join(
                theirs._rawdir, theirs._get_tarball_filename(url))
        for pair in entry.langpairs:
            for field in ("src", "ref", "ref:A", "docid"):
                assert cache.text_path(name, pair, field) == theirs._get_txt_file_path(pair, field)


def test_unknown_test_set_and_pair_are_clear_errors(capsys):
    assert cli_main(["-t", "wmt99", "-l", "de-en"]) == 1
    assert "Unknown test set 'wmt99'" in capsys.readouterr().err
    assert cli_main(["-t", "wmt21", "-l", "xx-yy"]) == 1
    assert "No such language pair 'xx-yy'" in capsys.readouterr().err
    assert cli_main(["-t", "wmt21"]) == 1
    assert "I need a language pair (-l)" in capsys.readouterr().err


# -- fixture test sets of every format, served on loopback ----------------------------------

@pytest.fixture
def served(tmp_path):
    folder = tmp_path / "served"
    folder.mkdir()
    entries = build_served(folder)
    server = LocalServer(folder)
    yield server, with_base_url(entries, server.url)
    server.close()


def use_registry(monkeypatch, entries: dict) -> None:
    """truebleu sees only the fixture test sets; sacreBLEU sees them beside its own."""
    document = {"testsets": entries, "subsets": {"fx-sgm": {"rt.com.68098": "US-crime",
                                                            "bbc.310963": "GB-sport"}}}
    monkeypatch.setattr(registry, "_document", lambda: document)
    registry.get_testset.cache_clear()


def use_sacrebleu_registry(monkeypatch, entries: dict, folder: Path) -> None:
    monkeypatch.setattr(sb_dataset.base, "SACREBLEU_DIR", str(folder))
    monkeypatch.setattr(sb_utils, "SACREBLEU_DIR", str(folder))
    for name, entry in entries.items():
        kwargs = {"refs": entry["refs"]} if "refs" in entry else {}
        dataset = SB_CLASSES[entry["format"]](
            name, data=entry["urls"], md5=entry["md5"], description=entry["description"],
            citation=entry["citation"], langpairs=entry["langpairs"], **kwargs)
        monkeypatch.setitem(sb_dataset.DATASETS, name, dataset)
    monkeypatch.setitem(sb_dataset.SUBSETS, "fx-sgm", {"rt.com.68098": "US-crime",
                                                       "bbc.310963": "GB-sport"})


@pytest.fixture
def caches(tmp_path, monkeypatch, served):
    """(server, entries, sacreBLEU's cache, truebleu's cache): same fixtures, separate folders."""
    server, entries = served
    theirs, ours = tmp_path / "sacrebleu-cache", tmp_path / "truebleu-cache"
    use_registry(monkeypatch, entries)
    use_sacrebleu_registry(monkeypatch, entries, theirs)
    monkeypatch.setenv("SACREBLEU", str(ours))
    yield server, entries, theirs, ours
    registry.get_testset.cache_clear()


def _tree(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file() and not p.name.endswith(".lock")}


PAIRS = [("fx-xml", "de-en"), ("fx-xml/B", "de-en"), ("fx-sgm", "de-en"),
         ("fx-sgm/tworefs", "de-en"), ("fx-iwslt", "fr-en"), ("fx-tsv", "fr-en"),
         ("fx-text", "de-en")]


@pytest.mark.parametrize("name, pair", PAIRS)
def test_every_format_downloads_and_processes_to_sacrebleus_files(caches, name, pair):
    server, entries, theirs, ours = caches
    expected = sb_dataset.DATASETS[name]
    their_files = expected.get_files(pair)
    our_files = get_files(name, pair)
    # (sacreBLEU orders WMT XML references as a Python set does: compare sorted)
    assert sorted(os.path.relpath(p, theirs) for p in their_files) == \
        sorted(os.path.relpath(p, ours) for p in our_files)
    assert _tree(ours) == _tree(theirs)          # raw downloads, unpacked files, text files
    assert get_source_file(name, pair) == our_files[0]
    assert sorted(os.path.relpath(p, ours) for p in get_reference_files(name, pair)) == \
        sorted(os.path.relpath(p, theirs) for p in expected.get_reference_files(pair))


def _sacrebleu_echo(name, pair, fields, origlang=None, subset=None) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        sb_utils.print_test_set(name, pair, fields, origlang, subset)
    return out.getvalue()


def _truebleu(argv, capsys) -> tuple[int, str, str]:
    status = cli_main(argv)
    captured = capsys.readouterr()
    return status, captured.out, captured.err


@pytest.mark.parametrize("name, pair, fields, origlang, subset", [
    ("fx-xml", "de-en", ["src"], None, None),
    ("fx-xml", "de-en", ["ref"], None, None),
    ("fx-xml", "de-en", ["src", "ref:B", "docid", "origlang", "domain"], None, None),
    ("fx-xml", "de-en", ["src", "sys-two"], "de", None),
    ("fx-xml", "de-en", ["src"], "non-de", None),
    ("fx-xml", "de-en", ["src", "domain"], None, "spe+ch"),
    ("fx-sgm", "de-en", ["all"], None, None),
    ("fx-sgm", "de-en", ["src", "ref"], "en", None),
    ("fx-sgm", "de-en", ["src"], None, "country:GB"),
    ("fx-sgm", "de-en", ["src", "docid"], None, "crime"),
    ("fx-sgm/tworefs", "de-en", ["ref", "ref:1"], None, None),
    ("fx-iwslt", "fr-en", ["all"], None, None),
    ("fx-tsv", "fr-en", ["src", "ref"], None, None),
    ("fx-text", "de-en", ["ref", "src"], None, None),
])
def test_echo_prints_what_sacrebleu_prints(caches, capsys, name, pair, fields, origlang, subset):
    expected = _sacrebleu_echo(name, pair, fields, origlang, subset)
    argv = ["-t", name, "-l", pair, "--echo", *fields]
    argv += ["--origlang", origlang] if origlang else []
    argv += ["--subset", subset] if subset else []
    status, out, _ = _truebleu(argv, capsys)
    assert status == 0
    assert out == expected


def test_list_of_fields_is_sacrebleus(caches, capsys):
    for name, pair in PAIRS:
        if name.startswith("fx-xml"):  # sacreBLEU orders references as a Python set: run-dependent
            continue
        fields = sb_dataset.DATASETS[name].fieldnames(pair)
        status, out, _ = _truebleu(["--list", "-t", name], capsys)
        assert status == 0 and out == f"{pair}: {', '.join(fields)}\n"
    status, out, _ = _truebleu(["--list", "-t", "fx-xml", "-l", "de-en"], capsys)
    assert out == "de-en: src, ref:A, ref:B, docid, origlang, sys-one, sys-two, domain\n"


def test_scoring_a_fixture_test_set_equals_sacrebleu_on_its_text(caches, capsys, tmp_path):
    hyp = tmp_path / "hyp.en"
    hyp.write_text("First sentence & signs.\nThe second sentence, with spaces.\n"
                   "Third sentence.\nFourth one.\n", encoding="utf-8")
    refs = [[line.rstrip("\n") for line in open(path, encoding="utf-8")]
            for path in sb_dataset.DATASETS["fx-xml"].get_reference_files("de-en")]
    lines = hyp.read_text(encoding="utf-8").splitlines()
    for origlang, keep in ((None, [0, 1, 2, 3]), ("de", [0, 1]), ("non-de", [2, 3])):
        expected = sacrebleu.corpus_bleu([lines[i] for i in keep],
                                         [[ref[i] for i in keep] for ref in refs])
        argv = ["-t", "fx-xml", "-l", "de-en", "-i", str(hyp), "-b", "-w", "4"]
        argv += ["-ol", origlang] if origlang else []
        status, out, _ = _truebleu(argv, capsys)
        assert status == 0 and out == f"{expected.score:.4f}\n", origlang


def test_citation_is_printed(caches, capsys):
    status, out, _ = _truebleu(["-t", "fx-sgm", "--citation"], capsys)
    assert status == 0 and out == "@misc{fixture}\n"


# -- downloading: checksum, interruption, cache hits, offline --------------------------------

def test_cache_hit_downloads_nothing(caches, capsys):
    server, entries, theirs, ours = caches
    get_files("fx-sgm", "de-en")
    count = len(server.requests)
    assert count == 1
    status, out, _ = _truebleu(["-t", "fx-sgm", "-l", "de-en", "--echo", "src"], capsys)
    assert status == 0 and out.count("\n") == 3
    assert len(server.requests) == count


def test_download_command_fetches_and_processes(caches, capsys):
    server, entries, theirs, ours = caches
    status, out, _ = _truebleu(["--download", "fx-tsv", "-l", "fr-en"], capsys)
    assert status == 0 and out == ""
    assert (ours / "fx-tsv" / "fx-tsv.fr-en.src").read_text(encoding="utf-8") == \
        "un texte\n\ndernier\n"


def _unlocked(folder: Path) -> list[Path]:
    """The folder's files but the download locks (sacreBLEU's ``<file>.lock``, which stays so
    that every waiting process locks the same file)."""
    return [path for path in folder.iterdir() if not path.name.endswith(".lock")]


def test_checksum_mismatch_leaves_nothing_that_looks_complete(caches, monkeypatch, capsys):
    server, entries, theirs, ours = caches
    bad = {**entries, "fx-sgm": {**entries["fx-sgm"], "md5": ["0" * 32]}}
    use_registry(monkeypatch, bad)
    status, out, err = _truebleu(["-t", "fx-sgm", "-l", "de-en", "--echo", "src"], capsys)
    assert status == 1 and out == ""
    assert "md5 checksum" in err and "differs from the expected 00000" in err
    assert err.count("\n") == 1
    assert _unlocked(ours / "fx-sgm" / "raw") == []


def test_interrupted_download_leaves_nothing_and_retries(caches, capsys):
    server, entries, theirs, ours = caches
    server.truncate.add("xmlset.tar.gz")
    with pytest.raises(DownloadError, match="cannot download .*xmlset.tar.gz"):
        get_files("fx-xml", "de-en")
    assert _unlocked(ours / "fx-xml" / "raw") == []
    server.truncate.clear()
    files = get_files("fx-xml", "de-en")
    assert all(os.path.getsize(path) > 0 for path in files[:3])


def test_offline_is_a_clear_one_line_error(caches, monkeypatch, capsys):
    server, entries, theirs, ours = caches
    server.close()
    status, out, err = _truebleu(["-t", "fx-text", "-l", "de-en", "--echo", "src"], capsys)
    assert status == 1 and out == ""
    assert err.startswith("truebleu: error: cannot download http://127.0.0.1:")
    assert "offline" in err and err.count("\n") == 1
    server.thread = type("Done", (), {"join": lambda self: None})()  # closed already


def test_a_cache_filled_by_sacrebleu_is_used_offline(caches, monkeypatch, capsys):
    server, entries, theirs, ours = caches
    for name, pair in PAIRS:
        sb_dataset.DATASETS[name].get_files(pair)
    expected = {(name, pair): _sacrebleu_echo(name, pair, ["src", "ref"]) for name, pair in PAIRS}
    server.close()
    server.thread = type("Done", (), {"join": lambda self: None})()
    monkeypatch.setenv("SACREBLEU", str(theirs))
    before = _tree(theirs)
    for (name, pair), text in expected.items():
        status, out, err = _truebleu(["-t", name, "-l", pair, "--echo", "src", "ref"], capsys)
        assert status == 0 and out == text, (name, err)
    assert _tree(theirs) == before   # nothing rewritten


def test_progress_bar_goes_to_the_given_stream(served, tmp_path):
    server, entries = served
    stream = io.StringIO()
    url = entries["fx-sgm"]["urls"][0]
    assert cache.download_file(url, str(tmp_path / "d" / "sgm.zip"), entries["fx-sgm"]["md5"][0],
                               progress_stream=stream)
    assert "Downloading sgm.zip" in stream.getvalue() and "B/s" in stream.getvalue()  # tqdm, in bytes
    assert not cache.download_file(url, str(tmp_path / "d" / "sgm.zip"))  # already there


@pytest.mark.parametrize("name, extra", [("fx-xml", []), ("fx-sgm", []),
                                         ("fx-sgm", ["--subset", "sport"])])
def test_detail_table_is_sacrebleus(caches, capsys, tmp_path, monkeypatch, name, extra):
    from argparse import Namespace

    from sacrebleu.metrics import BLEU as SacreBLEU

    pair = "de-en"
    refs_files = sb_dataset.DATASETS[name].get_reference_files(pair)
    refs = [[line.rstrip() for line in open(p, encoding="utf-8")] for p in refs_files]
    hyps = [ref.replace("sentence", "phrase") for ref in refs[0]]
    hyp = tmp_path / "hyp.en"
    hyp.write_text("".join(h + "\n" for h in hyps), encoding="utf-8")
    monkeypatch.setattr(sb_utils.Color, "ENABLE_COLORS", False)
    args = Namespace(width=2, origlang=None, subset=extra[1] if extra else None, test_set=name,
                     langpair=pair)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        sb_utils.print_subset_results({"BLEU": SacreBLEU(references=refs)}, hyps, refs, args)
    status, text, _ = _truebleu(["-t", name, "-l", pair, "-i", str(hyp), "-d", "-w", "2",
                                 "--no-color", *extra], capsys)
    assert status == 0
    assert text.split("\n", 1)[1] == out.getvalue()
    assert "origlang=" in out.getvalue()
