"""The test-set registry: facts only, read from the package's ``data/testsets.json``."""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

__all__ = ["TestSet", "UnknownTestSet", "get_testset", "testset_names", "subset_annotations"]


class UnknownTestSet(ValueError):
    """A test-set name or language pair that the registry does not know."""


@dataclass(frozen=True)
class TestSet:
    """One test set of sacreBLEU's registry.

    ``langpairs`` maps a pair such as ``"de-en"`` to the raw files inside the
    download (source first, then references), or, for some WMT XML sets, to
    ``{"path": ..., "refs": [...]}``. ``format`` is one of ``wmt-xml``,
    ``sgml``, ``sgml-or-text``, ``iwslt-xml``, ``text``, ``tsv``.
    """

    __test__ = False  # not a pytest test class, whatever its name

    name: str
    format: str
    urls: tuple[str, ...]
    md5: tuple[str | None, ...]
    description: str
    citation: str | None
    langpairs: dict
    refs: tuple[str, ...] = ()   # the translators whose references are scored (WMT XML)

    def check_langpair(self, langpair: str) -> None:
        if langpair not in self.langpairs:
            raise UnknownTestSet(f"No such language pair {self.name}/{langpair}; "
                                 f"available: {', '.join(self.langpairs)}")

    def raw_files(self, langpair: str) -> list[str]:
        """The pair's raw files, relative to the test set's ``raw`` folder."""
        self.check_langpair(langpair)
        entry = self.langpairs[langpair]
        return [entry["path"]] if isinstance(entry, dict) else list(entry)

    def scored_translators(self, langpair: str) -> list[str]:
        """The translators whose references are scored (WMT XML; '' is the unnamed one)."""
        entry = self.langpairs[langpair]
        if isinstance(entry, dict) and "refs" in entry:
            return list(entry["refs"])
        return list(self.refs)


@lru_cache(maxsize=1)
def _document() -> dict:
    text = resources.files("truebleu").joinpath("data/testsets.json").read_text(encoding="utf-8")
    return json.loads(text)


@lru_cache(maxsize=None)
def get_testset(name: str) -> TestSet:
    """The registry entry of ``name`` (e.g. ``"wmt21"``, ``"wmt20/robust/set1"``)."""
    entry = _document()["testsets"].get(name)
    if entry is None:
        raise UnknownTestSet(f"Unknown test set {name!r}; run with --list to see the available "
                             "test sets")
    md5 = entry["md5"] or [None] * len(entry["urls"])
    return TestSet(name=name, format=entry["format"], urls=tuple(entry["urls"]),
                   md5=tuple(md5), description=entry["description"],
                   citation=entry["citation"], langpairs=entry["langpairs"],
                   refs=tuple(entry.get("refs", ())))


def testset_names() -> list[str]:
    """Every test-set name, in the registry's order."""
    return list(_document()["testsets"])


def subset_annotations() -> dict[str, dict[str, str]]:
    """Test set -> document id -> ``COUNTRY-domain[-...]`` (sacreBLEU's SUBSETS)."""
    return _document()["subsets"]
