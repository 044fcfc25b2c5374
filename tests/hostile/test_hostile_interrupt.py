"""Ctrl-C (issue 26, item 11: "Ctrl-C prints a traceback").

Interrupting ``compare``, ``report`` or a TER run printed a whole ``KeyboardInterrupt``
traceback. Every sub-command now ends with status 130 (128 + SIGINT) and one line on
standard error, leaves no partial output file, and the API still raises
``KeyboardInterrupt``.

Each command runs in a child process on input large enough for seconds of work, and gets
SIGINT in the middle of it. No bound is wall-clock time, which a busy machine stretches: a
child is interrupted once it has spent more CPU time than its sub-command's start-up
(measured here, with ``--help``) plus a margin, and the test checks that it was still
running then.
"""

from __future__ import annotations

import http.server
import json
import os
import random
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

import truebleu

if not sys.platform.startswith("linux"):  # pragma: no cover
    pytest.skip("reads a child's CPU time from /proc", allow_module_level=True)

PACKAGE_PARENT = str(Path(truebleu.__file__).resolve().parents[1])
ENV = dict(os.environ, PYTHONPATH=PACKAGE_PARENT + os.pathsep + os.environ.get("PYTHONPATH", ""))
INTERRUPTED = "truebleu: interrupted"


def process_stat(pid: int) -> tuple[str, float]:
    """State letter (field 3; "Z" once it has ended) and user + system CPU seconds (fields 14
    and 15, every thread's) of a process."""
    with open(f"/proc/{pid}/stat", encoding="ascii") as handle:
        fields = handle.read().rsplit(")", 1)[1].split()
    return fields[0], (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a running process."""
    return process_stat(pid)[1]


def command(args: list[str]) -> list[str]:
    return [sys.executable, "-m", "truebleu", *args]


def start_up_cpu(args: list[str]) -> float:
    """CPU seconds of the sub-command up to its parsed arguments (its ``--help``).

    Read from that one child's own resource usage (``wait4``), not from the difference of
    this process's children's totals: any other child reaped meanwhile (a finished helper
    process of an earlier test) would count too, and a threshold inflated by seconds lets
    the busy command finish before it is interrupted.
    """
    child = subprocess.Popen(command(args), stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL, env=ENV)
    _, status, usage = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)  # reaped here, not by Popen
    assert child.returncode == 0, (args, child.returncode)
    return usage.ru_utime + usage.ru_stime


def interrupt_when_busy(args: list[str], help_args: list[str], cwd: Path
                        ) -> subprocess.CompletedProcess:
    """Run ``truebleu args``; SIGINT once its CPU time is well past start-up; its result."""
    threshold = 2 * start_up_cpu(help_args) + 0.3
    child = subprocess.Popen(command(args), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True, env=ENV, cwd=cwd)
    try:
        while True:
            state, cpu = process_stat(child.pid)  # (an ended child stays readable until reaped)
            assert state != "Z" and child.poll() is None, (
                f"finished before it could be interrupted (after {cpu:.2f} s of CPU; "
                f"the threshold was {threshold:.2f} s): {child.communicate()}")
            if cpu >= threshold:
                break
            time.sleep(0.01)
        child.send_signal(signal.SIGINT)
        out, err = child.communicate(timeout=300)
    finally:
        if child.poll() is None:
            child.kill()
    return subprocess.CompletedProcess(args, child.returncode, out, err)


@pytest.fixture(scope="module", autouse=True)
def ctrl_c_as_in_a_terminal():
    """Start every child of this module with Ctrl-C's default action, as a terminal does.

    A shell without job control (a CI script's ``command &``) starts a background job with
    SIGINT ignored, and a process keeps an ignored signal across ``exec``: Python then
    installs no ``KeyboardInterrupt`` handler, and a child here never saw its Ctrl-C (CI's
    other-Python run, started that way, timed out on both ``python -m`` stand-ins below). A
    child starts with the default action for any signal this process handles, so handling
    SIGINT here for the module's duration is enough."""
    if signal.getsignal(signal.SIGINT) is not signal.SIG_IGN:
        yield
        return
    signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, signal.SIG_IGN)


def write_lines(path: Path, lines: list[str]) -> str:
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return str(path)


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    """A large test set (60,000 segments, three systems) and a long one for TER."""
    folder = tmp_path_factory.mktemp("interrupt")
    rng = random.Random(26)
    words = [f"w{i}" for i in range(3000)]
    refs = [" ".join(rng.choices(words, k=rng.randint(5, 30))) for _ in range(60_000)]
    files = {"folder": folder, "ref": write_lines(folder / "ref.txt", refs)}
    for k in range(3):
        files[f"sys{k}"] = write_lines(folder / f"sys{k}.txt", [
            " ".join(w if rng.random() > 0.3 else rng.choice(words) for w in r.split())
            for r in refs])
    long_refs = [" ".join(rng.choices(words[:500], k=150)) for _ in range(3000)]
    files["ter_ref"] = write_lines(folder / "ter_ref.txt", long_refs)
    files["ter_hyp"] = write_lines(folder / "ter_hyp.txt", [
        " ".join(rng.choices(words[:500], k=150)) for _ in long_refs])
    return files


def assert_one_line(result: subprocess.CompletedProcess) -> None:
    """Status 130, and the interruption is one line after what the command said before it."""
    assert result.returncode == 130, result
    lines = result.stderr.splitlines()
    assert lines[-1] == INTERRUPTED and lines.count(INTERRUPTED) == 1, result.stderr
    assert "Traceback" not in result.stderr and "KeyboardInterrupt" not in result.stderr


@pytest.mark.parametrize("case", ["score", "ter", "pbs", "compare", "dialect"])
def test_commands_end_with_130_and_one_line(corpus, case):
    c = corpus
    args, help_args = {
        "score": ([c["ref"], "-i", c["sys0"], c["sys1"], c["sys2"], "-m", "bleu", "chrf"],
                  ["--help"]),
        "ter": ([c["ter_ref"], "-i", c["ter_hyp"], "-m", "ter"], ["--help"]),
        "pbs": ([c["ref"], "-i", c["sys0"], c["sys1"], "-pbs", "-pbsn", "200000"], ["--help"]),
        "compare": (["compare", c["ref"], "-i", c["sys0"], c["sys1"], c["sys2"], "-n", "50000"],
                    ["compare", "--help"]),
        # mteval's NIST-style loop stays in Python (nltk's counts come from the core now,
        # and finish before a busy child can be caught)
        "dialect": (["--dialect", "mteval-v13a", c["ref"], "-i", c["sys0"], c["sys1"], c["sys2"]],
                    ["--dialect", "mteval-v13a", "--help"]),
    }[case]
    result = interrupt_when_busy(args, help_args, c["folder"])
    assert_one_line(result)
    assert result.stdout == ""


def test_report_leaves_no_output_file(corpus):
    out = corpus["folder"] / "report.html"
    result = interrupt_when_busy(["report", corpus["ref"], "-i", corpus["sys0"], corpus["sys1"],
                                  "--n-samples", "20000", "-o", str(out)],
                                 ["report", "--help"], corpus["folder"])
    assert_one_line(result)
    assert not [p.name for p in corpus["folder"].iterdir() if p.name.startswith("report")]


def test_serve_while_building_and_while_serving(corpus):
    result = interrupt_when_busy(["serve", corpus["ref"], "-i", corpus["sys0"], corpus["sys1"],
                                  "--port", "0"], ["serve", "--help"], corpus["folder"])
    assert_one_line(result)
    small = write_lines(corpus["folder"] / "small.txt", ["a small test", "of two lines"])
    child = subprocess.Popen(command(["serve", small, "-i", small, "--port", "0"]),
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=ENV)
    try:
        first = child.stderr.readline()  # printed once the server listens
        assert "serving" in first, first
        child.send_signal(signal.SIGINT)
        out, rest = child.communicate(timeout=60)
    finally:
        if child.poll() is None:
            child.kill()
    assert child.returncode == 130
    assert len(rest.splitlines()) == 1 and "Traceback" not in rest, rest


def test_explain(tmp_path):
    rng = random.Random(11)
    sentence = " ".join(f"w{rng.randrange(300)}" for _ in range(18_000))  # ~100 kB an argument
    args = ["explain", "--hyp", sentence, "-f", "json"]
    for _ in range(5):
        args += ["--ref", " ".join(f"w{rng.randrange(300)}" for _ in range(18_000))]
    result = interrupt_when_busy(args, ["explain", "--help"], tmp_path)
    assert_one_line(result)


class Trickle(http.server.BaseHTTPRequestHandler):
    """Announces a large file and sends it one byte at a time, until the client goes away."""

    started = threading.Event()

    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("Content-Length", str(10 ** 8))
        self.end_headers()
        try:
            while True:
                self.wfile.write(b"x")
                self.wfile.flush()
                Trickle.started.set()
                time.sleep(0.05)
        except OSError:
            pass

    def log_message(self, *args) -> None:
        pass


def test_test_set_download_leaves_nothing_in_the_cache(tmp_path):
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Trickle)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}/slow.en"
        entry = {"format": "text", "urls": [url], "md5": ["0" * 32], "description": "slow",
                 "citation": "@misc{slow}", "langpairs": {"de-en": ["fx-slow.slow.en",
                                                                    "fx-slow.slow.en"]}}
        code = (
            "import sys\n"
            "from truebleu.io.testsets import registry\n"
            f"document = {{'testsets': {{'fx-slow': {json.dumps(entry)}}}, 'subsets': {{}}}}\n"
            "registry._document = lambda: document\n"
            "registry.get_testset.cache_clear()\n"
            "from truebleu.cli import main\n"
            "sys.exit(main(['--download', 'fx-slow', '-l', 'de-en']))\n")
        cache = tmp_path / "cache"
        child = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, text=True,
                                 env=dict(ENV, SACREBLEU=str(cache)))
        try:
            assert Trickle.started.wait(120), "the download never started"
            time.sleep(0.2)  # a few more bytes written to the temporary file
            child.send_signal(signal.SIGINT)
            out, err = child.communicate(timeout=60)
        finally:
            if child.poll() is None:
                child.kill()
    finally:
        server.shutdown()
        server.server_close()
    assert child.returncode == 130 and err.splitlines() == [INTERRUPTED], err
    # no partial download; the lock file stays, empty, as sacreBLEU's and filelock's do (it
    # holds nothing, and a later run takes the lock through it)
    left = [p for p in cache.rglob("*") if p.is_file() and p.suffix != ".lock"]
    assert left == []
    assert all(p.stat().st_size == 0 for p in cache.rglob("*.lock"))


