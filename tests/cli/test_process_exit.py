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
