"""Idle and slow connections do not lock users out of ``truebleu serve`` (issue 26, item 5).

Sixteen sockets that sent half a request header and then waited kept every legitimate request
waiting until they timed out: the 10 s limit was per read, and the 16-connection cap counted
idle sockets. Now each request has one deadline for its headers and body, counted from the
moment its connection is accepted; a request is handed to a handler only once it has arrived,
so sockets that are still sending hold no handler; and when the cap on open connections is
reached, the connection that has been sending for the longest is dropped first.

The server runs in its own process. The bounds come from what is measured: a legitimate
round (the page, the data, a paired test) is timed on the idle server first, and must then
take at most 20 times that (at least 2 s) while 64 slow sockets are held, far below the
deadline (60 s here), so that no slow socket can have made room by timing out.
"""

from __future__ import annotations

import socket
import time

import pytest
from serve_helpers import ServerProcess, closed_by_peer, legitimate_round

pytest.importorskip("numpy")

SLOW_SOCKETS = 64
DEADLINE = 60.0


def half_requests(port: int, n: int) -> list[socket.socket]:
    """``n`` connections: half send half a header, half send whole headers and half a body."""
    host = f"Host: 127.0.0.1:{port}\r\n"
    half_header = ("GET /api/report HTTP/1.1\r\n" + host + "User-Agent: slo").encode()
    half_body = ("POST /api/paired HTTP/1.1\r\n" + host + "Content-Type: application/json\r\n"
                 "Content-Length: 100\r\n\r\n").encode() + b'{"a": 0, "b": 1'
    sockets = []
    for k in range(n):
        sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        sock.sendall(half_header if k % 2 == 0 else half_body)
        sockets.append(sock)
    return sockets


def baseline(port: int) -> float:
    legitimate_round(port)   # warm-up: NumPy, the first paired test
    return max(legitimate_round(port) for _ in range(3))


@pytest.mark.parametrize("cap, open_files", [(None, None), (16, None), (None, 64)],
                         ids=["default-cap", "cap-16", "64-file-descriptors"])
def test_legitimate_requests_are_served_while_64_slow_sockets_are_held(cap, open_files):
    """With the default cap (256), a cap of 16, and a process allowed 64 open files in all
    (the slow sockets exhaust them before the cap: accepting fails, and must make room too)."""
    options = {"request_timeout": DEADLINE}
    if cap is not None:
        options["max_open_connections"] = cap
    if open_files is not None:
        options["open_files"] = open_files
    with ServerProcess(**options) as port:
        bound = max(2.0, 20 * baseline(port))
        assert bound < DEADLINE / 2
        slow = half_requests(port, SLOW_SOCKETS)
        try:
            time.sleep(0.5)   # the server has accepted them, and they are still sending
            for _ in range(3):
                took = legitimate_round(port, timeout=bound)
                assert took < bound, f"a legitimate request took {took:.2f} s (bound {bound:.2f} s)"
            dropped = sum(closed_by_peer(sock) for sock in slow)
            if open_files is not None:
                assert dropped > 0, "no slow socket made room, yet the process ran out of files"
            elif cap is None:
                assert dropped == 0, "a slow socket was dropped although the cap was not reached"
            else:
                # the cap holds: at most `cap` connections open, the slowest ones dropped first
                assert dropped >= SLOW_SOCKETS - cap
        finally:
            for sock in slow:
                sock.close()


@pytest.mark.parametrize("part", ["headers", "body"])
def test_a_trickling_client_is_dropped_at_the_deadline(part):
    """One byte every tenth of the deadline never hits a per-read timeout; the deadline is overall."""
    deadline = 2.0
    with ServerProcess(request_timeout=deadline) as port:
        slack = max(1.5, 10 * baseline(port))
        head = f"POST /api/paired HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n".encode()
        if part == "body":
            head += b"Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n"
        sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        started = time.monotonic()
        try:
            sock.sendall(head)
            closed_after = None
            while time.monotonic() - started < 3 * deadline + slack:
                try:
                    sock.sendall(b"x")
                except (BrokenPipeError, ConnectionResetError):
                    closed_after = time.monotonic() - started
                    break
                time.sleep(deadline / 10)
                if closed_by_peer(sock):
                    closed_after = time.monotonic() - started
                    break
        finally:
            sock.close()
        assert closed_after is not None, f"a client trickling its {part} was never dropped"
        assert deadline - 0.05 <= closed_after <= deadline + slack, closed_after
