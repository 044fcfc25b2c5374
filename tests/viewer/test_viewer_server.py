"""The viewer's server (truebleu.viewer.server): routes, headers, Host checks, traversal
attempts, hostile request bodies, the paired test against truebleu.significance (the load
test is test_viewer_server_load.py's).

Requests go through the raw HTTP client of tests/serving.py, which sends what http.client
would refuse or rewrite (NUL, spaces, absolute URLs, missing or doubled Host headers)."""

from __future__ import annotations

import json
import os
import random
import socket
import threading
import time

import pytest

np = pytest.importorskip("numpy")

from serving import post_json, raw_request, request, running_server  # noqa: E402
from truebleu.metrics.bleu import BLEUBatchScorer  # noqa: E402
from truebleu.significance import paired_bootstrap  # noqa: E402
from truebleu.viewer import report as make_report  # noqa: E402
from truebleu.viewer.connections import MADE_ROOM  # noqa: E402
from truebleu.viewer.page import content_security_policy, decode_payload  # noqa: E402
from truebleu.viewer.server import MAX_SAMPLES, allowed_host_headers, is_loopback, make_server  # noqa: E402

WORDS = ("the a cat dog sat on mat house big small red blue , . ! ? runs ran quickly "
         "über naïve 猫 and or not").split()


def generated_corpus(n_segments: int, n_systems: int, seed: int = 7):
    """Reference, systems, source and documents from a seeded word sampler."""
    rng = random.Random(seed)

    def line(k):
        return " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, k)))

    reference = [line(20) for _ in range(n_segments)]
    systems = {}
    for s in range(n_systems):
        out = []
        for ref in reference:
            words = ref.split()
            for _ in range(rng.randint(0, 3)):
                words[rng.randrange(len(words))] = rng.choice(WORDS)
            out.append(" ".join(words))
        systems[f"sys{s}"] = out
    source = [line(15) for _ in range(n_segments)]
    docs = [f"doc{k // 10}" for k in range(n_segments)]
    return [reference], systems, source, docs


@pytest.fixture(scope="module")
def report():
    refs, systems, source, docs = generated_corpus(120, 3)
    return make_report(refs, systems, source=source, doc_ids=docs, n_samples=200, seed=5)


@pytest.fixture(scope="module")
def server(report):
    with running_server(report, request_timeout=2.0) as srv:
        yield srv


def assert_still_serving(server) -> None:
    assert request(server, "GET", "/api/report").status == 200


# -- routes and headers -------------------------------------------------------------------

def test_page_and_payload_routes(server, report):
    page = request(server, "GET", "/")
    assert page.status == 200
    assert page.headers["content-type"] == "text/html; charset=utf-8"
    assert page.text == report.html("serve")
    assert 'data-mode="serve"' in page.text

    data = request(server, "GET", "/api/report")
    assert data.status == 200
    assert data.headers["content-type"] == "application/octet-stream"
    assert data.body == report.payload_bytes()
    payload = decode_payload(data.body)
    assert payload["n_segments"] == 120 and len(payload["systems"]) == 3

    assert request(server, "GET", "/?view=overview").status == 200  # a query string is ignored


@pytest.mark.parametrize("method, path, status", [
    ("GET", "/index.html", 404), ("GET", "/api", 404), ("GET", "/api/report/", 404),
    ("GET", "/API/REPORT", 404), ("GET", "/favicon.ico", 404), ("GET", "/api/paired", 405),
    ("POST", "/", 405), ("POST", "/api/report", 405), ("PUT", "/", 501), ("DELETE", "/", 501),
    ("OPTIONS", "/api/paired", 501), ("TRACE", "/", 501),
])
def test_other_routes_and_methods_are_refused(server, method, path, status):
    response = request(server, method, path)
    assert response.status == status
    assert response.headers["content-type"] == "text/plain; charset=utf-8"


@pytest.mark.parametrize("method, path, host", [
    ("GET", "/", None), ("GET", "/api/report", None), ("GET", "/nowhere", None),
    ("GET", "/", "evil.example"), ("POST", "/api/paired", None),
])
def test_every_response_carries_the_protective_headers(server, method, path, host):
    response = request(server, method, path, host=host,
                       headers={"Content-Type": "application/json"} if method == "POST" else None)
    csp = response.headers["content-security-policy"]
    assert csp == content_security_policy("serve")
    assert "connect-src 'self'" in csp and "default-src 'none'" in csp
    assert response.headers["x-content-type-options"] == "nosniff"
    assert response.headers["referrer-policy"] == "no-referrer"
    assert response.headers["cross-origin-resource-policy"] == "same-origin"
    assert response.headers["cache-control"] == "no-store"
    assert response.headers["server"] == "truebleu"   # no Python version


