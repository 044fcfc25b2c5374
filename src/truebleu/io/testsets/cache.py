"""The test-set cache, laid out as sacreBLEU lays it out, and downloading into it.

Layout (``$SACREBLEU``, else ``~/.sacrebleu``)::

    <cache>/<name>/raw/<name with / as _>.<url basename>   the downloaded file
    <cache>/<name>/raw/...                                  what the archive holds
    <cache>/<name>/<name with / as _>.<pair>.<field>       one text file per field
                                                            (":" in a field as "-")

A download is skipped when its file exists and is not empty, as in sacreBLEU.
truebleu downloads to a temporary file beside the target, verifies the md5
checksum, unpacks archives (.tar.gz, .tgz, .zip) and only then renames the
download into place: an interrupted or corrupt download never leaves a file
that looks complete.
"""

from __future__ import annotations

import os
import sys

__all__ = ["DownloadError", "cache_dir", "raw_dir", "download_path", "text_path",
           "download_file", "extract_archive", "write_lines_atomically", "md5sum"]

_CHUNK = 1 << 16


class DownloadError(RuntimeError):
    """A test-set file that could not be fetched or did not verify; one line, naming the URL."""


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


class _Progress:
    """A one-line progress bar on standard error (only when it is a terminal, or when forced)."""

    def __init__(self, label: str, total: int | None, stream=None) -> None:
        self.label, self.total, self.done = label, total, 0
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = stream is not None or (hasattr(self.stream, "isatty")
                                              and self.stream.isatty())

    def update(self, n: int) -> None:
        self.done += n
        if not self.enabled:
            return
        if self.total:
            filled = int(30 * self.done / self.total)
            bar = "#" * filled + "." * (30 - filled)
            text = f"\r{self.label} [{bar}] {self.done / 2**20:.1f}/{self.total / 2**20:.1f} MiB"
        else:
            text = f"\r{self.label} {self.done / 2**20:.1f} MiB"
        self.stream.write(text)
        self.stream.flush()

    def close(self) -> None:
        if self.enabled:
            self.stream.write("\n")
            self.stream.flush()


def _fetch(url: str, target: str, progress_stream=None) -> None:
    import http.client
    import urllib.error
    import urllib.request

    try:
        with urllib.request.urlopen(url, timeout=60) as response, open(target, "wb") as out:
            length = response.headers.get("Content-Length")
            progress = _Progress(f"Downloading {os.path.basename(url)}",
                                 int(length) if length and length.isdigit() else None,
                                 progress_stream)
            try:
                for block in iter(lambda: response.read(_CHUNK), b""):
                    out.write(block)
                    progress.update(len(block))
            finally:
                progress.close()
            if length and length.isdigit() and progress.done != int(length):
                raise DownloadError(f"cannot download {url}: connection closed after "
                                    f"{progress.done} of {length} bytes")
    except urllib.error.HTTPError as exc:
        raise DownloadError(f"cannot download {url}: HTTP {exc.code} {exc.reason}") from None
    except urllib.error.URLError as exc:
        raise DownloadError(f"cannot download {url}: {exc.reason} (are you offline? a test "
                            f"set downloaded once is found in {cache_dir()})") from None
    except (OSError, ValueError, http.client.HTTPException) as exc:  # cut short, reset, bad URL
        raise DownloadError(f"cannot download {url}: {exc}") from None


def extract_archive(archive: str, dest: str, name_hint: str | None = None) -> None:
    """Unpack a .tar.gz/.tgz/.zip (by ``name_hint``'s extension) into ``dest``."""
    import tarfile
    import zipfile

    name_hint = archive if name_hint is None else name_hint
    if name_hint.endswith((".tar.gz", ".tgz")):
        with tarfile.open(archive) as tar:
            if hasattr(tarfile, "data_filter"):
                tar.extractall(dest, filter="data")
            else:  # Python < 3.10.12: no filters
                tar.extractall(dest)
    elif name_hint.endswith(".zip"):
        with zipfile.ZipFile(archive) as zipped:
            zipped.extractall(dest)


def download_file(url: str, dest: str, expected_md5: str | None = None,
                  extract_to: str | None = None, progress_stream=None) -> bool:
    """Download ``url`` to ``dest`` unless a non-empty ``dest`` exists; True if it downloaded.

    The file is fetched to a temporary name, checked against ``expected_md5``,
    unpacked into ``extract_to`` (archives only), and then renamed to ``dest``.
    """
    import tarfile
    import tempfile
    import zipfile

    if os.path.exists(dest) and os.path.getsize(dest) > 0:
        return False
    os.makedirs(os.path.dirname(dest), exist_ok=True)
    handle, partial = tempfile.mkstemp(prefix=os.path.basename(dest) + ".", suffix=".part",
                                       dir=os.path.dirname(dest))
    os.close(handle)
    try:
        _fetch(url, partial, progress_stream)
        if expected_md5 is not None:
            got = md5sum(partial)
            if got != expected_md5:
                raise DownloadError(f"cannot use {url}: md5 checksum {got} differs from the "
                                    f"expected {expected_md5} (the file may have changed upstream)")
        if extract_to is not None:
            try:
                extract_archive(partial, extract_to, dest)
            except (tarfile.TarError, zipfile.BadZipFile, EOFError, OSError) as exc:
                raise DownloadError(f"cannot unpack {url}: {exc}") from None
        os.replace(partial, dest)
    finally:
        if os.path.exists(partial):
            os.remove(partial)
    return True


def write_lines_atomically(path: str, lines) -> None:
    """Write ``lines`` (each followed by ``\\n``, UTF-8) to ``path`` via a temporary file."""
    import tempfile

    os.makedirs(os.path.dirname(path), exist_ok=True)
    handle, partial = tempfile.mkstemp(prefix=os.path.basename(path) + ".", suffix=".part",
                                       dir=os.path.dirname(path))
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="\n") as out:
            for line in lines:
                out.write(line)
                out.write("\n")
        os.replace(partial, path)
    finally:
        if os.path.exists(partial):
            os.remove(partial)
