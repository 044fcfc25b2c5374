"""Slow readers hold no handler past their answer's deadline, and slow links still get the page.

An answer used to be written with the socket's timeout, ``request_timeout``, which ``sendall``
counts over the whole call: a page of any size had to be read within that (a user of a remote
server on a 1 MB/s link lost a 10 MB page), and a reader cut off that way was closed gracefully
(the kernel went on trickling the rest of its buffer to it), with no word of it but "Request
timed out: TimeoutError('timed out')". Now an answer has one deadline, ``request_timeout`` plus
its size at ``min_answer_rate``; a slower reader is dropped (its socket reset), counted, and
logged in words, and a reader above the rate gets the whole answer however long it takes.

The server runs in its own process (the tests measure time). The limits are small so that the
tests run in seconds: 2 handlers, a 1 s request timeout, and a rate at which the page takes 4 s
more. The kernel's send buffer on loopback grows to 4 MB and would take this page (150 KB) at
once, letting the handler go; a page of megabytes overflows it, so the test server sends its
answers through a 32 KiB buffer instead, the same overflow at a size that runs in seconds (the
server's log then shows that the buffers did not take the whole page). The bounds come from
what is measured: the legitimate requests are timed on the idle server first, and the slack is
20 times that (at least 2 s); the slow readers' own pace would take more than three times the
deadline and the slack together to read the page.
"""

from __future__ import annotations

import json
import re
import socket
import subprocess
import sys
import threading
import time

import pytest

pytest.importorskip("numpy")

from serving import end_server_process  # noqa: E402

pytestmark = pytest.mark.skipif(not hasattr(socket, "TCP_INFO"),
                                reason="sees a reset through Linux's TCP_INFO")

HANDLERS = 2
REQUEST_TIMEOUT = 1.0
#: seconds the page's size adds to its answer's deadline (min_answer_rate = page bytes / this)
PAGE_SECONDS = 4.0
#: a reader's receive buffer (small, so that the server sends at the pace the reader reads),
#: and what a slow reader reads at a time, and how often
RECEIVE_BUFFER = 4096
READ_BYTES = 64
READ_EVERY = 0.05
#: the server's send buffer for answers (see above)
SEND_BUFFER = 32 * 1024

#: a report of 400 segments and 2 systems, served with make_server(**argv[1]) and quiet=False,
#: its answers sent through a send buffer of argv[1]["send_buffer"] bytes; prints the port and
#: the page's size
SERVER_SCRIPT = r"""
import json, random, socket, sys
from truebleu.viewer import report
from truebleu.viewer.server import make_server
options = json.loads(sys.argv[1])
page_seconds = options.pop("page_seconds")
send_buffer = options.pop("send_buffer")
rng = random.Random(3)
words = "the a cat dog sat on mat house big small red blue , . runs".split()
ref = [" ".join(rng.choice(words) for _ in range(rng.randint(1, 25))) for _ in range(400)]
systems = {f"s{k}": [" ".join(w if rng.random() < 0.7 else rng.choice(words) for w in r.split())
                     for r in ref] for k in range(2)}
rep = report([ref], systems, n_samples=100)
page_size = len(rep.html("serve").encode("utf-8"))
server = make_server(rep, "127.0.0.1", 0, quiet=False, min_answer_rate=page_size / page_seconds,
                     **options)
assert len(server.page) == page_size
answer_writer = server.answer_writer
def through_a_small_send_buffer(request):
    request.sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, send_buffer)
    return answer_writer(request)
server.answer_writer = through_a_small_send_buffer
print(server.port, page_size, flush=True)
server.serve_forever()
"""

PAIRED = json.dumps({"a": 0, "b": 1, "segments": list(range(0, 400, 2)), "n_samples": 100,
                     "seed": 1}).encode()


class ServedReport:
    """``with ServedReport() as server:`` the report served in its own process (``server.port``,
    ``server.page_size``; ``server.log``, what it wrote to stderr, once the block has ended)."""

    def __enter__(self) -> "ServedReport":
        options = {"request_timeout": REQUEST_TIMEOUT, "max_connections": HANDLERS,
                   "page_seconds": PAGE_SECONDS, "send_buffer": SEND_BUFFER}
        self.process = subprocess.Popen([sys.executable, "-c", SERVER_SCRIPT, json.dumps(options)],
                                        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        line = self.process.stdout.readline().split()
        if len(line) != 2:
            self.process.kill()
            raise RuntimeError("the server did not start: " + self.process.stderr.read())
        self.port, self.page_size = map(int, line)
        #: bytes per second below which an answer's reader is dropped
        self.min_answer_rate = self.page_size / PAGE_SECONDS
        legitimate_requests(self.port)                     # warm-up: NumPy, the first paired test
        #: time allowed beyond a deadline: 20 times the slowest legitimate request, at least 2 s
        self.slack = max(2.0, 20 * max(legitimate_requests(self.port) for _ in range(3)))
        return self

    def __exit__(self, *exc: object) -> None:
        end_server_process(self.process)
        self.log = self.process.stderr.read()


def http(port: int, method: str, path: str, body: bytes = b"", timeout: float = 10.0) -> tuple[int, bytes]:
    """One request on a new connection: the status and the body, read until the server closes."""
    lines = [f"{method} {path} HTTP/1.1", f"Host: 127.0.0.1:{port}", "Connection: close"]
    if method == "POST":
        lines += ["Content-Type: application/json", f"Content-Length: {len(body)}"]
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as sock:
        sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body)
        received = b""
        while chunk := sock.recv(65536):
            received += chunk
    head, _, answer = received.partition(b"\r\n\r\n")
    return int(head.split()[1]), answer