def test_parse_errors_carry_the_headers_too(server):
    response = raw_request(server.port, b"GARBAGE\r\n\r\n")
    assert response.status == 400
    assert response.headers["content-security-policy"] == content_security_policy("serve")
    assert response.headers["x-content-type-options"] == "nosniff"


# -- Host header (DNS rebinding) -------------------------------------------------------------

@pytest.mark.parametrize("host", ["127.0.0.1:{port}", "localhost:{port}", "LOCALHOST:{port}", "[::1]:{port}"])
def test_loopback_host_headers_are_accepted(server, host):
    assert request(server, "GET", "/", host=host.format(port=server.port)).status == 200


@pytest.mark.parametrize("host", [
    "evil.example", "evil.example:{port}", "127.0.0.1", "localhost", "127.0.0.1:{other}",
    "127.0.0.1:{port}.evil.example", "127.0.0.1:{port}@evil.example", "evil.example#127.0.0.1:{port}",
    "127.0.0.2:{port}", "0.0.0.0:{port}", "[::1]", "",
])
def test_foreign_host_headers_are_refused(server, host):
    response = request(server, "GET", "/api/report",
                       host=host.format(port=server.port, other=server.port + 1))
    assert response.status in (400, 421)
    assert response.body != server.payload
    assert "answers only" in response.text or response.status == 400


def test_missing_or_doubled_host_header_is_refused(server):
    missing = raw_request(server.port, b"GET / HTTP/1.0\r\n\r\n")
    assert missing.status == 400
    host = f"127.0.0.1:{server.port}".encode()
    doubled = raw_request(server.port, b"GET / HTTP/1.0\r\nHost: " + host + b"\r\nHost: evil.example\r\n\r\n")
    assert doubled.status == 400


def test_cross_origin_posts_are_refused(server):
    body = {"a": 0, "b": 1, "segments": [0, 1, 2]}
    assert post_json(server, body, headers={"Origin": "http://evil.example"}).status == 403
    assert post_json(server, body, headers={"Origin": "null"}).status == 403
    same = post_json(server, body, headers={"Origin": f"http://127.0.0.1:{server.port}"})
    assert same.status == 200
    # a form post (text/plain, no preflight) cannot reach the API
    assert post_json(server, json.dumps(body).encode(), headers={"Content-Type": "text/plain"}).status == 415


def test_allowed_host_headers():
    assert allowed_host_headers("127.0.0.1", 8000) == frozenset(
        {"localhost:8000", "127.0.0.1:8000", "[::1]:8000"})
    assert "[::1]:9000" in allowed_host_headers("::1", 9000)
    assert "10.0.0.5:80" in allowed_host_headers("10.0.0.5", 80)
    assert "10.0.0.5" in allowed_host_headers("10.0.0.5", 80)
    assert "box.lan:8000" in allowed_host_headers("127.0.0.1", 8000, extra=["Box.lan"])
    assert (is_loopback("127.0.0.1") and is_loopback("127.8.0.1") and is_loopback("::1")
            and is_loopback("localhost"))
    assert not is_loopback("0.0.0.0") and not is_loopback("10.0.0.5") and not is_loopback("example.com")


# -- no path reaches the file system ----------------------------------------------------------

TRAVERSALS = [
    "/../../etc/passwd", "/%2e%2e/%2e%2e/etc/passwd", "/%2e%2e/", "//etc/passwd", "/api/../",
    "/api/../etc/passwd", "/api/report/../../etc/passwd", "/..%2f..%2fetc%2fpasswd",
    "/%252e%252e/etc/passwd", "/..\\..\\etc\\passwd", "/\\etc\\passwd", "/C:\\Windows\\win.ini",
    "/etc/passwd%00", "/api/report%00.html", "/./", "/.", "/..", "/canary.txt", "/./canary.txt",
    "/static/js/00-util.js", "/src/truebleu/viewer/page.py", "/~/.bashrc",
    "http://127.0.0.1/etc/passwd", "file:///etc/passwd", "*", "/" + "a/" * 2000,
]


