"""Progress bars (issue 24, item 6): drawn by tqdm on a terminal, nothing elsewhere or with ``-q``.

The bars replace the hand-written ``significance/progress.py``. The terminal case runs
the command with its standard error on a pseudo-terminal, as a person at a shell has it.
"""

from __future__ import annotations

import io
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

import truebleu
from truebleu.core.progress import Progress, is_quiet, set_quiet

PACKAGE_PARENT = str(Path(truebleu.__file__).resolve().parents[1])


class FakeTerminal(io.StringIO):
    def __init__(self, tty: bool) -> None:
        super().__init__()
        self.tty = tty

    def isatty(self) -> bool:
        return self.tty


@pytest.fixture
def loud():
    """Bars allowed (a command run in this process may have set -q), restored after."""
    was = is_quiet()
    set_quiet(False)
    yield
    set_quiet(was)


def test_a_bar_only_on_a_terminal(loud):
    for tty in (True, False):
        stream = FakeTerminal(tty)
        with Progress(10, "resampling", "samples", stream=stream) as bar:
            bar.update(4)
            bar.update(6)
        assert bar.done == 10
        assert ("resampling" in stream.getvalue() and "/10" in stream.getvalue()) is tty
        assert (stream.getvalue() == "") is (not tty)


def test_quiet_draws_nothing_even_on_a_terminal(loud):
    set_quiet(True)
    stream = FakeTerminal(True)
    with Progress(10, "resampling", stream=stream) as bar:
        bar.update(10)
    assert stream.getvalue() == "" and not bar.enabled


def test_a_download_counts_bytes(loud):
    stream = FakeTerminal(True)
    with Progress(3 * 2 ** 20, "Downloading x", in_bytes=True, stream=stream) as bar:
        bar.update(2 ** 20)
    assert "MiB" in stream.getvalue() or "M" in stream.getvalue()


def run_with_stderr_on_a_terminal(args: list[str]) -> tuple[int, str, str]:
    """``truebleu args`` with standard error on a pseudo-terminal: (status, stdout, terminal)."""
    import fcntl  # POSIX only
    import pty
    import struct
    import termios

    master, slave = pty.openpty()
    # a terminal 100 columns wide (a new pseudo-terminal has 0, where tqdm draws nothing)
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 100, 0, 0))
    env = dict(os.environ, PYTHONPATH=PACKAGE_PARENT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    child = subprocess.Popen([sys.executable, "-m", "truebleu", *args], stdout=subprocess.PIPE,
                             stderr=slave, env=env)
    os.close(slave)
    seen = []
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # EIO: the child closed the terminal
            break
        if not chunk:
            break
        seen.append(chunk)
    out = child.stdout.read().decode()
    child.wait(timeout=120)
    os.close(master)
    return child.returncode, out, b"".join(seen).decode(errors="replace")


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("progress")
    rng = random.Random(24)
    words = [f"w{i}" for i in range(200)]
    refs = [" ".join(rng.choices(words, k=12)) for _ in range(300)]
    paths = {}
    for name, lines in [("ref", refs)] + [(f"sys{k}", [
            " ".join(w if rng.random() > 0.3 else rng.choice(words) for w in r.split())
            for r in refs]) for k in range(3)]:
        path = folder / f"{name}.txt"
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        paths[name] = str(path)
    return paths


@pytest.mark.skipif(sys.platform == "win32", reason="pseudo-terminals are POSIX")
@pytest.mark.parametrize("command,labels", [
    (["compare", "{ref}", "-i", "{sys0}", "{sys1}", "{sys2}", "-n", "3000"],
     ["scoring systems", "paired bootstrap"]),
    (["report", "{ref}", "-i", "{sys0}", "{sys1}", "-o", "{out}", "--n-samples", "300"],
     ["scoring systems", "paired bootstrap", "length buckets", "frequency buckets"]),
    (["{ref}", "-i", "{sys0}", "{sys1}", "-pbs", "-pbsn", "3000"], ["paired bootstrap"]),
])
def test_long_work_shows_bars_on_a_terminal_and_nothing_with_q(files, tmp_path, command, labels):
    args = [a.format(out=tmp_path / "r.html", **files) for a in command]
    status, out, terminal = run_with_stderr_on_a_terminal(args)
    assert status == 0 and "Traceback" not in terminal
    for label in labels:
        assert label in terminal, (label, terminal)
    assert "|" in terminal and "\r" in terminal  # tqdm's bar, redrawn in place
    status, quiet_out, quiet_terminal = run_with_stderr_on_a_terminal(args + ["-q"])
    assert status == 0 and quiet_out == out
    assert not any(label in quiet_terminal for label in labels), quiet_terminal
    # a pipe is not a terminal: nothing but the command's own messages
    done = subprocess.run([sys.executable, "-m", "truebleu", *args], capture_output=True,
                          text=True, env=dict(os.environ, PYTHONPATH=PACKAGE_PARENT))
    assert done.returncode == 0 and done.stdout == out
    assert not any(label in done.stderr for label in labels) and "\r" not in done.stderr
