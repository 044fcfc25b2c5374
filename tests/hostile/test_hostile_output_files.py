"""Writing a file never destroys another one (issue 26, item 1: "Writing a file can destroy
another file").

``truebleu report ref -i a.txt b.txt -o a.txt`` overwrote the system output ``a.txt``; the
report went through the fixed name ``<output>.part``, so a link planted there redirected the
write to any file; and a FIFO or a device given as ``-o`` was replaced by a regular file.
Every file truebleu writes now goes through one writer (:mod:`truebleu.io.output`), checked
here through the command, the API and directly, failures injected at each step: the old file
stays intact and no temporary file is left.
"""

from __future__ import annotations

import ast
import errno
import os
import stat
import subprocess
import sys
import threading
from pathlib import Path

import pytest

import truebleu.io.output as output
from truebleu.cli import viewer as viewer_cli
from truebleu.io import OutputError
from truebleu.io.output import output_file, write_output_file

SRC = Path(output.__file__).resolve().parents[1]  # the truebleu package under test


@pytest.fixture
def corpus(tmp_path):
    """A reference and two system files, and their bytes (to check nothing changed)."""
    files = {"ref.txt": "the cat sat on the mat\na dog barks\n",
             "a.txt": "the cat sat on a mat\na dog\n",
             "b.txt": "a cat sat\nthe dog barks\n"}
    for name, text in files.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    return tmp_path, {name: text.encode() for name, text in files.items()}


def _report(tmp_path: Path, out: str, capsys) -> tuple[int, str]:
    argv = ["report", str(tmp_path / "ref.txt"), "-i", str(tmp_path / "a.txt"),
            str(tmp_path / "b.txt"), "-o", out, "--n-samples", "10", "-q"]
    status = viewer_cli.main(argv)
    return status, capsys.readouterr().err


def _unchanged(tmp_path: Path, files: dict[str, bytes]) -> None:
    for name, data in files.items():
        assert (tmp_path / name).read_bytes() == data, f"{name} was modified"


# -- the target is an input ---------------------------------------------------------------------

@pytest.mark.parametrize("spelling", ["same path", "dot path", "hard link", "symbolic link"])
def test_report_refuses_to_overwrite_an_input(corpus, capsys, spelling):
    tmp_path, files = corpus
    target = {"same path": str(tmp_path / "a.txt"),
              "dot path": str(tmp_path / "." / "a.txt"),
              "hard link": str(tmp_path / "hard.html"),
              "symbolic link": str(tmp_path / "link.html")}[spelling]
    if spelling == "hard link":
        os.link(tmp_path / "a.txt", target)
    if spelling == "symbolic link":
        os.symlink(tmp_path / "a.txt", target)
    before = sorted(os.listdir(tmp_path))
    status, err = _report(tmp_path, target, capsys)
    assert status == 1
    assert f"refusing to write {target}: it is an input" in err and err.count("\n") == 1
    _unchanged(tmp_path, files)
    assert sorted(os.listdir(tmp_path)) == before  # no temporary file left


def test_the_reference_and_every_other_input_are_protected(corpus, capsys):
    tmp_path, files = corpus
    for name in ("ref.txt", "b.txt"):
        status, err = _report(tmp_path, str(tmp_path / name), capsys)
        assert status == 1 and "it is an input" in err
    _unchanged(tmp_path, files)


def test_api_save_refuses_the_inputs_it_is_given(corpus):
    from truebleu.viewer import report

    tmp_path, files = corpus
    rep = report([["a b c"]], {"s": ["a b"]}, n_samples=10)
    with pytest.raises(OutputError, match="it is an input"):
        rep.save(tmp_path / "b.txt", inputs=[tmp_path / "a.txt", tmp_path / "b.txt"])
    _unchanged(tmp_path, files)


# -- names planted by someone else ----------------------------------------------------------------

def test_a_link_planted_at_the_old_temporary_name_is_not_followed(corpus, capsys):
    tmp_path, files = corpus
    victim = tmp_path / "victim.txt"
    victim.write_bytes(b"precious\n")
    out = tmp_path / "out.html"
    os.symlink(victim, tmp_path / "out.html.part")
    status, err = _report(tmp_path, str(out), capsys)
    assert status == 0, err
    assert victim.read_bytes() == b"precious\n"
    assert not out.is_symlink() and out.read_bytes().startswith(b"<!DOCTYPE html>")
    assert os.readlink(tmp_path / "out.html.part") == str(victim)
    _unchanged(tmp_path, files)


def test_temporary_names_are_random_and_created_exclusively(tmp_path, monkeypatch):
    seen: list[tuple[str, int]] = []
    real_open = os.open

    def spy(path, flags, *args, **kwargs):
        seen.append((os.fspath(path), flags))
        return real_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(output.os, "open", spy)
    for _ in range(2):
        write_output_file(tmp_path / "out.txt", b"x")
    created = [(path, flags) for path, flags in seen if flags & os.O_CREAT]
    assert len(created) == 2 and created[0][0] != created[1][0]
    for path, flags in created:
        assert os.path.dirname(path) == str(tmp_path)
        assert flags & os.O_EXCL and flags & os.O_NOFOLLOW


