"""The viewer's one HTML file: template, style, script and data, with a strict CSP.

The page is assembled from real files in ``static/`` (no build step): the
script files are concatenated in name order inside one strict-mode function,
and the Content-Security-Policy allows exactly that script and that style by
their SHA-256 hashes, nothing from any other origin. The data travel as
gzip-compressed JSON in a non-executable ``<script type=
"application/octet-stream">`` block (base64), which the page decompresses with
the browser's own ``DecompressionStream``; in ``serve`` mode the page fetches
the same bytes from the server instead.
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import html
import io
import json
import re
from functools import lru_cache
from importlib import resources
from typing import Any, Callable, Iterable, Iterator, Optional

MODES = ("file", "serve")
_MARKER = re.compile(r"\{(csp|generator|title|css|mode|payload|script)\}")
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def _static(name: str) -> str:
    # one joinpath argument at a time: Traversable.joinpath takes one before Python 3.11
    return resources.files(__package__).joinpath("static").joinpath(name).read_text(
        encoding="utf-8")


@lru_cache(maxsize=1)
def page_assets() -> tuple[str, str, str]:
    """(template, style, script) as shipped in the package."""
    scripts = resources.files(__package__).joinpath("static").joinpath("js")
    names = sorted(p.name for p in scripts.iterdir() if p.name.endswith(".js"))
    body = "\n".join(_static(f"js/{name}") for name in names)
    script = f'(function () {{\n"use strict";\n{body}\n}})();\n'
    if "</script" in script.lower() or "<!--" in script:
        raise RuntimeError("the viewer's script must not contain '</script' or '<!--'")
    return _static("index.html"), _static("app.css"), script


def _sha256(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode() + "'"


def content_security_policy(mode: str) -> str:
    """The page's policy: its own script and style (by hash), nothing remote.

    ``worker-src blob:`` lets the page start its own regular-expression worker (the text of
    a function of the page's script, as a blob: URL; static/js/35-text-filter.js), which it
    stops when a pattern overruns its budget. Nothing else may start: only the hashed script
    runs, so only it can make a blob; the worker inherits this policy and has no DOM.
    """
    _, css, script = page_assets()
    connect = "'self'" if mode == "serve" else "'none'"
    return (f"default-src 'none'; script-src {_sha256(script)}; style-src {_sha256(css)}; "
            f"img-src data:; connect-src {connect}; worker-src blob:; base-uri 'none'; "
            "form-action 'none'")


def encode_payload(payload: dict) -> bytes:
    """The payload as gzip-compressed UTF-8 JSON (lone surrogates kept as \\u escapes).

    JSON has no NaN: the model gives ``None`` where a number is undefined, and
    ``allow_nan=False`` makes a missed case an error rather than a broken page.
    The JSON text is compressed piece by piece, never held whole: a
    200,000-segment report's text is hundreds of megabytes (four bytes a character
    in a Python string as soon as one character needs them). Each piece is
    compressed on another thread (zlib lets go of the GIL) while the next one is
    encoded: the same bytes, in about the time of the longer of the two steps
    instead of their sum where a second core is free.
    """
    encoder = json.JSONEncoder(ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    out = io.BytesIO()
    with gzip.GzipFile(fileobj=out, mode="wb", compresslevel=1, mtime=0) as compressed:
        _write_in_order(compressed.write, map(_utf8, _json_pieces(payload, encoder, _DEPTH)))
    return out.getvalue()


def _write_in_order(write: Callable[[bytes], object], pieces: Iterable[bytes]) -> None:
    """``write`` each piece, in order, on one other thread while the next piece is made
    here (one piece in flight); a failure of either side is raised here."""
    from concurrent.futures import Future, ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="truebleu-page") as writer:
        pending: Optional[Future[object]] = None
        for piece in pieces:
            if pending is not None:
                pending.result()
            pending = writer.submit(write, piece)
        if pending is not None:
            pending.result()


#: containers opened piece by piece down to this depth (the payload, its lists of
#: systems and references, each one's dict); below, each column is encoded by the (C)
#: encoder, :data:`_SLICE` items at a time
_DEPTH = 3
#: a column's items per piece: the encoder holds the GIL for one call, so pieces of
#: about a megabyte let the compressing thread start and finish its calls meanwhile
_SLICE = 4096


def _json_pieces(value: Any, encoder: json.JSONEncoder, depth: int) -> Iterator[str]:
    """``encoder.encode(value)`` in pieces: containers down to ``depth`` are opened here
    (lists only when they hold containers), everything below is encoded by the (C)
    encoder, a column :data:`_SLICE` items at a time (their JSON joined by commas, as
    the encoder joins a list's items)."""
    if depth > 0 and isinstance(value, dict):
        yield "{"
        for k, (key, item) in enumerate(value.items()):
            yield ("," if k else "") + encoder.encode(str(key)) + ":"
            yield from _json_pieces(item, encoder, depth - 1)
        yield "}"
    elif depth > 0 and isinstance(value, list) and value and isinstance(value[0], (dict, list)):
        yield "["
        for k, item in enumerate(value):
            if k:
                yield ","
            yield from _json_pieces(item, encoder, depth - 1)
        yield "]"
    elif isinstance(value, list) and len(value) > _SLICE:
        for start in range(0, len(value), _SLICE):
            items = encoder.encode(value[start:start + _SLICE])[1:-1]  # without its brackets
            yield ("[" if start == 0 else ",") + items
        yield "]"
    else:
        yield encoder.encode(value)


def _utf8(text: str) -> bytes:
    """``text`` as UTF-8, a lone surrogate (not encodable) written as its JSON escape."""
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        return _LONE_SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text).encode("utf-8")


def render_page(payload_gz: bytes | None, *, title: str, mode: str = "file",
                generator: str = "truebleu") -> str:
    """The whole HTML document; ``payload_gz`` is embedded in ``file`` mode only."""
    if mode not in MODES:
        raise ValueError(f"mode must be one of {MODES}, got {mode!r}")
    template, css, script = page_assets()
    data = base64.b64encode(payload_gz).decode("ascii") if mode == "file" and payload_gz else ""
    values = {
        "csp": html.escape(content_security_policy(mode)),
        "generator": html.escape(generator),
        "title": html.escape(title),
        "css": css,
        "mode": mode,
        "payload": data,
        "script": script,
    }
    return _MARKER.sub(lambda m: values[m.group(1)], template)
