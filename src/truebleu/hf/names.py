"""The names of the ``evaluate`` modules truebleu provides, checked without importing ``evaluate``."""

from __future__ import annotations

from importlib import import_module
from typing import Any

#: the hub modules truebleu replaces, by their ``evaluate.load`` name
NAMES = ("sacrebleu", "bleu", "chrf", "ter")


def check_name(name: object) -> str:
    """``name`` if it is one of :data:`NAMES`, else a ValueError listing them."""
    if not isinstance(name, str) or name not in NAMES:
        raise ValueError(f"truebleu.hf has no module {name!r}; choose one of: {', '.join(NAMES)}")
    return name


def import_optional(name: str) -> Any:
    """The package ``name`` (``evaluate``, ``datasets``), or an ImportError that says what
    to install. (Imported by name: neither package carries types, so to the type checker
    their objects are ``Any`` whether or not they are installed.)"""
    try:
        return import_module(name)
    except ImportError as exc:
        raise ImportError(f"truebleu.hf.load needs Hugging Face evaluate ({name} is missing): "
                          "pip install 'truebleu[hf]'") from exc
