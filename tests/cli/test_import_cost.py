"""What a BLEU command loads: nothing of the other metrics.

Every module imported is start-up time each run of ``truebleu REF -i SYS`` pays
(`python -X importtime`: 1-2 ms for each of these here); the chrF and TER specifications are
loaded only by a chrF or TER run.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

REPORT_MODULES = (
    "import atexit, sys\n"
    "atexit.register(lambda: sys.stderr.write('\\nLOADED ' + ' '.join(sorted(sys.modules)) + '\\n'))\n"
    "from truebleu.cli import main\n"
    "sys.argv[0] = 'truebleu'\n"
    "sys.exit(main())\n")

#: the other metrics' code; their packages (whose ``cli`` modules give the parser their flags)
#: load nothing else
OTHER_METRICS = ("truebleu.metrics.chrf.spec", "truebleu.metrics.ter.spec",
                 "truebleu.metrics.chrf.metric", "truebleu.metrics.ter.metric",
                 "truebleu.metrics.chrf.kernels", "truebleu.metrics.ter.kernels",
                 "truebleu.tokenizers.tokenizer_ter", "truebleu.metrics.chrf.batch", "numpy")


def loaded_by_command(args: list[str]) -> set[str]:
    done = subprocess.run([sys.executable, "-c", REPORT_MODULES, *args], capture_output=True,
                          text=True, check=True)
    return set(done.stderr.rsplit("LOADED ", 1)[1].split())


def test_a_bleu_command_loads_no_other_metric(tmp_path):
    ref = tmp_path / "ref.txt"
    ref.write_text("the cat sat on the mat\n", encoding="utf-8")
    loaded = loaded_by_command([str(ref), "-i", str(ref), "-b"])
    assert "truebleu.cli" in loaded  # the report works
    assert not loaded & set(OTHER_METRICS), loaded & set(OTHER_METRICS)


def test_a_chrf_command_loads_chrf_only(tmp_path):
    ref = tmp_path / "ref.txt"
    ref.write_text("the cat sat on the mat\n", encoding="utf-8")
    loaded = loaded_by_command([str(ref), "-i", str(ref), "-m", "chrf", "-b"])
    assert "truebleu.metrics.chrf.spec" in loaded
    assert "truebleu.metrics.ter.spec" not in loaded
    assert "truebleu.metrics.ter.metric" not in loaded


#: Modules the plain BLEU command on files does not need: logging (loaded when a message
#: is sent), dataclasses and inspect (about a tenth of the start-up), json (JSON output only),
#: the decompressors (compressed files only), the Python 13a rules (the Python backend's)
#: copy (with weakref, 3 M instructions: only an accumulator copies a metric) and threading
#: (4 M: the compiled core reads its main thread from threading only where it is loaded).
NOT_ON_THE_PLAIN_PATH = ("logging", "dataclasses", "inspect", "json", "gzip", "bz2", "lzma",
                         "truebleu.tokenizers.tokenizer_re", "copy", "weakref", "threading")


def loaded_at_start_up() -> set[str]:
    """What the interpreter loads before any code runs (``site`` and any ``.pth`` file): not
    truebleu's cost. (Not argparse's loads: cli/command_parser.py keeps its help formatter, and
    shutil, bz2 and lzma with it, off the scoring path, so they count.)"""
    done = subprocess.run([sys.executable, "-c", "import sys; print(' '.join(sys.modules))"],
                          capture_output=True, text=True, check=True)
    return set(done.stdout.split())


@pytest.mark.parametrize("flags", [["-b", "-q"], ["-b"], ["-f", "text"]])
def test_the_plain_bleu_command_loads_only_what_it_uses(tmp_path, flags):
    ref = tmp_path / "ref.txt"
    ref.write_text("the cat sat on the mat\n" * 3, encoding="utf-8")
    loaded = loaded_by_command([str(ref), "-i", str(ref), *flags])
    assert "truebleu.metrics.streaming" in loaded  # the report works, on the streaming path
    heavy = (set(NOT_ON_THE_PLAIN_PATH) & loaded) - loaded_at_start_up()
    assert not heavy, heavy


def _stderr(args: list[str]) -> str:
    done = subprocess.run([sys.executable, "-m", "truebleu", *args], capture_output=True,
                          text=True, check=True)
    return done.stderr


TOKENIZED = ["That's 100 lines that end in a tokenized period ('.')",
             "It looks like you forgot to detokenize your test data, which may hurt your score.",
             "If you insist your data is detokenized, or don't care, you can suppress this "
             "message with the `force` parameter."]


def test_messages_are_sent_as_with_logging_configured_up_front(tmp_path):
    """logging is imported at the first message; what is printed is what calling
    logging.basicConfig at start-up printed: "truebleu: " lines, or with -q (not
    configured) logging's bare last-resort lines."""
    tokenized = tmp_path / "tok.txt"
    tokenized.write_text("the cat sat on the mat .\n" * 120, encoding="utf-8")
    other = tmp_path / "other.txt"
    other.write_text("the cat sat on the mat\n" * 120, encoding="utf-8")
    name = str(tokenized)
    assert _stderr([name, "-i", name, "-b"]).splitlines() == [f"truebleu: {m}" for m in TOKENIZED]
    assert _stderr([name, "-i", name, "-b", "-q"]).splitlines() == TOKENIZED
    assert _stderr([name, "-i", str(other), name, "-b"]).splitlines() == [
        "truebleu: Found 2 systems.", *[f"truebleu: {m}" for m in TOKENIZED]]
    assert _stderr([name, "-i", str(other), "-b"]) == ""


