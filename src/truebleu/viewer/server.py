"""``truebleu serve``: the viewer from a small local server that runs exact tests on demand.

The server knows three routes and nothing else:

- ``GET /``: the page (``report.html("serve")``, held in memory);
- ``GET /api/report``: the report's data (the gzip stream of
  :meth:`Report.payload_bytes`), which the page fetches instead of embedding;
- ``POST /api/paired``: ``{a, b, segments, n_samples, seed, metric}`` in, the dict of
  :meth:`Report.paired_test` out (a paired bootstrap on any subset of segments, by
  any metric of the report: ``metric`` names it, default the report's BLEU).

It is built to be safe to leave running on a workstation: it binds the
loopback address unless the user asks, by name, for more (``allow_remote``), and then every
request must carry a random access token (``access.py``); it answers only requests whose
``Host`` header names the address it is bound to (a page from another site cannot reach it
through DNS rebinding); no part of a request path ever reaches the file system (there is no
static file route); every response carries the page's Content-Security-Policy and
``nosniff``; each request must arrive whole before a deadline and reaches a handler only then,
so idle or slow clients hold no handler and are the first dropped when the connections run out,
and each answer must be read before a deadline that grows with its size, so slow readers hold a
handler for seconds and slow links still get the page (``connections.py``); request bodies,
open connections and the size of a test are all bounded, and bad input gets a ``4xx`` answer
that says what is wrong. Standard library only.
"""

from __future__ import annotations

import io
import json
import sys
import threading
import time
import webbrowser
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler
from typing import TYPE_CHECKING, Any, Optional, Sequence

from .access import (
    allowed_host_headers,
    check_bind_address,
    host_header_value,
    is_loopback,
    new_access_token,
    presented_token,
    token_cookie,
    token_matches,
)
from .connections import MIN_ANSWER_RATE, ConnectionServer, ReceivedRequest, RequestReader
from .page import content_security_policy

if TYPE_CHECKING:
    from . import Report

__all__ = ["ReportServer", "allowed_host_headers", "is_loopback", "make_server", "serve"]

#: requests handled at the same time (further whole requests wait for a handler)
MAX_CONNECTIONS = 16
#: connections open at once, whether still sending, waiting or handled; at the cap, the one
#: that has been sending for the longest is dropped for a new one
MAX_OPEN_CONNECTIONS = 256
#: paired tests computed at the same time (each is CPU- and memory-bound)
MAX_CONCURRENT_TESTS = 1
#: seconds a client has to send its whole request (headers and body) from the moment its
#: connection is accepted, and to read an answer beyond its size at ``MIN_ANSWER_RATE`` bytes per
#: second (``connections.py`` says why that rate); slower clients are dropped
REQUEST_TIMEOUT = 10.0
#: bytes of a refused body read and thrown away before closing the connection
MAX_DISCARDED_BODY = 64 * 2 ** 20
#: bootstrap samples a request may ask for
MAX_SAMPLES = 10_000
#: n_samples x segments of one test: the resampling indices take 8 bytes per cell
MAX_RESAMPLED_CELLS = 25_000_000
#: seeds are non-negative integers below this bound (NumPy accepts any; JSON clients need a limit)
MAX_SEED = 2 ** 63

_PAIRED_KEYS = {"a", "b", "segments", "n_samples", "seed", "metric"}


