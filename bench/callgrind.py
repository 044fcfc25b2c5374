"""Instructions counted by valgrind's callgrind: the one counter of every bench's callgrind mode.

A count is the work of one run, so what a process does only on its first run must not be in
it: compiling the bytecode of every module it imports (a first ``truebleu REF -i SYS... -pbs``
counts about 655 M instructions, a second one 343 M). So a whole-process count runs the
command once first, uncounted, in the same environment, and that environment is a user's:
``PYTHONDONTWRITEBYTECODE`` removed (left in, it would make every run compile everything
again, the counted one too). A count of the core's entry points alone (``core_only``) starts
counting inside the core, after every import, and needs no such run.
"""

from __future__ import annotations

import os
import re
import subprocess
import tempfile
from typing import Callable, Optional


def user_env() -> dict[str, str]:
    """The environment of a measured child: as a user's, which reads and writes .pyc files."""
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def one_core() -> Callable[[], None]:
    """preexec_fn for a child that may run on one CPU only (truebleu then uses threads=1)."""
    cpu = min(os.sched_getaffinity(0))
    return lambda: os.sched_setaffinity(0, {cpu})


def count_instructions(cmd: list[str], core_only: bool = False, pinned: bool = True,
                       env: Optional[dict[str, str]] = None) -> int:
    """Instructions callgrind counts for ``cmd``: inside the native core's entry points
    (``core_*`` in module.c, which never call each other, so the toggles never nest) or,
    with ``core_only=False``, in the whole process, after one uncounted run that writes the
    bytecode caches. ``pinned``: the child runs on one core (truebleu's default threads=1).
    ``env``: the child's environment (default ``user_env()``; keep it free of
    ``PYTHONDONTWRITEBYTECODE``).
    """
    env = user_env() if env is None else env

    def pin() -> Optional[Callable[[], None]]:
        return one_core() if pinned else None

    if not core_only:
        subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env,
                       preexec_fn=pin(), check=True)
    with tempfile.TemporaryDirectory() as tmp:
        scope = ["--collect-atstart=no", "--toggle-collect=core_*"] if core_only else []
        proc = subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={tmp}/callgrind.out",
                               *scope, *cmd], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                              text=True, env=env, preexec_fn=pin())
    found = re.search(r"Collected\s*:\s*(\d+)", proc.stderr)
    if proc.returncode != 0 or not found:
        raise RuntimeError(f"callgrind run failed: {proc.stderr[-2000:]}")
    return int(found.group(1))
