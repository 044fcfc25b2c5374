"""Hostile input on the command line: one clear line naming the input, exit status 1 (issue 11).

Each test is a reproducer from the issue. Paths: the streaming path (one ``-i`` file,
BLEU only), the whole-file path (several systems, ``-sl``), the dialects, ``compare``
and ``report``: all read through :mod:`truebleu.io`, so all must give the same error.
"""

from __future__ import annotations

import bz2
import gzip
import lzma
import os
import socket
import subprocess
import sys
import threading

import pytest
import sacrebleu

from truebleu.cli import main

HYPS = ["the cat sat on the mat .", "a dog barked", "", "hello world"]
REFS = ["the cat is on the mat .", "the dog barked", "nothing", "hello world !"]


@pytest.fixture
def files(tmp_path):
    hyp, ref = tmp_path / "hyp.txt", tmp_path / "ref.txt"
    hyp.write_text("\n".join(HYPS) + "\n")
    ref.write_text("\n".join(REFS) + "\n")
    return str(hyp), str(ref)


def _one_error_line(capsys, status, *names):
    err = capsys.readouterr().err
    assert status == 1, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err
    for name in names:
        assert name in lines[0], err
    return lines[0]


def _corrupt(suffix: str) -> dict[str, bytes]:
    """A compressed copy of the hypotheses, damaged: bit flips or cut in half."""
    text = ("\n".join(HYPS * 300) + "\n").encode()
    packed = {".gz": gzip.compress, ".bz2": bz2.compress, ".xz": lzma.compress}[suffix](text)
    damaged = {
        "flipped": packed[:20] + bytes(b ^ 0x55 for b in packed[20:120]) + packed[120:],
        "truncated": packed[: len(packed) // 2],
    }
    return damaged


@pytest.mark.parametrize("suffix", [".gz", ".bz2", ".xz"])
@pytest.mark.parametrize("damage", ["flipped", "truncated"])
@pytest.mark.parametrize("command", ["streaming", "whole", "sentence", "dialect", "compare",
                                     "report"])
def test_corrupt_compressed_input_is_one_line(tmp_path, capsys, files, suffix, damage, command):
    hyp, ref = files
    bad = tmp_path / f"bad{suffix}"
    bad.write_bytes(_corrupt(suffix)[damage])
    bad_ref = tmp_path / "ref_bad.txt"  # references of the right length for the bad file
    bad_ref.write_text("\n".join(REFS * 300) + "\n")
    argv = {
        "streaming": [str(bad_ref), "-i", str(bad)],
        "whole": [str(bad_ref), "-i", str(bad), hyp],
        "sentence": [str(bad_ref), "-i", str(bad), "-sl"],
        "dialect": [str(bad_ref), "-i", str(bad), "--dialect", "nltk"],
        "compare": ["compare", str(bad_ref), "-i", str(bad), hyp],
        "report": ["report", str(bad_ref), "-i", str(bad), hyp, "-o", str(tmp_path / "r.html")],
    }[command]
    line = _one_error_line(capsys, main(argv), str(bad))
    assert "cannot decompress" in line or "cannot read" in line


def test_corrupt_reference_in_streaming_path(tmp_path, capsys, files):
    hyp, _ = files
    bad = tmp_path / "ref.gz"
    bad.write_bytes(_corrupt(".gz")["flipped"])
    _one_error_line(capsys, main([str(bad), "-i", hyp]), str(bad), "cannot decompress")


def test_not_a_sentencepiece_model(tmp_path, capsys, files):
    pytest.importorskip("sentencepiece")
    hyp, ref = files
    model = tmp_path / "not-a-model.bin"
    model.write_bytes(b"this is not a protobuf")
    status = main([ref, "-i", hyp, "-tok", "flores200", "--spm-model", str(model)])
    _one_error_line(capsys, status, str(model), "not a SentencePiece model")


@pytest.mark.parametrize("threads", ["3000000000", "0", "-1"])
def test_threads_out_of_range(capsys, files, threads):
    hyp, ref = files
    _one_error_line(capsys, main([ref, "-i", hyp, "--threads", threads]), "--threads")


@pytest.mark.parametrize("flags, named", [
    (["-s", "floor", "-sv", "-1"], "--smooth-value"),
    (["-s", "add-k", "-sv", "nan"], "--smooth-value"),
    (["--max-ngram-order", "0"], "--max-ngram-order"),
    (["-m", "bleu", "chrf", "--max-ngram-order", "-3"], "--max-ngram-order"),
    (["-m", "chrf", "--chrf-char-order", "-1"], "--chrf-char-order"),
    (["-m", "chrf", "--chrf-word-order", "-2"], "--chrf-word-order"),
    (["-m", "chrf", "--chrf-char-order", "0"], "--chrf-char-order + --chrf-word-order"),
])
def test_bad_metric_settings_name_the_flag(capsys, files, flags, named):
    """The message names the flag the user typed, not the Python parameter behind it."""
    hyp, ref = files
    line = _one_error_line(capsys, main([ref, "-i", hyp, *flags]), named)
    assert "_" not in line.split("error:", 1)[1], line


@pytest.mark.parametrize("flags", [["-m", "chrf", "-s", "floor", "-sv", "-1"],
                                   ["-m", "bleu", "--chrf-char-order", "-1"]])
def test_settings_of_a_metric_not_asked_for_are_not_checked(capsys, files, flags):
    """As in sacreBLEU, the flags of a metric that is not run are ignored."""
    hyp, ref = files
    assert main([ref, "-i", hyp, "-b", *flags]) == 0, capsys.readouterr().err


@pytest.mark.skipif(not hasattr(socket, "AF_UNIX"), reason="needs Unix sockets")
@pytest.mark.parametrize("role", ["hyp", "ref", "two systems"])
def test_socket_path(tmp_path, capsys, files, role):
    hyp, ref = files
    path = str(tmp_path / "sock")
    server = socket.socket(socket.AF_UNIX)
    try:
        server.bind(path)
        argv = {"hyp": [ref, "-i", path], "ref": [path, "-i", hyp],
                "two systems": [ref, "-i", hyp, path]}[role]
        _one_error_line(capsys, main(argv), path, "is a socket")
    finally:
        server.close()


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")
def test_fifo_is_read_like_a_file(tmp_path, capsys, files):
    """Pipes are input, as with ``-i <(zcat hyp.gz)``; they score as the file would."""
    hyp, ref = files
    fifo = str(tmp_path / "fifo")
    os.mkfifo(fifo)
    writer = threading.Thread(target=lambda: open(fifo, "w").write("\n".join(HYPS) + "\n"))
    writer.start()
    status = main([ref, "-i", fifo, "-b"])
    writer.join(10)
    assert status == 0
    expected = sacrebleu.corpus_bleu(HYPS, [REFS]).score
    assert capsys.readouterr().out.strip() == f"{expected:.1f}"


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="needs /dev/zero")
@pytest.mark.parametrize("extra", [[], ["-sl"], ["--dialect", "nltk"]])
def test_dev_zero_stops_at_the_line_limit(capsys, files, extra):
    _, ref = files
    status = main([ref, "-i", "/dev/zero", "--max-line-length", "100000", *extra])
    _one_error_line(capsys, status, "/dev/zero, line 1", "longer than 100,000 characters")


