"""sacreBLEU's module path ``sacrebleu.dataset.wmt_xml`` (thin; see :mod:`truebleu.io.wmt_xml`)."""

from __future__ import annotations

import os

from ..io.wmt_xml import read_wmt_xml, sacrebleu_fields
from .base import Dataset

__all__ = ["WMTXMLDataset"]


class WMTXMLDataset(Dataset):
    """The WMT XML format (2021 and later): one file per pair with everything in it."""

    FORMAT = "wmt-xml"

    @staticmethod
    def _unwrap_wmt21_or_later(raw_file) -> dict:
        """The fields sacreBLEU extracts from a WMT XML file (lines cleaned)."""
        return sacrebleu_fields(read_wmt_xml(raw_file))

    def _get_langpair_path(self, langpair: str) -> str:
        """The pair's raw XML file."""
        return os.path.join(self._rawdir, self._testset.raw_files(langpair)[0])

    def _get_langpair_allowed_refs(self, langpair: str) -> list[str]:
        """The scored reference fields (``ref:A``; ``ref`` for an unnamed translator)."""
        self._testset.check_langpair(langpair)
        return [f"ref:{t}" if t else "ref" for t in self._testset.scored_translators(langpair)]
