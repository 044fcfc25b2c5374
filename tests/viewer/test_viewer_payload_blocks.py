"""The page's data (viewer/page.py ``encode_payload``): the texts as UTF-8 blocks, the
token columns and number columns as binary blocks, then JSON, in one gzip stream made on
several threads (viewer/parallel_gzip.py); ``decode_payload`` gives the payload back."""

from __future__ import annotations

import pytest

pytest.importorskip("numpy")  # (the number columns' blocks)

HOSTILE_PAYLOAD = {
    "title": "t\ud800", "n": 3, "empty": [], "none": None, "nested": {},
    "systems": [{"name": "A\udfff", "text": ["a", "b\ud83d", "\u00e9", "\ufeffbom", "x\ny"],
                 "tokens": [None, [], [0, 1, 70000], "b \ud83d", None],
                 "stats": [1, 2, 3], "sentence_bleu": [0.1 + 0.2, 1e-300, -0.0, 5e-324, 100.0],
                 "corpus": {"score": 1.5, "k\ud800": [[1, "x\udc00"], []]}},
                {"name": "B", "text": [], "stats": [], "bleu_without": [2.5]}],
    "references": [{"text": ["\U0001f600 x", None, "", "\ud800", "z\U0001f600"],
                    "tokens": [None, None, None, "\ud800 .", [3]]}],
    "metrics": {"list": [{"sentence": [[0.5, None], [1e-300, -0.0]], "alignment": None}]},
    "source": ["s\ud800", None, "t", "", "u v", "\u00e9", "w", "x"],
    "bleu": [0.25, None, 1e300, -0.0, 7],
}


@pytest.mark.parametrize("piece", [1, 2, 3, 4096])
def test_the_payload_comes_back_whole_from_its_blocks_and_json(piece, monkeypatch):
    """decode_payload(encode_payload(p)) is p (with format 4), whatever the size of the
    pieces a column is cut into: None, empty texts, characters beyond U+FFFF, a leading
    BOM, a newline inside a text, lone surrogates (JSON strings, UTF-8 has none), the
    number columns' doubles bit for bit, the token columns' None, offsets (none, or beyond
    uint16) and strings (these few in the JSON); the texts, offsets and numbers are not
    in the JSON, the payload given is not modified."""
    import copy
    import gzip
    import json
    import struct

    from truebleu.viewer import page
    from truebleu.viewer.page import decode_payload, encode_payload

    monkeypatch.setattr(page, "_SLICE", piece)
    given = copy.deepcopy(HOSTILE_PAYLOAD)
    data = encode_payload(given)
    assert given == HOSTILE_PAYLOAD
    back = decode_payload(data)
    assert back == {**HOSTILE_PAYLOAD, "format": 4}
    bits = [struct.pack("<d", x) for x in back["systems"][0]["sentence_bleu"]]
    assert bits == [struct.pack("<d", x) for x in HOSTILE_PAYLOAD["systems"][0]["sentence_bleu"]]
    raw = gzip.decompress(data)
    document = json.loads(raw[raw.rindex(b"\n") + 1:])
    assert document["source"] is None and document["systems"][0]["text"] is None
    assert document["systems"][0]["stats"] is None and document["systems"][0]["sentence_bleu"] is None
    assert document["systems"][0]["tokens"] is None and document["references"][0]["tokens"] is None
    types = [block["type"] for block in document["blocks"] if block["kind"] == "numbers"]
    assert types == ["uint16", "float64", "uint16", "float64"]
    tokens = [(block["type"], block["strings"]) for block in document["blocks"]
              if block["kind"] == "tokens"]
    assert tokens == [("uint16", {"3": "\ud800 ."}), ("int32", {"3": "b \ud83d"})]
    assert raw.startswith("tu v\u00e9wx".encode())  # the source's block first, its UTF-8 texts
    assert "bom" not in json.dumps(document)  # the texts are not in the JSON


def test_payload_refuses_what_json_cannot_say():
    from truebleu.viewer.page import encode_payload

    with pytest.raises(ValueError):
        encode_payload({"systems": [{"score": float("nan")}]})
    with pytest.raises(ValueError):  # in a later piece of a column
        encode_payload({"systems": [{"sentence": [0.5] * 5 + [float("nan")]}]})
    for bad in (float("nan"), float("inf"), None, "1"):  # a number column's block
        with pytest.raises(ValueError, match="systems.0.bleu_without"):
            encode_payload({"systems": [{"bleu_without": [0.5, bad]}]})
    with pytest.raises(ValueError, match="systems.0.stats holds an integer beyond 64 bits"):
        encode_payload({"systems": [{"stats": [0, 2**63]}]})


@pytest.mark.parametrize("values, kind", [
    ([], "uint16"), ([0, 65535], "uint16"), ([-1, 3], "int32"), ([65536], "int32"),
    ([2**31 - 1, -2**31], "int32"), ([2**31], "float64"), ([2**53, -7], "float64"),
    ([1, 0.5], "float64"), ([True, 2], "uint16")])