def test_a_symbolic_link_target_is_written_through(tmp_path):
    real = tmp_path / "real.html"
    real.write_bytes(b"old")
    os.symlink(real, tmp_path / "link.html")
    write_output_file(tmp_path / "link.html", b"new")
    assert (tmp_path / "link.html").is_symlink() and real.read_bytes() == b"new"
    assert sorted(os.listdir(tmp_path)) == ["link.html", "real.html"]


# -- FIFOs, devices, standard output --------------------------------------------------------------

def test_a_fifo_is_written_to_and_stays_a_fifo(corpus, capsys):
    tmp_path, files = corpus
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    received = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_bytes()), daemon=True)
    reader.start()
    status, err = _report(tmp_path, str(fifo), capsys)
    reader.join(60)
    assert status == 0, err
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert received and received[0].startswith(b"<!DOCTYPE html>")


def _character_device(tmp_path: Path) -> Path:
    """A null device of our own where we may make one (root); else the system's, which an
    unprivileged process could not replace anyway: both must stay devices."""
    node = tmp_path / "null"
    try:
        os.mknod(node, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    except (PermissionError, AttributeError):
        return Path(os.devnull)
    return node


def test_a_device_is_written_to_and_never_replaced(corpus, capsys):
    tmp_path, files = corpus
    device = _character_device(tmp_path)
    before = os.lstat(device)
    status, err = _report(tmp_path, str(device), capsys)
    assert status == 0, err
    after = os.lstat(device)
    assert stat.S_ISCHR(after.st_mode) and after.st_rdev == before.st_rdev
    assert after.st_ino == before.st_ino


def test_a_full_device_is_one_clear_error():
    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full on this system")
    before = os.lstat("/dev/full")
    with pytest.raises(OutputError, match="cannot write /dev/full: No space left on device"):
        write_output_file("/dev/full", b"x" * 100_000)
    assert os.lstat("/dev/full").st_ino == before.st_ino


def test_dash_writes_the_report_to_standard_output(corpus):
    tmp_path, files = corpus
    code = ("import sys; from truebleu.cli import viewer; sys.exit(viewer.main(sys.argv[1:]))")
    done = subprocess.run([sys.executable, "-c", code, "report", "ref.txt", "-i", "a.txt",
                           "b.txt", "-o", "-", "--n-samples", "10"],
                          cwd=tmp_path, capture_output=True, timeout=300,
                          env={**os.environ, "PYTHONPATH": str(SRC.parent)})  # (this checkout)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(b"<!DOCTYPE html>")
    assert b"wrote standard output" in done.stderr
    assert sorted(os.listdir(tmp_path)) == ["a.txt", "b.txt", "ref.txt"]


def test_directories_and_sockets_are_refused(tmp_path):
    import socket

    with pytest.raises(OutputError, match="is a directory"):
        write_output_file(tmp_path, b"x")
    path = tmp_path / "sock"
    server = socket.socket(socket.AF_UNIX)
    try:
        server.bind(str(path))
        with pytest.raises(OutputError, match="not a regular file"):
            write_output_file(path, b"x")
    finally:
        server.close()


# -- failures at every step leave the old file and no temporary file ----------------------------

def _enospc(*args, **kwargs):
    raise OSError(errno.ENOSPC, "No space left on device")


def _interrupt(*args, **kwargs):
    raise KeyboardInterrupt


FAILURES = {
    # where it fails: (what to patch in the writer's os module, the replacement, what is raised)
    "cannot create (permission)": ("open", lambda *a, **k: (_ for _ in ()).throw(
        PermissionError(errno.EACCES, "Permission denied")), OutputError),
    "disk full at fsync": ("fsync", _enospc, OutputError),
    "Ctrl-C at fsync": ("fsync", _interrupt, KeyboardInterrupt),
    "disk full at rename": ("replace", _enospc, OutputError),
    "Ctrl-C at rename": ("replace", _interrupt, KeyboardInterrupt),
}


@pytest.mark.parametrize("failure", FAILURES)
def test_a_failure_leaves_the_old_file_and_no_temporary_file(tmp_path, monkeypatch, failure):
    target = tmp_path / "out.html"
    target.write_bytes(b"the old report")
    name, replacement, raised = FAILURES[failure]
    monkeypatch.setattr(output.os, name, replacement)
    with pytest.raises(raised) as caught:
        write_output_file(target, b"the new report " * 10_000)
    monkeypatch.undo()
    if raised is OutputError:
        assert str(target) in str(caught.value)
    assert target.read_bytes() == b"the old report"
    assert os.listdir(tmp_path) == ["out.html"]


@pytest.mark.parametrize("error", [KeyboardInterrupt, OSError, ValueError])
def test_an_error_while_writing_leaves_the_old_file_and_no_temporary_file(tmp_path, error):
    target = tmp_path / "out.html"
    target.write_bytes(b"the old report")
    with pytest.raises(error):
        with output_file(target) as out:
            out.write(b"half of the new report")
            raise error
    assert target.read_bytes() == b"the old report"
    assert os.listdir(tmp_path) == ["out.html"]


def test_a_write_that_fails_names_the_file(tmp_path, monkeypatch):
    target = tmp_path / "out.html"
    with pytest.raises(OutputError, match=f"cannot write {target}: No space left"):
        with output_file(target) as out:
            monkeypatch.setattr(out, "_handle", type("Full", (), {"write": _enospc})())
            out.write(b"x")
    assert os.listdir(tmp_path) == []


def test_a_missing_folder_is_one_clear_error(tmp_path):
    target = tmp_path / "no" / "such" / "out.html"
    with pytest.raises(OutputError, match=f"cannot write {target}: No such file"):
        write_output_file(target, b"x")


def test_permissions_are_kept_or_follow_the_umask(tmp_path):
    old = tmp_path / "old.html"
    old.write_bytes(b"x")
    os.chmod(old, 0o640)
    write_output_file(old, b"y")
    assert stat.S_IMODE(os.stat(old).st_mode) == 0o640
    umask = os.umask(0o022)
    try:
        write_output_file(tmp_path / "new.html", b"z")
    finally:
        os.umask(umask)
    assert stat.S_IMODE(os.stat(tmp_path / "new.html").st_mode) == 0o644


# -- every writer uses the one writer -------------------------------------------------------------

#: Files that may write without it: the writer itself, a build-time generator of C headers,
#: and sacreBLEU's ``smart_open`` (its API hands the caller an open file, for any mode).
EXEMPT = {"io/output.py", "_native/gen_tables.py", "utils.py"}
#: Calls that write a file whatever their arguments.
WRITERS = {"write_text", "write_bytes", "extractall", "mkstemp", "mkdtemp", "NamedTemporaryFile",
           "copyfile", "copy2", "move"}


def _writes(node: ast.Call) -> str | None:
    """What the call writes, if it writes a file; None otherwise."""
    func = node.func
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
    receiver = getattr(func.value, "id", None) if isinstance(func, ast.Attribute) else None
    if name in WRITERS:
        return f"{name}(...)"
    if name in ("replace", "rename"):
        # os.replace(a, b) / Path.replace(b); str.replace(old, new) always has two arguments
        if receiver in ("os", "shutil") or len(node.args) + len(node.keywords) == 1:
            return f"{receiver or '...'}.{name}(...)"
    if name == "open" and receiver == "os":
        flags = ast.dump(node.args[1]) if len(node.args) > 1 else ""
        if any(flag in flags for flag in ("O_CREAT", "O_TRUNC", "O_APPEND")):
            return "os.open(..., O_CREAT/O_TRUNC/O_APPEND)"
    elif name == "open":
        modes = node.args[1:2] + [kw.value for kw in node.keywords if kw.arg == "mode"]
        for mode in modes:
            if isinstance(mode, ast.Constant) and set(str(mode.value)) & set("wax+"):
                return f"open(..., {mode.value!r})"
    return None


def test_every_file_truebleu_writes_goes_through_the_one_writer():
    found = []
    for path in sorted(SRC.rglob("*.py")):
        relative = path.relative_to(SRC).as_posix()
        if relative in EXEMPT:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call):
                what = _writes(node)
                if what is not None:
                    found.append(f"{relative}:{node.lineno}: {what}")
    assert found == [], "write through truebleu.io.output.output_file instead:\n" + \
        "\n".join(found)


def test_each_file_is_synced_unless_the_caller_syncs_many_at_once(tmp_path, monkeypatch):
    """An archive of thousands of members took minutes with an fsync each: they are written
    with ``durable=False`` and synced together once, before the download takes its name."""
    import io
    import tarfile

    from truebleu.io.testsets.archives import extract_archive
    from truebleu.io.testsets.limits import DownloadLimits

    calls: list[str] = []
    monkeypatch.setattr(output.os, "fsync", lambda fd: calls.append("fsync"))
    monkeypatch.setattr(output.os, "sync", lambda: calls.append("sync"), raising=False)
    write_output_file(tmp_path / "one.txt", b"x")
    assert calls == ["fsync", "fsync"]  # the file, then its folder
    calls.clear()
    archive = tmp_path / "many.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        for i in range(50):
            info = tarfile.TarInfo(f"m{i}.txt")
            info.size = 1
            tar.addfile(info, io.BytesIO(b"x"))
    extract_archive(str(archive), str(tmp_path / "raw"), limits=DownloadLimits())
    assert calls == ["sync"] and len(os.listdir(tmp_path / "raw")) == 50