class RequestError(Exception):
    """A request the server refuses: an HTTP status and a message for the client."""

    def __init__(self, status: HTTPStatus, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


class ReportServer(ConnectionServer):
    """The report's server: its routes over :class:`~.connections.ConnectionServer`.

    At most ``max_connections`` requests are handled at once, each only once it has arrived
    whole; ``max_open_connections`` bounds the sockets held open, slow ones dropped first. An
    answer must be read within ``request_timeout`` plus its size at ``min_answer_rate`` bytes
    per second. Slow clients dropped are counted in ``dropped`` and, unless ``quiet``, logged.
    """

    def __init__(self, report: "Report", address: tuple[str, int], *,
                 max_connections: int = MAX_CONNECTIONS,
                 max_open_connections: int = MAX_OPEN_CONNECTIONS,
                 max_resampled_cells: int = MAX_RESAMPLED_CELLS,
                 allowed_hosts: Sequence[str] = (), quiet: bool = True,
                 request_timeout: float = REQUEST_TIMEOUT, min_answer_rate: float = MIN_ANSWER_RATE,
                 allow_remote: bool = False) -> None:
        check_bind_address(address[0], allow_remote)
        self.report = report
        self.quiet = quiet
        self.max_resampled_cells = max_resampled_cells
        # everything a GET answers is computed once, before the first request
        self.page = report.html("serve").encode("utf-8")
        self.payload = report.payload_bytes()
        self.csp = content_security_policy("serve")
        n = report.data.inputs.n_segments
        self.test_slots = threading.BoundedSemaphore(MAX_CONCURRENT_TESTS)
        #: a JSON list of every segment index, with room for the other fields
        max_body = 4096 + n * (len(str(n)) + 1)
        super().__init__(address, max_handlers=max_connections, max_open_connections=max_open_connections,
                         request_timeout=request_timeout, max_body=max_body,
                         min_answer_rate=min_answer_rate)
        self.allowed_hosts = allowed_host_headers(address[0], self.port, allowed_hosts)
        #: the access token every request must carry, on an address other machines can reach
        self.token: Optional[str] = None if is_loopback(address[0]) else new_access_token()

    @property
    def port(self) -> int:
        port: int = self.server_address[1]
        return port

    @property
    def url(self) -> str:
        """The page's address (with the access token, when there is one)."""
        url = f"http://{host_header_value(self.server_address[0])}:{self.port}/"
        return url if self.token is None else f"{url}?token={self.token}"

    def handle(self, request: ReceivedRequest) -> None:
        ReportRequestHandler(request, self)

    def log_drop(self, address: tuple, message: str) -> None:
        """A line as ``http.server`` logs requests: who, when, and what happened."""
        if not self.quiet:
            when = time.strftime("%d/%b/%Y %H:%M:%S")
            sys.stderr.write(f"{address[0]} - - [{when}] {message}\n")


class ReportRequestHandler(BaseHTTPRequestHandler):
    """The three routes; everything else is 404. One request per connection (HTTP/1.0)."""

    # http.server types this a socketserver.BaseServer; it only stores it, and the routes read ours
    server: ReportServer  # type: ignore[assignment]
    #: answer even a malformed request line with a status line and headers (never bare HTTP/0.9)
    default_request_version = "HTTP/1.0"

    def __init__(self, request: ReceivedRequest, server: ReportServer) -> None:
        self.received = request
        #: the token came in the URL: the answer sets it as a cookie
        self._set_token_cookie = False
        super().__init__(request.sock, request.address, server)  # type: ignore[arg-type]  # as above

    def setup(self) -> None:
        """Read the request as received (then the socket, up to its deadline); write the answer
        to the socket, up to the answer's deadline."""
        self.connection = self.request
        self.rfile = io.BufferedReader(RequestReader(self.received))
        self.wfile = self.server.answer_writer(self.received)

    def version_string(self) -> str:
        return "truebleu"

    # -- routing -----------------------------------------------------------------
    def do_GET(self) -> None:
        self._dispatch({"/": self._page, "/api/report": self._report})

    def do_POST(self) -> None:
        self._dispatch({"/api/paired": self._paired})

    def _dispatch(self, routes: dict) -> None:
        try:
            self._check_host()
            self._check_token()
            route = routes.get(self._route_path())
            if route is None:
                other = self._route_path() in ("/", "/api/report", "/api/paired")
                raise RequestError(HTTPStatus.METHOD_NOT_ALLOWED if other else HTTPStatus.NOT_FOUND,
                                   "method not allowed" if other else "not found")
            route()
        except RequestError as error:
            self._send_text(error.status, error.message)
            self._discard_unread_body()

    def _route_path(self) -> str:
        """The request path without its query string; matched literally, never decoded."""
        return self.path.split("?", 1)[0]

    def _check_host(self) -> None:
        hosts = self.headers.get_all("Host") or []
        if len(hosts) != 1:
            raise RequestError(HTTPStatus.BAD_REQUEST, "exactly one Host header is required")
        if hosts[0].strip().lower() not in self.server.allowed_hosts:
            raise RequestError(HTTPStatus.MISDIRECTED_REQUEST,
                               "this server answers only requests for " + self.server.url)
        origin = self.headers.get("Origin")
        if origin is not None and origin.lower() not in {f"http://{h}" for h in self.server.allowed_hosts}:
            raise RequestError(HTTPStatus.FORBIDDEN, "cross-origin requests are refused")

    def _check_token(self) -> None:
        token = self.server.token
        if token is None:
            return
        query = self.path.split("?", 1)[1] if "?" in self.path else ""
        given, in_url = presented_token(query, self.headers.get_all("Cookie") or [], self.server.port)
        if not token_matches(given, token):
            raise RequestError(HTTPStatus.FORBIDDEN, "this server needs its access token: open the "
                               "address with ?token=... that it printed when it started")
        self._set_token_cookie = in_url

    # -- routes ------------------------------------------------------------------
    def _page(self) -> None:
        self._send(HTTPStatus.OK, "text/html; charset=utf-8", self.server.page)

    def _report(self) -> None:
        self._send(HTTPStatus.OK, "application/octet-stream", self.server.payload)

    def _paired(self) -> None:
        request = parse_paired_request(self._read_json_body(), self.server.report,
                                       self.server.max_resampled_cells)
        with self.server.test_slots:
            result = self.server.report.paired_test(request["a"], request["b"], request["segments"],
                                                    n_samples=request["n_samples"], seed=request["seed"],
                                                    metric=request["metric"])
        body = json.dumps(result, allow_nan=False).encode("utf-8")
        self._send(HTTPStatus.OK, "application/json", body)

    def _read_json_body(self) -> Any:
        content_type = (self.headers.get("Content-Type") or "").split(";", 1)[0].strip().lower()
        if content_type != "application/json":
            raise RequestError(HTTPStatus.UNSUPPORTED_MEDIA_TYPE, "the body must be application/json")
        if self.headers.get("Transfer-Encoding"):
            raise RequestError(HTTPStatus.LENGTH_REQUIRED, "send the body with a Content-Length")
        lengths = self.headers.get_all("Content-Length") or []
        if len(lengths) != 1 or not lengths[0].strip().isdigit():
            raise RequestError(HTTPStatus.LENGTH_REQUIRED, "exactly one numeric Content-Length is required")
        length = int(lengths[0])
        if length > self.server.max_body:
            self._unread_body = length
            raise RequestError(HTTPStatus.REQUEST_ENTITY_TOO_LARGE,
                               f"the body has {length} bytes; this report accepts at most "
                               f"{self.server.max_body}")
        body = self.rfile.read(length)
        if len(body) != length:
            raise RequestError(HTTPStatus.BAD_REQUEST, "the body is shorter than its Content-Length")
        try:
            return json.loads(body.decode("utf-8"), parse_constant=_no_constant)
        except (UnicodeDecodeError, ValueError, RecursionError) as error:
            raise RequestError(HTTPStatus.BAD_REQUEST, f"the body is not valid JSON: {error}") from None

    def _discard_unread_body(self) -> None:
        """Read (a bounded part of) a refused body, so the client sees our answer, not a reset.

        Closing a socket with unread data makes the kernel send a reset, which
        can destroy the 413 before the client reads it.
        """
        remaining = min(getattr(self, "_unread_body", 0), MAX_DISCARDED_BODY)
        self.close_connection = True
        try:
            while remaining > 0:
                chunk = self.rfile.read1(min(remaining, 65536))
                if not chunk:
                    break
                remaining -= len(chunk)
        except OSError:
            pass

    # -- responses ---------------------------------------------------------------
    def _send(self, status: HTTPStatus, content_type: str, body: bytes) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _send_text(self, status: HTTPStatus, message: str) -> None:
        self._send(status, "text/plain; charset=utf-8", (message + "\n").encode("utf-8"))

    def send_error(self, code: int, message: Optional[str] = None, explain: Optional[str] = None) -> None:
        """Errors found while parsing the request (bad request line, 414, 501): plain text."""
        self.close_connection = True
        try:
            status = HTTPStatus(code)
        except ValueError:
            status = HTTPStatus.BAD_REQUEST
        self._send_text(status, message or status.phrase)

    def end_headers(self) -> None:
        """Every response, errors included, carries the same protective headers."""
        self.send_header("Content-Security-Policy", self.server.csp)
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("Referrer-Policy", "no-referrer")
        self.send_header("Cross-Origin-Resource-Policy", "same-origin")
        self.send_header("X-Frame-Options", "DENY")
        self.send_header("Cache-Control", "no-store")
        if self._set_token_cookie:
            self.send_header("Set-Cookie", f"{token_cookie(self.server.port)}={self.server.token}; "
                                           "Path=/; HttpOnly; SameSite=Strict")
        super().end_headers()

    def log_message(self, format: str, *args) -> None:
        if not self.server.quiet:
            super().log_message(format, *args)


def _no_constant(name: str):
    raise ValueError(f"{name} is not a number JSON allows")


def _int(value: Any, what: str, low: int, high: int) -> int:
    """``value`` as an int in ``[low, high)``, else a 400 naming ``what``."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise RequestError(HTTPStatus.BAD_REQUEST, f"{what} must be an integer, got {type(value).__name__}")
    if not low <= value < high:
        raise RequestError(HTTPStatus.BAD_REQUEST, f"{what} must be in [{low}, {high}), got {value}")
    return value


def parse_paired_request(body: Any, report: "Report", max_resampled_cells: int = MAX_RESAMPLED_CELLS) -> dict:
    """Check a ``POST /api/paired`` body; the arguments of :meth:`Report.paired_test`.

    ``segments`` are distinct indices (the rows of a filter; duplicates would
    weigh a segment twice); ``n_samples`` and ``seed`` default to the report's.
    """
    if not isinstance(body, dict):
        raise RequestError(HTTPStatus.BAD_REQUEST, "the body must be a JSON object")
    unknown = sorted(set(body) - _PAIRED_KEYS)
    if unknown:
        raise RequestError(HTTPStatus.BAD_REQUEST, "unknown field(s): " + ", ".join(map(repr, unknown))
                           + "; expected " + ", ".join(sorted(_PAIRED_KEYS)))
    n_systems = len(report.data.systems)
    n_segments = report.data.inputs.n_segments
    significance = report.data.significance
    for key in ("a", "b"):
        if key not in body:
            raise RequestError(HTTPStatus.BAD_REQUEST, f"the field {key!r} (a system index) is required")
    a = _int(body["a"], "a", 0, n_systems)
    b = _int(body["b"], "b", 0, n_systems)
    segments = body.get("segments")
    if segments is None:
        segments = list(range(n_segments))
    elif not isinstance(segments, list):
        raise RequestError(HTTPStatus.BAD_REQUEST, "segments must be a list of segment indices")
    else:
        for position, index in enumerate(segments):
            if isinstance(index, bool) or not isinstance(index, int) or not 0 <= index < n_segments:
                raise RequestError(HTTPStatus.BAD_REQUEST, f"segments[{position}] must be an integer "
                                   f"in [0, {n_segments}), got {json.dumps(index)[:40]}")
        if len(set(segments)) != len(segments):
            raise RequestError(HTTPStatus.BAD_REQUEST, "segments must be distinct")
    if len(segments) < 2:
        raise RequestError(HTTPStatus.BAD_REQUEST, "a paired test needs at least 2 segments")
    n_samples = body.get("n_samples")
    n_samples = (significance["n_samples"] if n_samples is None
                 else _int(n_samples, "n_samples", 1, MAX_SAMPLES + 1))
    seed = body.get("seed")
    seed = significance["seed"] if seed is None else _int(seed, "seed", 0, MAX_SEED)
    if n_samples * len(segments) > max_resampled_cells:
        raise RequestError(HTTPStatus.REQUEST_ENTITY_TOO_LARGE,
                           f"{n_samples} samples x {len(segments)} segments is more than this server "
                           f"resamples in one test ({max_resampled_cells}); narrow the filter "
                           "or ask for fewer samples")
    metric = body.get("metric")
    if metric is not None and (not isinstance(metric, str) or metric not in report.metric_names):
        raise RequestError(HTTPStatus.BAD_REQUEST, "metric must be one of "
                           + ", ".join(map(json.dumps, report.metric_names))
                           + f", got {json.dumps(metric)[:40]}")
    return {"a": a, "b": b, "segments": segments, "n_samples": n_samples, "seed": seed,
            "metric": metric}


def make_server(report: "Report", host: str = "127.0.0.1", port: int = 8000, *,
                allowed_hosts: Sequence[str] = (), quiet: bool = True,
                max_connections: int = MAX_CONNECTIONS,
                max_open_connections: int = MAX_OPEN_CONNECTIONS,
                max_resampled_cells: int = MAX_RESAMPLED_CELLS,
                request_timeout: float = REQUEST_TIMEOUT, min_answer_rate: float = MIN_ANSWER_RATE,
                allow_remote: bool = False) -> ReportServer:
    """A bound, not yet running server for ``report`` (``port=0`` picks a free port).

    A ``host`` other than a loopback address is refused (:class:`~.access.RemoteAccessRefused`,
    a ``ValueError``) unless ``allow_remote`` is true; the server then asks every request for
    its ``token`` (``server.url`` carries it). Run it with ``server.serve_forever()`` (e.g. in
    a thread), stop it with ``server.shutdown()`` and ``server.server_close()``.
    """
    return ReportServer(report, (host, port), allowed_hosts=allowed_hosts, quiet=quiet,
                        max_connections=max_connections, max_open_connections=max_open_connections,
                        max_resampled_cells=max_resampled_cells, request_timeout=request_timeout,
                        min_answer_rate=min_answer_rate, allow_remote=allow_remote)


def serve(report: "Report", host: str = "127.0.0.1", port: int = 8000, *,
          open_browser: bool = False, quiet: bool = False,
          allowed_hosts: Sequence[str] = (), allow_remote: bool = False) -> None:
    """Serve ``report`` until Ctrl-C (blocking); the page is at ``server.url``, which is printed.

    Other machines may reach it only with ``allow_remote=True`` and the printed URL's token.
    """
    server = make_server(report, host, port, allowed_hosts=allowed_hosts, quiet=quiet,
                         allow_remote=allow_remote)
    with server:
        print(f"truebleu: serving {report.title!r} at {server.url} (Ctrl-C stops)", file=sys.stderr)
        if server.token is not None:
            print(f"truebleu: {host or 'every address'} is reachable from other machines; whoever has "
                  "this address with its token can read the report", file=sys.stderr)
        if open_browser:
            threading.Timer(0.2, webbrowser.open, args=(server.url,)).start()
        try:
            server.serve_forever()
        except KeyboardInterrupt:
            print("truebleu: stopped", file=sys.stderr)