def test_number_columns_take_the_narrowest_type_that_holds_them(values, kind):
    """Integers as uint16 or int32 where they fit, else (and any float) as doubles: the
    page reads doubles either way, and the payload comes back equal."""
    import gzip
    import json

    from truebleu.viewer.page import decode_payload, encode_payload

    payload = {"systems": [{"stats": values}]}
    data = encode_payload(payload)
    raw = gzip.decompress(data)
    assert json.loads(raw[raw.rindex(b"\n") + 1:])["blocks"][0]["type"] == kind
    assert decode_payload(data) == {**payload, "format": 4}


@pytest.mark.parametrize("typecode, values, kind", [
    ("B", [], "uint16"), ("B", [0, 255], "uint16"), ("H", [65535], "uint16"),
    ("b", [-1, 3], "int32"), ("i", [-2**31, 2**31 - 1], "int32"), ("I", [2**31], "float64"),
    ("q", [2**53, -7], "float64"), ("Q", [2**63 - 1024], "float64"), ("d", [0.5, -0.0], "float64"),
    ("f", [0.25], "float64")])
def test_number_columns_may_be_arrays_and_come_back_as_from_lists(typecode, values, kind):
    """A row table's ``array.array`` (the report's statistics) is written as its list
    would be: the same type chosen, the same bytes, the same numbers back."""
    from array import array

    from truebleu.viewer.page import decode_payload, encode_payload

    as_array = encode_payload({"systems": [{"stats": array(typecode, values)}]})
    as_list = encode_payload({"systems": [{"stats": list(values)}]})
    assert as_array == as_list
    assert decode_payload(as_array) == {"systems": [{"stats": list(values)}], "format": 4}
    raw = __import__("gzip").decompress(as_array)
    assert __import__("json").loads(raw[raw.rindex(b"\n") + 1:])["blocks"][0]["type"] == kind


def test_number_arrays_and_token_columns_refuse_what_the_page_cannot_read():
    from array import array

    from truebleu.viewer.page import encode_payload

    with pytest.raises(ValueError, match="systems.0.stats holds an integer beyond 64 bits"):
        encode_payload({"systems": [{"stats": array("Q", [2**63])}]})
    with pytest.raises(ValueError, match="systems.0.bleu_without holds a value that is not finite"):
        encode_payload({"systems": [{"bleu_without": array("d", [0.5, float("inf")])}]})
    with pytest.raises(ValueError, match="systems.0.stats must hold numbers only"):
        encode_payload({"systems": [{"stats": array("u", "ab")}]})
    with pytest.raises(ValueError, match="references.0.tokens must hold None, str or lists"):
        encode_payload({"references": [{"tokens": [None, (1, 2)]}]})
    with pytest.raises(ValueError, match="systems.0.tokens must hold offsets that are int"):
        encode_payload({"systems": [{"tokens": [[1, 0.5]]}]})
    with pytest.raises(ValueError, match="systems.0.tokens.offsets must hold numbers only"):
        encode_payload({"systems": [{"tokens": [["1"]]}]})


@pytest.mark.parametrize("size", [0, 1, 999, 1000, 1001, 4321])
def test_parallel_gzip_is_one_gzip_stream_whatever_the_threads_and_pieces(size, monkeypatch,
                                                                          deflater):
    """The bytes back from gzip.decompress, the same output on 1, 2 and 3 threads and
    whatever the pieces' cuts (blocks of 1000 bytes here, so that several are joined)."""
    import gzip
    import random

    from truebleu.viewer import parallel_gzip

    monkeypatch.setattr(parallel_gzip, "BLOCK", 1000)
    rng = random.Random(size)
    words = [b"alpha ", b"beta ", b"gamma\n", b"\xc3\xa9t\xc3\xa9 ", bytes([rng.randrange(256)])]
    data = b"".join(rng.choice(words) for _ in range(size))[:size * 3]
    outputs = set()
    for threads in (1, 2, 3):
        for cut in (1, 7, 1000, 10**6):
            pieces = [data[k:k + cut] for k in range(0, len(data), cut)]
            out = parallel_gzip.gzip_compress(pieces, threads=threads)
            assert gzip.decompress(out) == data
            outputs.add(out)
    assert len(outputs) == 1


def test_parallel_gzip_keeps_gzips_ratio(deflater):
    """Each block is primed with the 32 KiB before it: the stream is as small as one stream
    of the same deflater at level 1 within 0.05% (4.5 MB of text in 5 blocks; unprimed
    blocks lose about 0.3%), with either deflater."""
    import random

    from truebleu.viewer.parallel_gzip import gzip_compress

    rng = random.Random(25)
    vocabulary = ["".join(rng.choice("abcdefghijklmnoprstu") for _ in range(rng.randint(1, 9)))
                  for _ in range(3000)]
    lines = (" ".join(rng.choice(vocabulary) for _ in range(rng.randint(5, 30))) for _ in range(50000))
    data = "\n".join(lines).encode()[:4_500_000]
    assert len(data) == 4_500_000
    one = deflater.compressobj(1, deflater.DEFLATED, -15)
    whole = len(one.compress(data) + one.flush()) + 18  # (gzip's header and trailer)
    assert len(gzip_compress([data])) <= whole * 1.0005
