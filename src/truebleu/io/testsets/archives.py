"""Unpacking a downloaded archive into the cache: only what stays inside, within limits.

``tarfile.extractall`` without the ``data`` filter (Python 3.10 before 3.10.12,
and any caller that forgets it) writes ``../x``, ``/etc/x`` and through links
that point outside; ``zipfile`` cleans names up silently; neither bounds what
an archive unpacks to. Here every archive is checked whole before anything is
written, on every Python, and then unpacked member by member through the one
writer (:func:`truebleu.io.output.output_file`):

- a member whose name is absolute (``/x``, ``C:x``, ``\\\\x``), holds ``..`` or a
  NUL, or a link (symbolic or hard) whose target leaves the folder, is refused,
  and so is the whole archive (nothing is written);
- devices, FIFOs and other special members are refused;
- a link that stays inside is written as a copy of the member it points to
  (tar; as ``tarfile`` reads it), and a zip's symbolic link as a file holding
  its target, as ``zipfile.extractall`` (and so sacreBLEU) writes it: no link
  is ever created, so no member can be written through one. A path that leads
  out of the folder through a link already on disk is refused at write time;
- the members and the bytes they unpack to are bounded (:class:`.DownloadLimits`:
  at most 100,000 members; bytes at most 100 times the archive's size, at least
  64 MiB), counted as the bytes are produced: for tar the whole decompressed
  stream, headers included, so that a huge header cannot fill memory either.

Each member is written whole or not at all (without an ``fsync`` each: thousands
of members would take minutes; one ``sync`` follows the last); an archive refused
before unpacking leaves nothing behind.
"""

from __future__ import annotations

import ntpath
import os
import posixpath
import stat
from typing import IO, Any, Optional

from ..output import output_file, sync_all
from .errors import DownloadError
from .limits import DownloadLimits

__all__ = ["extract_archive"]

_CHUNK = 1 << 16
#: A zip's symbolic link is a file holding the target: longer than this is not a path.
_LINK_TEXT = 4096


class _Budget:
    """The bytes an archive may still unpack to."""

    def __init__(self, limit: int, label: str) -> None:
        self.limit, self.label, self.used = limit, label, 0

    def check(self, total: int) -> None:
        if total > self.limit:
            raise DownloadError(
                f"cannot unpack {self.label}: it unpacks to more than {self.limit:,} bytes "
                "(the limit: 100 times the archive's size, at least 64 MiB; set "
                "TRUEBLEU_UNPACK_MAX_BYTES to change it)")

    def spend(self, n: int) -> None:
        self.used += n
        self.check(self.used)


class _CappedStream:
    """A decompressed stream that refuses to be read past the budget (tar's whole stream)."""

    def __init__(self, raw: IO[bytes], budget: _Budget) -> None:
        self._raw, self._budget = raw, budget
        self.name = getattr(raw, "name", None)

    def read(self, size: Optional[int] = -1) -> bytes:
        room = self._budget.limit + 1 - self._raw.tell()
        data = self._raw.read(room if size is None or size < 0 else min(size, max(room, 0)))
        self._budget.check(self._raw.tell())
        return data

    def seek(self, offset: int, whence: int = os.SEEK_SET) -> int:
        position = self._raw.seek(offset, whence)
        self._budget.check(position)
        return position

    def tell(self) -> int:
        return self._raw.tell()


def _escapes(label: str, name: str, why: str) -> DownloadError:
    return DownloadError(f"cannot unpack {label}: member {name!r} {why}; the archive is refused")


def _relative_parts(label: str, name: str) -> list[str]:
    """The path components of a member name, refusing any that could leave the folder."""
    pieces = name.replace("\\", "/").split("/")
    if (not name or "\x00" in name or name.startswith(("/", "\\")) or ntpath.splitdrive(name)[0]
            or ".." in pieces):
        raise _escapes(label, name, "is outside the archive's folder (absolute, '..' or a drive)")
    return [piece for piece in name.split("/") if piece not in ("", ".")]


def _check_link(label: str, name: str, target: str, relative_to_member: bool) -> None:
    """A link's target must stay inside: absolute or climbing out is refused."""
    if (not target or "\x00" in target or target.startswith(("/", "\\"))
            or ntpath.splitdrive(target)[0]):
        raise _escapes(label, name, f"links to {target!r}, outside the archive's folder")
    base = posixpath.dirname(name) if relative_to_member else ""
    resolved = posixpath.normpath(posixpath.join(base, target.replace("\\", "/")))
    if resolved == ".." or resolved.startswith("../"):
        raise _escapes(label, name, f"links to {target!r}, outside the archive's folder")