@pytest.mark.parametrize("extra", [[], ["-sl"], ["-b"], ["-f", "text"]])
def test_nltk_dialect_on_empty_files(tmp_path, capsys, extra):
    empty = tmp_path / "empty.txt"
    empty.write_text("")
    status = main([str(empty), "-i", str(empty), "--dialect", "nltk", *extra])
    if extra == ["-sl"]:  # no sentence, no score: nothing to divide
        assert status == 0 and capsys.readouterr().out == ""
        return
    _one_error_line(capsys, status, str(empty), "nltk")


# -- item 7: "-", CRLF, sub-command names -----------------------------------

def _run(argv, stdin: bytes = b"", cwd=None):
    return subprocess.run([sys.executable, "-m", "truebleu", *argv], input=stdin,
                          capture_output=True, cwd=cwd, timeout=120)


@pytest.mark.parametrize("argv", [
    ["REF", "-i", "-", "-b"],                  # streaming path
    ["REF", "-i", "-", "-b", "-m", "bleu", "chrf"],  # whole-file path
    ["REF", "-b"],                             # no -i: standard input
    ["-", "-i", "HYP", "-b"],                  # the reference from standard input
    ["-", "-i", "HYP", "HYP2", "-b"],
])
def test_dash_is_standard_input_on_every_path(files, tmp_path, argv):
    hyp, ref = files
    hyp2 = tmp_path / "hyp2.txt"
    hyp2.write_text("\n".join(HYPS) + "\n")
    stdin_text = REFS if argv[0] == "-" else HYPS
    argv = [{"REF": ref, "HYP": hyp, "HYP2": str(hyp2)}.get(a, a) for a in argv]
    result = _run(argv, ("\n".join(stdin_text) + "\n").encode())
    assert result.returncode == 0, result.stderr
    expected = f"{sacrebleu.corpus_bleu(HYPS, [REFS]).score:.1f}"
    assert expected in result.stdout.decode(), result.stdout


