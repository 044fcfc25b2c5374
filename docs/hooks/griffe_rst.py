"""Griffe extension: truebleu's docstrings, written for Sphinx, read as Markdown by mkdocstrings.

The docstrings use reStructuredText's inline roles (``:class:`BLEU```, ``:func:`~x.y```) and
double-backtick literals, and two module docstrings use RST "simple tables". mkdocstrings
renders Markdown, where a role would show as ``:class:`` before the code and a table's ``===``
rule would become a heading. This rewrites them, in the rendered copy only, as code spans and
Markdown tables; the ``:param:`` fields are parsed by mkdocstrings' Sphinx docstring style.
"""

from __future__ import annotations

import re
from typing import Any

import griffe

ROLE = re.compile(r":(?:py:)?(?:mod|class|func|meth|attr|data|exc|obj|const):`~?([^`]+)`")
RULE = re.compile(r"^( *)(=+)((?: +=+)+) *$")


class RstToMarkdown(griffe.Extension):
    def on_object(self, *, obj: Any, loader: Any, **kwargs: Any) -> None:
        if obj.docstring is not None:
            obj.docstring.value = to_markdown(obj.docstring.value)


def to_markdown(text: str) -> str:
    return _tables(ROLE.sub(r"`\1`", text))


def _tables(text: str) -> str:
    """RST simple tables (a rule of ``=`` columns, rows, a closing rule) as Markdown tables."""
    lines, out, index = text.split("\n"), [], 0
    while index < len(lines):
        rule = RULE.match(lines[index])
        end = next((k for k in range(index + 1, len(lines)) if RULE.match(lines[k])), None)
        if rule is None or end is None:
            out.append(lines[index])
            index += 1
            continue
        starts = [match.start() for match in re.finditer(r"=+", lines[index])]
        rows: list[list[str]] = []
        for line in lines[index + 1:end]:
            cells = [line[start:stop].strip() for start, stop in zip(starts, starts[1:] + [None])]
            if cells[0] or not rows:
                rows.append(cells)
            else:  # a continuation line: its cells continue the row above
                rows[-1] = [f"{a} {b}".strip() for a, b in zip(rows[-1], cells)]
        out += ["| " + " | ".join(["", ""] + [""] * (len(starts) - 2)) + " |",
                "|" + "---|" * len(starts)]
        out += ["| " + " | ".join(cell.replace("|", "\\|") for cell in row) + " |" for row in rows]
        index = end + 1
    return "\n".join(out)
