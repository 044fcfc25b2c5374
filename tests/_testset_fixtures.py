"""Small test sets of every format, served over HTTP on 127.0.0.1 by the tests themselves.

``build_served(folder)`` writes the archives (tar.gz, tgz, zip, gz, plain) and
returns the registry entries (truebleu's JSON form, URLs still relative);
``LocalServer`` serves the folder on a free loopback port, counts requests, can
cut a response short, and can answer a path with any function (slow, oversized
or lying servers). No test reaches the internet.
"""

from __future__ import annotations

import gzip
import hashlib
import http.server
import io
import tarfile
import threading
import zipfile
from pathlib import Path
from typing import Callable

WMT_XML = """<?xml version='1.0' encoding='utf-8'?>
<dataset id="fixture2030">
  <doc id="news.1" origlang="de" domain="news">
    <src lang="de"><p>
      <seg id="2">Zweiter   Satz,  mit  Leerzeichen .</seg>
      <seg id="1">Erster Satz &amp; &lt;Zeichen&gt;.</seg>
      <seg id="3">Ohne Referenz.</seg>
    </p></src>
    <ref lang="en" translator="A"><p>
      <seg id="1">First sentence &amp; &lt;signs&gt;.</seg>
      <seg id="2">Second sentence,\twith   spaces .</seg>
      <seg id="3"></seg>
    </p></ref>
    <ref lang="en" translator="B"><p>
      <seg id="1">The first sentence.</seg>
      <seg id="2">The second sentence.</seg>
    </p></ref>
    <hyp lang="en" system="sys-one"><p>
      <seg id="1">First sentence &amp; signs.</seg>
      <seg id="2">Second sentence with spaces.</seg>
      <seg id="3">Without reference.</seg>
    </p></hyp>
    <hyp lang="en" system="sys-two"><p>
      <seg id="1">A first phrase.</seg>
      <seg id="2">Second phrase.</seg>
      <seg id="3">No ref.</seg>
    </p></hyp>
  </doc>
  <doc id="suite.1" origlang="de" testsuite="yes">
    <src lang="de"><p><seg id="1">Test suite.</seg></p></src>
  </doc>
  <doc id="speech.7" origlang="en" domain="speech">
    <src lang="de"><p>
      <seg id="1">Dritter Satz.</seg>
      <seg id="2">Vierter Satz.</seg>
    </p></src>
    <ref lang="en" translator="A"><p>
      <seg id="1">Third sentence.</seg>
      <seg id="2">Fourth sentence.</seg>
    </p></ref>
    <hyp lang="en" system="sys-one"><p>
      <seg id="1">Third sentence.</seg>
      <seg id="2">The fourth sentence.</seg>
    </p></hyp>
    <hyp lang="en" system="sys-two"><p>
      <seg id="1">Third phrase.</seg>
      <seg id="2">Fourth.</seg>
    </p></hyp>
  </doc>
</dataset>
"""

SGM_SRC = """<srcset setid="newstest2030" srclang="any">
<doc sysid="ref" docid="rt.com.68098" genre="news" origlang="de">
<p>
<seg id="1">Ein  Satz   hier.</seg>
<seg id="2">Noch einer.</seg>
</p>
</doc>
<doc sysid="ref" docid="bbc.310963" genre="sport" origlang="en">
<seg id="1">Sport  ist gut.</seg>
</doc>
</srcset>
"""

SGM_REF = """<refset setid="newstest2030" srclang="any" trglang="en">
<doc sysid="ref" docid="rt.com.68098" genre="news" origlang="de">
<p>
<seg id="1">A sentence here.</seg>
<seg id="2">Another   one. </seg>
</p>
</doc>
<doc sysid="ref" docid="bbc.310963" genre="sport" origlang="en">
<seg id="1">Sport is good.</seg>
</doc>
</refset>
"""

IWSLT_SRC = """<mteval>
<srcset setid="iwslt2030" srclang="fr">
<doc docid="talk1" genre="lectures">
<talkid>1</talkid>
<seg id="1"> Bonjour à tous. </seg>
<seg id="2">Merci.</seg>
</doc>
</srcset>
</mteval>
"""

IWSLT_REF = """<mteval>
<refset setid="iwslt2030" srclang="fr" trglang="en" refid="ref">
<doc docid="talk1" genre="lectures">
<talkid>1</talkid>
<seg id="1">Hello everyone.</seg>
<seg id="2">Thank you. </seg>
</doc>
</refset>
</mteval>
"""

TSV = "1\tun texte\ta text\n2\t\t  \n3\tdernier\tlast one  \n"
PLAIN_SRC = "Ein Satz.  \n\nLetzter Satz.\n"
PLAIN_REF = "A sentence.\nAn empty source.\nLast sentence.\t\n"


