"""sacreBLEU's module paths under truebleu: replace ``sacrebleu`` by ``truebleu`` in imports.

For the modules this covers (``sacrebleu``'s test-set names, ``tokenizers.*``
but ``tokenizer_ter``, ``dataset``, ``utils``, ``significance``), every public
name of sacreBLEU 2.6.0 must import from truebleu, and behave the same:
tokenizers on generated text, the registry's facts, the paired tests' numbers.
"""

from __future__ import annotations

import importlib
import inspect
import subprocess
import sys
from argparse import Namespace

import pytest
from hypothesis import given, settings

from strategies import segments

sacrebleu = pytest.importorskip("sacrebleu")

TOKENIZER_MODULES = ["tokenizer_13a", "tokenizer_base", "tokenizer_intl", "tokenizer_zh",
                     "tokenizer_char", "tokenizer_none", "tokenizer_re", "tokenizer_ja_mecab",
                     "tokenizer_ko_mecab", "tokenizer_spm"]
MODULES = ([f"tokenizers.{name}" for name in TOKENIZER_MODULES]
           + ["tokenizers", "dataset", "dataset.base", "dataset.fake_sgml", "dataset.iwslt_xml",
              "dataset.plain_text", "dataset.tsv", "dataset.wmt_xml", "utils", "significance"])
# what sacreBLEU's modules import for their own use, not API
IMPORTED = {"os", "re", "sys", "gzip", "math", "json", "hashlib", "logging", "itertools",
            "colorama", "portalocker", "tabulate", "np", "mp", "ET", "lru_cache", "regex",
            "defaultdict", "ABCMeta", "abstractmethod", "Namespace", "sacrelogger", "Path",
            "Dict", "List", "Optional", "Sequence", "Tuple", "Union", "Any", "Mapping",
            "Metric", "Score", "Signature", "IS_WINDOWS", "smart_open", "download_file",
            "SACREBLEU_DIR", "FAIL_MESSAGE", "BaseTokenizer", "TokenizerRegexp", "DATASETS",
            "SUBSETS", "Dataset"}


def public_names(module) -> set[str]:
    names = {n for n in vars(module) if not n.startswith("_")}
    return {n for n in names if not inspect.ismodule(getattr(module, n))}


@pytest.mark.parametrize("path", MODULES)
def test_every_public_name_imports_from_truebleu(path):
    theirs = importlib.import_module(f"sacrebleu.{path}")
    ours = importlib.import_module(f"truebleu.{path}")
    expected = public_names(theirs) - IMPORTED
    if path == "dataset":  # defined there, not imported
        expected |= {"DATASETS", "SUBSETS", "Dataset"}
    if path == "utils":
        expected |= {"SACREBLEU_DIR", "smart_open", "download_file"}
    if path == "tokenizers.tokenizer_base" or path == "tokenizers":
        expected |= {"BaseTokenizer"}
    if path == "tokenizers.tokenizer_re":
        expected |= {"TokenizerRegexp"}
    missing = sorted(n for n in expected if not hasattr(ours, n))
    assert missing == []


def test_top_level_test_set_names():
    import truebleu

    assert truebleu.compat.sentence_bleu is truebleu.sentence_bleu   # sub-modules as attributes
    assert truebleu.utils.get_source_file is not None

    for name in ("DATASETS", "SACREBLEU_DIR", "smart_open", "download_test_set",
                 "get_source_file", "get_reference_files", "get_available_testsets",
                 "get_langpairs_for_testset"):
        assert hasattr(truebleu, name), name
    assert truebleu.get_available_testsets() == sacrebleu.get_available_testsets()
    assert truebleu.get_langpairs_for_testset("wmt22") == \
        sacrebleu.get_langpairs_for_testset("wmt22")


SIMPLE_TOKENIZERS = [("tokenizer_13a", "Tokenizer13a"), ("tokenizer_intl",
                                                          "TokenizerV14International"),
                     ("tokenizer_zh", "TokenizerZh"), ("tokenizer_char", "TokenizerChar"),
                     ("tokenizer_none", "NoneTokenizer"), ("tokenizer_re", "TokenizerRegexp")]


