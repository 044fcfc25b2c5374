"""``python -m truebleu``: the same as the ``truebleu`` command."""

import sys

from .cli import run

sys.exit(run())
