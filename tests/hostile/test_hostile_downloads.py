"""Downloads and archives are bounded, and archives stay in their folder (issue 26, item 3:
"Downloads have no limits").

A server trickling a byte every few seconds kept truebleu waiting forever (the 60 s timeout
was per read); a 300 MB response was written before the checksum was looked at; a 1 MB
archive unpacked to 1 GiB; without tarfile's ``data`` filter (Python 3.10 before 3.10.12)
``extractall`` wrote ``../`` members outside the cache, and zip names were cleaned up
silently. Every server here is a thread on 127.0.0.1; every archive is made by the test.
"""

from __future__ import annotations

import io
import json
import os
import stat
import subprocess
import sys
import tarfile
import time
import zipfile
from pathlib import Path

import pytest

from _testset_fixtures import LocalServer
from truebleu.io.testsets import cache
from truebleu.io.testsets.archives import extract_archive
from truebleu.io.testsets.errors import DownloadError
from truebleu.io.testsets.limits import DownloadLimits

MiB = 1 << 20


#: A certificate for 127.0.0.1 and its key, made for these tests only (valid until 2126).
TLS_CERTIFICATE = Path(__file__).with_name("loopback-tls-test-only.pem")


def _serve(tmp_path: Path, tls: bool = False):
    folder = tmp_path / "served"
    folder.mkdir()
    (folder / "small.txt").write_bytes(b"a small file\n")
    return LocalServer(folder, TLS_CERTIFICATE if tls else None), folder


@pytest.fixture
def server(tmp_path):
    local, folder = _serve(tmp_path)
    yield local, folder
    local.close()


def _files(folder: Path) -> list[str]:
    """Every file and link under ``folder`` but download locks, relative."""
    return sorted(str(path.relative_to(folder)) for path in folder.rglob("*")
                  if not path.is_dir() and not path.name.endswith(".lock"))


# -- an overall deadline --------------------------------------------------------------------------

def _trickle_body(handler) -> None:
    """Promises 100 kB and sends one byte every 0.25 s (until the client goes, or 2 minutes)."""
    handler.send_response(200)
    handler.send_header("Content-Length", "100000")
    handler.end_headers()
    for _ in range(480):
        try:
            handler.wfile.write(b"x")
            handler.wfile.flush()
        except OSError:
            return
        time.sleep(0.25)


def _trickle_headers(handler) -> None:
    """Sends its headers one byte every 0.25 s, never ending them."""
    try:
        handler.wfile.write(b"HTTP/1.1 200 OK\r\n")
        for _ in range(480):
            handler.wfile.write(b"X")
            handler.wfile.flush()
            time.sleep(0.25)
    except OSError:
        return


#: a plain download (its time is the test's margin), then the timed one; "# SET-UP" is where a
#: test changes the process first
TIMED = r"""
import json, sys, time
from truebleu.io.testsets.cache import download_file
from truebleu.io.testsets.errors import DownloadError
# SET-UP
base, folder, slow = sys.argv[1], sys.argv[2], sys.argv[3]
started = time.monotonic()
download_file(base + "/small.txt", folder + "/small.txt")
baseline = time.monotonic() - started
started = time.monotonic()
try:
    download_file(slow if "://" in slow else base + "/" + slow, folder + "/slow.txt")
    error = None
except DownloadError as exc:
    error = str(exc)
print(json.dumps({"baseline": baseline, "elapsed": time.monotonic() - started, "error": error}))
"""

DEADLINE = 2.0


