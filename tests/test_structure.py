"""The shape of the package, as docs/architecture.md promises it (the import rules themselves
are import-linter's, run by CI: ``lint-imports``).

Small modules with one job, a top of the package that holds only the entry points and the
compatibility paths, one place in the compiled core that starts threads.
"""

from __future__ import annotations

import re

from conftest import REPO

PACKAGE = REPO / "src" / "truebleu"
NATIVE = PACKAGE / "_native"

#: the only modules at the top of the package: entry points and compatibility paths
TOP_MODULES = {"__init__.py", "__main__.py", "_version.py", "compat.py", "utils.py", "nltk.py"}


def lines(path) -> int:
    return len(path.read_text(encoding="utf-8").splitlines())


def test_the_top_of_the_package_holds_only_entry_points_and_compatibility_paths():
    top = {path.name for path in PACKAGE.glob("*.py")}
    assert top == TOP_MODULES
    assert len(top) <= 8


def test_no_python_module_is_over_500_lines():
    """The package's modules, and the tests, benchmarks and tools beside it: a test file is
    read as often as the code it checks."""
    long = {str(path.relative_to(REPO)): lines(path)
            for folder in ("src", "tests", "bench", "tools") for path in (REPO / folder).rglob("*.py")
            if lines(path) > 500}
    assert long == {}


#: C written by a program, not by hand (setup.py regenerates it from the build's ``regex``)
GENERATED_C = {"tables/unicode_tables.h"}


def test_no_c_file_is_over_500_lines():
    """The Python rule holds for the core's C too (generated tables aside)."""
    long = {name: lines(path) for path in NATIVE.rglob("*.[ch]")
            if (name := path.relative_to(NATIVE).as_posix()) not in GENERATED_C and lines(path) > 500}
    assert long == {}
    assert all((NATIVE / name).is_file() for name in GENERATED_C)


def calls_of(pattern: str, suffixes=("*.c", "*.h")) -> list[tuple[str, int]]:
    return [(str(path.relative_to(NATIVE)), number)
            for suffix in suffixes
            for path in NATIVE.rglob(suffix)
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
            if re.search(pattern, line)]


def test_one_place_in_the_core_starts_threads():
    # the thread layer starts a thread in one function, once per platform (POSIX, Win32) ...
    starts = calls_of(r"\b(pthread_create|_beginthreadex|CreateThread)\s*\(")
    assert sorted(path for path, _ in starts) == ["runtime/threads.c"] * 2, starts
    # ... and only the pool calls it, in one place
    callers = [call for call in calls_of(r"\btb_thread_start\s*\(", ("*.c",))
               if call[0] != "runtime/threads.c"]
    assert [path for path, _ in callers] == ["runtime/pool.c"], callers


def test_only_the_thread_layer_calls_the_system_thread_apis():
    apis = r"\b(pthread_[a-z_]+|\w*SRWLock\w*|\w*ConditionVariable\w*|GetCurrentThreadId)\s*\("
    outside = [call for call in calls_of(apis)
               if not call[0].startswith("runtime/threads.")]
    assert outside == [], outside


def test_every_metric_is_a_folder_with_its_specification_kernels_and_flags():
    from truebleu.metrics import METRICS

    for name in METRICS:
        folder = PACKAGE / "metrics" / name
        assert folder.is_dir(), name
        for part in ("__init__.py", "spec.py", "config.py", "kernels.py", "metric.py", "cli.py"):
            assert (folder / part).is_file(), f"metrics/{name}/{part}"


def test_every_test_file_imports_only_shared_helpers_or_its_neighbours():
    """A test file must run on its own (CI's other-Python run picks single files): it may
    import the helpers at the top of ``tests/`` or a module beside it, never a test module
    in another folder, which pytest puts on the path only when that folder was collected."""
    tests = REPO / "tests"
    folders: dict[str, set] = {}
    for path in tests.rglob("*.py"):
        folders.setdefault(path.stem, set()).add(path.parent)
    climbing = []
    for path in tests.rglob("*.py"):
        for match in re.finditer(r"^\s*(?:from (\w+) import|import (\w+))", path.read_text("utf-8"), re.M):
            name = match.group(1) or match.group(2)
            where = folders.get(name, set())
            if where and path.parent not in where and tests not in where:
                climbing.append((str(path.relative_to(tests)), name))
    assert climbing == []
