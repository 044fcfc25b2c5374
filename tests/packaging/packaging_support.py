"""Helpers of the packaging tests: a scratch copy of the project, and setup.py run in it.

The build commands write (``build/``, ``*.egg-info``, ``dist/``) where they run, so they run in
a copy of the project's files, never in the checkout.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from conftest import REPO

#: what is not the project's source: VCS data, build output, caches, compiled files
NOT_SOURCE = shutil.ignore_patterns(".git", "build", "dist", "*.egg-info", "__pycache__", ".venv*",
                                   ".hypothesis", ".pytest_cache", ".mypy_cache", "site",
                                   "*.so", "*.pyd", "*.pyc", "*.o")


def copy_project(destination: Path) -> Path:
    """The project's source files (as a clean clone has them) copied to ``destination``."""
    shutil.copytree(REPO, destination, ignore=NOT_SOURCE)
    return destination


def run_setup(project: Path, *arguments: str, **environment: str) -> subprocess.CompletedProcess:
    """``python setup.py ARGUMENTS`` in ``project`` with ``environment`` added (a string each)."""
    env = {key: value for key, value in os.environ.items()
           if key not in ("TRUEBLEU_REQUIRE_NATIVE", "TRUEBLEU_PORTABLE_FALLBACKS")}
    env.update(environment)
    return subprocess.run([sys.executable, "setup.py", *arguments], cwd=project, env=env,
                          capture_output=True, text=True, timeout=600)


def source_files(project: Path, folder: str) -> set[str]:
    """The files under ``folder`` of ``project``, as paths relative to the project."""
    return {path.relative_to(project).as_posix() for path in (project / folder).rglob("*")
            if path.is_file()}