def _timed_download(local, target: Path, slow: str, base: str = "", set_up: str = "",
                    **environment: str) -> dict:
    """TIMED in a child process with a download deadline of DEADLINE s: the plain download
    from ``base`` (default: the server's URL), then ``slow`` (a path on it, or a URL)."""
    env = {**os.environ, "TRUEBLEU_DOWNLOAD_TIMEOUT": str(DEADLINE), **environment}
    try:
        done = subprocess.run([sys.executable, "-c", TIMED.replace("# SET-UP", set_up),
                               base or local.url, str(target), slow],
                              capture_output=True, text=True, timeout=120, env=env)
    finally:
        local.close()
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.mark.parametrize("scheme", ["http", "https"])
@pytest.mark.parametrize("how", ["body", "headers"])
def test_a_trickling_server_is_cut_off_at_the_deadline(tmp_path, how, scheme):
    local, _ = _serve(tmp_path, tls=scheme == "https")
    local.custom[f"slow-{how}"] = _trickle_body if how == "body" else _trickle_headers
    target = tmp_path / "cache"
    result = _timed_download(local, target, f"slow-{how}", SSL_CERT_FILE=str(TLS_CERTIFICATE))
    assert result["error"] is not None and f"not finished after {DEADLINE:g} s" in result["error"]
    assert "TRUEBLEU_DOWNLOAD_TIMEOUT" in result["error"]
    # stopped at the deadline, not at a per-read timeout (60 s) and not before: the margin is
    # what a plain download took in the same process, many times over, plus scheduling noise
    assert DEADLINE <= result["elapsed"] <= DEADLINE + 3 + 20 * result["baseline"], result
    assert _files(target) == ["small.txt"]


#: a resolver that does not answer, for one host name
NEVER_ANSWERS = """
import socket
real = socket.getaddrinfo

def getaddrinfo(host, *args, **kwargs):
    if host == "resolver-never-answers.invalid":
        time.sleep(60)
        raise socket.gaierror(socket.EAI_AGAIN, "Temporary failure in name resolution")
    return real(host, *args, **kwargs)

socket.getaddrinfo = getaddrinfo
"""


def test_a_name_lookup_that_never_answers_ends_at_the_deadline(tmp_path):
    """``getaddrinfo`` runs before there is a socket the watchdog could shut down: a resolver
    that does not answer held the download past its deadline, for as long as the lookup took
    (here 60 s). A host name that does resolve (``localhost``, to each of its addresses in
    turn) still downloads."""
    local, _ = _serve(tmp_path)
    target = tmp_path / "cache"
    result = _timed_download(local, target, "http://resolver-never-answers.invalid/x.txt",
                             base=local.url.replace("127.0.0.1", "localhost"), set_up=NEVER_ANSWERS)
    assert result["error"] is not None and f"not finished after {DEADLINE:g} s" in result["error"]
    assert "resolver-never-answers.invalid" in result["error"]
    assert DEADLINE - 0.5 <= result["elapsed"] <= DEADLINE + 3 + 20 * result["baseline"], result
    assert _files(target) == ["small.txt"]


# -- a size limit ----------------------------------------------------------------------------------

def _declares_300_mb(handler) -> None:
    handler.send_response(200)
    handler.send_header("Content-Length", str(300_000_000))
    handler.end_headers()
    try:
        handler.wfile.write(b"\0" * 65536)
    except OSError:
        pass


def _endless(handler) -> None:
    """No length: zeros until the client goes (at most 64 MiB)."""
    handler.send_response(200)
    handler.end_headers()
    try:
        for _ in range(1024):
            handler.wfile.write(b"\0" * 65536)
    except OSError:
        pass


def test_a_declared_length_over_the_limit_is_refused_before_the_body(server, tmp_path):
    local, _ = server
    local.custom["big"] = _declares_300_mb
    dest = tmp_path / "raw" / "big"
    with pytest.raises(DownloadError, match=r"300,000,000 bytes, more than the limit of 1,048,576"):
        cache.download_file(f"{local.url}/big", str(dest), limits=DownloadLimits(max_bytes=MiB))
    assert _files(tmp_path / "raw") == []