def test_dash_twice_is_an_error(files, capsys):
    hyp, ref = files
    _one_error_line(capsys, main(["-", "-i", "-"]), "standard input")
    _one_error_line(capsys, main(["-", "-i", "-", "--dialect", "nltk"]), "standard input")


@pytest.mark.parametrize("extra", [[], ["-i2"]])
def test_streaming_warns_about_tokenized_periods_in_crlf_files(tmp_path, extra):
    """sacreBLEU strips "\\r" before looking for " ." at the end: so must both paths."""
    hyp, ref = tmp_path / "hyp.txt", tmp_path / "ref.txt"
    hyp.write_bytes(b"a sentence .\r\n" * 150)
    ref.write_bytes(b"a sentence.\r\n" * 150)
    inputs = [str(hyp)]
    if extra:  # the whole-file path: two systems
        other = tmp_path / "hyp2.txt"
        other.write_bytes(hyp.read_bytes())
        inputs.append(str(other))
    result = _run([str(ref), "-i", *inputs])
    assert result.returncode == 0, result.stderr
    assert b"end in a tokenized period" in result.stderr


@pytest.mark.parametrize("command", ["explain", "compare", "report", "serve"])
def test_a_file_named_like_a_sub_command_does_not_take_it_over(tmp_path, files, command):
    hyp, ref = files
    (tmp_path / command).write_text("\n".join(REFS) + "\n")
    result = _run([command, "--help"], cwd=tmp_path)
    assert result.returncode == 0
    assert result.stdout.decode().startswith(f"usage: truebleu {command} ")
    # ./NAME is the file
    result = _run([f"./{command}", "-i", hyp, "-b"], cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.decode().strip() == f"{sacrebleu.corpus_bleu(HYPS, [REFS]).score:.1f}"


# -- item 4: a closed output pipe ---------------------------------------------

@pytest.fixture
def long_files(tmp_path):
    hyp, ref = tmp_path / "hyp.txt", tmp_path / "ref.txt"
    hyp.write_text("\n".join(HYPS * 5000) + "\n")
    ref.write_text("\n".join(REFS * 5000) + "\n")
    return str(hyp), str(ref)


RUN_CONSOLE_SCRIPT = """import sys
from importlib.metadata import entry_points
(script,) = [e for e in entry_points(group="console_scripts") if e.name == sys.argv[1]]
del sys.argv[1]
sys.exit(script.load()())
"""


@pytest.mark.parametrize("argv", [
    ["REF", "-i", "HYP", "-sl"],
    ["REF", "-i", "HYP", "-sl", "-m", "chrf"],
    ["REF", "-i", "HYP", "--dialect", "nltk", "-sl"],
    ["REF", "-i", "HYP", "--dialect", "mteval-v13a", "-sl", "-f", "text"],
    ["compare", "REF", "-i", "HYP", "HYP2", "--sentence", "-n", "20"],
    ["explain", "--hyp", "LONG", "--ref", "LONG"],
    ["truebleu-explain", "--hyp", "LONG", "--ref", "LONG"],
    ["--list"],
    ["--help"],
])
def test_closed_pipe_is_quiet(long_files, tmp_path, argv):
    """``truebleu ... | head -1``: no traceback, exit status 141 (128 + SIGPIPE)."""
    hyp, ref = long_files
    hyp2 = tmp_path / "hyp2.txt"
    hyp2.write_text("\n".join(REFS * 5000) + "\n")
    long_text = " ".join(f"w{i}" for i in range(20000))
    argv = [{"REF": ref, "HYP": hyp, "HYP2": str(hyp2), "LONG": long_text}.get(a, a)
            for a in argv]
    command = [sys.executable, "-m", "truebleu"]
    if argv[0] == "truebleu-explain":  # the console script, as installed
        command = [sys.executable, "-c", RUN_CONSOLE_SCRIPT, argv.pop(0)]
    process = subprocess.Popen([*command, *argv], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)
    process.stdout.readline()
    process.stdout.close()  # as `head -1` exits
    err = process.stderr.read().decode()
    status = process.wait(120)
    assert "Traceback" not in err and "BrokenPipe" not in err and "Exception" not in err, err
    assert status in (0, 141)  # 0 when everything fitted in the pipe before it closed


# -- item 15: several systems in a dialect's text output ----------------------

@pytest.mark.parametrize("extra", [["-f", "text"], ["-b"], ["-f", "text", "-sl"]])
def test_dialect_lines_of_several_systems_are_labelled(tmp_path, capsys, files, extra):
    hyp, ref = files
    other = tmp_path / "other.txt"
    other.write_text("\n".join(REFS) + "\n")
    status = main([ref, "-i", hyp, str(other), "--dialect", "mteval-v13a", *extra])
    assert status == 0
    lines = capsys.readouterr().out.splitlines()
    per_system = len(HYPS) if "-sl" in extra else 1
    assert len(lines) == 2 * per_system
    assert all(line.startswith(f"{hyp}: ") for line in lines[:per_system])
    assert all(line.startswith(f"{other}: ") for line in lines[per_system:])
    # one system: unlabelled, as before
    main([ref, "-i", hyp, "--dialect", "mteval-v13a", *extra])
    assert not capsys.readouterr().out.startswith(hyp)


# -- item 8: --max-line-length on every command ---------------------------------

@pytest.mark.parametrize("command", [[], ["-sl"], ["-m", "bleu", "chrf"], ["--dialect", "nltk"],
                                     ["compare"], ["report"]])
def test_max_line_length_on_every_command(tmp_path, capsys, files, command):
    hyp, ref = files
    other = tmp_path / "other.txt"
    other.write_text("\n".join(REFS) + "\n")
    if command in (["compare"], ["report"]):
        argv = [*command, ref, "-i", hyp, str(other)]
        argv += ["-o", str(tmp_path / "r.html")] if command == ["report"] else []
    else:
        argv = [ref, "-i", hyp, *command]
    # line 1 of both files is longer than 20 characters; either may be read first
    line = _one_error_line(capsys, main([*argv, "--max-line-length", "20"]),
                           ", line 1: longer than 20 characters")
    assert hyp in line or ref in line
    _one_error_line(capsys, main([*argv, "--max-line-length", "0"]), "--max-line-length")
