"""Build hook for the optional compiled core.

Everything else is in pyproject.toml. The extension is optional: without a C
compiler (or if its build fails) pip still installs a working pure-Python
truebleu, which then runs on the reference backend.
"""

from pathlib import Path

from setuptools import Extension, setup

NATIVE_DIR = Path("src/truebleu/_native")
sources = sorted(str(p) for p in NATIVE_DIR.glob("*.c"))

ext_modules = []
if sources:
    ext_modules.append(
        Extension(
            "truebleu._native_core",
            sources=sources,
            include_dirs=[str(NATIVE_DIR)],
            extra_compile_args=["-O3", "-std=c11", "-pthread", "-Wall", "-Werror=implicit-function-declaration"],
            extra_link_args=["-pthread"],
            optional=True,
        )
    )

setup(ext_modules=ext_modules)
