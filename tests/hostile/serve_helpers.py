"""Helpers of the hostile tests of ``truebleu serve``: a report server in its own process, and a
raw HTTP client (sockets, so that a test can send what ``http.client`` would refuse or fix).

The server runs in a subprocess because these tests measure time: the test process's own
threads (and its garbage collector) must not slow the server down, nor the other way round.
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time

from serving import Response, end_server_process

#: builds a small report (400 segments, 2 systems) and serves it with make_server(**argv[1]),
#: after lowering its limit of open files to argv[1]["open_files"] if given
SERVER_SCRIPT = r"""
import json, random, sys
from truebleu.viewer import report
from truebleu.viewer.server import make_server
options = json.loads(sys.argv[1])
open_files = options.pop("open_files", None)
if open_files:   # a process that runs out of file descriptors
    import resource
    resource.setrlimit(resource.RLIMIT_NOFILE, (open_files, open_files))
rng = random.Random(3)
words = "the a cat dog sat on mat house big small red blue , . runs".split()
ref = [" ".join(rng.choice(words) for _ in range(rng.randint(1, 25))) for _ in range(400)]
systems = {f"s{k}": [" ".join(w if rng.random() < 0.7 else rng.choice(words) for w in r.split())
                     for r in ref] for k in range(2)}
server = make_server(report([ref], systems, n_samples=100), "127.0.0.1", 0, **options)
print(server.port, flush=True)
server.serve_forever()
"""

PAIRED = json.dumps({"a": 0, "b": 1, "segments": list(range(0, 400, 2)), "n_samples": 100,
                     "seed": 1}).encode()


class ServerProcess:
    """``with ServerProcess(request_timeout=60) as port:`` a report server on 127.0.0.1:port."""

    def __init__(self, **options) -> None:
        self.options = options
        self.process: subprocess.Popen | None = None

    def __enter__(self) -> int:
        self.process = subprocess.Popen([sys.executable, "-c", SERVER_SCRIPT, json.dumps(self.options)],
                                        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        line = self.process.stdout.readline()
        if not line.strip().isdigit():
            self.process.kill()
            raise RuntimeError("the server did not start: " + self.process.stderr.read())
        return int(line)

    def __exit__(self, *exc) -> None:
        end_server_process(self.process)


def http(port: int, method: str, path: str, *, host: str | None = None, body: bytes = b"",
         headers: dict | None = None, timeout: float = 10.0) -> Response:
    """One request on a new connection; the answer read until the server closes it."""
    lines = [f"{method} {path} HTTP/1.1", f"Host: {host or f'127.0.0.1:{port}'}", "Connection: close"]
    if method == "POST":
        lines += ["Content-Type: application/json", f"Content-Length: {len(body)}"]
    lines += [f"{key}: {value}" for key, value in (headers or {}).items()]
    data = ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as sock:
        sock.sendall(data)
        received = b""
        while chunk := sock.recv(65536):
            received += chunk
    return Response(received)


def legitimate_round(port: int, timeout: float = 10.0) -> float:
    """What the page asks for (the page, the data, a paired test): the slowest answer's seconds."""
    slowest = 0.0
    for method, path, body in (("GET", "/", b""), ("GET", "/api/report", b""),
                               ("POST", "/api/paired", PAIRED)):
        started = time.monotonic()
        response = http(port, method, path, body=body, timeout=timeout)
        assert response.status == 200, (path, response.status, response.text[:200])
        slowest = max(slowest, time.monotonic() - started)
    return slowest


def closed_by_peer(sock: socket.socket) -> bool:
    """True when the server has closed ``sock`` (end of file or reset), without waiting."""
    sock.setblocking(False)
    try:
        return sock.recv(65536) == b""
    except BlockingIOError:
        return False
    except (ConnectionResetError, BrokenPipeError):
        return True
    finally:
        sock.setblocking(True)
