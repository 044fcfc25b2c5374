"""Build hook for the optional compiled core.

Everything else is in pyproject.toml. The extension is optional: without a C
compiler (or if its build fails) pip still installs a working pure-Python
truebleu, which then runs on the reference backend (and says so: see
``truebleu.backends``).

The ``intl`` tokenizer's Unicode classes are generated at build time from the
``regex`` module of the build (``_native/gen_tables.py``) into the build
directory, so the core agrees with the ``regex`` that is installed with it;
without ``regex`` the checked-in ``_native/tables/unicode_tables.h`` is used.

Compiler flags are chosen per compiler (``COMPILE_ARGS``: MSVC's, or GCC's,
which Clang, MinGW-w64 and zig cc share). ``TRUEBLEU_PORTABLE_FALLBACKS=1``
builds the core with the standard-C fallback of every compiler-specific fast
path (``_native/runtime/portable.h``): the build the tests use to check that the
fallbacks compute the same numbers.

``TRUEBLEU_REQUIRE_NATIVE=1`` makes the extension required: where the core must
be built (CI, cibuildwheel, a release), a failed build is an error instead of a
pure-Python install. Without it, a failed build prints why and what the user
gets, and the installed truebleu warns at run time (``core/kernels.py``).

The C sources go into the sdist (MANIFEST.in), never into a wheel: the
``truebleu._native`` tree is not a package (pyproject.toml excludes it).
"""

import importlib.util
import os
import sys
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext
from setuptools.errors import BaseError, CCompilerError

NATIVE_DIR = Path("src/truebleu/_native")
# module.c and one folder per concern (runtime/, text/, bleu/, chrf/, ter/, significance/)
sources = sorted(str(p) for p in NATIVE_DIR.rglob("*.c"))
headers = sorted(str(p) for p in NATIVE_DIR.rglob("*.h"))


def _gen_tables():
    spec = importlib.util.spec_from_file_location("_truebleu_gen_tables",
                                                  NATIVE_DIR / "gen_tables.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


#: by the build_ext compiler's type; any other type (a Unix-like one) gets "unix"'s
COMPILE_ARGS = {
    # GCC and Clang (Linux, macOS). -fvisibility=hidden: the core's functions are called across
    # its files directly, not through the PLT (only PyInit__native_core is exported)
    "unix": ["-O3", "-std=c11", "-pthread", "-fvisibility=hidden", "-Wall",
             "-Werror=implicit-function-declaration"],
    # MinGW-w64 GCC: Win32 threads (runtime/threads.c), and a DLL exports only what is marked
    "mingw32": ["-O3", "-std=c11", "-Wall", "-Werror=implicit-function-declaration"],
    # MSVC (VS 2019 16.8+ for /std:c11; atomics: Interlocked, runtime/atomics.h). C4996: the
    # CRT's "unsafe" functions
    "msvc": ["/O2", "/std:c11", "/W3", "/wd4996"],
}
LINK_ARGS = {"unix": ["-pthread"]}


def _env_flag(name):
    """Whether the environment variable ``name`` is set to anything but "" or "0"."""
    return os.environ.get(name, "") not in ("", "0")


#: set where the core must be built (CI, cibuildwheel, releases): a failed build fails
REQUIRE_NATIVE = _env_flag("TRUEBLEU_REQUIRE_NATIVE")

NO_CORE_BUILT = """
********************************************************************************
truebleu: the compiled core could not be built:
    {error}
Installing the pure-Python truebleu instead: the same numbers, 8-27x slower; it
warns when it runs. For the fast core, install a C compiler and the Python
headers (docs/platforms.md) and reinstall truebleu. Set TRUEBLEU_REQUIRE_NATIVE=1
to make this failure an error.
********************************************************************************
"""


class BuildWithTables(build_ext):
    """build_ext that first writes unicode_tables.h from the build's ``regex``, with the
    compiler's flags."""

    def build_extensions(self):
        kind = self.compiler.compiler_type
        fallbacks = _env_flag("TRUEBLEU_PORTABLE_FALLBACKS")
        for ext in self.extensions:
            ext.extra_compile_args = list(COMPILE_ARGS.get(kind, COMPILE_ARGS["unix"]))
            ext.extra_link_args = list(LINK_ARGS.get(kind, []))
            if fallbacks:
                ext.define_macros.append(("TB_PORTABLE_FALLBACKS", "1"))
        if fallbacks:
            print("truebleu: TB_PORTABLE_FALLBACKS: every fallback of _native/runtime/portable.h")
        try:
            import regex
        except ImportError:
            print("truebleu: regex not importable at build time; "
                  "using the checked-in unicode_tables.h")
        else:
            generated = Path(self.build_temp) / "truebleu_generated"
            generated.mkdir(parents=True, exist_ok=True)
            _gen_tables().write_header(generated / "unicode_tables.h", regex)
            print(f"truebleu: unicode_tables.h generated from regex {regex.__version__}")
            for ext in self.extensions:
                ext.include_dirs.insert(0, str(generated))
        super().build_extensions()

    def build_extension(self, ext):
        """Build ``ext``; if it is optional and fails, say so plainly and go on without it."""
        try:
            super().build_extension(ext)
        except (CCompilerError, BaseError) as exc:
            if not ext.optional:
                raise BaseError(f"truebleu: the compiled core did not build and "
                                f"TRUEBLEU_REQUIRE_NATIVE=1 requires it: {exc}") from exc
            print(NO_CORE_BUILT.format(error=exc), file=sys.stderr)


if REQUIRE_NATIVE and not sources:  # an sdist without the C tree would install pure Python
    raise SystemExit(f"truebleu: TRUEBLEU_REQUIRE_NATIVE=1, but there is no C source under "
                     f"{NATIVE_DIR} to build the compiled core from")

ext_modules = []
if sources:
    ext_modules.append(
        Extension(
            "truebleu._native_core",
            sources=sources,
            # headers are included as "runtime/pool.h", "text/tokenize.h", ...; tables/ holds the
            # checked-in unicode_tables.h (a generated one goes first)
            include_dirs=[str(NATIVE_DIR), str(NATIVE_DIR / "tables")],
            depends=[str(NATIVE_DIR / "gen_tables.py"), *headers,
                     "src/truebleu/tokenizers/unicode_classes.py"],
            # extra_compile_args and extra_link_args: per compiler (BuildWithTables)
            optional=not REQUIRE_NATIVE,
        )
    )

setup(ext_modules=ext_modules, cmdclass={"build_ext": BuildWithTables})
