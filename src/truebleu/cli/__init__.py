"""The ``truebleu`` command line: one module per sub-command, shared flag builders.

:mod:`.entry` picks the sub-command (``main``, the console entry point; ``run``, the
process's: ``python -m truebleu``);
:mod:`.score` is the scoring command, :mod:`.compare`, :mod:`.explain`,
:mod:`.viewer` (``report``, ``serve``) and :mod:`.dialect` (``--dialect NAME``)
the others; :mod:`.options` builds the flags they share (the metric flags come
from each registered metric), :mod:`.inputs` reads, :mod:`.output` writes,
:mod:`.testsets` answers sacreBLEU's test-set requests.
"""

from __future__ import annotations

from .entry import explain_command, main, run

__all__ = ["explain_command", "main", "run"]
