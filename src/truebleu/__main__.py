"""``python -m truebleu``: the same as the ``truebleu`` command."""

import sys

from .cli import main

sys.exit(main())
