"""The README's Python examples run as printed.

A reader pastes them in order into one interpreter, so the blocks run in order
in one namespace; a block with ``if __name__ == "__main__":`` is a script and
runs alone in a subprocess. A block preceded by ``<!-- not run: reason -->``
is skipped here, and the reason must name the test that makes the same calls.
"""

from __future__ import annotations

import re
import subprocess
import sys
import warnings

import pytest

from conftest import REPO

FENCE = re.compile(r"(?:<!-- not run: (?P<reason>[^>]*) -->\n)?```python\n(?P<code>.*?)```", re.S)


def readme_blocks() -> list[tuple[int, str, str | None]]:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    return [(text.count("\n", 0, m.start("code")) + 1, m.group("code"), m.group("reason"))
            for m in FENCE.finditer(text)]


def test_readme_has_examples():
    assert len(readme_blocks()) >= 5


def test_every_skipped_block_names_its_test():
    for line, _, reason in readme_blocks():
        if reason is not None:
            named = re.search(r"tests/(?:\w+/)*test_\w+\.py", reason)
            assert named, f"README.md line {line}: say which test covers it"
            assert (REPO / named.group()).is_file(), f"README.md line {line}: no {named.group()}"


def test_python_examples_run_as_printed(tmp_path, monkeypatch):
    pytest.importorskip("numpy")  # the TER example asks for a bootstrap interval
    monkeypatch.chdir(tmp_path)
    namespace: dict = {"__name__": "readme"}
    ran = 0
    for line, code, reason in readme_blocks():
        if reason is not None:
            continue
        if 'if __name__ == "__main__":' in code:
            script = tmp_path / f"readme_line_{line}.py"
            script.write_text(code, encoding="utf-8")
            done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                                  timeout=300)
            assert done.returncode == 0, f"README.md line {line}:\n{done.stderr}"
        else:
            with warnings.catch_warnings():
                warnings.simplefilter("error")  # an example must not warn
                try:
                    exec(compile(code, f"README.md line {line}", "exec"), namespace)
                except Exception as exc:  # report where, as a reader would meet it
                    pytest.fail(f"README.md block at line {line}: {type(exc).__name__}: {exc}")
        ran += 1
    assert ran >= 5
