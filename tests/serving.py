"""A ``truebleu serve`` server running in a thread, for the viewer's tests.

Use it from a test module with::

    from serving import running_server

    @pytest.fixture(scope="module")
    def server(report):
        with running_server(report, request_timeout=2.0) as srv:
            yield srv

The server listens on a free loopback port (``srv.port``); leaving the block
shuts it down, closes its socket and waits for its thread, so no test leaves a
server behind to answer the next one.

Requests go through a raw HTTP client (:func:`request`, :func:`raw_request`): sockets, so
that a test can send what ``http.client`` would refuse or rewrite (NUL, spaces, absolute
URLs, missing or doubled Host headers).
"""

from __future__ import annotations

import json
import socket
import subprocess
import threading
from contextlib import contextmanager
from typing import Any, Iterator

from truebleu.viewer.server import make_server


@contextmanager
def running_server(report: Any, **options: Any) -> Iterator[Any]:
    """``make_server(report, "127.0.0.1", 0, **options)``, serving until the block ends."""
    srv = make_server(report, "127.0.0.1", 0, **options)
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    try:
        yield srv
    finally:
        srv.shutdown()
        srv.server_close()
        thread.join(5)


def end_server_process(process: "subprocess.Popen[str]") -> None:
    """Ends a server run in a subprocess (the tests that measure it, or run it as a user would):
    SIGTERM, then SIGKILL if it has not ended within 10 s, so no test leaves one behind."""
    process.terminate()
    try:
        process.wait(10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(10)


class Response:
    """An HTTP answer as the server sent it: status, headers (lower-case names), body."""

    def __init__(self, raw: bytes) -> None:
        head, _, self.body = raw.partition(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        self.status = int(lines[0].split()[1]) if lines and len(lines[0].split()) > 1 else 0
        self.headers: dict[str, str] = {}
        for line in lines[1:]:
            key, _, value = line.partition(":")
            self.headers.setdefault(key.strip().lower(), value.strip())

    @property
    def text(self) -> str:
        return self.body.decode("utf-8", "replace")


def raw_request(port: int, data: bytes, timeout: float = 10.0) -> Response:
    """Send ``data``; read until the connection closes or the announced body is complete.

    A server may refuse a request before reading all of its body, so a failed
    send is not an error: the answer is read all the same.
    """
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as sock:
        try:
            sock.sendall(data)
        except (BrokenPipeError, ConnectionResetError):
            pass
        received = b""
        while True:
            try:
                chunk = sock.recv(65536)
            except ConnectionResetError:
                break
            if not chunk:
                break
            received += chunk
            head, sep, body = received.partition(b"\r\n\r\n")
            if sep:
                length = Response(head + sep).headers.get("content-length")
                if length is not None and len(body) >= int(length):
                    break
    return Response(received)


def request(server, method: str, path: str, body: bytes = b"", host: str | None = None,
            headers: dict | None = None) -> Response:
    host = f"127.0.0.1:{server.port}" if host is None else host
    lines = [f"{method} {path} HTTP/1.1", f"Host: {host}", "Connection: close"]
    if body or method == "POST":
        lines.append(f"Content-Length: {len(body)}")
    for key, value in (headers or {}).items():
        lines.append(f"{key}: {value}")
    return raw_request(server.port, ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body)


def post_json(server, obj, **kw) -> Response:
    body = obj if isinstance(obj, bytes) else json.dumps(obj).encode()
    headers = {"Content-Type": "application/json", **kw.pop("headers", {})}
    return request(server, "POST", "/api/paired", body, headers=headers, **kw)
