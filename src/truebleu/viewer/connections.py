"""The local server's connections: a request is received whole, under one deadline, before any
handler thread sees it; its answer is written under a deadline too.

With a thread per connection (``socketserver``'s model), a client that sends half a request
holds a thread until a timeout that is per read, so it can renew it one byte at a time; a few
such sockets lock everyone else out. Here one thread accepts connections and reads them without
blocking (``selectors``), and hands a request to one of a fixed number of handler threads only
when its headers and the body they announce have arrived. Sockets that are still sending cost
a file descriptor and their bytes, never a handler. Three limits keep them in check:

- each connection has one deadline, from the moment it is accepted, for its whole request
  (headers and body); past it, the connection is closed;
- at most ``max_open_connections`` are open at once (received or being received, waiting for a
  handler or handled); when a new one arrives at the cap, the connection that has been sending
  for the longest is dropped to make room (idle and slow clients go first; a request that has
  arrived whole is never dropped, and when every open connection has, accepting waits);
- the bytes held for requests still arriving are bounded too (the oldest goes first).

An answer has one deadline as well, from its first byte: ``request_timeout`` plus its size at
``min_answer_rate``. A socket timeout bounds one call: around one ``sendall`` it gave a page of
any size the same few seconds (too few for megabytes over a slow link), around each ``send``
a client would renew it by reading a few bytes now and then, holding a handler for hours. Past
the deadline the connection is reset (the kernel drops what the client left unread) and the
handler is free.

Every connection dropped for being slow is counted in ``dropped`` (by reason) and described in
words to :meth:`ConnectionServer.log_drop`; clients that simply went away are neither.

How many bytes to wait for is read from the ``Content-Length`` header here, only to know when a
request has arrived; parsing and checking the request stays the handler's one job (a request
this reader cannot frame is handed over as it is, and the handler refuses it).

Standard library only.
"""

from __future__ import annotations

import io
import queue
import re
import selectors
import socket
import struct
import sys
import threading
import time
import traceback
from collections import Counter, OrderedDict
from typing import Any, Callable, Optional, TypeVar

__all__ = ["ConnectionServer", "MIN_ANSWER_RATE", "ReceivedRequest", "RequestReader", "SocketWriter",
           "TooSlow"]

#: bytes of request line and headers waited for; a longer head goes to the handler as it is
MAX_HEADER_BYTES = 128 * 1024
#: bytes read from a socket at once
_CHUNK = 64 * 1024
_HEADER_END = re.compile(rb"\r?\n\r?\n")
#: bytes per second an answer is given beyond ``request_timeout``: 512 kbit/s, below any
#: broadband or mobile data link, so a user of a remote server on a slow link still gets the
#: page (10 MB at 1 MB/s takes 10 s of the 10 + 160 s it is given); holding all 16 handlers
#: then costs a client 16 x 64 KiB/s of reading, no longer a few bytes now and then
MIN_ANSWER_RATE = 64 * 1024

#: why a connection was dropped: the keys of ``ConnectionServer.dropped``
SLOW_REQUEST = "request not received in time"
MADE_ROOM = "still sending when room was needed"
SLOW_ANSWER = "answer not read in time"

_Result = TypeVar("_Result")


class TooSlow(OSError):
    """A client did not keep to a deadline; ``reason`` is one of the reasons above, the message
    says what happened in words. (Not a ``TimeoutError``: ``http.server`` would swallow that.)"""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason


def _before(deadline: float, sock: socket.socket, call: Callable[..., _Result], *args: Any) -> _Result:
    """``call(*args)``, a blocking operation on ``sock``, given only the time left until
    ``deadline``: the one mechanism behind both deadlines (``TimeoutError`` past it)."""
    remaining = deadline - time.monotonic()
    if remaining <= 0:
        raise TimeoutError
    sock.settimeout(remaining)
    return call(*args)


class ReceivedRequest:
    """One accepted connection and what it has sent so far."""

    __slots__ = ("sock", "address", "timeout", "deadline", "data", "scanned", "end")

    def __init__(self, sock: socket.socket, address: tuple, timeout: float) -> None:
        self.sock = sock
        self.address = address
        #: seconds the whole request may take, from now
        self.timeout = timeout
        self.deadline = time.monotonic() + timeout
        self.data = bytearray()
        #: bytes searched for the end of the headers
        self.scanned = 0
        #: where the request ends (headers and announced body), once the headers have arrived
        self.end: Optional[int] = None


