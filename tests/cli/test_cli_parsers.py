"""truebleu.cli.parsers names the parsers the command really uses (the documentation's
command-line reference is rendered from them)."""

from __future__ import annotations

import contextlib
import io

import pytest

from truebleu.cli.entry import SUBCOMMANDS, main
from truebleu.cli.parsers import command_parsers


def test_every_sub_command_has_its_parser():
    names = set(command_parsers())
    assert {f"truebleu {command}" for command in SUBCOMMANDS} <= names
    assert {"truebleu", "truebleu --dialect NAME"} <= names


@pytest.mark.parametrize("name", sorted(command_parsers()))
def test_each_parser_is_the_one_the_command_prints_for_help(name, monkeypatch):
    monkeypatch.setenv("COLUMNS", "100")
    argv = name.split()[1:]
    if argv == ["--dialect", "NAME"]:
        argv = ["--dialect", "nltk"]
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.suppress(SystemExit):  # compare returns 0
        main([*argv, "--help"])
    assert out.getvalue() == command_parsers()[name].format_help()
