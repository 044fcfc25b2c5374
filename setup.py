"""Build hook for the optional compiled core.

Everything else is in pyproject.toml. The extension is optional: without a C
compiler (or if its build fails) pip still installs a working pure-Python
truebleu, which then runs on the reference backend (and says so: see
``truebleu.backends``).

The ``intl`` tokenizer's Unicode classes are generated at build time from the
``regex`` module of the build (``_native/gen_tables.py``) into the build
directory, so the core agrees with the ``regex`` that is installed with it;
without ``regex`` the checked-in ``_native/tables/unicode_tables.h`` is used.
"""

import importlib.util
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

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


class BuildWithTables(build_ext):
    """build_ext that first writes unicode_tables.h from the build's ``regex``."""

    def build_extensions(self):
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
            # -fvisibility=hidden: the core's functions are called across its files directly,
            # not through the PLT (only PyInit__native_core is exported)
            extra_compile_args=["-O3", "-std=c11", "-pthread", "-fvisibility=hidden", "-Wall",
                                "-Werror=implicit-function-declaration"],
            extra_link_args=["-pthread"],
            optional=True,
        )
    )

setup(ext_modules=ext_modules, cmdclass={"build_ext": BuildWithTables})
