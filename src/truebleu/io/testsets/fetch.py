"""Fetching one URL into an output file, within an overall deadline and a size limit.

``urllib``'s ``timeout`` bounds each read of the socket, not the download: a
server that sends one byte every few seconds keeps it waiting forever. Here a
watchdog timer shuts the connection's socket down when the download's deadline
passes, whatever the download is doing then (connecting through a proxy, the
TLS handshake, the headers, the body), and the blocked read returns at once.
Each read is also bounded (``min(read_timeout, deadline)``), as before.

The name lookup comes before there is a socket to shut down, and
``getaddrinfo`` cannot be interrupted (a resolver that does not answer holds
it for as long as the system's resolver allows, several times its own
timeout). So the host name is resolved in a thread of its own, waited for
until the deadline, and the connection is made to the addresses it gave (TLS
still checks the certificate against the host name, and the ``Host`` header
still names it).

The body is counted as it arrives: a ``Content-Length`` over the limit is
refused before the body is read, and a body that grows past it (no length, or a
false one) is cut there. The md5 checksum is computed on the way, so the caller
can verify the file before it takes its name.
"""

from __future__ import annotations

import hashlib
import os
import socket
import threading
import time
from typing import Any, Optional

from ...core.progress import Progress
from .errors import DownloadError
from .limits import DownloadLimits

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ..output import OutputFile

__all__ = ["fetch"]

_CHUNK = 1 << 16


class _Deadline:
    """Shuts down every connection it watches when the time is up.

    It keeps a duplicate of each socket's descriptor: ``shutdown`` acts on the
    connection, whichever descriptor names it, and the original descriptor moves
    when TLS wraps the socket (the handshake, then the encrypted reads, are cut
    short too). The duplicates are closed by :meth:`cancel`.
    """

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.expired = False
        self._ends = time.monotonic() + seconds
        self._sockets: list[socket.socket] = []
        self._lock = threading.Lock()
        self._timer = threading.Timer(seconds, self._expire)
        self._timer.daemon = True
        self._timer.start()

    def watch(self, sock: socket.socket) -> None:
        try:
            copy = sock.dup()
        except OSError:  # pragma: no cover - closed already
            return
        with self._lock:
            self._sockets.append(copy)
            if not self.expired:
                return
        _shut(copy)

    def remaining(self) -> float:
        """Seconds until the deadline (0 once it has passed)."""
        return 0.0 if self.expired else max(0.0, self._ends - time.monotonic())

    def resolve(self, host: str, port: int) -> list[tuple[Any, ...]]:
        """``getaddrinfo(host, port)`` for a stream socket, given up at the deadline.

        The lookup runs in a daemon thread: when the deadline passes first, the
        thread is left to finish on its own (its answer is dropped) and the
        download ends with its deadline error.
        """
        answer: list[Any] = []

        def lookup() -> None:
            try:
                answer.append(socket.getaddrinfo(host, port, 0, socket.SOCK_STREAM))
            except OSError as exc:
                answer.append(exc)

        thread = threading.Thread(target=lookup, name="truebleu-resolve", daemon=True)
        thread.start()
        thread.join(self.remaining())
        if not answer:
            self._expire()
            raise socket.timeout(f"looking up {host} took longer than the deadline")
        found = answer[0]
        if isinstance(found, OSError):
            raise found
        addresses: list[tuple[Any, ...]] = found
        return addresses

    def _expire(self) -> None:
        with self._lock:
            self.expired = True
            sockets = list(self._sockets)
        for sock in sockets:
            _shut(sock)

    def cancel(self) -> None:
        self._timer.cancel()
        with self._lock:
            sockets, self._sockets = self._sockets, []
        for sock in sockets:
            sock.close()


def _shut(sock: socket.socket) -> None:
    try:
        sock.shutdown(socket.SHUT_RDWR)  # a read blocked in another thread returns now
    except OSError:
        pass


