"""The page's deflater (viewer/parallel_gzip.py): ISA-L's where the ``isal`` extra is
installed, else zlib's; either way the same page data, read back by any gzip reader."""

from __future__ import annotations

import base64
import re
import sys
import zlib

import pytest

from truebleu.viewer import parallel_gzip, report
from truebleu.viewer.page import decode_payload


def test_isal_is_the_deflater_where_installed_and_zlib_where_not(monkeypatch):
    isal_zlib = pytest.importorskip("isal.isal_zlib", reason="the isal extra is not installed")
    assert parallel_gzip._deflater() is isal_zlib
    monkeypatch.setitem(sys.modules, "isal", None)  # (import isal then raises ImportError)
    assert parallel_gzip._deflater() is zlib


def test_the_crc_is_gzips_whichever_deflater(deflater):
    data = bytes(range(256)) * 1000 + "été 東京".encode()
    assert parallel_gzip.crc32(data) == zlib.crc32(data)
    assert parallel_gzip.crc32(data[500:], parallel_gzip.crc32(data[:500])) == zlib.crc32(data)


def payload_of(path) -> dict:
    text = path.read_text(encoding="utf-8")
    data = re.search(r'id="truebleu-payload">([^<]*)</script>', text).group(1)
    return decode_payload(base64.b64decode(data))


def test_both_deflaters_give_a_page_of_the_same_data(tmp_path, monkeypatch):
    """The same report saved with zlib and with ISA-L (blocks of 1000 bytes, so that the
    stream is many primed blocks): the payloads read back equal, the texts included."""
    isal_zlib = pytest.importorskip("isal.isal_zlib", reason="the isal extra is not installed")
    monkeypatch.setattr(parallel_gzip, "BLOCK", 1000)
    refs = [[f"the cat {k} sat on the mat, été {k % 7}" for k in range(300)]]
    systems = {"A": [f"the cat {k} sat on a mat {k % 5}" for k in range(300)],
               "B": [f"a cat {k} sat, 東京 {k % 3}" for k in range(300)]}
    rep = report(refs, systems, source=[f"die Katze {k}" for k in range(300)], n_samples=50)
    payloads = []
    for name, module in (("zlib", zlib), ("isal", isal_zlib)):
        monkeypatch.setattr(parallel_gzip, "DEFLATER", module)
        path = tmp_path / f"{name}.html"
        rep.save(path)
        payloads.append(payload_of(path))
    assert payloads[0] == payloads[1]
    assert payloads[0]["systems"][1]["text"][299] == systems["B"][299]