def test_the_streaming_command_loads_no_table_report(tmp_path):
    ref = tmp_path / "ref.txt"
    ref.write_text("the cat sat on the mat\n", encoding="utf-8")
    loaded = loaded_by_command([str(ref), "-i", str(ref), "-b"])
    assert "truebleu.io.utf8_lines" in loaded
    assert "truebleu.reports.table" not in loaded


#: Modules ``truebleu REF -i SYS... -pbs`` does not need with the compiled core and a fixed
#: seed (the core draws NumPy's stream and sums the samples): NumPy; the NumPy path's
#: significance.paired and the dataclasses/inspect it imports (about 43 M of the command's
#: instructions); pathlib (17 M: only --version reads paths); importlib.metadata
#: (--version); the viewer, the other significance tests and the other reports; copy and
#: threading (as above) and the ASCII codec (the memory limit's files are read as bytes);
#: the test-set package (its DownloadError is imported only to report an error), numbers
#: (its ABCs: only a setting that is neither an int nor a float is checked against them) and
#: BLEU's specification (the Python kernel's).
NOT_ON_THE_PBS_PATH = ("numpy", "dataclasses", "inspect", "pathlib", "importlib.metadata",
                       "copy", "weakref", "threading", "encodings.ascii",
                       "truebleu.significance.paired", "truebleu.significance.multi",
                       "truebleu.significance.sentence", "truebleu.significance.multimetric",
                       "truebleu.viewer", "truebleu.reports.compare", "statistics",
                       "truebleu.io.testsets", "truebleu.io.testsets.errors", "numbers",
                       "truebleu.metrics.bleu.spec")
#: ... and, in JSON (the default format, which has none), the text table's colours
NOT_IN_PBS_JSON = ("truebleu.reports.color",)


def loaded_by_import(module: str) -> set[str]:
    """What importing ``module`` (a third-party dependency) loads: its cost, not truebleu's."""
    done = subprocess.run([sys.executable, "-c", f"import sys, {module}; print(' '.join(sys.modules))"],
                          capture_output=True, text=True, check=True)
    return set(done.stdout.split())


#: -f text draws its table with tabulate (as sacreBLEU does), which imports dataclasses,
#: pathlib and importlib.metadata itself
@pytest.mark.parametrize("flags, dependency", [(["-pbs"], None), (["-pbs", "-f", "text"], "tabulate")])
def test_the_paired_bootstrap_command_loads_only_what_it_uses(tmp_path, flags, dependency):
    pytest.importorskip("truebleu._native_core", reason="-pbs runs without NumPy in the compiled core")
    ref = tmp_path / "ref.txt"
    ref.write_text("".join(f"the cat {k} sat on the mat\n" for k in range(20)), encoding="utf-8")
    systems = []
    for name in ("a", "b", "c"):
        path = tmp_path / f"{name}.txt"
        path.write_text("".join(f"the {name} cat {k} sat on a mat\n" for k in range(20)),
                        encoding="utf-8")
        systems.append(str(path))
    loaded = loaded_by_command([str(ref), "-i", *systems, *flags])
    assert "truebleu.significance.native" in loaded  # the core resampled
    assert "truebleu.reports.paired" in loaded  # the report was written
    unused = set(NOT_ON_THE_PBS_PATH) | (set(NOT_IN_PBS_JSON) if dependency is None else set())
    heavy = (unused & loaded) - loaded_at_start_up()
    if dependency is not None:
        heavy -= loaded_by_import(dependency)
    assert not heavy, heavy


#: Runs the command and reports every ``compile()`` made outside the import system (which
#: compiles a module's source when no bytecode cache is written): typing compiles each string
#: annotation it checks at run time (a ``TypeVar`` bound or a ``NamedTuple`` field given as
#: a string), and a process's first compile builds the AST types, about 10 M instructions
#: (callgrind) on every run of the command.
REPORT_COMPILES = (
    "import builtins, sys, traceback\n"
    "original = builtins.compile\n"
    "def counted(source, *args, **kwargs):\n"
    "    callers = [frame.filename for frame in traceback.extract_stack()[-3:-1]]\n"
    "    if not any('importlib' in name for name in callers):\n"
    "        sys.stderr.write(f'\\nCOMPILED {source!r:.80}\\n')\n"
    "    return original(source, *args, **kwargs)\n"
    "builtins.compile = counted\n"
    "from truebleu.cli import main\n"
    "sys.argv[0] = 'truebleu'\n"
    "sys.exit(main())\n")