def _opener(deadline: _Deadline) -> Any:
    """``urllib``'s opener, whose HTTP(S) connections register their sockets with ``deadline``."""
    import http.client
    import ssl
    import urllib.request

    class Watched:
        """Looks the host up within the deadline, then registers the socket as soon as it is
        connected (before TLS or a proxy tunnel).

        (``_create_connection`` is how ``http.client`` opens its socket, the same from
        Python 3.10 to 3.13; it is an attribute of the connection, so a subclass wraps it.)
        """

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            create = self._create_connection  # type: ignore[has-type]  # (set by the connection)

            def create_and_watch(address: tuple[str, int], *a: Any, **k: Any) -> socket.socket:
                host, port = address
                failure: Optional[OSError] = None
                for *_, sockaddr in deadline.resolve(host, port):
                    try:  # (an address is numeric: ``create`` looks nothing up)
                        sock: socket.socket = create((sockaddr[0], port), *a, **k)
                    except OSError as exc:
                        failure = exc
                        continue
                    deadline.watch(sock)
                    return sock
                raise failure or OSError(f"no address for {host}")

            self._create_connection = create_and_watch

    class Connection(Watched, http.client.HTTPConnection):
        pass

    class SecureConnection(Watched, http.client.HTTPSConnection):
        pass

    context = ssl.create_default_context()

    class Handler(urllib.request.HTTPHandler):
        def http_open(self, req: Any) -> Any:
            return self.do_open(Connection, req)

    class SecureHandler(urllib.request.HTTPSHandler):
        def https_open(self, req: Any) -> Any:
            return self.do_open(SecureConnection, req, context=context)

    return urllib.request.build_opener(Handler(), SecureHandler(context=context))


def _too_large(url: str, size: str, limits: DownloadLimits) -> DownloadError:
    return DownloadError(f"cannot download {url}: {size} bytes, more than the limit of "
                         f"{limits.max_bytes:,} (set TRUEBLEU_DOWNLOAD_MAX_BYTES to change it)")


def fetch(url: str, out: OutputFile, limits: DownloadLimits, progress_stream: Any = None,
          offline_hint: str = "") -> tuple[str, int]:
    """Write the body of ``url`` to ``out``; its md5 checksum (hex) and its size.

    ``offline_hint`` is added to the error when the server cannot be reached.

    Raises :class:`DownloadError` (one line, naming the URL) when the server
    answers with an error, the connection fails or is cut short, the deadline
    passes, or the body is larger than ``limits.max_bytes``.
    """
    import http.client
    import urllib.error

    deadline = _Deadline(limits.seconds)
    digest = hashlib.md5()
    started = time.monotonic()
    try:
        opener = _opener(deadline)
        with opener.open(url, timeout=min(limits.read_timeout, limits.seconds)) as response:
            length = response.headers.get("Content-Length")
            declared = int(length) if length and length.isdigit() else None
            if declared is not None and declared > limits.max_bytes:
                raise _too_large(url, f"{declared:,}", limits)
            progress = Progress(declared, f"Downloading {os.path.basename(url)}", in_bytes=True,
                                stream=progress_stream,
                                enabled=True if progress_stream is not None else None)
            try:
                while not deadline.expired:
                    block = response.read1(_CHUNK)
                    if not block:
                        break
                    if progress.done + len(block) > limits.max_bytes:
                        raise _too_large(url, f"more than {progress.done:,}", limits)
                    digest.update(block)
                    out.write(block)
                    progress.update(len(block))
            finally:
                progress.close()
            if deadline.expired:
                raise _late(url, limits, progress.done)
            if declared is not None and progress.done != declared:
                raise DownloadError(f"cannot download {url}: connection closed after "
                                    f"{progress.done} of {declared} bytes")
            return digest.hexdigest(), progress.done
    except DownloadError:
        raise
    except urllib.error.HTTPError as exc:
        raise DownloadError(f"cannot download {url}: HTTP {exc.code} {exc.reason}") from None
    except (urllib.error.URLError, OSError, ValueError, http.client.HTTPException) as exc:
        if deadline.expired:
            raise _late(url, limits, None) from None
        reason = exc.reason if isinstance(exc, urllib.error.URLError) else exc
        if isinstance(exc, urllib.error.URLError) and not isinstance(reason, socket.timeout):
            hint = f" ({offline_hint})" if offline_hint else ""
            raise DownloadError(f"cannot download {url}: {reason}{hint}") from None
        spent = time.monotonic() - started
        raise DownloadError(f"cannot download {url}: {reason or type(exc).__name__} "
                            f"(after {spent:.0f} s)") from None
    finally:
        deadline.cancel()


def _late(url: str, limits: DownloadLimits, received: Optional[int]) -> DownloadError:
    got = "" if received is None else f" ({received:,} bytes received)"
    return DownloadError(f"cannot download {url}: not finished after {limits.seconds:g} s{got}, "
                         "the limit (set TRUEBLEU_DOWNLOAD_TIMEOUT to change it)")
