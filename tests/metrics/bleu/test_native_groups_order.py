"""The one-pass jobs' order of items (bleu/groups.c), checked on its plain C.

The job compares the texts before it reuses anything, so a grouping that splits a set of
references, or joins two, changes no score (test_native_reference_groups.py checks the
rows): only the work. ``groups_order.c`` calls ``tb_group_by_references`` itself and checks
the order: items with equal references in one run, in the order of their first items,
equal hypotheses together within it, equal first looks for equal references; with the
references shared as one str object, copied (equal by value only), of kinds 1, 2 and 4,
several or none a segment, empty, and one storage read as different texts (a prefix, the
text lowercased, its bytes as 2-byte code units); and sets whose first looks agree (lengths
and first 8 bytes), equal by value only and scrambled.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sysconfig
from pathlib import Path

import pytest

from conftest import REPO

NATIVE = REPO / "src" / "truebleu" / "_native"


def c_compiler() -> str | None:
    cc = (sysconfig.get_config_var("CC") or "cc").split()[0]
    return shutil.which(cc)


@pytest.mark.skipif(c_compiler() is None, reason="no C compiler")
def test_items_with_the_same_references_are_one_run(tmp_path):
    exe = tmp_path / "groups_order"
    env = dict(os.environ)
    env.pop("LD_PRELOAD", None)  # (bench/sanitize.sh's runtime is for the interpreter, not these)
    subprocess.run([c_compiler(), "-O2", "-std=c11", "-Wall", "-Wextra", "-Werror", f"-I{NATIVE}",
                    str(NATIVE / "bleu" / "groups.c"), str(Path(__file__).with_name("groups_order.c")),
                    "-o", str(exe)], check=True, capture_output=True, text=True, env=env)
    run = subprocess.run([str(exe)], capture_output=True, text=True, timeout=120, env=env)
    assert run.returncode == 0 and run.stdout.startswith("ok "), run.stdout
