"""The viewer's server under load: 200 concurrent requests, in a separate server process
whose memory is measured before and after."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

pytest.importorskip("numpy")

from serving import end_server_process, post_json, request  # noqa: E402

SERVER_SCRIPT = textwrap.dedent("""
    import random, sys
    from truebleu.viewer import report
    from truebleu.viewer.server import make_server
    rng = random.Random(3)
    words = "the a cat dog sat on mat house big small red blue , . runs".split()
    ref = [" ".join(rng.choice(words) for _ in range(rng.randint(1, 25))) for _ in range(400)]
    systems = {f"s{k}": [" ".join(w if rng.random() < 0.7 else rng.choice(words) for w in r.split())
                         for r in ref] for k in range(3)}
    server = make_server(report([ref], systems, n_samples=100), "127.0.0.1", 0)
    print(server.port, flush=True)
    server.serve_forever()
""")


def rss_bytes(pid: int) -> int:
    with open(f"/proc/{pid}/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


@pytest.mark.skipif(not Path("/proc/self/statm").exists(), reason="needs /proc to read the server's memory")
def test_load_200_concurrent_requests_without_error_or_memory_growth():
    process = subprocess.Popen([sys.executable, "-c", SERVER_SCRIPT], stdout=subprocess.PIPE, text=True)
    try:
        port = int(process.stdout.readline())

        class Server:
            pass

        srv = Server()
        srv.port = port
        paired = json.dumps({"a": 0, "b": 1, "segments": list(range(0, 400, 2)), "n_samples": 100,
                             "seed": 1}).encode()

        def one(k):
            kind = k % 3
            if kind == 0:
                r = request(srv, "GET", "/")
            elif kind == 1:
                r = request(srv, "GET", "/api/report")
            else:
                r = post_json(srv, paired)
            return kind, r.status, len(r.body)

        def burst():
            with ThreadPoolExecutor(max_workers=200) as pool:
                results = list(pool.map(one, range(200)))
            assert all(status == 200 for _, status, _ in results), \
                sorted({status for _, status, _ in results})
            sizes = {kind: {size for k, _, size in results if k == kind} for kind in range(3)}
            assert all(len(s) == 1 for s in sizes.values()), sizes   # every answer complete
            return results

        burst()                                   # warm-up: threads, NumPy, allocator arenas
        before = rss_bytes(process.pid)
        for _ in range(3):
            burst()
        after = rss_bytes(process.pid)
        growth = after - before
        print(f"server RSS {before / 2**20:.1f} MiB before, {after / 2**20:.1f} MiB after "
              f"600 more requests (growth {growth / 2**20:+.1f} MiB)")
        assert growth < 16 * 2**20, f"the server grew by {growth / 2**20:.1f} MiB over 600 requests"
    finally:
        end_server_process(process)