@pytest.mark.parametrize("path", TRAVERSALS)
def test_traversal_attempts_get_404(server, path, tmp_path, monkeypatch):
    (tmp_path / "canary.txt").write_text("CANARY-3f1c")
    monkeypatch.chdir(tmp_path)
    response = request(server, "GET", path)
    assert response.status in (400, 404)
    assert b"root:" not in response.body and b"CANARY" not in response.body
    assert b"<html" not in response.body.lower()


@pytest.mark.parametrize("raw_path", [b"/\x00/etc/passwd", b"/etc/passwd\x00.html", b"/\x01\x7f\xff"])
def test_control_bytes_in_the_path(server, raw_path):
    host = f"127.0.0.1:{server.port}".encode()
    response = raw_request(server.port, b"GET " + raw_path + b" HTTP/1.0\r\nHost: " + host + b"\r\n\r\n")
    assert response.status in (400, 404)
    assert b"root:" not in response.body
    assert_still_serving(server)


def test_absolute_url_in_the_request_line(server):
    response = request(server, "GET", f"http://127.0.0.1:{server.port}/api/report")
    assert response.status == 404


def test_very_long_paths(server):
    assert request(server, "GET", "/" + "x" * 60_000).status == 404
    assert request(server, "GET", "/" + "x" * 70_000).status == 414
    assert_still_serving(server)


def test_no_request_opens_a_file(server, monkeypatch):
    """Every route answers from memory: nothing in the handler opens or stats a path."""
    import builtins
    import io

    opened = []
    real_open, real_io_open, real_stat = builtins.open, io.open, os.stat

    def spy(name):
        def wrapper(path, *args, **kwargs):
            if threading.current_thread() is not threading.main_thread():
                opened.append((name, path))
            real = {"open": real_open, "io.open": real_io_open, "stat": real_stat}[name]
            return real(path, *args, **kwargs)
        return wrapper

    monkeypatch.setattr(builtins, "open", spy("open"))
    monkeypatch.setattr(io, "open", spy("io.open"))
    monkeypatch.setattr(os, "stat", spy("stat"))
    for path in ("/", "/api/report", "/../etc/passwd", "/%2e%2e/", "/canary.txt"):
        request(server, "GET", path)
    post_json(server, {"a": 0, "b": 1, "segments": [3, 4, 5]})
    assert opened == []


# -- POST /api/paired ------------------------------------------------------------------------

def bootstrap_oracle(report, a, b, rows, n_samples, seed):
    """truebleu.significance.paired_bootstrap on the same statistics rows."""
    systems = report.data.systems
    stats_a = systems[a].statistics.to_numpy()[rows]
    stats_b = systems[b].statistics.to_numpy()[rows]
    return paired_bootstrap(stats_a, stats_b, BLEUBatchScorer.from_metric(report.data.metric),
                            n_samples=n_samples, seed=seed)


@pytest.mark.parametrize("a, b, rows, n_samples, seed", [
    (0, 1, list(range(120)), 200, 5),
    (1, 0, list(range(0, 120, 3)), 100, 1),
    (2, 1, [119, 0, 57, 3, 88, 42], 300, 2026),
    (1, 2, [10, 11], 50, 0),
    (0, 0, list(range(40)), 100, 7),
])
def test_paired_equals_the_significance_module(server, report, a, b, rows, n_samples, seed):
    response = post_json(server, {"a": a, "b": b, "segments": rows, "n_samples": n_samples, "seed": seed})
    assert response.status == 200, response.text
    assert response.headers["content-type"] == "application/json"
    assert response.headers["cache-control"] == "no-store"
    got = json.loads(response.body)
    expected = bootstrap_oracle(report, a, b, rows, n_samples, seed)
    assert got["p"] == expected.p_value
    assert got["delta"] == expected.delta
    assert got["score_a"] == expected.score_a and got["score_b"] == expected.score_b
    assert (got["n"], got["seed"], got["segments"]) == (n_samples, seed, len(rows))


def test_paired_defaults_to_all_segments_and_the_report_settings(server, report):
    got = json.loads(post_json(server, {"a": 0, "b": 2}).body)
    expected = bootstrap_oracle(report, 0, 2, list(range(120)), 200, 5)
    assert (got["p"], got["delta"], got["n"], got["seed"], got["segments"]) == (
        expected.p_value, expected.delta, 200, 5, 120)


def test_what_the_page_sends_is_accepted(server, report):
    """The exact body of static/js/40-segments.js runSubsetTest (JSON.stringify, no spaces)."""
    body = json.dumps({"a": 1, "b": 0, "segments": list(range(0, 120, 2)), "n_samples": 200, "seed": 5},
                      separators=(",", ":")).encode()
    response = post_json(server, body, headers={"Origin": f"http://localhost:{server.port}"},
                         host=f"localhost:{server.port}")
    assert response.status == 200
    assert json.loads(response.body)["where"] == "api"


