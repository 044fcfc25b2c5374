"""MkDocs hook: the command-line reference, rendered from truebleu's own argument parsers.

A page that holds ``<!-- cli-reference -->`` gets, in its place, every parser of
:func:`truebleu.cli.parsers.command_parsers`: its description, its usage line and a table of its
arguments per group, with the help texts and defaults that ``--help`` prints. Nothing is copied
by hand, so the reference cannot drift from the command.

argparse has no public API to walk a parser's groups and arguments; this reads its
``_action_groups``, ``_group_actions`` and ``_actions``, stable since Python 3.2.
"""

from __future__ import annotations

import argparse
import html
import sys
from pathlib import Path
from typing import Any

MARKER = "<!-- cli-reference -->"
#: the width of the usage lines (the page's code blocks scroll beyond it)
USAGE_WIDTH = 80


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    """MkDocs' hook: replace the marker with the rendered reference."""
    if MARKER not in markdown:
        return markdown
    return markdown.replace(MARKER, render_reference())


def render_reference() -> str:
    """The reference of every parser, as Markdown (one section per command line)."""
    _import_from_checkout()
    from truebleu.cli.parsers import command_parsers

    return "\n".join(render_parser(name, parser) for name, parser in command_parsers().items())


def _import_from_checkout() -> None:
    """Document the checkout being built (as mkdocstrings does, from ``src``)."""
    source = str(Path(__file__).resolve().parents[2] / "src")
    if source not in sys.path:
        sys.path.insert(0, source)


def render_parser(name: str, parser: argparse.ArgumentParser) -> str:
    formatter = parser.formatter_class(prog=parser.prog, width=USAGE_WIDTH)
    formatter.add_usage(parser.usage, parser._actions, parser._mutually_exclusive_groups)
    out = [f"## `{name}`", ""]
    if parser.description:
        description = parser.description.strip()
        if "\n    " in description:  # a description with its own layout (usage examples)
            out += ["```text", description, "```", ""]
        else:
            out += [html.escape(description, quote=False), ""]
    out += ["```text", formatter.format_help().strip(), "```", ""]
    for group in parser._action_groups:
        actions = [action for action in group._group_actions if action.help != argparse.SUPPRESS]
        if not actions:
            continue
        title = group.title or "arguments"
        if title.islower():  # argparse's own titles ("options") start in lower case
            title = title[0].upper() + title[1:]
        out += [f"### {html.escape(title, quote=False)}", ""]
        if group.description:
            out += [html.escape(group.description, quote=False), ""]
        out += ["| argument | value | what it does |", "|---|---|---|"]
        out += [_row(parser, action) for action in actions]
        out.append("")
    return "\n".join(out)


def _row(parser: argparse.ArgumentParser, action: argparse.Action) -> str:
    names = ", ".join(f"`{option}`" for option in action.option_strings) or f"`{action.dest}`"
    return f"| {names} | {_cell(_value(action))} | {_cell(_help(parser, action))} |"


def _value(action: argparse.Action) -> str:
    """What the argument takes: its choices, its metavar, or nothing for a flag."""
    if action.nargs == 0:
        return ""
    if action.choices is not None:
        return " ".join(f"`{choice}`" for choice in action.choices)
    metavar = action.metavar or (action.dest if not action.option_strings else action.dest.upper())
    text = metavar if isinstance(metavar, str) else " ".join(metavar)
    if action.nargs in ("*", "+"):
        text += " ..."
    return f"`{text}`"


def _help(parser: argparse.ArgumentParser, action: argparse.Action) -> str:
    """The help text as ``--help`` prints it (``%(default)s`` and the like filled in)."""
    if not action.help:
        return ""
    values = dict(vars(action), prog=parser.prog)
    for key, value in list(values.items()):
        if isinstance(value, (list, tuple)) and key == "choices":
            values[key] = ", ".join(map(str, value))
    text = action.help % values if "%" in action.help else action.help
    return html.escape(" ".join(text.split()), quote=False)


def _cell(text: str) -> str:
    return text.replace("|", "\\|")
