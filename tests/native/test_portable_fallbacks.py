"""The portable C core (issue 24, item 1): the standard-C fallbacks of the compiler-specific
fast paths (``_native/runtime/portable.h``: 128-bit products, ctz, checked arithmetic, the
resampling vectors, the C11 atomics in place of GCC's, and the scanners' paths without SSE2,
which ARM takes) compute what the fast paths compute.

Two checks, both with this machine's C compiler (skipped without one):

- the fallback helpers themselves against GCC's builtins and ``unsigned __int128``, on edge
  cases and millions of pseudo-random inputs (``portable_fallbacks.c``);
- a build of the whole core with ``TRUEBLEU_PORTABLE_FALLBACKS=1`` (every fallback on) into a
  temporary folder, and the native test files that reach each fallback run against it in a
  subprocess: the same numbers as the pure-Python specification and sacreBLEU.

Compiling for other platforms is ``tools/check_portable_c.sh`` (MinGW-w64 and zig).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from conftest import REPO

NATIVE = REPO / "src" / "truebleu" / "_native"

#: the native tests run on the fallback build, by the fallback they reach (about a minute on 2
#: cores; the slowest files, the leak and Ctrl-C tests, test the bindings and signals, which
#: have no fallback, and TER's long cases repeat what its short ones reach)
FALLBACK_TESTS = [
    "tests/native/test_native_runtime.py",  # threads and atomics under concurrent callers
    "tests/significance/test_significance_native.py",  # PCG64, Lemire, the resampling sums
    "tests/significance/test_pcg64_draws.py",  # the draws' two lanes and spare half, on 64-bit halves
    "tests/metrics/bleu/test_native_stats.py",  # the token hash (128-bit product), n-grams
    "tests/tokenizers/test_native_tokenize.py",  # the scanners: ctz, the bytes without SSE2
    "tests/tokenizers/test_native_utf8.py",  # the UTF-8 scan and lowercasing without SSE2
    "tests/metrics/chrf/test_chrf_native.py",
]


def c_compiler() -> str | None:
    cc = (sysconfig.get_config_var("CC") or "cc").split()[0]
    return shutil.which(cc)


needs_cc = pytest.mark.skipif(c_compiler() is None, reason="no C compiler")


@needs_cc
def test_fallback_helpers_equal_the_builtins(tmp_path):
    exe = tmp_path / "portable_fallbacks"
    subprocess.run([c_compiler(), "-O2", "-std=c11", "-Wall", "-Wextra", "-Werror", "-DTB_PORTABLE_FALLBACKS",
                    f"-I{NATIVE}", str(Path(__file__).with_name("portable_fallbacks.c")), "-o", str(exe)],
                   check=True, capture_output=True, text=True)
    run = subprocess.run([str(exe)], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0 and run.stdout.startswith("ok "), run.stdout


@pytest.fixture(scope="module")
def fallback_build(tmp_path_factory) -> Path:
    """src/ with a core built with TRUEBLEU_PORTABLE_FALLBACKS=1 (a copy: the checkout's
    own in-place build stays as it is)."""
    tmp = tmp_path_factory.mktemp("fallbacks")
    env = dict(os.environ, TRUEBLEU_PORTABLE_FALLBACKS="1")
    build = subprocess.run([sys.executable, "setup.py", "build_ext", "--build-lib", str(tmp / "lib"),
                            "--build-temp", str(tmp / "temp"), "--parallel", "2"],
                           cwd=REPO, env=env, capture_output=True, text=True)
    assert build.returncode == 0, build.stdout[-3000:] + build.stderr[-3000:]
    assert "-DTB_PORTABLE_FALLBACKS" in build.stdout + build.stderr  # on every compile line
    built = list((tmp / "lib" / "truebleu").glob("_native_core*"))
    assert len(built) == 1, build.stdout[-3000:] + build.stderr[-3000:]  # (the core is optional)
    src = tmp / "src"
    shutil.copytree(REPO / "src" / "truebleu", src / "truebleu",
                    ignore=shutil.ignore_patterns("_native_core*", "__pycache__"))
    shutil.copy2(built[0], src / "truebleu")
    return src


@needs_cc
def test_native_tests_pass_on_a_build_with_every_fallback(fallback_build):
    env = dict(os.environ, PYTHONPATH=str(fallback_build))
    # the fallback core is a plain build: bench/sanitize.sh's preloaded sanitizer runtime has
    # nothing to check in it, and its presence skips the leak tests (which must all run here)
    env.pop("LD_PRELOAD", None)
    where = subprocess.run([sys.executable, "-c", "import truebleu._native_core as m; print(m.__file__)"],
                           env=env, capture_output=True, text=True, check=True)
    assert Path(where.stdout.strip()).parent == fallback_build / "truebleu"
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *FALLBACK_TESTS],
                         cwd=REPO, env=env, capture_output=True, text=True)
    assert run.returncode == 0, run.stdout[-5000:] + run.stderr[-2000:]
    assert " passed" in run.stdout.splitlines()[-1] and "skipped" not in run.stdout.splitlines()[-1]
