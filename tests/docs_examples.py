"""Run the Python examples of a Markdown page as a reader would paste them.

A reader pastes a page's blocks in order into one interpreter, so the blocks run in order in
one namespace; a block with ``if __name__ == "__main__":`` is a script and runs alone in a
subprocess. A block preceded by ``<!-- not run: reason -->`` is skipped, and the reason must
name the test that makes the same calls. A page that needs optional packages says so once,
``<!-- requires: torch, torchmetrics -->``, and its examples skip (with that reason) without them.
"""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
import warnings
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


def run_examples(page: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> int:
    """Run the page's examples in ``tmp_path``; returns how many ran."""
    missing = [name for name in required_modules(page) if importlib.util.find_spec(name) is None]
    if missing:
        pytest.skip(f"{page.name} needs {', '.join(missing)}")
    monkeypatch.chdir(tmp_path)
    namespace: dict = {"__name__": page.stem}
    ran = 0
    for line, code, reason in python_blocks(page):
        if reason is not None:
            continue
        where = f"{page.name} line {line}"
        if 'if __name__ == "__main__":' in code:
            script = tmp_path / f"{page.stem}_line_{line}.py"
            script.write_text(code, encoding="utf-8")
            done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                                  timeout=600)
            assert done.returncode == 0, f"{where}:\n{done.stderr}"
        else:
            with warnings.catch_warnings():
                warnings.simplefilter("error")  # an example must not warn
                try:
                    exec(compile(code, where, "exec"), namespace)
                except Exception as exc:  # report where, as a reader would meet it
                    pytest.fail(f"{where}: {type(exc).__name__}: {exc}")
        ran += 1
    return ran