BAD_BODIES = [
    (b"", 400, "not valid JSON"),
    (b"{", 400, "not valid JSON"),
    (b"\xff\xfe{}", 400, "not valid JSON"),
    (b"[1, 2]", 400, "JSON object"),
    (b"null", 400, "JSON object"),
    (b'"a"', 400, "JSON object"),
    (b'{"a": NaN, "b": 1}', 400, "not valid JSON"),
    (b'{"a": Infinity, "b": 1}', 400, "not valid JSON"),
    # nesting deeper than the recursion limit: refused either way (whether the parser gives up
    # depends on the recursion limit, which other code in the process may have raised)
    (b"[" * 2000 + b"]" * 2000, 400, ("not valid JSON", "JSON object")),
    ({"b": 1}, 400, "'a'"),
    ({"a": 0}, 400, "'b'"),
    ({"a": "0", "b": 1}, 400, "a must be an integer"),
    ({"a": True, "b": 1}, 400, "a must be an integer"),
    ({"a": 0.0, "b": 1}, 400, "a must be an integer"),
    ({"a": -1, "b": 1}, 400, "a must be in [0, 3)"),
    ({"a": 0, "b": 3}, 400, "b must be in [0, 3)"),
    ({"a": 0, "b": 10 ** 30}, 400, "b must be in"),
    ({"a": 0, "b": 1, "segments": "0,1,2"}, 400, "segments must be a list"),
    ({"a": 0, "b": 1, "segments": {"0": 1}}, 400, "segments must be a list"),
    ({"a": 0, "b": 1, "segments": [0, 1, "2"]}, 400, "segments[2]"),
    ({"a": 0, "b": 1, "segments": [0, 1.5]}, 400, "segments[1]"),
    ({"a": 0, "b": 1, "segments": [0, None]}, 400, "segments[1]"),
    ({"a": 0, "b": 1, "segments": [0, [1]]}, 400, "segments[1]"),
    ({"a": 0, "b": 1, "segments": [0, False]}, 400, "segments[1]"),
    ({"a": 0, "b": 1, "segments": [0, 120]}, 400, "segments[1] must be an integer in [0, 120)"),
    ({"a": 0, "b": 1, "segments": [-1, 0]}, 400, "segments[0]"),
    ({"a": 0, "b": 1, "segments": [1, 2, 1]}, 400, "distinct"),
    ({"a": 0, "b": 1, "segments": []}, 400, "at least 2"),
    ({"a": 0, "b": 1, "segments": [4]}, 400, "at least 2"),
    ({"a": 0, "b": 1, "n_samples": 0}, 400, "n_samples must be in"),
    ({"a": 0, "b": 1, "n_samples": MAX_SAMPLES + 1}, 400, "n_samples must be in"),
    ({"a": 0, "b": 1, "n_samples": "1000"}, 400, "n_samples must be an integer"),
    ({"a": 0, "b": 1, "n_samples": 1e3}, 400, "n_samples must be an integer"),
    ({"a": 0, "b": 1, "seed": -1}, 400, "seed must be in"),
    ({"a": 0, "b": 1, "seed": 2 ** 64}, 400, "seed must be in"),
    ({"a": 0, "b": 1, "seed": "12345"}, 400, "seed must be an integer"),
    ({"a": 0, "b": 1, "__proto__": {}}, 400, "unknown field"),
    ({"a": 0, "b": 1, "path": "/etc/passwd"}, 400, "unknown field"),
]


@pytest.mark.parametrize("body, status, message", BAD_BODIES,
                         ids=[f"bad{k}" for k in range(len(BAD_BODIES))])
def test_bad_paired_bodies_get_a_clear_4xx(server, body, status, message):
    response = post_json(server, body)
    assert response.status == status
    messages = message if isinstance(message, tuple) else (message,)
    assert any(m in response.text for m in messages), response.text
    assert response.headers["content-type"] == "text/plain; charset=utf-8"
    assert_still_serving(server)


