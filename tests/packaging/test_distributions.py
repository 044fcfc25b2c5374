"""What the sdist and the wheel hold (issue 24 item 2).

The standard path, ``python -m build``, makes the sdist and then builds the wheel from it, so
the sdist must hold everything the build of the compiled core reads (every C file and header,
the checked-in Unicode tables and their generator), and the wheel the package without the C
sources. The full build (compiling the core from the sdist, offline, then auditwheel and the
suite against the installed wheel) is CI's ``tools/check_wheel.sh``; here the sdist is made
with setuptools' PEP 517 hook and the wheel's Python part staged with ``build_py``, which need
no compiler and take seconds.
"""

from __future__ import annotations

import subprocess
import sys
import tarfile

import pytest

pytest.importorskip("setuptools", minversion="77", reason="building needs setuptools >= 77 "
                    "(pyproject.toml's SPDX license; the test extra installs it)")

from packaging_support import copy_project, run_setup, source_files  # noqa: E402

#: what the build of the compiled core reads besides the C tree (setup.py, gen_tables.py)
BUILD_INPUTS = {"setup.py", "pyproject.toml", "MANIFEST.in", "README.md", "LICENSE",
                "src/truebleu/_native/gen_tables.py", "src/truebleu/_native/tables/unicode_tables.h",
                "src/truebleu/tokenizers/unicode_classes.py", "src/truebleu/_version.py"}
BUILT = (".so", ".pyd", ".pyc", ".o", ".obj")


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    return copy_project(tmp_path_factory.mktemp("packaging") / "project")


@pytest.fixture(scope="module")
def sdist_files(project, tmp_path_factory) -> set[str]:
    """The files of the sdist, relative to its top folder."""
    out = tmp_path_factory.mktemp("sdist")
    made = subprocess.run([sys.executable, "-c", "import sys; from setuptools import build_meta; "
                           "print(build_meta.build_sdist(sys.argv[1]))", str(out)],
                          cwd=project, capture_output=True, text=True, timeout=600)
    assert made.returncode == 0, made.stderr[-3000:]
    (archive,) = out.glob("truebleu-*.tar.gz")
    with tarfile.open(archive) as tar:
        names = [member.name for member in tar.getmembers() if member.isfile()]
    return {name.split("/", 1)[1] for name in names}


def test_the_sdist_holds_every_file_the_core_is_built_from(project, sdist_files):
    c_tree = source_files(project, "src/truebleu/_native")
    assert {name for name in c_tree if name.endswith((".c", ".h"))} - sdist_files == set()
    assert BUILD_INPUTS - sdist_files == set()


def test_the_sdist_holds_the_whole_package_its_tests_and_docs(project, sdist_files):
    for folder in ("src", "tests", "docs"):
        assert source_files(project, folder) - sdist_files == set(), folder
    assert {"CHANGELOG.md", "CONTRIBUTING.md"} <= sdist_files


def test_the_sdist_holds_nothing_built(sdist_files):
    assert [name for name in sdist_files if name.endswith(BUILT) or "__pycache__" in name] == []


def test_the_wheel_holds_the_package_without_c_sources(project, tmp_path):
    """``build_py`` stages the wheel's Python part (bdist_wheel adds the compiled core to it)."""
    staged = tmp_path / "lib"
    made = run_setup(project, "-q", "build_py", "--build-lib", str(staged))
    assert made.returncode == 0, made.stderr[-3000:]
    wheel = {path.relative_to(staged).as_posix() for path in staged.rglob("*") if path.is_file()}
    assert sorted(name for name in wheel if name.endswith((".c", ".h"))) == []
    assert [name for name in wheel if name.startswith("truebleu/_native/")] == []
    # every module and data file of the package is there: all of src/ but the C tree
    package = {name.removeprefix("src/") for name in source_files(project, "src/truebleu")
               if not name.startswith("src/truebleu/_native/")}
    assert package - wheel == set()
