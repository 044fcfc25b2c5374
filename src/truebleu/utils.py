"""sacreBLEU's module path ``sacrebleu.utils``: the same public names, thin.

The test-set functions run on :mod:`truebleu.io.testsets` (same cache, same
lines); the printing functions on :mod:`truebleu.reports`. Differences: errors
are exceptions (sacreBLEU logs and calls ``sys.exit``); the cache folder is read
from ``$SACREBLEU`` at each call (``SACREBLEU_DIR`` below is its value at import,
as in sacreBLEU).
"""

from __future__ import annotations

import gzip
import logging
import math
import os
from argparse import Namespace
from typing import List, Optional, Sequence

from .io.testsets import cache as _cache
from .io.testsets import process as _process
from .io.testsets import registry as _registry
from .io.testsets import subsets as _subsets
from .reports.color import Color

__all__ = [
    "USERHOME", "SACREBLEU_DIR", "Color", "print_results_table", "print_single_results",
    "sanity_check_lengths", "smart_open", "my_log", "sum_of_lists", "args_to_dict",
    "print_test_set", "get_source_file", "get_reference_files", "get_files", "extract_tarball",
    "get_md5sum", "download_file", "download_test_set", "get_langpairs_for_testset",
    "get_available_testsets", "get_available_testsets_for_langpair", "get_available_origlangs",
    "get_available_subsets", "filter_subset", "print_subset_results",
]

logger = logging.getLogger("truebleu")

USERHOME = os.path.expanduser("~")
SACREBLEU_DIR = os.environ.get("SACREBLEU", os.path.join(USERHOME, ".sacrebleu"))


def smart_open(file, mode: str = "rt", encoding: str = "utf-8"):
    """Open a plain or ``.gz`` text file with ``\\n`` as the only line end."""
    if file.endswith(".gz"):
        return gzip.open(file, mode=mode, encoding=encoding, newline="\n")
    return open(file, mode=mode, encoding=encoding, newline="\n")


def my_log(num: float) -> float:
    """``log(num)``, floored at -9999999999 for 0 (sacreBLEU's smoothing helper)."""
    return -9999999999 if num == 0.0 else math.log(num)


def sum_of_lists(lists):
    """Element-wise sum of numeric lists, keeping the element type."""
    if len(lists) == 1:
        return lists[0]
    total = [type(lists[0][0])(0.0)] * len(lists[0])
    for values in lists:
        for i, value in enumerate(values):
            total[i] += value
    return total


def args_to_dict(args, prefix: str, strip_prefix: bool = False) -> dict:
    """The arguments named ``<prefix>_...`` of a Namespace, optionally without the prefix."""
    prefix += "_"
    return {(k.replace(prefix, "") if strip_prefix else k): v
            for k, v in vars(args).items() if k.startswith(prefix)}


def sanity_check_lengths(system: Sequence[str], refs: Sequence[Sequence[str]],
                         test_set: Optional[str] = None) -> None:
    """Raise ValueError when a reference stream's length differs from the system's."""
    if any(len(ref) != len(system) for ref in refs):
        message = "System and reference streams have different lengths."
        if test_set:
            message += (f" If the test set's cache is damaged, remove "
                        f"{os.path.join(_cache.cache_dir(), test_set)} to download it again.")
        raise ValueError(message)


def print_results_table(results: dict, signatures: dict, args: Namespace) -> None:
    """Print the multi-system table (``args``: format, width, paired_bs/ar and their _n)."""
    from .reports.table import results_table

    paired = "bs" if getattr(args, "paired_bs", False) else \
        "ar" if getattr(args, "paired_ar", False) else None
    n_samples = getattr(args, f"paired_{paired}_n", None) if paired else None
    print(results_table(dict(results), signatures, args.format, args.width, paired, n_samples))


def print_single_results(results: List[str], args: Namespace) -> None:
    """Print formatted single-system scores, aligned on ``=`` (or as JSON)."""
    from .reports.single import single_results_text

    print(single_results_text(results, args.format))


def get_source_file(test_set: str, langpair: str) -> str:
    """The source text file of a test set's pair, downloaded and processed if needed."""
    return _process.get_source_file(test_set, langpair)


def get_reference_files(test_set: str, langpair: str) -> List[str]:
    """The scored reference files of a test set's pair."""
    return _process.get_reference_files(test_set, langpair)


def get_files(test_set: str, langpair: str) -> List[str]:
    """Every field's text file of a test set's pair (source, references, metadata)."""
    return _process.get_files(test_set, langpair)


def extract_tarball(filepath: str, destdir: str) -> None:
    """Unpack a ``.tar.gz``/``.tgz``/``.zip`` archive into ``destdir`` (other files: nothing)."""
    from .io.testsets.archives import extract_archive

    extract_archive(filepath, destdir)


def get_md5sum(dest_path: str) -> str:
    return _cache.md5sum(dest_path)


def download_file(source_path: str, dest_path: str, extract_to: Optional[str] = None,
                  expected_md5: Optional[str] = None) -> None:
    """Download unless a non-empty file is there; verify, unpack, write atomically."""
    _cache.download_file(source_path, dest_path, expected_md5, extract_to)


def download_test_set(test_set: str, langpair: Optional[str] = None) -> List[str]:
    """Download and process a test set (one pair, or all); the text files."""
    return _process.download_test_set(test_set, langpair)


def get_langpairs_for_testset(testset: str) -> List[str]:
    if testset not in _registry.testset_names():
        return []
    return list(_registry.get_testset(testset).langpairs)


def get_available_testsets() -> List[str]:
    return sorted(_registry.testset_names(), reverse=True)


def get_available_testsets_for_langpair(langpair: str) -> List[str]:
    """Test sets holding the pair in either direction."""
    src, trg = langpair.split("-")[:2]
    wanted = {f"{src}-{trg}", f"{trg}-{src}"}
    return [name for name in _registry.testset_names()
            if wanted & set(_registry.get_testset(name).langpairs)]


def get_available_origlangs(test_sets: Optional[str], langpair: str) -> List[str]:
    return _subsets.available_origlangs(test_sets, langpair)


def get_available_subsets(test_sets: Optional[str], langpair: str) -> List[str]:
    return _subsets.available_subsets(test_sets, langpair)


def filter_subset(systems, test_sets, langpair, origlang, subset=None):
    """The streams restricted to documents of ``origlang`` / matching ``subset``."""
    return _subsets.filter_subset(systems, test_sets, langpair, origlang, subset)


def print_test_set(test_set: str, langpair: str, requested_fields: List[str],
                   origlang: Optional[str] = None, subset: Optional[str] = None) -> None:
    """Print fields of a test set, tab-separated, one segment per line (``--echo``)."""
    from .cli.testsets import echo_text

    text = echo_text(test_set, langpair, list(requested_fields), origlang, subset)
    if text:
        print(text)


def print_subset_results(metrics, full_system, full_refs, args) -> None:
    """Print scores per original language and subset (``-d``)."""
    from .cli.testsets import detail_text

    print(detail_text(list(metrics.values()), full_system, full_refs, args))
