"""``python -m truebleu``: the same as the ``truebleu`` command."""

import sys

from .cli.score import main

sys.exit(main())
