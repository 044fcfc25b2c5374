"""Run the Python examples of a Markdown page as a reader would paste them.

A reader pastes a page's blocks in order into one interpreter, so the blocks run in order in
one namespace, in a fresh interpreter (not the test process); a block with
``if __name__ == "__main__":`` is a script and runs alone in a subprocess. A block preceded by
``<!-- not run: reason -->`` is skipped, and the reason must name the test that makes the same
calls. A page that needs optional packages says so once, ``<!-- requires: torch, torchmetrics -->``,
and its examples skip (with that reason) without them.
"""

from __future__ import annotations

import importlib.util
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import REPO

FENCE = re.compile(r"(?:<!-- not run: (?P<reason>[^>]*) -->\n)?```python\n(?P<code>.*?)```", re.S)
REQUIRES = re.compile(r"<!-- requires: (?P<names>[^>]*) -->")


def python_blocks(page: Path) -> list[tuple[int, str, str | None]]:
    """(line, code, reason it is not run or None) of each ``python`` block of the page."""
    text = page.read_text(encoding="utf-8")
    return [(text.count("\n", 0, m.start("code")) + 1, m.group("code"), m.group("reason"))
            for m in FENCE.finditer(text)]


def required_modules(page: Path) -> list[str]:
    found = REQUIRES.search(page.read_text(encoding="utf-8"))
    return [] if found is None else [name.strip() for name in found.group("names").split(",")]


def unnamed_tests(page: Path) -> list[str]:
    """The skipped blocks whose reason names no existing test file (each must name one)."""
    wrong = []
    for line, _, reason in python_blocks(page):
        if reason is None:
            continue
        named = re.search(r"tests/(?:\w+/)*test_\w+\.py", reason)
        if not named or not (REPO / named.group()).is_file():
            wrong.append(f"{page.name} line {line}: say which test covers it")
    return wrong


#: runs a page's blocks in order in one namespace, in a fresh interpreter: as a reader pastes
#: them, and apart from the test process (its event loops, warning filters, imported modules)
_DRIVER = r"""
import json, subprocess, sys, traceback, warnings
blocks = json.load(open(sys.argv[1], encoding="utf-8"))
namespace = {"__name__": sys.argv[2]}
for where, code, script in blocks:
    if script is not None:
        done = subprocess.run([sys.executable, script], capture_output=True, text=True, timeout=600)
        if done.returncode != 0:
            sys.exit(f"{where}:\n{done.stderr}")
        continue
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # an example must not warn
        try:
            exec(compile(code, where, "exec"), namespace)
        except BaseException as exc:  # report where, as a reader would meet it
            traceback.print_exc()
            sys.exit(f"{where}: {type(exc).__name__}: {exc}")
"""


def run_examples(page: Path, tmp_path: Path) -> int:
    """Run the page's examples in ``tmp_path``; returns how many ran."""
    missing = [name for name in required_modules(page) if importlib.util.find_spec(name) is None]
    if missing:
        pytest.skip(f"{page.name} needs {', '.join(missing)}")
    blocks = []
    for line, code, reason in python_blocks(page):
        if reason is not None:
            continue
        where, script = f"{page.name} line {line}", None
        if 'if __name__ == "__main__":' in code:
            script = tmp_path / f"{page.stem}_line_{line}.py"
            script.write_text(code, encoding="utf-8")
        blocks.append((where, code, None if script is None else str(script)))
    (tmp_path / "blocks.json").write_text(json.dumps(blocks), encoding="utf-8")
    done = subprocess.run([sys.executable, "-c", _DRIVER, "blocks.json", page.stem], cwd=tmp_path,
                          capture_output=True, text=True, timeout=1200)
    if done.returncode != 0:
        pytest.fail(f"{done.stderr}")
    return len(blocks)