def test_a_body_growing_past_the_limit_is_cut_there(server, tmp_path, monkeypatch):
    local, _ = server
    local.custom["endless"] = _endless
    monkeypatch.setenv("TRUEBLEU_DOWNLOAD_MAX_BYTES", str(MiB))
    dest = tmp_path / "raw" / "endless"
    with pytest.raises(DownloadError, match=r"more than [\d,]+ bytes, more than the limit of "
                                            r"1,048,576 \(set TRUEBLEU_DOWNLOAD_MAX_BYTES"):
        cache.download_file(f"{local.url}/endless", str(dest), "0" * 32)
    assert _files(tmp_path / "raw") == []


@pytest.mark.parametrize("variable, value", [("TRUEBLEU_DOWNLOAD_TIMEOUT", "soon"),
                                             ("TRUEBLEU_DOWNLOAD_TIMEOUT", "nan"),
                                             ("TRUEBLEU_DOWNLOAD_MAX_BYTES", "-1"),
                                             ("TRUEBLEU_UNPACK_MAX_BYTES", "1e9")])
def test_a_bad_limit_in_the_environment_is_one_clear_error(server, tmp_path, monkeypatch,
                                                          variable, value):
    local, _ = server
    monkeypatch.setenv(variable, value)
    with pytest.raises(DownloadError, match=f"{variable} must be a positive"):
        cache.download_file(f"{local.url}/small.txt", str(tmp_path / "raw" / "small.txt"))


# -- archives: what they unpack to -----------------------------------------------------------------

class _Zeros(io.RawIOBase):
    def __init__(self, size: int) -> None:
        self.left = size

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        n = min(len(buffer), self.left)
        buffer[:n] = bytes(n)
        self.left -= n
        return n


def _tar_gz(path: Path, members: list[tarfile.TarInfo],
            data: dict[str, io.RawIOBase | io.BytesIO] | None = None) -> Path:
    """A tar.gz of ``members``, the regular ones read from ``data``."""
    with tarfile.open(path, "w:gz", compresslevel=9) as tar:
        for info in members:
            tar.addfile(info, (data or {}).get(info.name))
    return path


def _member(name: str, size: int = 0, kind: bytes = tarfile.REGTYPE, link: str = "",
            pax: dict[str, str] | None = None) -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.size, info.type, info.linkname = size, kind, link
    if pax:
        info.pax_headers = pax
    return info


@pytest.fixture(scope="module")
def tar_bomb(tmp_path_factory) -> Path:
    """About 100 KiB of tar.gz that unpacks to 100 MiB of zeros."""
    path = tmp_path_factory.mktemp("bombs") / "bomb.tar.gz"
    return _tar_gz(path, [_member("zeros", 100 * MiB)], {"zeros": _Zeros(100 * MiB)})