def legitimate_requests(port: int, timeout: float = 10.0) -> float:
    """The data and a paired test, as the page asks for them: the slower answer's seconds."""
    slowest = 0.0
    for method, path, body in (("GET", "/api/report", b""), ("POST", "/api/paired", PAIRED)):
        started = time.monotonic()
        status, answer = http(port, method, path, body, timeout=timeout)
        assert status == 200, (path, status, answer[:200])
        slowest = max(slowest, time.monotonic() - started)
    return slowest


def page_request(port: int) -> socket.socket:
    """A connection with a small receive buffer that has asked for the page."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, RECEIVE_BUFFER)
    sock.settimeout(10)
    sock.connect(("127.0.0.1", port))
    sock.sendall(f"GET / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n".encode())
    return sock


#: Linux's state of a TCP connection that has been reset (``tcp_states.h``)
TCP_CLOSE = 7


def reset(sock: socket.socket) -> bool:
    """True once the server has reset the connection, even while unread bytes wait before it."""
    return sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 1)[0] == TCP_CLOSE


class SlowReader(threading.Thread):
    """Asks for the page, then reads a few bytes now and then until the server closes the
    connection; ``closed_after`` is when, in seconds from the request (a reset is seen at
    once, not after the bytes received before it)."""

    def __init__(self, port: int, give_up_after: float) -> None:
        super().__init__(daemon=True)
        self.port = port
        self.give_up_after = give_up_after
        self.answering = threading.Event()      # the first bytes came: a handler is writing
        self.received = 0
        self.closed_after: float | None = None

    def run(self) -> None:
        started = time.monotonic()
        try:
            with page_request(self.port) as sock:
                while time.monotonic() - started < self.give_up_after:
                    try:
                        chunk = sock.recv(READ_BYTES)
                    except ConnectionResetError:
                        chunk = b""
                    if not chunk or reset(sock):
                        self.closed_after = time.monotonic() - started
                        return
                    self.received += len(chunk)
                    self.answering.set()
                    time.sleep(READ_EVERY)
        finally:
            self.answering.set()


def test_slow_readers_are_dropped_at_the_answers_deadline_and_hold_no_one_back():
    with ServedReport() as server:
        deadline = REQUEST_TIMEOUT + PAGE_SECONDS          # of an answer of the page, at least
        slack = server.slack
        pace = READ_BYTES / READ_EVERY                     # bytes per second a slow reader reads
        assert server.page_size / pace > 3 * (deadline + slack), "slow readers would read the page in time"
        readers = [SlowReader(server.port, give_up_after=3 * (deadline + slack)) for _ in range(HANDLERS)]
        for reader in readers:
            reader.start()
        for reader in readers:
            assert reader.answering.wait(slack), "a slow reader got no answer"
        # every handler is writing the page to a slow reader: the legitimate requests wait for
        # the first one to be dropped at its deadline, not for the page to be read at its pace
        took = legitimate_requests(server.port, timeout=deadline + slack)
        assert took < deadline + slack, f"the legitimate requests took {took:.2f} s"
        for reader in readers:
            reader.join(3 * (deadline + slack) + 10)
            assert reader.closed_after is not None, "a slow reader was never dropped"
            assert deadline - 0.05 <= reader.closed_after <= deadline + slack, reader.closed_after
            assert reader.received < server.page_size
    # what a user running `truebleu serve` sees: the drop, in words, once per slow reader
    drops = re.findall(r"^127\.0\.0\.1 - - \[[^]]+\] dropped the connection: the client read its answer "
                       r"too slowly \(([\d,]+) of ([\d,]+) bytes sent in [\d.]+ s; an answer must be read "
                       r"within 1 s plus 1 s per [\d.]+ KiB\)$", server.log, re.MULTILINE)
    assert len(drops) == HANDLERS, server.log
    for sent, total in drops:
        # the kernel's buffers did not take the whole page: the reader held a handler until dropped
        assert int(sent.replace(",", "")) < server.page_size < int(total.replace(",", "")), (sent, total)


def test_a_reader_on_a_slow_link_gets_the_whole_page_however_long_it_takes():
    """A reader at twice the rate the server waits for needs longer than ``request_timeout``
    for the page (the old limit of a whole answer), and well within its deadline."""
    with ServedReport() as server:
        rate = 2 * server.min_answer_rate
        started = time.monotonic()
        received = b""
        with page_request(server.port) as sock:
            while chunk := sock.recv(RECEIVE_BUFFER):
                received += chunk
                ahead = len(received) / rate - (time.monotonic() - started)
                if ahead > 0:
                    time.sleep(ahead)
        took = time.monotonic() - started
    head, _, page = received.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.0 200 ") and len(page) == server.page_size, (head[:80], len(page))
    assert took > REQUEST_TIMEOUT, f"the page took {took:.2f} s: this link was not slow"
    assert "dropped" not in server.log, server.log
