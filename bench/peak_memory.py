"""A measured process's own peak memory: VmHWM, not ``ru_maxrss`` (Linux).

On Linux a child's ``ru_maxrss`` (from ``os.wait4``, or ``getrusage(RUSAGE_SELF)`` inside
it) keeps the high-water mark of the address space it was forked from until its ``exec``:
a child started by a parent that holds 1 GB "peaks" at 1 GB whatever it does itself, so a
small run measured after a large one shows the large one's peak. ``VmHWM`` in
``/proc/self/status`` is the high-water mark of the process's own address space since
``exec``: that is what the benches report. It needs Linux's ``/proc``; elsewhere
``own_peak_kib`` falls back to ``ru_maxrss``, which is then only as good as the platform's.

A command is measured by running it through this file, which runs it in its own process
as ``python -m MODULE``, ``python -c CODE`` or ``python SCRIPT`` would (the same
``sys.argv`` and ``sys.path[0]``, nothing imported before it that ``python`` itself does
not import) and writes its VmHWM (KiB) to PEAK_FILE when it ends, however it ends
(``sys.exit``, an exception)::

    python bench/peak_memory.py PEAK_FILE -m MODULE [ARGS...]
    python bench/peak_memory.py PEAK_FILE -c CODE [ARGS...]
    python bench/peak_memory.py PEAK_FILE SCRIPT [ARGS...]

``run_python`` does that from a bench and returns the wall time, CPU time, peak and output.
"""

# Only what ``python`` itself has loaded at start-up, at the top: the measured command runs in
# this process, and its time must not include this file's imports.
import os
import sys

TYPE_CHECKING = False  # (importing typing, or __future__, would be imported before the command)
if TYPE_CHECKING:
    from typing import Callable, Optional


def own_peak_kib() -> int:
    """This process's peak resident memory in KiB: VmHWM on Linux, else ``ru_maxrss``."""
    try:
        with open("/proc/self/status", encoding="utf-8") as status:
            for row in status:
                if row.startswith("VmHWM:"):
                    return int(row.split()[1])
    except OSError:
        pass
    import resource

    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak // 1024 if sys.platform == "darwin" else peak  # (macOS counts bytes)


def current_rss_kib() -> int:
    """This process's resident memory now, in KiB (``/proc/self/statm``; Linux): the benches'
    "RSS after loading", read once the text is in memory and before the measured work."""
    with open("/proc/self/statm", encoding="ascii") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") // 1024


class Measured:
    """One run: wall and CPU seconds, its own peak RSS (KiB), its standard output."""

    def __init__(self, wall_s: float, cpu_s: float, peak_kib: int, stdout: str) -> None:
        self.wall_s, self.cpu_s, self.peak_kib, self.stdout = wall_s, cpu_s, peak_kib, stdout


def run_python(target: list[str], env: "Optional[dict]" = None,
               preexec_fn: "Optional[Callable[[], None]]" = None) -> "Measured":
    """Run ``python TARGET...`` (``["-m", "truebleu", ...]``, ``["-c", CODE, ...]`` or
    ``["script.py", ...]``) in a fresh process: its wall time, its CPU time (user + system,
    from ``os.wait4``), its own peak RSS (VmHWM, however much memory this process holds) and
    its standard output. ``preexec_fn`` as ``subprocess.Popen``'s (e.g. pinning to a core).
    A failure raises RuntimeError with the end of its standard error."""
    import tempfile
    from pathlib import Path

    from timing import run_child  # (in the bench's process: the measured one imports nothing)

    with tempfile.TemporaryDirectory(prefix="truebleu-peak-") as folder:
        peak_file = Path(folder) / "peak"
        run = run_child([sys.executable, os.path.abspath(__file__), str(peak_file), *target],
                        env=env, preexec_fn=preexec_fn)
        if run.exit_code != 0 or not peak_file.exists():
            raise RuntimeError(f"python {' '.join(target[:3])}... failed ({run.exit_code}): "
                               f"{run.stderr.decode('utf-8', 'replace')[-2000:]}")
        return Measured(run.wall_s, run.cpu_s, int(peak_file.read_text()), run.stdout.decode("utf-8"))


def _run_as_main(peak_file: str, target: list[str]) -> None:
    """Run ``target`` as ``python`` would run it, then write this process's peak to
    ``peak_file`` (after ``sys.exit`` too: the ``finally``). ``-m`` goes through runpy, as
    ``python -m`` does; ``-c`` imports nothing more; a script is run by runpy (which
    ``python SCRIPT`` does not import: a few milliseconds more)."""
    try:
        if target[0] == "-m":
            import runpy

            sys.argv = [target[1], *target[2:]]
            sys.path[0] = os.getcwd()  # as ``python -m`` sets it
            runpy.run_module(target[1], run_name="__main__", alter_sys=True)
        elif target[0] == "-c":
            sys.argv = ["-c", *target[2:]]
            sys.path[0] = ""  # as ``python -c`` sets it
            exec(compile(target[1], "<string>", "exec"), {"__name__": "__main__"})
        else:
            import runpy

            sys.argv = list(target)
            sys.path[0] = os.path.dirname(os.path.realpath(target[0]))  # as ``python SCRIPT`` sets it
            runpy.run_path(target[0], run_name="__main__")
    finally:
        with open(peak_file, "w", encoding="utf-8") as out:
            out.write(str(own_peak_kib()))


if __name__ == "__main__":
    if len(sys.argv) < 3 or sys.argv[2] in ("-m", "-c") and len(sys.argv) < 4:
        sys.exit("usage: python bench/peak_memory.py PEAK_FILE (-m MODULE | -c CODE | SCRIPT) [ARGS...]")
    _run_as_main(sys.argv[1], sys.argv[2:])
