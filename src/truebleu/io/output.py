"""The one way truebleu writes a file: never over an input, never half, never through a trap.

Every file truebleu writes goes through :func:`output_file`: the report of
``truebleu report -o``, and in the test-set cache each download, each member
unpacked from an archive and each text file. A name chosen by the user or read
from an archive can point anywhere, and a crash or Ctrl-C can come at any
moment, so the writer promises:

- **Inputs are never overwritten.** A target that is one of the ``inputs`` the
  caller names (the same file by device and inode, whatever path, hard link or
  symbolic link names it) is refused before anything is written.
- **A regular file is replaced whole or not at all.** The data go to a new
  temporary file in the target's own directory, created exclusively
  (``O_CREAT | O_EXCL | O_NOFOLLOW``) under a random name, so that no file or
  link someone prepared under a guessable name (``out.html.part``) is ever
  followed or overwritten; it is flushed and ``fsync``-ed (or, for many files at
  once, synced together: ``durable=False`` and :func:`sync_all`), then renamed onto the
  target with :func:`os.replace` (atomic on POSIX and Windows). A reader sees
  the old file or the new one, never a part. On any failure (disk full,
  permission, Ctrl-C, an error of the caller inside the ``with`` block) the
  temporary file is removed and the old target is left as it was.
- **Standard output (``-``), a FIFO and a character or block device are written
  to directly**, never replaced: a rename would swap a device node (``-o
  /dev/full`` as root) or a pipe for a plain file.
- **A target that is a symbolic link is written through**: the file it points to
  is replaced and the link stays, as the shell's ``>`` and ``cp`` write through a
  link. (Refusing would break the common ``report.html -> ~/public/report.html``;
  the input check above looks at the file the link resolves to, so a link to an
  input is refused.)
- Directories and sockets are refused.

The replacement keeps the permission bits of the file it replaces; a new file
gets ``0o666`` less the umask, as ``open(path, "w")`` gives it. (Its owner is
whoever writes it: a rename cannot keep another user's ownership.)
"""

from __future__ import annotations

import os
import secrets
import stat
import sys
from contextlib import contextmanager
from typing import IO, Iterable, Iterator, Optional, Union

from .errors import OutputError

__all__ = ["OutputFile", "output_file", "write_output_file", "sync_all"]

PathName = Union[str, "os.PathLike[str]"]

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)   # (absent on Windows, where O_EXCL suffices)
_BINARY = getattr(os, "O_BINARY", 0)       # (Windows only)
#: Temporary names: a dot, the target's name (cut short), a random part. 64 random bits:
#: no other process can guess the name to plant a link or a file under it.
_NAME_LENGTH = 100


class OutputFile:
    """What :func:`output_file` yields: a binary file to :meth:`write` to.

    :attr:`temporary` is the path of the file being written (None when the target
    is written directly: standard output, a FIFO, a device); after :meth:`flush`
    it holds every byte written so far, for a caller that reads it back (the
    test-set cache unpacks a download before it takes the download's name).
    """

    def __init__(self, target: str, handle: IO[bytes], temporary: Optional[str]) -> None:
        self.target = target
        self.temporary = temporary
        self.written = 0
        self._handle = handle

    def write(self, data: bytes) -> int:
        try:
            self._handle.write(data)
        except OSError as exc:
            raise _failed(self.target, exc) from exc
        self.written += len(data)
        return len(data)

    def flush(self) -> None:
        try:
            self._handle.flush()
        except OSError as exc:
            raise _failed(self.target, exc) from exc


def _failed(target: str, exc: OSError) -> OutputError:
    return OutputError(f"cannot write {target}: {exc.strerror or exc}")


def _same_file(target_stat: os.stat_result, inputs: Iterable[PathName]) -> Optional[str]:
    """The input that is the target's file (device and inode), if any."""
    for path in inputs:
        name = os.fspath(path)
        if name == "-":
            continue
        try:
            input_stat = os.stat(name)
        except OSError:  # not there (or unreadable): it cannot be the file we would replace
            continue
        if (input_stat.st_dev, input_stat.st_ino) == (target_stat.st_dev, target_stat.st_ino):
            return name
    return None


@contextmanager
def output_file(path: PathName, *, inputs: Iterable[PathName] = (),
                durable: bool = True) -> Iterator[OutputFile]:
    """Write ``path`` as the module says: ``with output_file(p) as out: out.write(b"...")``.

    The file takes its new content when the ``with`` block ends without an
    error, and not before. ``inputs`` are the files the caller reads (paths
    that do not exist, and ``-``, are ignored): the target may not be one of them.
    Refusals and failed writes raise :class:`~truebleu.io.OutputError`, naming the file.

    ``durable=False`` leaves out the ``fsync`` of the file and of its folder, for
    a caller that writes many files and syncs them at once (:func:`sync_all`)
    before anything depends on them: the file is still replaced whole or not at
    all, but a power cut may lose it.
    """
    target = os.fspath(path)
    if target == "-":
        yield from _write_stdout(target)
        return
    resolved = os.path.realpath(target)  # a symbolic link: its file (see the module's notes)
    try:
        target_stat: Optional[os.stat_result] = os.stat(resolved)
    except FileNotFoundError:
        target_stat = None
    except OSError as exc:  # a loop of links, a path through a file, no permission
        raise _failed(target, exc) from None
    if target_stat is not None:
        clash = _same_file(target_stat, inputs)
        if clash is not None:
            same = "" if clash == target else f" (the same file as {clash})"
            raise OutputError(f"refusing to write {target}: it is an input{same}; "
                              "choose another output file")
        mode = target_stat.st_mode
        if stat.S_ISFIFO(mode) or stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
            yield from _write_special(target, resolved)
            return
        if stat.S_ISDIR(mode):
            raise OutputError(f"cannot write {target}: it is a directory")
        if not stat.S_ISREG(mode):
            raise OutputError(f"cannot write {target}: it is not a regular file, a FIFO "
                              "or a device")
    yield from _replace(target, resolved, target_stat, durable)


