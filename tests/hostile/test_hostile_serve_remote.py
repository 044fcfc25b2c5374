"""``truebleu serve`` on an address other machines can reach (issue 26, item 6).

``serve --host 0.0.0.0`` served the report to the whole network with only a warning. Now a
non-loopback address is refused in one line (exit status 2) unless ``--allow-remote`` is given,
and then every request must carry the random access token printed at start-up: in the URL
(``?token=...``), which the answer turns into an ``HttpOnly``, ``SameSite=Strict`` cookie that
the page's own requests carry. The Host and Origin checks stay. The token is never written into
the page (whose bytes, and so whose CSP hashes, are the same for everyone): a real browser
opens the page from the printed URL, loads its data through the cookie with no CSP violation,
and the token leaves the address bar.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import threading
import time

import pytest
from serve_helpers import PAIRED, http

pytest.importorskip("numpy")

from browser import browser, open_page  # noqa: E402,F401  (fixtures)
from serving import end_server_process  # noqa: E402
from truebleu.viewer import report as make_report  # noqa: E402
from truebleu.viewer.page import content_security_policy, decode_payload  # noqa: E402
from truebleu.viewer.server import make_server, serve  # noqa: E402

WORDS = "the a cat dog sat on mat house big small red blue , . runs".split()


@pytest.fixture(scope="module")
def corpus_files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("remote")
    lines = [" ".join(WORDS[(k * 7 + j) % len(WORDS)] for j in range(3 + k % 9)) for k in range(400)]
    paths = {}
    for name, shift in (("ref.txt", 0), ("a.txt", 1), ("b.txt", 2)):
        path = folder / name
        path.write_text("\n".join(line if k % (shift + 2) else line.upper()
                                  for k, line in enumerate(lines)) + "\n", encoding="utf-8")
        paths[name] = str(path)
    return paths


def serve_command(files, *extra):
    return [sys.executable, "-m", "truebleu", "serve", files["ref.txt"], "-i", files["a.txt"],
            files["b.txt"], "--n-samples", "100", "--port", "0", *extra]


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "192.0.2.10", "example.com", ""])
def test_a_non_loopback_address_is_refused_without_the_flag(corpus_files, host):
    try:
        done = subprocess.run(serve_command(corpus_files, "--host", host), capture_output=True,
                              text=True, timeout=60)
    except subprocess.TimeoutExpired:
        pytest.fail(f"serve --host {host!r} served instead of refusing")
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2, done.stderr
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("truebleu serve: error: --host ")
    assert "not a loopback address" in lines[0] and "--allow-remote" in lines[0]
    assert done.stdout == ""


def test_the_api_refuses_too(corpus_files):
    report = make_report([["a b c", "d e f"]], {"x": ["a b c", "d e"], "y": ["a b", "d e f"]}, n_samples=10)
    for host in ("0.0.0.0", "10.1.2.3"):
        with pytest.raises(ValueError, match="allow_remote=True"):
            make_server(report, host, 0)
        with pytest.raises(ValueError, match="allow_remote=True"):
            serve(report, host, 0)
    server = make_server(report, "0.0.0.0", 0, allow_remote=True)
    try:
        assert server.token and len(server.token) >= 40
        assert server.url.endswith(f":{server.port}/?token={server.token}")
        other = make_server(report, "0.0.0.0", 0, allow_remote=True)
        assert other.token != server.token            # random, one per server
        other.server_close()
    finally:
        server.server_close()
    loopback = make_server(report, "127.0.0.1", 0)
    assert loopback.token is None and "token" not in loopback.url
    loopback.server_close()


@pytest.fixture(scope="module")
def remote_server(corpus_files):
    """``serve --host 0.0.0.0 --allow-remote`` in its own process: (port, token)."""
    process = subprocess.Popen(serve_command(corpus_files, "--host", "0.0.0.0", "--allow-remote"),
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        printed, found = [], None
        for line in process.stderr:          # the URL line, or the end of a failed start
            printed.append(line)
            found = re.search(r"http://\S+:(\d+)/\?token=([\w-]+)", line)
            if found:
                break
        if found is None:
            pytest.fail("serve --allow-remote did not start: " + "".join(printed))
        # the server logs each request on stderr: keep reading it, or a full pipe would stop it
        threading.Thread(target=process.stderr.read, daemon=True).start()
        yield int(found.group(1)), found.group(2)
    finally:
        end_server_process(process)


def test_every_request_needs_the_token(remote_server):
    port, token = remote_server
    origin = {"Origin": f"http://127.0.0.1:{port}"}
    routes = (("GET", "/", b""), ("GET", "/api/report", b""), ("POST", "/api/paired", PAIRED))
    for method, path, body in routes:
        headers = origin if method == "POST" else {}
        refused = http(port, method, path, body=body, headers=headers)
        assert refused.status == 403 and "access token" in refused.text, (path, refused.status)
        for wrong in ("", "x", token[:-1], token + "x", token[::-1], "é" + token[1:]):
            assert http(port, method, f"{path}?token={wrong}", body=body, headers=headers).status == 403
        cookie = {"Cookie": f"truebleu-token-{port}={token[::-1]}"}
        assert http(port, method, path, body=body, headers={**headers, **cookie}).status == 403
        assert http(port, method, f"{path}?token={token}", body=body, headers=headers).status == 200
    # the token in the URL becomes a cookie that the page's own requests then carry
    page = http(port, "GET", f"/?token={token}")
    cookie = page.headers["set-cookie"]
    assert cookie.startswith(f"truebleu-token-{port}={token};")
    assert "HttpOnly" in cookie and "SameSite=Strict" in cookie and "Path=/" in cookie
    carried = {"Cookie": f"truebleu-token-{port}={token}"}
    data = http(port, "GET", "/api/report", headers=carried)
    assert data.status == 200 and decode_payload(data.body)["n_segments"] == 400
    assert "set-cookie" not in data.headers
    test = http(port, "POST", "/api/paired", body=PAIRED, headers={**carried, **origin})
    assert test.status == 200 and 0 <= json.loads(test.body)["p"] <= 1
    # the Host and Origin checks stay, token or not
    assert http(port, "GET", f"/api/report?token={token}", host="evil.example").status == 421
    assert http(port, "GET", "/api/report", host=f"evil.example:{port}", headers=carried).status == 421
    cross = http(port, "POST", "/api/paired", body=PAIRED,
                 headers={**carried, "Origin": "http://evil.example"})
    assert cross.status == 403


def test_the_token_is_not_written_into_the_page(remote_server):
    port, token = remote_server
    page = http(port, "GET", f"/?token={token}")
    assert page.status == 200 and 'data-mode="serve"' in page.text
    assert token not in page.text
    assert page.headers["content-security-policy"] == content_security_policy("serve")
    for error in (http(port, "GET", "/"), http(port, "GET", f"/?token={token}x")):
        assert token not in error.text and "set-cookie" not in error.headers


def test_a_browser_opens_the_printed_url(open_page, remote_server):
    port, token = remote_server
    page = open_page(f"http://127.0.0.1:{port}/?token={token}#view=segments&minLen=8")
    assert page.evaluate("document.body.dataset.ready") == "1"      # the data came, by the cookie
    assert page.evaluate("window.truebleuViewer.data.n_segments") == 400
    assert page.watch.csp_violations(page) == []
    assert page.watch.page_errors == [] and page.watch.console_errors == []
    assert page.evaluate("location.search") == ""                   # the token left the address bar
    assert page.evaluate("location.hash").startswith("#view=segments")
    assert token not in page.evaluate("document.cookie")            # HttpOnly: no script reads it
    assert token not in page.content()
    page.click("[data-control=run-test]")            # a paired test on the filter: a POST, with the cookie
    deadline = time.monotonic() + 60
    while "truebleu API" not in page.inner_text("[data-value=test]"):
        assert "error" not in page.inner_text("[data-value=test]")
        assert time.monotonic() < deadline, "the paired test never answered"
        page.wait_for_timeout(100)
    assert "segments; truebleu API" in page.inner_text("[data-value=test]")
    assert page.watch.csp_violations(page) == [] and page.watch.page_errors == []
    # without the token, the address serves no page
    other = open_page(f"http://127.0.0.1:{port}/", ready=False)
    assert "access token" in other.inner_text("body")