@pytest.mark.parametrize("module, cls", SIMPLE_TOKENIZERS)
@settings(max_examples=60, deadline=None)
@given(line=segments())
def test_tokenizer_classes_tokenize_as_sacrebleus(module, cls, line):
    theirs = getattr(importlib.import_module(f"sacrebleu.tokenizers.{module}"), cls)()
    ours = getattr(importlib.import_module(f"truebleu.tokenizers.{module}"), cls)()
    assert ours(line) == theirs(line)
    assert ours.signature() == theirs.signature()


@pytest.mark.parametrize("module, cls", [("tokenizer_ja_mecab", "TokenizerJaMecab"),
                                         ("tokenizer_ko_mecab", "TokenizerKoMecab")])
def test_mecab_tokenizer_classes(module, cls):
    try:
        theirs = getattr(importlib.import_module(f"sacrebleu.tokenizers.{module}"), cls)()
    except (ImportError, RuntimeError) as exc:
        pytest.skip(f"MeCab unavailable: {exc}")
    ours = getattr(importlib.import_module(f"truebleu.tokenizers.{module}"), cls)()
    line = "猫が座っている。고양이가 앉아 있다. The cat, 3.5 km."
    assert ours(line) == theirs(line) and ours.signature() == theirs.signature()


def test_base_tokenizer_is_the_base_of_truebleus_tokenizers():
    from truebleu.tokenizers import get_tokenizer
    from truebleu.tokenizers.tokenizer_base import BaseTokenizer

    class Upper(BaseTokenizer):
        def signature(self):
            return "upper"

        def __call__(self, line):
            return line.upper()

    assert isinstance(get_tokenizer("13a"), BaseTokenizer)
    assert Upper()("a b") == "A B" and Upper().signature() == "upper"


def test_spm_models_table_has_sacrebleus_shape():
    from sacrebleu.tokenizers import tokenizer_spm as theirs

    from truebleu.tokenizers import tokenizer_spm as ours

    assert ours.SPM_MODELS == theirs.SPM_MODELS


def test_dataset_objects_carry_sacrebleus_facts():
    from sacrebleu import dataset as theirs

    import truebleu.dataset as ours

    assert list(ours.DATASETS) == list(theirs.DATASETS)
    assert (ours.SUBSETS, ours.COUNTRIES, ours.DOMAINS) == \
        (theirs.SUBSETS, theirs.COUNTRIES, theirs.DOMAINS)
    for name, expected in theirs.DATASETS.items():
        got = ours.DATASETS[name]
        assert type(got).__name__ == type(expected).__name__
        assert isinstance(got, getattr(ours, type(expected).__name__))
        assert (got.name, got.data, got.md5, got.description, got.citation, got.langpairs,
                got.kwargs) == (expected.name, expected.data, expected.md5,
                                expected.description, expected.citation, expected.langpairs,
                                expected.kwargs)
        assert (got._rawdir, got._outdir) == (expected._rawdir, expected._outdir)
        for url in expected.data:
            assert got._get_tarball_filename(url) == expected._get_tarball_filename(url)
        if type(expected).__name__ == "WMTXMLDataset":   # no download needed for these
            for pair in expected.langpairs:
                assert got._get_langpair_allowed_refs(pair) == \
                    expected._get_langpair_allowed_refs(pair)
                assert got._get_langpair_path(pair) == expected._get_langpair_path(pair)


def test_utils_helpers_match(tmp_path):
    from sacrebleu import utils as theirs

    from truebleu import utils as ours

    for pair in ("de-en", "en-zh", "ru-en", "xx-yy"):
        assert ours.get_available_testsets_for_langpair(pair) == \
            theirs.get_available_testsets_for_langpair(pair)
    assert ours.get_langpairs_for_testset("nope") == []
    assert ours.my_log(0.0) == theirs.my_log(0.0) and ours.my_log(2.5) == theirs.my_log(2.5)
    assert ours.sum_of_lists([[1, 2], [3, 4], [5, 6]]) == theirs.sum_of_lists([[1, 2], [3, 4],
                                                                                [5, 6]])
    args = Namespace(bleu_tokenize="13a", bleu_lowercase=True, chrf_beta=2)
    assert ours.args_to_dict(args, "bleu", True) == theirs.args_to_dict(args, "bleu", True)
    path = tmp_path / "x.txt.gz"
    with ours.smart_open(str(path), "wt") as out:
        out.write("a\r\nb\n")
    with theirs.smart_open(str(path)) as a, ours.smart_open(str(path)) as b:
        assert a.read() == b.read() == "a\r\nb\n"
    with pytest.raises(ValueError, match="different lengths"):
        ours.sanity_check_lengths(["a"], [["a", "b"]], test_set="wmt21")


