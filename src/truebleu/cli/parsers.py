"""Every parser of the ``truebleu`` command, by the command line that reaches it.

The documentation's command-line reference is rendered from these parsers when the site is
built (``docs/hooks/cli_reference.py``), so the reference and ``--help`` cannot disagree. Each
sub-command's module builds its own parser; this module only names them, in the order a
reader meets them.
"""

from __future__ import annotations

import argparse


def command_parsers() -> dict[str, argparse.ArgumentParser]:
    """``{"truebleu explain": parser, ...}``: the scoring command, each sub-command of
    :data:`truebleu.cli.entry.SUBCOMMANDS` and ``--dialect NAME``."""
    from .compare import build_parser as compare_parser
    from .dialect import build_parser as dialect_parser
    from .explain import build_parser as explain_parser
    from .score import build_parser as score_parser
    from .viewer import build_parser as viewer_parser

    return {
        "truebleu": score_parser(),
        "truebleu --dialect NAME": dialect_parser(),
        "truebleu explain": explain_parser(),
        "truebleu compare": compare_parser(),
        "truebleu report": viewer_parser("report"),
        "truebleu serve": viewer_parser("serve"),
    }
