"""The compiled core is optional for a user, required where it must be built (issue 24 item 2).

Without a working C compiler pip still installs truebleu, pure Python, and says why; with
``TRUEBLEU_REQUIRE_NATIVE=1`` (CI, cibuildwheel, releases) the same failure fails the build.
A compiler that always fails (``CC=false``) stands in for a missing one: the build stops at
the first file, so these tests take a second or two.
"""

from __future__ import annotations

import pytest

pytest.importorskip("setuptools", minversion="77", reason="building needs setuptools >= 77 "
                    "(pyproject.toml's SPDX license; the test extra installs it)")

from packaging_support import copy_project, run_setup  # noqa: E402

#: a C compiler and linker that fail at once (distutils reads them from the environment)
NO_COMPILER = {"CC": "false", "LDSHARED": "false"}


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    return copy_project(tmp_path_factory.mktemp("native") / "project")


def build_ext(project, tmp_path, **environment):
    built = run_setup(project, "build_ext", "--build-lib", str(tmp_path / "lib"),
                      "--build-temp", str(tmp_path / "temp"), **environment)
    return built, sorted(path.name for path in (tmp_path / "lib").rglob("_native_core*"))


def test_without_a_compiler_the_build_goes_on_pure_python_and_says_why(project, tmp_path):
    built, cores = build_ext(project, tmp_path, **NO_COMPILER)
    assert built.returncode == 0, built.stderr[-3000:]
    assert cores == []
    assert "truebleu: the compiled core could not be built" in built.stderr
    assert "pure-Python" in built.stderr and "TRUEBLEU_REQUIRE_NATIVE=1" in built.stderr


def test_where_the_core_is_required_a_failed_build_fails(project, tmp_path):
    built, cores = build_ext(project, tmp_path, TRUEBLEU_REQUIRE_NATIVE="1", **NO_COMPILER)
    assert built.returncode != 0
    assert cores == []
    assert "TRUEBLEU_REQUIRE_NATIVE=1 requires it" in built.stderr


def test_zero_means_not_required(project, tmp_path):
    built, _ = build_ext(project, tmp_path, TRUEBLEU_REQUIRE_NATIVE="0", **NO_COMPILER)
    assert built.returncode == 0, built.stderr[-3000:]


def test_where_the_core_is_required_a_tree_without_its_c_sources_fails(tmp_path):
    """An sdist that lost the C tree must not become a pure-Python wheel where the core is required."""
    project = copy_project(tmp_path / "project")
    for source in (project / "src" / "truebleu" / "_native").rglob("*.c"):
        source.unlink()
    built, cores = build_ext(project, tmp_path, TRUEBLEU_REQUIRE_NATIVE="1")
    assert built.returncode != 0 and cores == []
    assert "there is no C source under src/truebleu/_native" in built.stderr
