"""The viewer's one HTML file: template, style, script and data, with a strict CSP.

The page is assembled from real files in ``static/`` (no build step): the
script files are concatenated in name order inside one strict-mode function,
and the Content-Security-Policy allows exactly that script and that style by
their SHA-256 hashes, nothing from any other origin. The data travel as one
gzip stream (the texts and number columns as blocks, then JSON:
:func:`encode_payload`) in a non-executable ``<script type=
"application/octet-stream">`` block (base64), which the page decompresses with
the browser's own ``DecompressionStream``; in ``serve`` mode the page fetches
the same bytes from the server instead.
"""

from __future__ import annotations

import base64
import binascii
import gzip
import hashlib
import html
import json
import re
import sys
from array import array
from functools import lru_cache
from importlib import resources
from itertools import chain
from typing import TYPE_CHECKING, Any, Iterable, Iterator, Optional, Protocol, Sequence, Union

if TYPE_CHECKING:
    from .parallel_gzip import DeflatedHead

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


def encode_payload(payload: dict, early: Optional[EarlyColumns] = None) -> bytes:
    """The payload as the page reads it: one gzip stream of its columns' blocks, then JSON.

    A 200,000-segment report's texts (every segment of the source, the references and
    the systems) are most of its bytes: they travel as UTF-8 blocks, not as JSON strings
    (no escaping, and no JSON text of hundreds of megabytes, four bytes a character in a
    Python string as soon as one character needs them). Each text column becomes one
    block, the texts joined with nothing between them; each system's number columns
    (:data:`NUMBER_COLUMNS`) one block of binary numbers (no decimal text to write and
    parse; the page reads them as doubles). The JSON, after the blocks and a newline (the last one:
    JSON's text holds none), gives each block's place (``blocks``: its kind, its path in
    the document, its bytes; for texts, each segment's length in code points, -1 for
    None, and the few texts UTF-8 cannot carry, with a lone surrogate, as JSON strings).
    :func:`decode_payload` and the page (static/js/10-data.js) put the columns back.

    JSON has no NaN: the model gives ``None`` where a number is undefined, and
    ``allow_nan=False`` (and :func:`_number_block`) makes a missed case an error rather
    than a broken page. The bytes are compressed on every core while the next ones are
    made (:mod:`.parallel_gzip`). ``early``: the first text columns, made and partly
    deflated while the report was computed (:mod:`.early_gzip`); used if they are the
    payload's first columns, else the payload is written whole here.
    """
    from .parallel_gzip import gzip_compress

    encoder = json.JSONEncoder(ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    columns = _block_columns(payload)
    head = early.take(columns) if early is not None else None
    written = early.written if early is not None and head is not None else Written()
    return gzip_compress(_payload_pieces(payload, encoder, columns, written), head=head)


def decode_payload(data: bytes) -> dict:
    """The payload :func:`encode_payload` wrote, its columns back in the document."""
    from ..core.lazy_numpy import numpy

    raw = gzip.decompress(data)
    split = raw.rindex(b"\n")
    document: dict = json.loads(raw[split + 1:].decode("utf-8"))
    for column in document.pop("blocks"):
        start, end = column["bytes"]
        if column["kind"] == "numbers":
            dtype = dict(NUMBER_TYPES)[column["type"]]
            _place(document, column["path"], numpy().frombuffer(raw[start:end], dtype=dtype).tolist())
            continue
        if column["kind"] == "tokens":
            _place(document, column["path"], _token_column_back(raw[start:end], column))
            continue
        text, texts, at = raw[start:end].decode("utf-8"), [], 0
        for length in column["lengths"]:
            texts.append(None if length < 0 else text[at:at + length])
            at += max(length, 0)
        for index, escaped in column["escaped"].items():
            texts[int(index)] = escaped
        _place(document, column["path"], texts)
    return document


Path = list[Union[str, int]]
#: a column that travels as a block: (kind, path in the payload, values)
Column = tuple[str, Path, Sequence[Any]]
#: each system's number columns, sent as blocks of numbers (:func:`_number_block`): lists,
#: or arrays (``array.array``, as a row table holds its statistics: no list of millions of
#: ints made for them)
NUMBER_COLUMNS = ("stats", "sentence_bleu", "bleu_without")


def _block_columns(payload: dict) -> list[Column]:
    """The payload's columns that travel as blocks: (kind, path in the payload, values),
    kind "text" (the source's, each reference's and system's texts: first, since they are
    known before anything is scored, :mod:`.early_gzip`), "tokens" (each reference's and
    system's token column: :func:`_token_block`) or "numbers" (:data:`NUMBER_COLUMNS` of
    each system)."""
    streams = [(group, k, stream) for group in ("references", "systems")
               for k, stream in enumerate(payload.get(group) or ()) if isinstance(stream, dict)]
    columns: list[Column] = []
    if isinstance(payload.get("source"), list):
        columns.append(("text", ["source"], payload["source"]))
    columns += [("text", [group, k, "text"], stream["text"])
                for group, k, stream in streams if isinstance(stream.get("text"), list)]
    columns += [("tokens", [group, k, "tokens"], stream["tokens"])
                for group, k, stream in streams if isinstance(stream.get("tokens"), list)]
    columns += [("numbers", [group, k, key], stream[key])
                for group, k, stream in streams if group == "systems"
                for key in NUMBER_COLUMNS if isinstance(stream.get(key), (list, array))]
    return columns


class EarlyColumns(Protocol):
    """Text columns made and deflated before the payload was (:mod:`.early_gzip`)."""

    written: Written

    def take(self, columns: Sequence[Column]) -> Optional[DeflatedHead]:
        """What is deflated, if its columns are the first of ``columns`` (the same kind,
        path and lists); else None (the payload is then written whole)."""


def _place(document: Any, path: Sequence[Union[str, int]], value: Any) -> None:
    for key in path[:-1]:
        document = document[key]
    document[path[-1]] = value


def _without(payload: dict, paths: Iterable[Sequence[Union[str, int]]]) -> dict:
    """A copy of ``payload`` with None at each of ``paths`` (the containers on the way
    copied, ``payload`` itself left as it is)."""
    document = dict(payload)
    for path in paths:
        container: Any = document
        for key in path[:-1]:
            child = container[key]
            container[key] = child = list(child) if isinstance(child, list) else dict(child)
            container = child
        container[path[-1]] = None
    return document


class Written:
    """The columns at the head of a payload's stream so far: each one's entry in the JSON's
    ``blocks`` and the bytes written."""

    def __init__(self) -> None:
        self.placed: list[dict[str, Any]] = []
        self.at = 0


def column_pieces(kind: str, path: Path, values: Sequence[Any], written: Written) -> Iterator[bytes]:
    """One column's block, in pieces (a text column's :data:`_SLICE` segments a piece);
    its entry is added to ``written`` after its last piece."""
    start = written.at
    if kind == "text":
        lengths: list[int] = []
        escaped: dict[str, str] = {}
        for first in range(0, len(values), _SLICE):
            block = _text_block(values[first:first + _SLICE], first, lengths, escaped)
            written.at += len(block)
            yield block
        written.placed.append({"kind": kind, "path": path, "bytes": [start, written.at],
                               "lengths": lengths, "escaped": escaped})
        return
    if kind == "tokens":
        entry, block = _token_block(values, path)
    else:
        number_type, block = _number_block(values, path)
        entry = {"type": number_type}
    written.at += len(block)
    yield block
    written.placed.append({"kind": kind, "path": path, "bytes": [start, written.at], **entry})


def _payload_pieces(payload: dict, encoder: json.JSONEncoder, columns: list[Column],
                    written: Written) -> Iterator[bytes]:
    """The bytes :func:`encode_payload` compresses after those ``written`` (the first of
    ``columns``, the payload's :func:`_block_columns`), in pieces: each column's block, a
    newline, then the JSON of the rest."""
    document = _without(payload, [path for _, path, _ in columns])
    document["format"] = 4  # 4: the texts, token and number columns in blocks before the JSON
    for kind, path, values in columns[len(written.placed):]:
        yield from column_pieces(kind, path, values, written)
    document["blocks"] = written.placed
    yield b"\n"
    yield from map(_utf8, _json_pieces(document, encoder, _DEPTH))


#: a number column's types, the first that holds every value is used: (name, NumPy's
#: little-endian type); the page reads each as doubles
NUMBER_TYPES = (("uint16", "<u2"), ("int32", "<i4"), ("float64", "<f8"))


def _number_block(values: Sequence[Any], path: Path) -> tuple[str, bytes]:
    """(type, bytes) of ``values``: integers in the narrowest of :data:`NUMBER_TYPES` that
    holds them all, else doubles, each one finite (JSON's rule for the rest of the
    payload: a missed NaN is an error, not a broken page)."""
    from ..core.lazy_numpy import numpy

    np = numpy()
    where = ".".join(map(str, path))
    if isinstance(values, array):  # (its type says what it holds: no value looked at alone)
        numbers = _array_numbers(values, where)
    else:
        types = set(map(type, values))
        if not types <= {int, float, bool}:
            raise ValueError(f"the payload's {where} must hold numbers only, not {types}")
        try:
            numbers = np.frombuffer(array("q" if float not in types else "d", values),
                                    dtype=np.int64 if float not in types else np.float64)
        except OverflowError:
            raise ValueError(f"the payload's {where} holds an integer beyond 64 bits") from None
    if not np.isfinite(numbers).all():
        raise ValueError(f"the payload's {where} holds a value that is not finite")
    for name, dtype in NUMBER_TYPES:
        kind = np.dtype(dtype)
        if kind.kind == "f" or (numbers.dtype.kind == "i" and (len(numbers) == 0 or (
                np.iinfo(kind).min <= numbers.min() and numbers.max() <= np.iinfo(kind).max))):
            return name, numbers.astype(kind).tobytes()
    raise AssertionError("float64 holds every number")


def _array_numbers(values: array[Any], where: str) -> Any:
    """An ``array.array`` of numbers as int64 or float64 (NumPy's array on its buffer),
    with :func:`_number_block`'s errors: no integer beyond int64 (an unsigned one may be),
    no characters."""
    from ..core.lazy_numpy import numpy

    np = numpy()
    if values.typecode == "u" or values.typecode == "w":
        raise ValueError(f"the payload's {where} must hold numbers only, not characters")
    numbers = (np.frombuffer(values, dtype=values.typecode) if len(values)
               else np.zeros(0, dtype=values.typecode))
    if numbers.dtype.kind == "f":
        return numbers.astype(np.float64)
    if numbers.dtype.kind == "u" and len(numbers) and numbers.max() > np.iinfo(np.int64).max:
        raise ValueError(f"the payload's {where} holds an integer beyond 64 bits")
    return numbers.astype(np.int64)


def _token_block(values: Sequence[Any], path: Path) -> tuple[dict[str, Any], bytes]:
    """(its entry in the JSON's ``blocks``, bytes) of a token column
    (:func:`.tokens.page_token_column`: per segment None, a list of UTF-16 offsets, or a
    str): each segment's count as int32 (-1: None; -2: a str, given in the entry's
    ``strings``; else its number of offsets), then all the offsets, in order, in the
    narrowest of :data:`NUMBER_TYPES` (:func:`_number_block`). As JSON, a 200,000-segment
    column was about 3 MB and a fifth of a second of the encoder's."""
    where = ".".join(map(str, path))
    kinds = set(map(type, values))
    if not kinds <= {type(None), list, str}:
        wrong = ", ".join(sorted(kind.__name__ for kind in kinds - {type(None), list, str}))
        raise ValueError(f"the payload's {where} must hold None, str or lists of offsets, "
                         f"not {wrong}")
    counts = array("i", [len(item) if type(item) is list else -1 if item is None else -2
                         for item in values])
    offsets = list(chain.from_iterable(item for item in values if type(item) is list))
    strings = ({str(i): item for i, item in enumerate(values) if type(item) is str}
               if str in kinds else {})
    number_type, block = _number_block(offsets, [*path, "offsets"])
    if number_type == "float64" and offsets:
        raise ValueError(f"the payload's {where} must hold offsets that are int")
    if sys.byteorder == "big":
        counts.byteswap()
    return {"n": len(values), "type": number_type, "strings": strings}, counts.tobytes() + block


def _token_column_back(block: bytes, column: dict[str, Any]) -> list[Any]:
    """:func:`_token_block`'s column from its bytes."""
    from ..core.lazy_numpy import numpy

    np = numpy()
    n = column["n"]
    counts = np.frombuffer(block[:4 * n], dtype="<i4").tolist()
    offsets = np.frombuffer(block[4 * n:], dtype=dict(NUMBER_TYPES)[column["type"]]).tolist()
    out: list[Any] = []
    at = 0
    for count in counts:
        out.append(None if count < 0 else offsets[at:at + count])
        at += max(count, 0)
    for index, text in column["strings"].items():
        out[int(index)] = text
    return out


def _text_block(texts: Sequence[Optional[str]], first: int, lengths: list[int],
                escaped: dict[str, str]) -> bytes:
    """``texts`` (segments ``first`` on) as UTF-8 joined with nothing between them; their
    lengths in code points (-1: None) appended to ``lengths``. A text with a lone
    surrogate (UTF-8 has none) goes to ``escaped`` instead, its length 0."""
    kept: list[str]
    if None in texts:
        lengths.extend(-1 if text is None else len(text) for text in texts)
        kept = [text for text in texts if text is not None]
    else:
        kept = list(texts)  # type: ignore[arg-type]
        lengths.extend(map(len, kept))
    try:
        return "".join(kept).encode("utf-8")
    except UnicodeEncodeError:
        pass
    kept = []
    for k, text in enumerate(texts):
        if text is not None and _LONE_SURROGATE.search(text):
            escaped[str(first + k)] = text
            lengths[first + k] = 0
        elif text is not None:
            kept.append(text)
    return "".join(kept).encode("utf-8")


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
    return b"".join(page_pieces(payload_gz, title=title, mode=mode,
                                generator=generator)).decode("utf-8")


#: payload bytes per base64 piece of :func:`page_pieces` (a multiple of 3: the pieces'
#: base64 joined is the whole payload's)
_BASE64_PIECE = 3 << 20


def page_pieces(payload_gz: bytes | None, *, title: str, mode: str = "file",
                generator: str = "truebleu") -> Iterator[bytes]:
    """:func:`render_page`'s document as UTF-8, in pieces: the payload's base64 a few
    megabytes at a time, so that a file is written without the whole page in memory
    (at 200,000 segments, 83 MB of base64, once as bytes, once as the page's ``str``,
    once encoded again)."""
    if mode not in MODES:
        raise ValueError(f"mode must be one of {MODES}, got {mode!r}")
    template, css, script = page_assets()
    values = {
        "csp": html.escape(content_security_policy(mode)),
        "generator": html.escape(generator),
        "title": html.escape(title),
        "css": css,
        "mode": mode,
        "script": script,
    }
    parts = _MARKER.split(template)  # the text between markers, and each marker's name
    for k, part in enumerate(parts):
        if k % 2 == 0:
            yield part.encode("utf-8")
        elif part != "payload":
            yield values[part].encode("utf-8")
        elif mode == "file" and payload_gz:
            for start in range(0, len(payload_gz), _BASE64_PIECE):
                yield binascii.b2a_base64(payload_gz[start:start + _BASE64_PIECE], newline=False)