def _tar_gz(members: dict[str, str]) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for name, text in members.items():
            data = text.encode("utf-8")
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def _zip(members: dict[str, str]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, text in members.items():
            archive.writestr(name, text)
    return buffer.getvalue()


def _md5(data: bytes) -> str:
    return hashlib.md5(data).hexdigest()


def build_served(folder: Path) -> dict[str, dict]:
    """Write the served files into ``folder``; the registry entries with relative URLs."""
    files = {
        "xmlset.tar.gz": _tar_gz({"xmlset/fixture.de-en.xml": WMT_XML}),
        "sgm.zip": _zip({"sgm/newstest2030-src.de.sgm": SGM_SRC,
                         "sgm/newstest2030-ref.en.sgm": SGM_REF}),
        "iwslt.tgz": _tar_gz({"iwslt/IWSLT.fr-en.fr.xml": IWSLT_SRC,
                              "iwslt/IWSLT.fr-en.en.xml": IWSLT_REF}),
        "tsvset.tar.gz": _tar_gz({"tsv/fr-en.tsv": TSV}),
        "plain.de.gz": gzip.compress(PLAIN_SRC.encode()),
        "plain.en": PLAIN_REF.encode(),
    }
    for name, data in files.items():
        (folder / name).write_bytes(data)

    def entry(fmt: str, urls: list[str], langpairs: dict, **extra) -> dict:
        return {"format": fmt, "urls": urls, "md5": [_md5(files[u]) for u in urls],
                "description": f"Fixture {fmt} test set.", "citation": "@misc{fixture}",
                "langpairs": langpairs, **extra}

    return {
        "fx-xml": entry("wmt-xml", ["xmlset.tar.gz"],
                        {"de-en": ["xmlset/fixture.de-en.xml"]}, refs=["A"]),
        "fx-xml/B": entry("wmt-xml", ["xmlset.tar.gz"],
                          {"de-en": {"path": "xmlset/fixture.de-en.xml", "refs": ["B"]}}),
        "fx-sgm": entry("sgml", ["sgm.zip"], {"de-en": ["sgm/newstest2030-src.de.sgm",
                                                        "sgm/newstest2030-ref.en.sgm"]}),
        "fx-sgm/tworefs": entry("sgml", ["sgm.zip"], {"de-en": [
            "sgm/newstest2030-src.de.sgm", "sgm/newstest2030-ref.en.sgm",
            "sgm/newstest2030-ref.en.sgm"]}),
        "fx-iwslt": entry("iwslt-xml", ["iwslt.tgz"], {"fr-en": ["iwslt/IWSLT.fr-en.fr.xml",
                                                                 "iwslt/IWSLT.fr-en.en.xml"]}),
        "fx-tsv": entry("tsv", ["tsvset.tar.gz"], {"fr-en": ["1:tsv/fr-en.tsv",
                                                             "2:tsv/fr-en.tsv"]}),
        "fx-text": entry("text", ["plain.de.gz", "plain.en"],
                         {"de-en": ["fx-text.plain.de.gz", "fx-text.plain.en"]}),
    }


def with_base_url(entries: dict[str, dict], base: str) -> dict[str, dict]:
    return {name: {**entry, "urls": [f"{base}/{url}" for url in entry["urls"]]}
            for name, entry in entries.items()}


class LocalServer:
    """A static file server on 127.0.0.1 (free port) in a thread; ``requests`` lists the paths.

    With ``tls_certificate`` (a PEM file holding a certificate for 127.0.0.1 and its key) it
    speaks HTTPS; a client trusts it through ``SSL_CERT_FILE``.
    """

    def __init__(self, folder: Path, tls_certificate: Path | None = None) -> None:
        self.requests: list[str] = []
        self.truncate: set[str] = set()   # paths answered with half of their bytes
        #: paths answered by a function of the request handler (slow, oversized, lying, ...)
        self.custom: dict[str, Callable[[http.server.BaseHTTPRequestHandler], None]] = {}
        server = self

        class Handler(http.server.SimpleHTTPRequestHandler):
            def __init__(self, *args, **kwargs):
                super().__init__(*args, directory=str(folder), **kwargs)

            def log_message(self, *args):  # keep the test output clean
                pass

            def do_GET(self):
                server.requests.append(self.path)
                name = self.path.lstrip("/")
                if name in server.custom:
                    self.close_connection = True
                    server.custom[name](self)
                    return
                if name in server.truncate:
                    data = (folder / name).read_bytes()
                    self.send_response(200)
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data[: len(data) // 2])
                    self.wfile.flush()
                    self.close_connection = True
                    return
                super().do_GET()

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        scheme = "http"
        if tls_certificate is not None:  # HTTPS, with a certificate (and key) for 127.0.0.1
            import ssl

            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            context.load_cert_chain(tls_certificate)
            self.httpd.socket = context.wrap_socket(self.httpd.socket, server_side=True)
            scheme = "https"
        self.url = f"{scheme}://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever,
                                       kwargs={"poll_interval": 0.05}, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join()
