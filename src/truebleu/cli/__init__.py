"""The ``truebleu`` command line: one module per sub-command, shared flag builders."""

from __future__ import annotations

from .score import explain_command, main

__all__ = ["explain_command", "main"]
