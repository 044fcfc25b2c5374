"""Every command writes UTF-8 to standard output whatever the locale's encoding.

System names come from file names, and file names are not ASCII everywhere: under a C or
Latin-1 locale Python's ``sys.stdout`` cannot encode them. ``compare`` wrote through it and
died with ``UnicodeEncodeError`` after computing the whole report; the scoring command
writes the bytes itself. Each command runs in a child process whose standard output is
ASCII-only (``PYTHONIOENCODING=ascii``), as it is under such a locale.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

REF = ["the cat sat on the mat", "a dog barks loudly today", "one two three four five"]
SYSTEMS = {"Système": ["the cat sat on a mat", "a dog barks today", "one two three four"],
           "Über": ["cat on mat", "dog", "five"]}


@pytest.fixture
def files(tmp_path):
    (tmp_path / "newstest.ref.de").write_text("\n".join(REF) + "\n", encoding="utf-8")
    for name, lines in SYSTEMS.items():
        (tmp_path / f"newstest.hyp.{name}.de").write_text("\n".join(lines) + "\n",
                                                          encoding="utf-8")
    return tmp_path


def run_ascii(cwd, *argv: str) -> subprocess.CompletedProcess[bytes]:
    env = {**os.environ, "PYTHONIOENCODING": "ascii", "NO_COLOR": "1"}
    return subprocess.run([sys.executable, "-m", "truebleu", *argv], cwd=cwd, env=env,
                          capture_output=True, timeout=120)


HYPS = [f"newstest.hyp.{name}.de" for name in SYSTEMS]


@pytest.mark.parametrize("argv", [
    pytest.param(["compare", "newstest.ref.de", "-i", *HYPS, "-n", "20"], id="compare"),
    pytest.param(["compare", "newstest.ref.de", "-i", *HYPS, "-n", "20", "-f", "json"],
                 id="compare-json"),
    pytest.param(["newstest.ref.de", "-i", *HYPS, "-f", "text"], id="score"),
])
def test_non_ascii_system_names_are_written_as_utf8(files, argv):
    result = run_ascii(files, *argv)
    assert result.returncode == 0, result.stderr.decode("utf-8", "replace")
    out = result.stdout.decode("utf-8")  # raises if the bytes are not UTF-8
    for name in SYSTEMS:
        assert name in out, out