def compiled_by_command(args: list[str]) -> list[str]:
    done = subprocess.run([sys.executable, "-c", REPORT_COMPILES, *args], capture_output=True,
                          text=True, check=True)
    return [line for line in done.stderr.splitlines() if line.startswith("COMPILED ")]


@pytest.mark.parametrize("metrics", [["bleu"], ["chrf"], ["ter"]])
def test_the_scoring_command_compiles_nothing(tmp_path, metrics):
    """Every metric's flags are on the parser, so each command loads base.py and the three
    metrics' cli modules; a TER run loads its kernels' alignment record too."""
    ref = tmp_path / "ref.txt"
    ref.write_text("the cat sat on the mat\n" * 3, encoding="utf-8")
    assert compiled_by_command([str(ref), "-i", str(ref), "-m", *metrics, "-b"]) == []


def test_the_python_backend_compiles_nothing(tmp_path):
    """The specification's records (BLEU's ReferenceInfo) are built without compiling."""
    ref = tmp_path / "ref.txt"
    ref.write_text("the cat sat on the mat\n" * 3, encoding="utf-8")
    assert compiled_by_command([str(ref), "-i", str(ref), "-b", "--backend", "python"]) == []


def test_the_paired_bootstrap_command_compiles_nothing(tmp_path):
    """significance/'s type aliases (the seed, a system's statistics) are strings: a
    ``Union`` with a forward reference in it would compile that reference at import."""
    pytest.importorskip("truebleu._native_core", reason="-pbs runs without NumPy in the compiled core")
    ref, other = tmp_path / "ref.txt", tmp_path / "other.txt"
    ref.write_text("the cat sat on the mat\n" * 3, encoding="utf-8")
    other.write_text("the cat sat on a mat\n" * 3, encoding="utf-8")
    assert compiled_by_command([str(ref), "-i", str(ref), str(other), "-pbs"]) == []


#: What the scoring command loads on no path of its own, not even through argparse: typing
#: (about 16 M instructions; the modules on the path import its names for the checker only
#: and take Generic, TypeVar and cast from core/typing_stubs), shutil with fnmatch and bz2
#: (argparse's help formatter asks for the terminal's width, which cli/command_parser.py
#: leaves to help and usage), zlib and lzma (io/lines.py imports them for a failed read).
NEVER_ON_THE_SCORING_PATH = ("typing", "shutil", "fnmatch", "bz2", "lzma", "zlib")


@pytest.mark.parametrize("flags", [["-b"], ["-b", "-q", "-w", "10"], ["-pbs"], ["-m", "bleu", "chrf"],
                                   ["-m", "ter", "-b"], ["-m", "bleu", "chrf", "ter"]])
def test_the_scoring_command_loads_neither_typing_nor_shutil(tmp_path, flags):
    if "-pbs" in flags:
        pytest.importorskip("truebleu._native_core", reason="-pbs runs NumPy without the core")
    ref, other = tmp_path / "ref.txt", tmp_path / "other.txt"
    ref.write_text("".join(f"the cat {k} sat on the mat\n" for k in range(20)), encoding="utf-8")
    other.write_text("".join(f"the cat {k} sat on a mat\n" for k in range(20)), encoding="utf-8")
    systems = [str(ref), str(other)] if "-pbs" in flags else [str(other)]
    loaded = loaded_by_command([str(ref), "-i", *systems, *flags])
    assert "truebleu.cli.score" in loaded  # the command ran
    assert not (set(NEVER_ON_THE_SCORING_PATH) & loaded) - loaded_at_start_up()


#: What a TER command does not need with the compiled core: the specification (the Python
#: kernel's), the alignment records with the dataclasses and inspect they import (only
#: ``alignments`` and the viewer read them): together about 60 M instructions a run.
NOT_ON_THE_TER_PATH = ("truebleu.metrics.ter.spec", "truebleu.metrics.ter.alignment", "dataclasses",
                       "inspect")


def test_the_ter_command_loads_neither_its_specification_nor_its_alignments(tmp_path):
    pytest.importorskip("truebleu._native_core", reason="without the core, TER runs its specification")
    ref, other = tmp_path / "ref.txt", tmp_path / "other.txt"
    ref.write_text("the cat sat on the mat\n" * 3, encoding="utf-8")
    other.write_text("the cat sat on a mat\n" * 3, encoding="utf-8")
    loaded = loaded_by_command([str(ref), "-i", str(other), "-m", "ter", "-b"])
    assert "truebleu.metrics.ter.kernels" in loaded  # the command ran TER
    assert not (set(NOT_ON_THE_TER_PATH) & loaded) - loaded_at_start_up()