def test_request_framing_errors(server):
    ok = json.dumps({"a": 0, "b": 1}).encode()
    port = server.port
    head = f"POST /api/paired HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n"
    # no Content-Length, a negative one, two of them, chunked: 411
    for extra in ("", "Content-Length: -1\r\n", f"Content-Length: {len(ok)}\r\nContent-Length: {len(ok)}\r\n",
                  "Transfer-Encoding: chunked\r\n"):
        response = raw_request(port, (head + extra + "\r\n").encode() + ok)
        assert response.status == 411, extra
    # a body announced as bigger than any valid request is refused before it is read
    response = raw_request(port, (head + "Content-Length: 999999999999\r\n\r\n").encode() + ok)
    assert response.status == 413 and "at most" in response.text
    # a huge body that is sent: refused, the server keeps running
    huge = b'{"a": 0, "b": 1, "segments": [' + b"0," * 2_000_000 + b"0]}"
    response = post_json(server, huge)
    assert response.status == 413
    assert_still_serving(server)


def test_a_body_shorter_than_announced_times_out(server):
    """A client that stops sending is dropped after the request timeout (2 s here)."""
    port = server.port
    data = (f"POST /api/paired HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n"
            f"Content-Length: 100\r\n\r\n").encode() + b'{"a": 0'
    started = time.monotonic()
    response = raw_request(port, data, timeout=30)
    assert response.status in (0, 400)   # dropped (or answered) — never a hang
    assert time.monotonic() - started < 25
    assert_still_serving(server)


def test_too_big_a_test_is_refused(report):
    with running_server(report, max_resampled_cells=1000) as srv:
        response = post_json(srv, {"a": 0, "b": 1, "segments": list(range(100)), "n_samples": 11})
        assert response.status == 413 and "narrow the filter" in response.text
        assert post_json(srv, {"a": 0, "b": 1, "segments": list(range(100)), "n_samples": 10}).status == 200


def test_idle_connections_hold_no_handler_and_are_dropped_first_at_the_cap(report):
    """One handler, two open connections at most, both held by idle sockets: a request is
    answered at once (long before any deadline), and the older idle socket made room for it."""
    with running_server(report, max_connections=1, max_open_connections=2,
                        request_timeout=30.0) as srv:
        idle = [socket.create_connection(("127.0.0.1", srv.port)) for _ in range(2)]
        try:
            time.sleep(0.2)
            started = time.monotonic()
            response = request(srv, "GET", "/api/report")
            waited = time.monotonic() - started
            assert response.status == 200
            assert waited < 10, "an idle connection held the request back"
            idle[0].settimeout(5)
            assert idle[0].recv(1) == b"", "the oldest idle connection should have been dropped"
            idle[1].setblocking(False)
            with pytest.raises(BlockingIOError):
                idle[1].recv(1)          # still open: the cap needed one place only
            assert dict(srv.dropped) == {MADE_ROOM: 1}, "the drop is counted, by its reason"
        finally:
            for sock in idle:
                sock.close()


def test_a_shutdown_before_serving_stops_it_at_once(report):
    srv = make_server(report, "127.0.0.1", 0)
    try:
        srv.shutdown()                      # returns at once: nothing is running
        thread = threading.Thread(target=srv.serve_forever, daemon=True)
        thread.start()
        thread.join(10)
        assert not thread.is_alive(), "serve_forever ignored the shutdown that came first"
        thread = threading.Thread(target=srv.serve_forever, daemon=True)
        thread.start()                      # and the next run serves until its own shutdown
        assert_still_serving(srv)
        srv.shutdown()
        thread.join(10)
        assert not thread.is_alive()
    finally:
        srv.server_close()


# -- binding -----------------------------------------------------------------------------

def test_binds_loopback_by_default(report):
    srv = make_server(report, port=0)
    try:
        assert srv.server_address[0] == "127.0.0.1"
        assert srv.url == f"http://127.0.0.1:{srv.port}/"
    finally:
        srv.server_close()


def test_serve_refuses_other_addresses_unless_allowed(report, monkeypatch, capsys):
    import truebleu.viewer.server as server_module

    def stop_at_once(self):
        raise KeyboardInterrupt

    monkeypatch.setattr(server_module.ReportServer, "serve_forever", stop_at_once)
    with pytest.raises(ValueError, match="allow_remote=True"):
        server_module.serve(report, "0.0.0.0", 0)
    server_module.serve(report, "0.0.0.0", 0, allow_remote=True)
    err = capsys.readouterr().err
    assert "reachable from other machines" in err and "?token=" in err and "stopped" in err
    server_module.serve(report, "127.0.0.1", 0)
    err = capsys.readouterr().err
    assert "reachable" not in err and "token" not in err and "Ctrl-C" in err