@pytest.fixture(scope="module")
def zip_bomb(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("bombs") / "bomb.zip"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
        with archive.open("zeros", "w") as member:
            for _ in range(100):
                member.write(bytes(MiB))
    return path


@pytest.mark.parametrize("bomb", ["tar_bomb", "zip_bomb"])
def test_an_archive_unpacking_to_100_times_its_size_is_refused(request, tmp_path, bomb):
    archive = request.getfixturevalue(bomb)
    assert archive.stat().st_size < MiB
    dest = tmp_path / "raw"
    with pytest.raises(DownloadError, match=r"unpacks to more than 67,108,864 bytes"):
        extract_archive(str(archive), str(dest), limits=DownloadLimits())
    assert _files(tmp_path) == []


def test_a_bomb_served_as_a_test_set_leaves_nothing(server, tmp_path, tar_bomb):
    local, folder = server
    (folder / "bomb.tar.gz").write_bytes(tar_bomb.read_bytes())
    dest = tmp_path / "cache" / "raw" / "set.bomb.tar.gz"
    with pytest.raises(DownloadError, match=f"cannot unpack {local.url}/bomb.tar.gz: it unpacks"):
        cache.download_file(f"{local.url}/bomb.tar.gz", str(dest),
                            extract_to=str(dest.parent), limits=DownloadLimits())
    assert _files(tmp_path / "cache") == []


def test_a_huge_tar_header_is_refused_before_it_is_read_whole(tmp_path):
    """tarfile reads a pax header whole into memory: the decompressed stream is what is capped."""
    archive = _tar_gz(tmp_path / "pax.tar.gz", [_member("a.txt", pax={"comment": "x" * (8 * MiB)})])
    with pytest.raises(DownloadError, match="unpacks to more than 1,048,576 bytes"):
        extract_archive(str(archive), str(tmp_path / "raw"),
                        limits=DownloadLimits(unpack_max_bytes=MiB))
    assert not (tmp_path / "raw").exists() or _files(tmp_path / "raw") == []


def test_too_many_members_are_refused(tmp_path):
    tar = _tar_gz(tmp_path / "many.tar.gz", [_member(f"m{i}") for i in range(11)])
    zipped = tmp_path / "many.zip"
    with zipfile.ZipFile(zipped, "w") as archive:
        for i in range(11):
            archive.writestr(f"m{i}", "")
    for archive_path in (tar, zipped):
        with pytest.raises(DownloadError, match="more than 10 members"):
            extract_archive(str(archive_path), str(tmp_path / "raw"),
                            limits=DownloadLimits(max_members=10))
        assert not (tmp_path / "raw").exists() or _files(tmp_path / "raw") == []


# -- archives: members that leave the folder ----------------------------------------------------------

def _zip(path: Path, members: list[tuple[str, bytes, bool]]) -> Path:
    """(name, data, is a symbolic link) per member."""
    with zipfile.ZipFile(path, "w") as archive:
        for name, data, is_link in members:
            info = zipfile.ZipInfo(name)
            if is_link:
                info.external_attr = (stat.S_IFLNK | 0o777) << 16
            archive.writestr(info, data)
    return path


def _escaping(kind: str, root: Path) -> list:
    """The archive's members for each way out (``root`` holds the outside folder)."""
    outside = root / "outside"
    return {
        "dot-dot": [_member("../evil.txt", 4)],
        "nested dot-dot": [_member("data/../../evil.txt", 4)],
        "absolute": [_member(f"{outside}/abs-evil.txt", 4)],
        "symlink out": [_member("link", kind=tarfile.SYMTYPE, link="../../outside/evil.txt")],
        "absolute symlink": [_member("link", kind=tarfile.SYMTYPE, link=f"{outside}/evil.txt")],
        "write through a symlink": [_member("dir", kind=tarfile.SYMTYPE, link=str(outside)),
                                    _member("dir/evil.txt", 4)],
        "hard link out": [_member("hard", kind=tarfile.LNKTYPE, link="../outside/victim.txt")],
        "device": [_member("null", kind=tarfile.CHRTYPE)],
        "fifo": [_member("pipe", kind=tarfile.FIFOTYPE)],
    }[kind]


TAR_ESCAPES = ["dot-dot", "nested dot-dot", "absolute", "symlink out", "absolute symlink",
               "write through a symlink", "hard link out", "device", "fifo"]


@pytest.fixture
def layout(tmp_path):
    """``cache/raw`` to unpack into, and ``outside/`` holding a victim file."""
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "victim.txt").write_bytes(b"precious")
    return tmp_path, tmp_path / "cache" / "raw"


@pytest.mark.parametrize("data_filter", [True, False], ids=["with data filter", "Python 3.10"])
@pytest.mark.parametrize("kind", TAR_ESCAPES)
def test_a_tar_member_leaving_the_folder_refuses_the_archive(layout, monkeypatch, kind,
                                                             data_filter):
    root, dest = layout
    if not data_filter:  # as on Python 3.10 before 3.10.12, 3.11 before 3.11.4
        monkeypatch.delattr(tarfile, "data_filter", raising=False)
    members = _escaping(kind, root)
    data = {m.name: io.BytesIO(b"evil") for m in members if m.isreg()}
    archive = _tar_gz(root / "evil.tar.gz", members, data)
    before = _files(root)
    with pytest.raises(DownloadError, match="the archive is refused"):
        extract_archive(str(archive), str(dest), limits=DownloadLimits())
    assert _files(root) == before   # nothing written, inside or out
    assert (root / "outside" / "victim.txt").read_bytes() == b"precious"


