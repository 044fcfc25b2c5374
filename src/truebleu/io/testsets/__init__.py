"""Standard test sets, as sacreBLEU 2.6.0 defines them, in a cache shared with sacreBLEU.

- :mod:`.registry`: the facts (names, language pairs, URLs, checksums, formats,
  citations, document subsets), read from ``truebleu/data/testsets.json``
  (regenerate it with ``tools/gen_testsets.py``);
- :mod:`.cache`: where files live (``$SACREBLEU``, else ``~/.sacrebleu``, in
  sacreBLEU's layout) and downloading into it (a file lock, checksum, atomic writes);
- :mod:`.fetch`: one URL, within a deadline and a size limit (:mod:`.limits`);
- :mod:`.archives`: unpacking, refusing members that leave the folder, within limits;
- :mod:`.process`: raw files -> the plain-text field files sacreBLEU writes;
- :mod:`.subsets`: ``--origlang`` / ``--subset`` filtering and ``--detail``.

A test set downloaded by sacreBLEU is used offline with the same lines, and
truebleu's downloads land where sacreBLEU looks for them.
"""

from __future__ import annotations

# public name -> sub-module; loaded on first use, so that the command line (which
# imports the cache's error type) does not pay for XML and JSON when it scores files
_LAZY = {
    "DownloadError": "cache", "cache_dir": "cache",
    "TestSet": "registry", "UnknownTestSet": "registry", "get_testset": "registry",
    "testset_names": "registry",
    "download_test_set": "process", "fieldnames": "process", "get_files": "process",
    "get_reference_files": "process", "get_source_file": "process", "read_field": "process",
}

__all__ = sorted(_LAZY)


def __getattr__(name: str):
    if name in _LAZY:
        from importlib import import_module

        value = getattr(import_module(f".{_LAZY[name]}", __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
