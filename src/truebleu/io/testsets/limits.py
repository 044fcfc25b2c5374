"""How long a download may take and how much it may write: the cache's limits, in one place.

A test set comes from a server truebleu does not control, so every download is
bounded: in time as a whole (not per read: a server that trickles a byte every
few seconds never trips a per-read timeout), in bytes received, and, for an
archive, in bytes and members unpacked (a 1 MB archive can unpack to 1 GiB).

sacreBLEU's registry gives an md5 checksum for each file but not its size, so the
size limit is a ceiling that holds every archive of the registry (the largest,
the WMT system-output repositories, are a few hundred MB). The defaults can be
changed with environment variables, read at each download:

- ``TRUEBLEU_DOWNLOAD_TIMEOUT``: seconds for one download, from the request to
  the last byte (default 1800);
- ``TRUEBLEU_DOWNLOAD_MAX_BYTES``: bytes one download may hold (default 1 GiB);
- ``TRUEBLEU_UNPACK_MAX_BYTES``: bytes one archive may unpack to (default: 100
  times the archive's size, at least 64 MiB).

An archive may also hold at most 100,000 members.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, replace
from typing import Optional

from .errors import DownloadError

__all__ = ["DownloadLimits"]


@dataclass(frozen=True)
class DownloadLimits:
    """The bounds of one download and of unpacking it."""

    seconds: float = 1800.0             #: the whole download, request to last byte
    read_timeout: float = 60.0          #: one read (the deadline cuts a slow one short)
    max_bytes: int = 1 << 30            #: bytes received
    unpack_ratio: int = 100             #: an archive unpacks to this many times its size...
    unpack_floor: int = 64 << 20        #: ... or this many bytes, whichever is more
    unpack_max_bytes: Optional[int] = None  #: a fixed limit instead of ratio and floor
    max_members: int = 100_000          #: members of one archive

    def unpack_limit(self, archive_bytes: int) -> int:
        """Bytes an archive of ``archive_bytes`` may unpack to (headers included, for tar)."""
        if self.unpack_max_bytes is not None:
            return self.unpack_max_bytes
        return max(self.unpack_ratio * archive_bytes, self.unpack_floor)

    @property
    def lock_wait(self) -> float:
        """How long a process waits for another one downloading the same file."""
        return 2 * self.seconds + 60

    @classmethod
    def from_environment(cls) -> DownloadLimits:
        """The defaults, changed by ``TRUEBLEU_DOWNLOAD_TIMEOUT``, ``..._MAX_BYTES`` and
        ``TRUEBLEU_UNPACK_MAX_BYTES``."""
        limits = cls()
        seconds = _read("TRUEBLEU_DOWNLOAD_TIMEOUT", "a number of seconds")
        if seconds is not None:
            limits = replace(limits, seconds=seconds)
        max_bytes = _read("TRUEBLEU_DOWNLOAD_MAX_BYTES", "whole number of bytes")
        if max_bytes is not None:
            limits = replace(limits, max_bytes=int(max_bytes))
        unpack = _read("TRUEBLEU_UNPACK_MAX_BYTES", "whole number of bytes")
        if unpack is not None:
            limits = replace(limits, unpack_max_bytes=int(unpack))
        return limits


def _read(name: str, what: str) -> Optional[float]:
    """A positive number from the environment (a whole one where ``what`` says so)."""
    text = os.environ.get(name)
    if text is None or text.strip() == "":
        return None
    try:
        value = int(text) if "whole" in what else float(text)
    except ValueError:
        value = None
    if value is None or not 0 < value < float("inf"):
        raise DownloadError(f"{name} must be a positive {what}, not {text!r}")
    return value