ZIP_ESCAPES = {
    "dot-dot": [("../evil.txt", b"evil", False)],
    "nested dot-dot": [("data/../../evil.txt", b"evil", False)],
    "absolute": [("/abs-evil.txt", b"evil", False)],
    "drive": [("C:/evil.txt", b"evil", False)],
    "backslash dot-dot": [("..\\evil.txt", b"evil", False)],
    "symlink out": [("link", b"../../outside/victim.txt", True)],
    "absolute symlink": [("link", b"/etc/passwd", True)],
}


@pytest.mark.parametrize("kind", ZIP_ESCAPES)
def test_a_zip_member_leaving_the_folder_refuses_the_archive(layout, kind):
    root, dest = layout
    archive = _zip(root / "evil.zip", ZIP_ESCAPES[kind])
    before = _files(root)
    with pytest.raises(DownloadError, match="the archive is refused"):
        extract_archive(str(archive), str(dest), limits=DownloadLimits())
    assert _files(root) == before


def test_a_link_already_on_disk_cannot_lead_members_out(layout):
    root, dest = layout
    dest.mkdir(parents=True)
    os.symlink(root / "outside", dest / "sub")
    archive = _tar_gz(root / "a.tar.gz", [_member("sub/evil.txt", 4)],
                      {"sub/evil.txt": io.BytesIO(b"evil")})
    with pytest.raises(DownloadError, match="through a link on disk"):
        extract_archive(str(archive), str(dest), limits=DownloadLimits())
    assert sorted(os.listdir(root / "outside")) == ["victim.txt"]


def test_links_inside_the_folder_are_unpacked_as_copies(layout):
    root, dest = layout
    members = [_member("data/", kind=tarfile.DIRTYPE), _member("data/a.txt", 5),
               _member("data/b.txt", kind=tarfile.SYMTYPE, link="a.txt"),
               _member("data/c.txt", kind=tarfile.LNKTYPE, link="data/a.txt")]
    archive = _tar_gz(root / "ok.tar.gz", members, {"data/a.txt": io.BytesIO(b"hello")})
    extract_archive(str(archive), str(dest), limits=DownloadLimits())
    for name in ("a.txt", "b.txt", "c.txt"):
        path = dest / "data" / name
        assert not path.is_symlink() and path.read_bytes() == b"hello"
    zipped = _zip(root / "ok.zip", [("z/a.txt", b"hello", False), ("z/b.txt", b"a.txt", True)])
    extract_archive(str(zipped), str(dest), limits=DownloadLimits())
    assert (dest / "z" / "a.txt").read_bytes() == b"hello"
    assert (dest / "z" / "b.txt").read_bytes() == b"a.txt"  # as zipfile.extractall writes it
    assert [p for p in dest.rglob("*") if p.is_symlink()] == []


def test_an_escaping_archive_served_as_a_test_set_leaves_nothing(server, layout):
    local, folder = server
    root, dest = layout
    _tar_gz(folder / "evil.tar.gz", [_member("../evil.txt", 4)],
            {"../evil.txt": io.BytesIO(b"evil")})
    target = dest / "set.evil.tar.gz"
    with pytest.raises(DownloadError, match="member '../evil.txt' is outside"):
        cache.download_file(f"{local.url}/evil.tar.gz", str(target), extract_to=str(dest),
                            limits=DownloadLimits())
    assert _files(root / "cache") == [] and not (root / "cache" / "evil.txt").exists()
