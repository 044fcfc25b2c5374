"""The page's script is the files of static/js/ concatenated into one: a function
declared twice is silently the last one (two engineers once each wrote chrF's
score of a row; the later, in another operation order, moved the page's subset
chrF by one ulp away from the API's). Each top-level name is declared once."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import truebleu.viewer

SCRIPTS = Path(truebleu.viewer.__file__).parent / "static" / "js"
#: a declaration at the start of a line: function f(, async function f(, const/let/class X
DECLARATION = re.compile(r"^(?:async\s+)?(?:function\s*\*?\s*|const\s+|let\s+|var\s+|class\s+)"
                         r"([A-Za-z_$][\w$]*)", re.M)


def declarations() -> Counter:
    names: Counter = Counter()
    for path in sorted(SCRIPTS.glob("*.js")):
        names.update(DECLARATION.findall(path.read_text(encoding="utf-8")))
    return names


def test_every_top_level_name_is_declared_once():
    names = declarations()
    assert len(names) > 100  # the pattern finds the page's declarations
    assert [name for name, count in names.items() if count > 1] == []


def test_the_check_finds_a_second_declaration(tmp_path):
    source = "function chrfScore(row) {\n}\n\nasync function start() {}\nfunction chrfScore(r) {}\n"
    assert Counter(DECLARATION.findall(source))["chrfScore"] == 2
