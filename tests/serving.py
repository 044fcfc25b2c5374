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
"""

from __future__ import annotations

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
