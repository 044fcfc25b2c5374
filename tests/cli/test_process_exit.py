"""How the ``python -m truebleu`` process ends: garbage collected, what is alive frozen.

At exit the interpreter's collections walk every object left (every module's functions
and classes) while it takes the modules apart; ``cli.run`` frees the garbage once, then
freezes the rest out of those walks (about 10 M instructions of a scoring command, by
callgrind). These tests run the command as ``-m`` does and look at the collector from an
``atexit`` hook, which runs after ``run`` returned and before the teardown.
"""

from __future__ import annotations

import subprocess
import sys

AS_MAIN = (
    "import atexit, gc, runpy, sys\n"
    "atexit.register(lambda: sys.stderr.write(f'\\nFROZEN {gc.get_freeze_count()}\\n'))\n"
    "sys.argv = ['truebleu', *sys.argv[1:]]\n"
    "runpy.run_module('truebleu', run_name='__main__', alter_sys=True)\n")


def run_as_main(args: list[str]) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", AS_MAIN, *args], capture_output=True, text=True,
                          timeout=120)


def frozen_at_exit(done: subprocess.CompletedProcess) -> int:
    return int(done.stderr.rsplit("FROZEN ", 1)[1].split()[0])


def test_the_command_leaves_its_objects_to_the_operating_system(tmp_path):
    ref = tmp_path / "ref.txt"
    ref.write_text("the cat sat on the mat\n", encoding="utf-8")
    done = run_as_main([str(ref), "-i", str(ref), "-b"])
    assert done.returncode == 0, done.stderr
    assert done.stdout == "100.0\n"
    assert frozen_at_exit(done) > 1000  # the modules' objects


def test_garbage_is_finalized_before_the_freeze(tmp_path):
    """An object in a cycle that is garbage when the command returns still runs its
    finalizer (here one that writes a file), as the interpreter's exit collections ran it."""
    out = tmp_path / "out.txt"
    ref = tmp_path / "ref.txt"
    ref.write_text("the cat sat on the mat\n", encoding="utf-8")
    code = (
        "import truebleu.cli.entry as entry\n"
        "main = entry.main\n"
        "class Finalized:\n"
        "    def __del__(self):\n"
        f"        with open({str(out)!r}, 'w', encoding='utf-8') as handle:\n"
        "            handle.write('finalized')\n"
        "def main_leaving_a_cycle(argv=None):\n"
        "    status = main(argv)\n"
        "    cycle = [Finalized()]\n"
        "    cycle.append(cycle)\n"
        "    return status\n"
        "entry.main = main_leaving_a_cycle\n")
    done = subprocess.run([sys.executable, "-c", code + AS_MAIN, str(ref), "-i", str(ref), "-b"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert out.read_text(encoding="utf-8") == "finalized"


#: Runs the command as ``-m`` does, with ``entry.main`` wrapped to report whether the
#: collector was on while it ran and how many collections it made (the final one in
#: ``cli.run`` comes after ``main`` returns).
COLLECTIONS_DURING_MAIN = (
    "import gc, sys\n"
    "import truebleu.cli.entry as entry\n"
    "main = entry.main\n"
    "def counting_main(argv=None):\n"
    "    enabled, before = gc.isenabled(), sum(g['collections'] for g in gc.get_stats())\n"
    "    try:\n"
    "        return main(argv)\n"
    "    finally:\n"
    "        made = sum(g['collections'] for g in gc.get_stats()) - before\n"
    "        sys.stderr.write(f'\\nCOLLECTOR {enabled} {made}\\n')\n"
    "entry.main = counting_main\n")


def collector_during_main(args: list[str]) -> tuple[bool, int]:
    done = subprocess.run([sys.executable, "-c", COLLECTIONS_DURING_MAIN + AS_MAIN, *args],
                          capture_output=True, text=True, timeout=120)
    enabled, made = done.stderr.rsplit("COLLECTOR ", 1)[1].split()[:2]
    return enabled == "True", int(made)


def test_the_scoring_command_runs_without_collections(tmp_path):
    """Its imports, parser and work made 7 collections on these three lines before
    cli.run turned the collector off."""
    ref = tmp_path / "ref.txt"
    ref.write_text("the cat sat on the mat\n" * 3, encoding="utf-8")
    other = tmp_path / "other.txt"
    other.write_text("the cat sat on a mat\n" * 3, encoding="utf-8")
    assert collector_during_main([str(ref), "-i", str(ref), "-b"]) == (False, 0)
    assert collector_during_main([str(ref), "-i", str(ref), str(other), "-m", "bleu", "chrf",
                                  "ter"]) == (False, 0)


def test_the_viewer_keeps_the_collector():
    """report and serve hold every segment's objects, and serve runs until stopped."""
    for command in ("report", "serve"):
        enabled, _ = collector_during_main([command, "--help"])
        assert enabled, command


def test_the_entry_point_loads_no_typing():
    """What the console script and ``-m`` import before ``cli.run`` runs is imported with
    the collector on: typing (about 15 M instructions) is imported later, inside it."""
    done = subprocess.run([sys.executable, "-c", "import sys, truebleu.cli; "
                           "print('typing' in sys.modules)"],
                          capture_output=True, text=True, check=True, timeout=120)
    assert done.stdout.strip() == "False"