def sync_all() -> None:
    """Flush every file written so far to disk (after ``durable=False`` writes).

    One ``sync()`` costs far less than an ``fsync`` per file when there are thousands
    (an archive's members). Where the system has no ``sync`` (Windows), nothing.
    """
    sync = getattr(os, "sync", None)
    if sync is not None:
        sync()


def write_output_file(path: PathName, data: bytes, *, inputs: Iterable[PathName] = ()) -> None:
    """Write ``data`` to ``path`` with :func:`output_file`."""
    with output_file(path, inputs=inputs) as out:
        out.write(data)


def _replace(target: str, resolved: str, old: Optional[os.stat_result],
             durable: bool) -> Iterator[OutputFile]:
    directory = os.path.dirname(resolved) or os.curdir
    fd, temporary = _create_temporary(target, directory, os.path.basename(resolved))
    committed = False
    handle = os.fdopen(fd, "wb")
    try:
        if old is not None:
            _chmod(fd, temporary, stat.S_IMODE(old.st_mode))
        yield OutputFile(target, handle, temporary)
        try:
            handle.flush()
            if durable:
                os.fsync(handle.fileno())
            handle.close()
            os.replace(temporary, resolved)
        except OSError as exc:
            raise _failed(target, exc) from exc
        committed = True
        if durable:
            _sync_directory(directory)
    finally:
        if not handle.closed:
            try:
                handle.close()
            except OSError:  # the data are thrown away: a failed flush does not matter
                pass
        if not committed:
            try:
                os.unlink(temporary)
            except FileNotFoundError:
                pass


def _create_temporary(target: str, directory: str, base: str) -> tuple[int, str]:
    """A new file beside the target, opened exclusively under a random name."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _BINARY
    prefix = f".{base[:_NAME_LENGTH]}."
    for _ in range(100):
        temporary = os.path.join(directory, f"{prefix}{secrets.token_hex(8)}.part")
        try:
            return os.open(temporary, flags, 0o666), temporary
        except FileExistsError:
            continue
        except OSError as exc:
            raise _failed(target, exc) from None
    raise OutputError(f"cannot write {target}: no free temporary name in {directory}")


def _chmod(fd: int, path: str, mode: int) -> None:
    try:
        if os.chmod in os.supports_fd:
            os.chmod(fd, mode)
        else:  # pragma: no cover - Windows
            os.chmod(path, mode)
    except OSError:  # pragma: no cover - our own new file: only odd filesystems refuse
        pass


def _sync_directory(directory: str) -> None:
    """Make the rename itself durable (POSIX; Windows cannot open a directory)."""
    if os.name != "posix":  # pragma: no cover
        return
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:  # pragma: no cover
        return
    try:
        os.fsync(fd)
    except OSError:  # pragma: no cover - some filesystems refuse fsync on directories
        pass
    finally:
        os.close(fd)


def _write_special(target: str, resolved: str) -> Iterator[OutputFile]:
    """A FIFO or a device: opened for writing as it is (no creation, no truncation)."""
    try:
        fd = os.open(resolved, os.O_WRONLY | _BINARY)
    except OSError as exc:
        raise _failed(target, exc) from None
    mode = os.fstat(fd).st_mode
    if not (stat.S_ISFIFO(mode) or stat.S_ISCHR(mode) or stat.S_ISBLK(mode)):
        os.close(fd)  # replaced by something else since we looked: do not touch it
        raise OutputError(f"cannot write {target}: it changed while being opened")
    with os.fdopen(fd, "wb") as handle:
        yield OutputFile(target, handle, None)
        try:
            handle.flush()
        except OSError as exc:
            raise _failed(target, exc) from exc


class _TextStdout:
    """Bytes to a standard output that has no byte buffer (replaced by a text stream)."""

    def __init__(self) -> None:
        import codecs

        self._decoder = codecs.getincrementaldecoder("utf-8")()

    def write(self, data: bytes) -> int:
        sys.stdout.write(self._decoder.decode(data))
        return len(data)

    def flush(self) -> None:
        sys.stdout.write(self._decoder.decode(b"", final=True))
        sys.stdout.flush()


def _write_stdout(target: str) -> Iterator[OutputFile]:
    sys.stdout.flush()  # text printed before comes first
    buffer = getattr(sys.stdout, "buffer", None)
    handle = buffer if buffer is not None else _TextStdout()
    out = OutputFile(target, handle, None)  # type: ignore[arg-type]  # (a text stream's adapter)
    yield out
    out.flush()