def test_the_api_still_raises_keyboard_interrupt(corpus):
    code = (
        "import sys\n"
        "from truebleu import TER\n"
        f"hyps = open({corpus['ter_hyp']!r}).read().splitlines()\n"
        f"refs = open({corpus['ter_ref']!r}).read().splitlines()\n"
        "print('started', flush=True)\n"
        "try:\n"
        "    TER().corpus_score(hyps, [refs])\n"
        "except KeyboardInterrupt:\n"
        "    print('KeyboardInterrupt', flush=True)\n"
        "    sys.exit(3)\n")
    child = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, env=ENV)
    try:
        assert child.stdout.readline() == "started\n"
        busy = cpu_seconds(child.pid) + 0.3
        while cpu_seconds(child.pid) < busy:
            assert child.poll() is None, "TER finished before it could be interrupted"
            time.sleep(0.01)
        child.send_signal(signal.SIGINT)
        out, err = child.communicate(timeout=120)
    finally:
        if child.poll() is None:
            child.kill()
    assert child.returncode == 3 and out == "KeyboardInterrupt\n", (out, err)


def run_as_module(folder: Path, name: str, source: str) -> subprocess.CompletedProcess:
    """``python -m name`` of ``source`` written into ``folder``, as ``python -m truebleu`` runs."""
    (folder / f"{name}.py").write_text(source, encoding="utf-8")
    env = dict(ENV, PYTHONPATH=str(folder) + os.pathsep + ENV["PYTHONPATH"])
    return subprocess.run([sys.executable, "-m", name], cwd=folder, env=env,
                          capture_output=True, text=True, timeout=120)


