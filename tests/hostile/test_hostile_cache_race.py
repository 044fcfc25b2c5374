"""Processes fetching the same test set at once share one download (issue 26, item 2:
"Concurrent downloads corrupt the test-set cache for good").

Two processes fetching a test set at once (parallel jobs on a cluster) each downloaded it and
unpacked it over the other's files, so a third reader could take a file being rewritten for
a finished one, and keep the truncated copy for good (7 of 16 races). Now one process
downloads under the file's lock, verifies the checksum and unpacks before the file takes its
name, and the others wait and use its result.

Here four spawned processes race, released together by a barrier, on a test set served from
127.0.0.1 (slowly, so that they overlap), 16 times, alternating a tar.gz and a zip test set:
each race must fetch the file exactly once, and every process must see the same complete
files as a download made alone.
"""

from __future__ import annotations

import multiprocessing
import os
import time
from pathlib import Path

import pytest

from _testset_fixtures import LocalServer, build_served, with_base_url
from truebleu.io.testsets import process
from truebleu.io.testsets.registry import TestSet

RACES = 16
PROCESSES = 4
PAIRS = {"fx-xml": "de-en", "fx-sgm": "de-en"}   # a tar.gz and a zip test set

_barrier = None


def _hold(barrier) -> None:
    global _barrier
    _barrier = barrier


def _testset(name: str, entry: dict) -> TestSet:
    return TestSet(name=name, format=entry["format"], urls=tuple(entry["urls"]),
                   md5=tuple(entry["md5"]), description=entry["description"],
                   citation=entry["citation"], langpairs=entry["langpairs"],
                   refs=tuple(entry.get("refs", ())))


def _tree(folder: Path) -> dict[str, bytes]:
    """Every file of a cache but the locks, by relative path."""
    return {str(path.relative_to(folder)): path.read_bytes() for path in sorted(folder.rglob("*"))
            if path.is_file() and not path.name.endswith(".lock")}


def _fetch(task: tuple[str, str, dict]) -> dict[str, bytes]:
    """One racer: wait for the others, fetch and process the pair, read what the cache holds."""
    cache, name, entry = task
    os.environ["SACREBLEU"] = cache
    _barrier.wait(timeout=120)
    files = process.download_test_set(_testset(name, entry), PAIRS[name])
    return {os.path.relpath(path, cache): Path(path).read_bytes() for path in files}


@pytest.fixture(scope="module")
def slow_server(tmp_path_factory):
    """The fixture test sets, each download sent in 16 pieces 20 ms apart (about 0.3 s)."""
    folder = tmp_path_factory.mktemp("served")
    entries = build_served(folder)
    server = LocalServer(folder)

    def slowly(handler) -> None:
        data = (folder / handler.path.lstrip("/")).read_bytes()
        handler.send_response(200)
        handler.send_header("Content-Length", str(len(data)))
        handler.end_headers()
        step = max(1, len(data) // 16)
        for start in range(0, len(data), step):
            handler.wfile.write(data[start:start + step])
            handler.wfile.flush()
            time.sleep(0.02)

    for name in PAIRS:
        server.custom[entries[name]["urls"][0]] = slowly
    yield server, with_base_url(entries, server.url)
    server.close()


def test_racing_processes_download_once_and_never_see_a_partial_file(slow_server, tmp_path,
                                                                      monkeypatch):
    server, entries = slow_server
    expected = {}
    for name, pair in PAIRS.items():  # each test set downloaded alone: what every racer must see
        alone = tmp_path / f"alone-{name.replace('/', '_')}"
        monkeypatch.setenv("SACREBLEU", str(alone))
        process.download_test_set(_testset(name, entries[name]), pair)
        expected[name] = _tree(alone)
        assert expected[name], name
    monkeypatch.delenv("SACREBLEU")
    context = multiprocessing.get_context("spawn")
    barrier = context.Barrier(PROCESSES)
    with context.Pool(PROCESSES, initializer=_hold, initargs=(barrier,)) as pool:
        for race in range(RACES):
            name = list(PAIRS)[race % len(PAIRS)]
            url = entries[name]["urls"][0]
            cache = tmp_path / f"race-{race}"
            before = len(server.requests)
            seen = pool.map_async(_fetch, [(str(cache), name, entries[name])] * PROCESSES,
                                  chunksize=1).get(timeout=300)
            fetched = [path for path in server.requests[before:] if url.endswith(path)]
            assert len(fetched) == 1, f"race {race}: {len(fetched)} downloads of {name}"
            for files in seen:  # every racer read complete files, equal to a lone download's
                assert files and all(expected[name][path] == data for path, data in files.items()), \
                    f"race {race}: a racer read a partial or different file"
            assert _tree(cache) == expected[name], f"race {race}: the cache differs"
            leftovers = [path.name for path in cache.rglob("*") if path.name.endswith(".part")]
            assert leftovers == [], f"race {race}: temporary files left: {leftovers}"
