"""sacreBLEU's ``sacrebleu.dataset.base.Dataset``: one test set, thin over
:mod:`truebleu.io.testsets`.

The constructor takes the registry facts as sacreBLEU's does; the methods
download, process and list the files in sacreBLEU's cache layout with the same
lines. ``FORMAT`` names the processing (see :mod:`truebleu.io.testsets.process`).
"""

from __future__ import annotations

import os
import re
from typing import Dict, List, Optional

from ..io.testsets import cache as _cache
from ..io.testsets import process as _process
from ..io.testsets.registry import TestSet

__all__ = ["Dataset"]


class Dataset:
    """A test set: ``name``, ``data`` (URLs), ``md5``, ``description``, ``citation``,
    ``langpairs``."""

    FORMAT = "text"

    def __init__(self, name: str, data: Optional[List[str]] = None,
                 description: Optional[str] = None, citation: Optional[str] = None,
                 md5: Optional[List[Optional[str]]] = None, langpairs: Optional[Dict] = None,
                 **kwargs) -> None:
        self.name = name
        self.data = list(data or [])
        self.description = description
        self.citation = citation
        self.md5 = md5
        self.langpairs = dict(langpairs or {})
        self.kwargs = kwargs
        self._testset = TestSet(
            name=name, format=self.FORMAT, urls=tuple(self.data),
            md5=tuple(md5) if md5 else (None,) * len(self.data),
            description=description or "", citation=citation, langpairs=self.langpairs,
            refs=tuple(kwargs.get("refs", ())))

    @property
    def _outdir(self) -> str:
        return os.path.join(_cache.cache_dir(), self.name)

    @property
    def _rawdir(self) -> str:
        return _cache.raw_dir(self.name)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r})"

    @staticmethod
    def _clean(s: str) -> str:
        """Strip, and collapse whitespace runs to one space."""
        return re.sub(r"\s+", " ", s.strip())

    def _get_tarball_filename(self, url: str) -> str:
        """The downloaded file's name in the ``raw`` folder."""
        return os.path.basename(_cache.download_path(self.name, url))

    def _get_txt_file_path(self, langpair: str, fieldname: str) -> str:
        return _cache.text_path(self.name, langpair, fieldname)

    def _get_langpair_metadata(self, langpair: Optional[str]) -> Dict:
        if langpair is None:
            return self.langpairs
        self._testset.check_langpair(langpair)
        return {langpair: self.langpairs[langpair]}

    def maybe_download(self) -> None:
        """Download the raw files unless the cache holds them."""
        _process.download(self._testset)

    def process_to_text(self, langpair: Optional[str] = None) -> None:
        """Write the text files of one pair (or of all pairs)."""
        for pair in [langpair] if langpair else list(self.langpairs):
            _process.process_to_text(self._testset, pair)

    def fieldnames(self, langpair: str) -> List[str]:
        return _process.fieldnames(self._testset, langpair)

    def get_files(self, langpair: str) -> List[str]:
        return _process.get_files(self._testset, langpair)

    def get_source_file(self, langpair: str) -> str:
        return _process.get_source_file(self._testset, langpair)

    def get_reference_files(self, langpair: str) -> List[str]:
        return _process.get_reference_files(self._testset, langpair)

    def source(self, langpair: str):
        """The source lines, stripped (as sacreBLEU yields them)."""
        with open(self.get_source_file(langpair), encoding="utf-8", newline="\n") as lines:
            for line in lines:
                yield line.strip()

    def references(self, langpair: str):
        """Tuples of reference lines (newline kept, as sacreBLEU yields them)."""
        handles = [open(path, encoding="utf-8", newline="\n")
                   for path in self.get_reference_files(langpair)]
        try:
            yield from zip(*handles)
        finally:
            for handle in handles:
                handle.close()

    def __iter__(self, langpair: str):
        """Tuples of every field's line (newline kept)."""
        handles = [open(path, encoding="utf-8", newline="\n") for path in self.get_files(langpair)]
        try:
            yield from zip(*handles)
        finally:
            for handle in handles:
                handle.close()