# A stand-in for a sub-command that Ctrl-C interrupts while code made from a source string
# runs, as when a module that builds a namedtuple or a dataclass is being imported: the
# signal comes from a timer while the string's code loops.
INTERRUPTED_IN_A_STRING = """
import os, signal, sys, threading
from truebleu.cli import entry

def busy(argv):
    threading.Timer(0.2, os.kill, (os.getpid(), signal.SIGINT)).start()
    eval("sum(i for i in range(10 ** 12))")
    return 0

entry.dispatch = busy
sys.exit(entry.run())
"""


def test_status_130_under_python_m_after_an_interrupt_in_code_from_a_string(tmp_path):
    """``python -m truebleu`` ended killed by SIGINT (status -2 here) after printing its one
    line, when Ctrl-C came while code run from a string (``eval``/``exec`` of text) ran:
    CPython remembers such an interrupt even once caught, and ``python -m`` then kills the
    process at exit (cli/entry.py's ``_forget_caught_interrupt``). Seen as a rare failure of
    the report test above, when its signal came during an import."""
    assert_one_line(run_as_module(tmp_path, "interrupted_in_a_string", INTERRUPTED_IN_A_STRING))


# A stand-in for a sub-command that Ctrl-C interrupts while a weak reference's callback runs
# (as an import's module-lock callback does), where Python cannot raise it: it printed
# "Exception ignored in ..." and went on; without the interrupt the stand-in ends with 0.
INTERRUPTED_IN_A_CALLBACK = """
import os, signal, sys, threading, time, weakref
from truebleu.cli import entry

class Thing:
    pass

def callback(_):
    threading.Timer(0.2, os.kill, (os.getpid(), signal.SIGINT)).start()
    sum(i for i in range(10 ** 12))

def busy(argv):
    thing = Thing()
    ref = weakref.ref(thing, callback)
    del thing
    for _ in range(200):  # 20 s for the interrupt to come back
        time.sleep(0.1)
    return 0

entry.dispatch = busy
sys.exit(entry.run())
"""


def test_an_interrupt_python_cannot_raise_in_a_callback_still_stops_the_command(tmp_path):
    """A Ctrl-C raised in a weak reference's callback cannot propagate: Python printed its
    traceback as "Exception ignored" and the command went on (``serve`` served on; seen in
    CI as a hang of the test above). cli/entry.py's unraisable hook delivers it again."""
    assert_one_line(run_as_module(tmp_path, "interrupted_in_a_callback",
                                  INTERRUPTED_IN_A_CALLBACK))