class _Destination:
    """Where members go: paths under ``dest``, checked against links on disk at write time."""

    def __init__(self, dest: str, label: str) -> None:
        os.makedirs(dest, exist_ok=True)
        self.dest, self.label = dest, label
        self.real = os.path.realpath(dest)

    def path(self, name: str) -> str:
        parts = _relative_parts(self.label, name)
        path = os.path.join(self.dest, *parts)
        real = os.path.realpath(path)
        if real != self.real and not real.startswith(self.real.rstrip(os.sep) + os.sep):
            raise _escapes(self.label, name, "leads outside the archive's folder through a "
                                             "link on disk")
        return path

    def directory(self, name: str) -> None:
        os.makedirs(self.path(name), exist_ok=True)

    def file(self, name: str, source: IO[bytes], budget: _Budget) -> None:
        path = self.path(name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with output_file(path, durable=False) as out:  # synced together at the end
            for block in iter(lambda: source.read(_CHUNK), b""):
                budget.spend(len(block))
                out.write(block)


def extract_archive(archive: str, dest: str, name_hint: Optional[str] = None,
                    limits: Optional[DownloadLimits] = None, label: Optional[str] = None) -> None:
    """Unpack a .tar.gz/.tgz/.zip (by ``name_hint``'s extension) into ``dest``; others: nothing.

    ``label`` names the archive in errors (default: its path). Raises
    :class:`DownloadError` for an archive that is corrupt, escapes ``dest`` or
    breaks the limits.
    """
    import tarfile
    import zipfile
    import zlib

    name_hint = archive if name_hint is None else name_hint
    label = archive if label is None else label
    limits = DownloadLimits.from_environment() if limits is None else limits
    budget = _Budget(limits.unpack_limit(os.path.getsize(archive)), label)
    try:
        if name_hint.endswith((".tar.gz", ".tgz")):
            _extract_tar(archive, dest, label, limits, budget)
        elif name_hint.endswith(".zip"):
            _extract_zip(archive, dest, label, limits, budget)
        else:
            return
        sync_all()  # the members reach the disk before the download takes its name
    except (tarfile.TarError, zipfile.BadZipFile, EOFError, zlib.error) as exc:
        raise DownloadError(f"cannot unpack {label}: {exc}") from None
    except OSError as exc:  # a corrupt gzip stream (BadGzipFile), a read error
        raise DownloadError(f"cannot unpack {label}: {exc.strerror or exc}") from None


def _too_many(label: str, limits: DownloadLimits) -> DownloadError:
    return DownloadError(f"cannot unpack {label}: more than {limits.max_members:,} members "
                         "(the limit)")


def _extract_tar(archive: str, dest: str, label: str, limits: DownloadLimits,
                 budget: _Budget) -> None:
    import gzip
    import tarfile

    with gzip.open(archive, "rb") as raw:
        # (tarfile reads any object with read, seek and tell)
        stream: Any = _CappedStream(raw, budget)  # type: ignore[arg-type]
        with tarfile.open(fileobj=stream, mode="r:") as tar:
            members: list[tarfile.TarInfo] = []
            declared = 0
            for member in tar:  # the whole archive is checked before anything is written
                if len(members) == limits.max_members:
                    raise _too_many(label, limits)
                _relative_parts(label, member.name)
                if member.issym():
                    _check_link(label, member.name, member.linkname, relative_to_member=True)
                elif member.islnk():
                    _check_link(label, member.name, member.linkname, relative_to_member=False)
                elif not (member.isreg() or member.isdir()):
                    raise _escapes(label, member.name, "is a device, FIFO or other special "
                                                       "file")
                if member.isreg():
                    declared += member.size
                    budget.check(declared)
                members.append(member)
            destination = _Destination(dest, label)
            written = _Budget(budget.limit, label)
            for member in members:
                if member.isdir():
                    destination.directory(member.name)
                    continue
                try:
                    source = tar.extractfile(member)  # a link: the member it points to
                except KeyError:
                    raise _escapes(label, member.name, f"links to {member.linkname!r}, which "
                                                       "the archive does not hold") from None
                if source is None:
                    raise _escapes(label, member.name, f"links to {member.linkname!r}, which "
                                                       "is not a file")
                with source:
                    destination.file(member.name, source, written)


def _extract_zip(archive: str, dest: str, label: str, limits: DownloadLimits,
                 budget: _Budget) -> None:
    import zipfile

    with zipfile.ZipFile(archive) as zipped:
        infos = zipped.infolist()
        if len(infos) > limits.max_members:
            raise _too_many(label, limits)
        budget.check(sum(info.file_size for info in infos))
        for info in infos:  # the whole archive is checked before anything is written
            _relative_parts(label, info.filename)
            if stat.S_ISLNK(info.external_attr >> 16):
                if info.file_size > _LINK_TEXT:
                    raise _escapes(label, info.filename, "is a link with a target too long")
                target = zipped.read(info).decode("utf-8", errors="replace")
                _check_link(label, info.filename, target, relative_to_member=True)
        destination = _Destination(dest, label)
        written = _Budget(budget.limit, label)
        for info in infos:
            if info.is_dir():
                destination.directory(info.filename)
                continue
            with zipped.open(info) as source:
                destination.file(info.filename, source, written)
