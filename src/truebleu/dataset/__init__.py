"""sacreBLEU's module path ``sacrebleu.dataset``: ``DATASETS`` and the dataset classes, thin.

``DATASETS`` maps every test-set name of sacreBLEU 2.6.0 to a dataset object
built from truebleu's registry (``truebleu/data/testsets.json``); ``SUBSETS``,
``COUNTRIES`` and ``DOMAINS`` are sacreBLEU's document annotations of wmt18/19.
"""

from __future__ import annotations

from ..io.testsets.registry import get_testset, subset_annotations, testset_names
from .base import Dataset
from .fake_sgml import FakeSGMLDataset, WMTAdditionDataset
from .iwslt_xml import IWSLTXMLDataset
from .plain_text import PlainTextDataset
from .tsv import TSVDataset
from .wmt_xml import WMTXMLDataset

__all__ = ["DATASETS", "SUBSETS", "COUNTRIES", "DOMAINS", "Dataset", "FakeSGMLDataset",
           "WMTAdditionDataset", "IWSLTXMLDataset", "PlainTextDataset", "TSVDataset",
           "WMTXMLDataset"]

_CLASSES = {cls.FORMAT: cls for cls in (FakeSGMLDataset, WMTAdditionDataset, IWSLTXMLDataset,
                                        PlainTextDataset, TSVDataset, WMTXMLDataset)}


def _dataset(name: str) -> Dataset:
    facts = get_testset(name)
    kwargs = {"refs": list(facts.refs)} if facts.refs else {}
    return _CLASSES[facts.format](
        name, data=list(facts.urls),
        md5=None if all(m is None for m in facts.md5) else list(facts.md5),
        description=facts.description, citation=facts.citation, langpairs=facts.langpairs,
        **kwargs)


DATASETS = {name: _dataset(name) for name in testset_names()}
SUBSETS = subset_annotations()
COUNTRIES = sorted({value.split("-")[0] for value in SUBSETS["wmt19"].values()})
DOMAINS = sorted({value.split("-")[1] for value in SUBSETS["wmt19"].values()})