class RequestReader(io.RawIOBase):
    """What a handler reads: the bytes received, then the socket, never past the deadline.

    A handler reads the socket itself only for what was not waited for: a head longer than
    ``MAX_HEADER_BYTES``, or a body refused as too large (read to be thrown away).
    """

    def __init__(self, request: ReceivedRequest) -> None:
        super().__init__()
        self._received = bytes(request.data)
        self._position = 0
        self._request = request

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        if self._position < len(self._received):
            n = min(len(buffer), len(self._received) - self._position)
            buffer[:n] = self._received[self._position:self._position + n]
            self._position += n
            return n
        request = self._request
        try:
            return _before(request.deadline, request.sock, request.sock.recv_into, buffer)
        except TimeoutError:
            raise TooSlow(SLOW_REQUEST, f"its request did not arrive whole within {request.timeout:g} s") \
                from None


class SocketWriter(io.BufferedIOBase):
    """An unbuffered writer that sends everything it is given, under the answer's deadline.

    The deadline starts at the first write, ``timeout`` seconds ahead, and each write moves it
    on by its size at ``rate`` bytes per second: the whole answer has ``timeout`` plus its size
    at ``rate``, however its bytes are split into writes. A client that reads slower raises
    :class:`TooSlow`.
    """

    def __init__(self, sock: socket.socket, *, timeout: float, rate: float) -> None:
        super().__init__()
        self._sock = sock
        self._timeout = timeout
        self._rate = rate
        self._started: Optional[float] = None
        self._deadline = 0.0
        #: bytes given to write (the answer so far), and bytes the socket has taken
        self._given = 0
        self._sent = 0

    def writable(self) -> bool:
        return True

    def write(self, data) -> int:
        with memoryview(data) as view, view.cast("B") as octets:
            if self._started is None:
                self._started = time.monotonic()
                self._deadline = self._started + self._timeout
            size = len(octets)
            self._given += size
            self._deadline += size / self._rate
            written = 0
            try:
                while written < size:
                    written += _before(self._deadline, self._sock, self._sock.send, octets[written:])
            except TimeoutError:
                raise TooSlow(SLOW_ANSWER, self._too_slow(written)) from None
            finally:
                self._sent += written
            return size

    def _too_slow(self, written: int) -> str:
        took = time.monotonic() - (self._started or 0.0)
        return (f"the client read its answer too slowly ({self._sent + written:,} of {self._given:,} "
                f"bytes sent in {took:.1f} s; an answer must be read within {self._timeout:g} s plus "
                f"1 s per {self._rate / 1024:g} KiB)")


