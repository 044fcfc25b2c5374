"""The test-set cache, laid out as sacreBLEU lays it out, and downloading into it.

Layout (``$SACREBLEU``, else ``~/.sacrebleu``)::

    <cache>/<name>/raw/<name with / as _>.<url basename>   the downloaded file
    <cache>/<name>/raw/<...>.lock                           its lock (sacreBLEU's name)
    <cache>/<name>/raw/...                                  what the archive holds
    <cache>/<name>/<name with / as _>.<pair>.<field>       one text file per field
                                                            (":" in a field as "-")

A download is skipped when its file exists and is not empty, as in sacreBLEU,
so the file takes its name last: truebleu downloads it (within the limits of
:mod:`.limits`) to a temporary file beside it, verifies its md5 checksum,
unpacks an archive (.tar.gz, .tgz, .zip: :mod:`.archives`), and only then
renames it into place. Processes that fetch the same file at once (parallel jobs
on a cluster) take turns under a file lock (the ``filelock`` package; sacreBLEU
locks the same file): one downloads, the others wait and then find the finished
file. Every file is written by :func:`truebleu.io.output.output_file`, whole or
not at all, so an interrupted or corrupt download never leaves a file that
looks complete, and a reader never sees a file being written.
"""

from __future__ import annotations

import os
from typing import Any, Iterable, Optional

from .errors import DownloadError

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: the command line imports this module
if TYPE_CHECKING:
    from .limits import DownloadLimits

# (the writer, the fetcher and the unpacker are imported when a file is written: scoring
# files, which imports DownloadError from here, does not pay for them)
__all__ = ["DownloadError", "cache_dir", "raw_dir", "download_path", "text_path",
           "download_file", "write_lines_atomically", "md5sum"]

_CHUNK = 1 << 16


def cache_dir() -> str:
    """sacreBLEU's cache folder: ``$SACREBLEU``, else ``~/.sacrebleu`` (read at each call)."""
    return os.environ.get("SACREBLEU", os.path.join(os.path.expanduser("~"), ".sacrebleu"))


def testset_dir(name: str) -> str:
    return os.path.join(cache_dir(), name)


def raw_dir(name: str) -> str:
    return os.path.join(testset_dir(name), "raw")


def download_path(name: str, url: str) -> str:
    """Where the file downloaded from ``url`` for test set ``name`` is kept."""
    return os.path.join(raw_dir(name), name.replace("/", "_") + "." + os.path.basename(url))


def text_path(name: str, langpair: str, field: str) -> str:
    """The processed text file of one field (``src``, ``ref:A``, ``docid``, ...)."""
    return os.path.join(testset_dir(name),
                        f"{name.replace('/', '_')}.{langpair}.{field.replace(':', '-')}")


def md5sum(path: str) -> str:
    import hashlib

    digest = hashlib.md5()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(_CHUNK), b""):
            digest.update(block)
    return digest.hexdigest()


def _complete(dest: str) -> bool:
    return os.path.exists(dest) and os.path.getsize(dest) > 0


def download_file(url: str, dest: str, expected_md5: Optional[str] = None,
                  extract_to: Optional[str] = None, progress_stream: Any = None,
                  limits: Optional[DownloadLimits] = None) -> bool:
    """Download ``url`` to ``dest`` unless a non-empty ``dest`` exists; True if it downloaded.

    Under ``dest``'s lock: the file is fetched to a temporary file, checked
    against ``expected_md5``, unpacked into ``extract_to`` (archives only), and
    then renamed to ``dest``. A process that waited for the lock finds ``dest``
    finished and returns False. ``limits`` default to
    :meth:`DownloadLimits.from_environment`.
    """
    if _complete(dest):
        return False
    from filelock import FileLock, Timeout

    from .limits import DownloadLimits

    limits = DownloadLimits.from_environment() if limits is None else limits
    os.makedirs(os.path.dirname(dest), exist_ok=True)
    lock = FileLock(dest + ".lock", timeout=limits.lock_wait)
    try:
        with lock:
            if _complete(dest):  # another process finished it while we waited
                return False
            _download_locked(url, dest, expected_md5, extract_to, progress_stream, limits)
    except Timeout:
        raise DownloadError(f"cannot download {url}: another process has held {lock.lock_file} "
                            f"for more than {limits.lock_wait:g} s") from None
    return True


def _download_locked(url: str, dest: str, expected_md5: Optional[str],
                     extract_to: Optional[str], progress_stream: Any,
                     limits: DownloadLimits) -> None:
    from ..output import output_file
    from .archives import extract_archive
    from .fetch import fetch

    hint = f"are you offline? a test set downloaded once is found in {cache_dir()}"
    with output_file(dest) as out:
        got, _ = fetch(url, out, limits, progress_stream, offline_hint=hint)
        if expected_md5 is not None and got != expected_md5:
            raise DownloadError(f"cannot use {url}: md5 checksum {got} differs from the "
                                f"expected {expected_md5} (the file may have changed upstream)")
        if extract_to is not None:
            if out.temporary is None:
                raise DownloadError(f"cannot unpack {url}: {dest} is not a regular file")
            out.flush()
            extract_archive(out.temporary, extract_to, dest, limits, label=url)


def write_lines_atomically(path: str, lines: Iterable[str]) -> None:
    """Write ``lines`` (each followed by ``\\n``, UTF-8) to ``path``, whole or not at all."""
    from ..output import output_file

    os.makedirs(os.path.dirname(path), exist_ok=True)
    with output_file(path) as out:
        for line in lines:
            out.write(line.encode("utf-8") + b"\n")
