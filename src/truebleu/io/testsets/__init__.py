"""Standard test sets, as sacreBLEU 2.6.0 defines them, in a cache shared with sacreBLEU.

- :mod:`.registry`: the facts (names, language pairs, URLs, checksums, formats,
  citations, document subsets), read from ``truebleu/data/testsets.json``
  (regenerate it with ``tools/gen_testsets.py``);
- :mod:`.cache`: where files live (``$SACREBLEU``, else ``~/.sacrebleu``, in
  sacreBLEU's layout) and downloading (progress bar, checksum, atomic writes);
- :mod:`.process`: raw files -> the plain-text field files sacreBLEU writes;
- :mod:`.subsets`: ``--origlang`` / ``--subset`` filtering and ``--detail``.

A test set downloaded by sacreBLEU is used offline with the same lines, and
truebleu's downloads land where sacreBLEU looks for them.
"""

from __future__ import annotations

from .cache import DownloadError, cache_dir
from .registry import TestSet, UnknownTestSet, get_testset, testset_names
from .process import (download_test_set, get_files, get_reference_files, get_source_file,
                      fieldnames, read_field)

__all__ = [
    "DownloadError", "TestSet", "UnknownTestSet", "cache_dir", "download_test_set",
    "fieldnames", "get_files", "get_reference_files", "get_source_file", "get_testset",
    "read_field", "testset_names",
]
