"""The installed truebleu: what ``pip install`` put in site-packages, checked where it runs.

CI runs the suite against an installed package twice: the main run (``pip install '.[test]'``
builds a wheel from the checkout) and ``tools/check_wheel.sh`` (the auditwheel-repaired wheel
from the sdist, in a fresh virtual environment without a compiler). There
``TRUEBLEU_REQUIRE_NATIVE=1`` says that the compiled core must be present. From a checkout
(``PYTHONPATH=src`` or an editable install) there is nothing installed to check.
"""

from __future__ import annotations

import os
import sys
from importlib import metadata
from pathlib import Path

import pytest

import truebleu

RUNNING = Path(truebleu.__file__).resolve()


def installed_distribution() -> metadata.Distribution:
    try:
        dist = metadata.distribution("truebleu")
    except metadata.PackageNotFoundError:
        dist = None
    # installed from a wheel: a .dist-info with a WHEEL file (not a checkout's .egg-info)
    if dist is None or dist.read_text("WHEEL") is None \
            or Path(str(dist.locate_file("truebleu/__init__.py"))).resolve() != RUNNING:
        pytest.skip(f"truebleu runs from {RUNNING.parent}, not from an installed wheel")
    return dist


def test_the_tests_import_the_installed_package_not_the_checkout():
    installed_distribution()
    assert Path(sys.prefix).resolve() in RUNNING.parents
    assert "src" not in RUNNING.parent.parent.name  # site-packages/truebleu, not src/truebleu


def test_the_installed_package_has_no_c_sources():
    files = [str(name) for name in installed_distribution().files or []]
    assert [name for name in files if name.endswith((".c", ".h"))] == []
    assert [name for name in files if name.startswith("truebleu/_native/")] == []
    assert not (RUNNING.parent / "_native").exists()


@pytest.mark.skipif(os.environ.get("TRUEBLEU_REQUIRE_NATIVE") != "1",
                    reason="TRUEBLEU_REQUIRE_NATIVE=1 says where the core must be installed (CI)")
def test_where_the_core_is_required_it_is_installed_and_used():
    from truebleu.cli.version import version_text
    from truebleu.core.kernels import native_core

    files = [str(name) for name in installed_distribution().files or []]
    assert [name for name in files if Path(name).name.startswith("_native_core.")] != []
    assert Path(native_core().__file__).resolve().parent == RUNNING.parent
    first, build = version_text().splitlines()[:2]
    assert first.endswith("(backend: native)")
    assert "; wheel cp" in build