def test_print_single_results_and_table(capsys):
    from truebleu import BLEU
    from truebleu import utils as ours

    score = BLEU(references=[["a cat sat down here"]]).corpus_score(["a cat sat down here"], None)
    ours.print_single_results([score.format(1, False, "sig")], Namespace(format="text"))
    assert capsys.readouterr().out == "BLEU|sig = 100.0 100.0/100.0/100.0/100.0 " \
        "(BP = 1.000 ratio = 1.000 hyp_len = 5 ref_len = 5)\n"
    ours.print_results_table({"System": ["a", "b"], "BLEU": ["1.0", "2.0"]}, {"BLEU": "sig"},
                             Namespace(format="json", width=1))
    assert '"system": "b"' in capsys.readouterr().out


@pytest.mark.parametrize("test_type", ["bs", "ar"])
def test_paired_test_class_gives_sacrebleus_results(test_type, monkeypatch):
    from sacrebleu.significance import PairedTest as TheirTest

    from truebleu import BLEU
    from truebleu.significance import PairedTest, Result, estimate_ci

    monkeypatch.delenv("SACREBLEU_SEED", raising=False)
    refs = [["the cat sat on the mat", "a dog ran in the park today", "it is raining now",
             "we like green tea", "the sun is up", "she reads a long book"] * 5]
    base = ["the cat sat on a mat", "a dog ran in a park", "it rains now", "we like tea",
            "sun is up", "she reads a book"] * 5
    other = ["a cat sat on the mat", "the dog runs in the park today", "it is raining",
             "we like green tea", "the sun is up high", "she read a long book"] * 5
    systems = [("Baseline: base", base), ("other", other)]
    their_sigs, theirs = TheirTest(systems, {"BLEU": sacrebleu.BLEU(references=refs)}, None,
                                   test_type=test_type, n_samples=100)()
    our_sigs, ours = PairedTest(systems, {"BLEU": BLEU()}, refs, test_type=test_type,
                                n_samples=100)()
    assert ours["System"] == theirs["System"]
    for mine, expected in zip(ours["BLEU"], theirs["BLEU"]):
        assert isinstance(mine, Result)
        assert repr(mine) == repr(expected)   # every attribute, every digit
    assert our_sigs["BLEU"].format().split("|")[:-1] == their_sigs["BLEU"].format().split("|")[:-1]
    values = [3.0, 1.0, 2.0, 5.0] * 10
    import numpy as np
    from sacrebleu.significance import estimate_ci as their_ci
    assert [float(v) for v in estimate_ci(values)] == \
        [float(v) for v in their_ci(np.array(values))]


def test_paired_test_refuses_what_it_does_not_do():
    from truebleu import BLEU
    from truebleu.significance import PairedTest

    with pytest.raises(ValueError, match="Unknown test type"):
        PairedTest([("a", ["x"]), ("b", ["y"])], {"BLEU": BLEU()}, [["x"]], test_type="t")
    with pytest.raises(ValueError, match="n_ar_confidence"):
        PairedTest([("a", ["x"]), ("b", ["y"])], {"BLEU": BLEU()}, [["x"]], n_ar_confidence=10)


def test_print_test_set_writes_like_the_echo_option(tmp_path, monkeypatch, capsys):
    # an empty cache and a test set that would need the network: the error is an exception
    from truebleu import utils as ours
    from truebleu.io.testsets import DownloadError, fetch

    monkeypatch.setenv("SACREBLEU", str(tmp_path))
    monkeypatch.setattr(fetch, "fetch", lambda url, *args, **kwargs: (_ for _ in ()).throw(
        DownloadError(f"cannot download {url}: offline")))
    with pytest.raises(DownloadError, match="cannot download"):
        ours.print_test_set("wmt20", "de-en", ["src"])
    assert capsys.readouterr().out == ""


@pytest.mark.parametrize("attribute", ["significance.paired_bootstrap", "metrics.BLEU",
                                       "compat.sentence_bleu", "tokenizers.BaseTokenizer",
                                       "dataset.DATASETS", "utils.smart_open"])
def test_submodules_are_attributes_after_import_truebleu(attribute):
    # in a fresh interpreter: nothing else has imported the sub-module first
    module, name = attribute.split(".")
    code = f"import truebleu; getattr(truebleu.{module}, {name!r})"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
