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
import json
import re
from functools import lru_cache
from importlib import resources

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
    """
    text = json.dumps(payload, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    text = _LONE_SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)
    return gzip.compress(text.encode("utf-8"), compresslevel=1, mtime=0)


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
