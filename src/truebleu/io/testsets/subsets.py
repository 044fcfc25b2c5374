"""``--origlang`` and ``--subset``: keep the segments of some documents, as sacreBLEU does.

The documents' original language comes from the raw file (WMT XML ``origlang``
attributes, or the ``<doc>`` lines of the SGML source); subsets are WMT XML
``domain`` attributes, or for wmt18/wmt19 sacreBLEU's hand annotation of
documents as ``COUNTRY-domain`` (``--subset country:GB`` or ``--subset sport``,
a regular expression searched in the annotation).
"""

from __future__ import annotations

import os
import re
from typing import Sequence, TypeVar

from .. import read_lines
from .cache import raw_dir
from .process import xml_fields
from .registry import get_testset, subset_annotations

__all__ = ["filter_subset", "available_origlangs", "available_subsets", "keep_mask"]

_ORIGLANG = re.compile(r'.* origlang="([^"]+)".*\n')
_DOCID = re.compile(r'.* docid="([^"]+)".*\n')


def _first_raw_file(name: str, langpair: str) -> str:
    testset = get_testset(name)
    return os.path.join(raw_dir(name), testset.raw_files(langpair)[0])


def _sgml_raw_lines(path: str) -> list[str]:
    # sacreBLEU's patterns expect the newline at the end of each line
    return [line + "\n" for line in read_lines(path)]


def _origlang_matches(doc_origlang: str, origlang: str | None) -> bool:
    if origlang is None:
        return True
    if origlang.startswith("non-"):
        return doc_origlang != origlang[4:]
    return doc_origlang == origlang


def keep_mask(test_sets: str, langpair: str, origlang: str | None,
              subset: str | None) -> list[bool]:
    """One flag per segment of the (comma-separated, concatenated) test sets."""
    if subset is not None and subset.startswith("country:"):
        subset = subset[8:]
    keep: list[bool] = []
    for name in test_sets.split(","):
        testset = get_testset(name)
        rawfile = _first_raw_file(name, langpair)
        if testset.format == "wmt-xml":
            fields = xml_fields(rawfile)
            domains = fields.get("domain", [None] * len(fields["origlang"]))
            for doc_origlang, doc_domain in zip(fields["origlang"], domains):
                include = _origlang_matches(doc_origlang, origlang)
                if subset is not None and (doc_domain is None or not re.search(subset, doc_domain)):
                    include = False
                keep.append(include)
        elif rawfile.endswith(".sgm"):
            tags = {}
            if subset is not None:
                if name not in subset_annotations():
                    raise ValueError(f"No subset annotation available for test set {name}")
                tags = subset_annotations()[name]
            include = False
            for line in _sgml_raw_lines(rawfile):
                if line.startswith("<doc "):
                    include = _origlang_matches(_ORIGLANG.sub(r"\1", line), origlang)
                    if subset is not None:
                        doc_id = _DOCID.sub(r"\1", line)
                        if not re.search(subset, tags.get(doc_id, "")):
                            include = False
                if line.startswith("<seg "):
                    keep.append(include)
        else:
            raise ValueError("--origlang and --subset support only WMT *.xml and *.sgm files, "
                             f"not {rawfile!r}")
    return keep


T = TypeVar("T")  # a stream's lines: str, or str | None for references


def filter_subset(streams: Sequence[Sequence[T]], test_sets: str | None, langpair: str | None,
                  origlang: str | None, subset: str | None = None) -> list[list[T]]:
    """Each stream restricted to the segments of the chosen documents (all without filters)."""
    if origlang is None and subset is None:
        return [list(stream) for stream in streams]
    if test_sets is None or langpair is None:
        raise ValueError("Filtering for --origlang or --subset needs a test (-t) and a "
                         "language pair (-l).")
    keep = keep_mask(test_sets, langpair, origlang, subset)
    return [[line for line, flag in zip(stream, keep) if flag] for stream in streams]


def available_origlangs(test_sets: str | None, langpair: str) -> list[str]:
    """The original languages of the documents, sorted."""
    if test_sets is None:
        return []
    found: set[str] = set()
    for name in test_sets.split(","):
        rawfile = _first_raw_file(name, langpair)
        if get_testset(name).format == "wmt-xml":
            found.update(xml_fields(rawfile)["origlang"])
        if rawfile.endswith(".sgm"):
            for line in _sgml_raw_lines(rawfile):
                if line.startswith("<doc "):
                    found.add(_ORIGLANG.sub(r"\1", line))
    return sorted(found)


def available_subsets(test_sets: str | None, langpair: str) -> list[str]:
    """WMT XML domains, or the countries (``country:XX``) and domains of the annotation."""
    if test_sets is None:
        return []
    found: set[str] = set()
    for name in test_sets.split(","):
        if get_testset(name).format == "wmt-xml":
            fields = xml_fields(_first_raw_file(name, langpair))
            found.update(fields.get("domain", ()))
        elif name in subset_annotations():
            values = subset_annotations()[name].values()
            found.update("country:" + value.split("-")[0] for value in values)
            found.update(value.split("-")[1] for value in values)
    return sorted(found)
