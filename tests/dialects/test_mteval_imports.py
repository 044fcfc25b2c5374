"""mteval's 13a path does not import the ``regex`` module (only its international
tokenization needs it): the whole command pays for what it uses."""

from __future__ import annotations

import subprocess
import sys

SCRIPT = """
import sys
from truebleu.dialects import get_dialect
get_dialect("mteval-v13a").corpus_score(["a b, c."], [["a b, c."]])
print("regex" in sys.modules)
get_dialect("mteval-v13a", international_tokenization=True).corpus_score(["a, b"], [["a, b"]])
print("regex" in sys.modules)
"""


def test_regex_is_imported_by_the_international_tokenization_only():
    done = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=120,
                          check=True)
    assert done.stdout.split() == ["False", "True"]