class ConnectionServer:
    """Accepts connections, receives whole requests, and calls :meth:`handle` on a bounded pool.

    ``serve_forever()`` runs the accept-and-receive loop in the calling thread (and the
    handler threads beside it) until ``shutdown()``; ``server_close()`` releases the socket.
    A subclass implements ``handle(request)``; the socket is closed after it returns.
    """

    def __init__(self, address: tuple[str, int], *, max_handlers: int, max_open_connections: int,
                 request_timeout: float, max_body: int, min_answer_rate: float = MIN_ANSWER_RATE) -> None:
        if max_handlers < 1 or max_open_connections < 1:
            raise ValueError("max_handlers and max_open_connections must be >= 1")
        if not request_timeout > 0:
            raise ValueError(f"request_timeout must be > 0 seconds, got {request_timeout!r}")
        if not min_answer_rate > 0:
            raise ValueError(f"min_answer_rate must be > 0 bytes per second, got {min_answer_rate!r}")
        self.max_handlers = max_handlers
        self.max_open_connections = max_open_connections
        self.request_timeout = request_timeout
        self.min_answer_rate = min_answer_rate
        #: connections dropped for being slow, by reason (SLOW_REQUEST, MADE_ROOM, SLOW_ANSWER)
        self.dropped: Counter[str] = Counter()
        self.max_body = max_body
        #: bytes held for requests still arriving, at most
        self.max_buffered = max(64 * 2 ** 20, 4 * (max_body + MAX_HEADER_BYTES + _CHUNK))
        family = socket.AF_INET6 if ":" in address[0] else socket.AF_INET
        self.socket = socket.create_server(address, family=family, backlog=256)
        self.socket.setblocking(False)
        self.server_address = self.socket.getsockname()
        self._wake_reader, self._wake_writer = socket.socketpair()
        self._wake_reader.setblocking(False)
        self._wake_writer.setblocking(False)
        #: connections still sending, oldest first (their deadlines come in the same order)
        self._receiving: OrderedDict[socket.socket, ReceivedRequest] = OrderedDict()
        self._buffered = 0
        self._lock = threading.Lock()
        self._handled = 0          # handed to the pool and not yet closed (under _lock)
        self._queue: queue.SimpleQueue[Optional[ReceivedRequest]] = queue.SimpleQueue()
        self._stop = False
        self._stopped = threading.Event()
        self._stopped.set()

    # -- to be provided by a subclass -----------------------------------------------------
    def handle(self, request: ReceivedRequest) -> None:
        raise NotImplementedError

    def answer_writer(self, request: ReceivedRequest) -> SocketWriter:
        """Where a handler writes its answer: the socket, under the answer's deadline."""
        return SocketWriter(request.sock, timeout=self.request_timeout, rate=self.min_answer_rate)

    def log_drop(self, address: tuple, message: str) -> None:
        """A slow connection was dropped; ``message`` says why, in words. Silent here."""

    def handle_error(self, request: ReceivedRequest) -> None:
        """A handler failed: a client that went away is routine, anything else a bug to show."""
        error = sys.exc_info()[1]
        if not isinstance(error, OSError):
            print(f"truebleu: error while answering {request.address[0]}:", file=sys.stderr)
            traceback.print_exc()

    # -- running -------------------------------------------------------------------------
    def serve_forever(self) -> None:
        self._stopped.clear()
        workers = [threading.Thread(target=self._work, name=f"truebleu-serve-{k}", daemon=True)
                   for k in range(self.max_handlers)]
        for worker in workers:
            worker.start()
        selector = selectors.DefaultSelector()
        try:
            selector.register(self._wake_reader, selectors.EVENT_READ)
            listening = False
            while not self._stop:
                accept = self._open_connections() < self.max_open_connections or bool(self._receiving)
                if accept != listening:
                    if accept:
                        selector.register(self.socket, selectors.EVENT_READ)
                    else:
                        selector.unregister(self.socket)
                    listening = accept
                for key, _ in selector.select(self._seconds_to_next_deadline()):
                    if key.fileobj is self.socket:
                        self._accept(selector)
                    elif key.fileobj is self._wake_reader:
                        self._drain_wakeups()
                    elif key.data.sock in self._receiving:   # not dropped meanwhile
                        self._receive(selector, key.data)
                self._drop_expired(selector)
        finally:
            for request in list(self._receiving.values()):
                self._drop(selector, request)
            selector.close()
            for _ in workers:
                self._queue.put(None)
            self._stop = False            # (a shutdown() that came first stops this run at once)
            self._stopped.set()

    def shutdown(self) -> None:
        """Stop ``serve_forever`` (from another thread) and wait until it has returned."""
        self._stop = True
        self._wake()
        self._stopped.wait()

    def server_close(self) -> None:
        self.socket.close()
        self._wake_reader.close()
        self._wake_writer.close()

    def __enter__(self) -> "ConnectionServer":
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.server_close()

    # -- the loop's steps ------------------------------------------------------------------
    def _open_connections(self) -> int:
        with self._lock:
            return len(self._receiving) + self._handled

    def _seconds_to_next_deadline(self) -> Optional[float]:
        if not self._receiving:
            return None
        oldest = next(iter(self._receiving.values()))
        return max(0.0, oldest.deadline - time.monotonic())

    def _accept(self, selector: selectors.BaseSelector) -> None:
        # at the cap, accept only while a connection still sending can make room
        while self._open_connections() < self.max_open_connections or self._receiving:
            try:
                sock, address = self.socket.accept()
            except (BlockingIOError, InterruptedError):
                return
            except OSError:        # e.g. out of file descriptors: make room, or let the queue wait
                if self._receiving:
                    self._drop(selector, next(iter(self._receiving.values())), MADE_ROOM,
                               "the server ran out of file descriptors")
                else:
                    time.sleep(0.05)   # (the listening socket stays readable: do not spin)
                return
            sock.setblocking(False)
            request = ReceivedRequest(sock, address, self.request_timeout)
            self._receiving[sock] = request
            selector.register(sock, selectors.EVENT_READ, request)
            # read at once what has come: in a burst, a request that has arrived whole is then
            # handed over before the cap could drop it as one still sending
            self._receive(selector, request)
            while self._open_connections() > self.max_open_connections and self._receiving:
                self._drop(selector, next(iter(self._receiving.values())), MADE_ROOM,
                           f"{self.max_open_connections} connections were open")

    def _receive(self, selector: selectors.BaseSelector, request: ReceivedRequest) -> None:
        try:
            chunk = request.sock.recv(_CHUNK)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            self._drop(selector, request)
            return
        if not chunk:                   # the client stopped sending: the handler answers what came
            if request.data:
                self._hand_over(selector, request)
            else:
                self._drop(selector, request)
            return
        request.data += chunk
        self._buffered += len(chunk)
        if self._arrived(request):
            self._hand_over(selector, request)
            return
        while self._buffered > self.max_buffered:
            oldest = next(iter(self._receiving.values()))
            if oldest is request:
                break
            self._drop(selector, oldest, MADE_ROOM,
                       f"the requests still arriving held more than {self.max_buffered:,} bytes")

    def _arrived(self, request: ReceivedRequest) -> bool:
        """True once the headers and the body they announce are here (or the head is too long)."""
        data = request.data
        if request.end is None:
            match = _HEADER_END.search(data, max(0, request.scanned - 3))
            if match is None:
                request.scanned = len(data)
                return len(data) > MAX_HEADER_BYTES
            request.end = match.end() + self._announced_body(bytes(data[:match.start()]))
        return len(data) >= request.end

    def _announced_body(self, head: bytes) -> int:
        """The body to wait for: one plain ``Content-Length`` up to ``max_body``, else none."""
        fields = (line.partition(b":") for line in head.split(b"\n")[1:])
        lengths = [value.strip() for name, _, value in fields if name.strip().lower() == b"content-length"]
        if len(lengths) == 1 and lengths[0].isdigit() and len(lengths[0]) <= 18:
            length = int(lengths[0])
            if length <= self.max_body:
                return length
        return 0

    def _hand_over(self, selector: selectors.BaseSelector, request: ReceivedRequest) -> None:
        selector.unregister(request.sock)
        del self._receiving[request.sock]
        self._buffered -= len(request.data)
        with self._lock:
            self._handled += 1
        self._queue.put(request)

    def _drop(self, selector: selectors.BaseSelector, request: ReceivedRequest,
              reason: Optional[str] = None, why: str = "") -> None:
        """Close a connection still sending; a slow one (``reason``) is counted and logged."""
        selector.unregister(request.sock)
        del self._receiving[request.sock]
        self._buffered -= len(request.data)
        request.sock.close()
        if reason == MADE_ROOM:
            self._count_drop(request, reason, f"it was still sending its request when room was "
                                              f"needed ({why})")
        elif reason is not None:
            self._count_drop(request, reason, why)

    def _drop_expired(self, selector: selectors.BaseSelector) -> None:
        now = time.monotonic()
        while self._receiving:
            oldest = next(iter(self._receiving.values()))
            if oldest.deadline > now:
                return
            self._drop(selector, oldest, SLOW_REQUEST,
                       f"its request did not arrive whole within {oldest.timeout:g} s")

    def _count_drop(self, request: ReceivedRequest, reason: str, why: str) -> None:
        with self._lock:
            self.dropped[reason] += 1
        self.log_drop(request.address, f"dropped the connection: {why}")

    # -- the handler threads -------------------------------------------------------------
    def _work(self) -> None:
        while True:
            request = self._queue.get()
            if request is None:
                return
            try:
                self.handle(request)
            except TooSlow as slow:
                _discard_unsent(request.sock)
                self._count_drop(request, slow.reason, str(slow))
            except Exception:
                self.handle_error(request)
            finally:
                try:
                    request.sock.close()
                finally:
                    with self._lock:
                        self._handled -= 1
                    self._wake()

    def _wake(self) -> None:
        try:
            self._wake_writer.send(b"\0")
        except (BlockingIOError, OSError):
            pass                        # already awake (the buffer is full), or closed

    def _drain_wakeups(self) -> None:
        try:
            while self._wake_reader.recv(4096):
                pass
        except (BlockingIOError, OSError):
            pass


def _discard_unsent(sock: socket.socket) -> None:
    """Make the coming ``close`` a reset: the bytes a slow reader left unread are thrown away,
    not kept by the kernel and trickled to it after the handler has let go."""
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    except OSError:
        pass
