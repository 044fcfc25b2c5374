"""The scoring command's parser prints argparse's own help, usage and errors, at any width.

:class:`truebleu.cli.command_parser.CommandParser` only changes which formatter checks a new
argument's metavar; what it prints must be what an ``argparse.ArgumentParser`` with the same
arguments prints, for every terminal width (``$COLUMNS``, which ``shutil`` reads).
"""

from __future__ import annotations

import argparse

import pytest

from truebleu.cli import score


def _both_parsers(monkeypatch: pytest.MonkeyPatch) -> tuple[argparse.ArgumentParser, ...]:
    ours = score.build_parser()
    monkeypatch.setattr(score, "CommandParser", argparse.ArgumentParser)
    return ours, score.build_parser()


@pytest.mark.parametrize("columns", ["40", "80", "137", "250"])
def test_help_and_usage_are_argparse_s_at_any_width(monkeypatch, columns):
    monkeypatch.setenv("COLUMNS", columns)
    ours, plain = _both_parsers(monkeypatch)
    assert type(ours) is not type(plain)
    assert ours.format_help() == plain.format_help()
    assert ours.format_usage() == plain.format_usage()


def test_errors_are_argparse_s(monkeypatch, capsys):
    monkeypatch.setenv("COLUMNS", "60")
    printed = []
    for parser in _both_parsers(monkeypatch):
        with pytest.raises(SystemExit) as exit_:
            parser.parse_args(["ref.txt", "-i", "sys.txt", "--no-such-flag"])
        printed.append((exit_.value.code, capsys.readouterr()))
    assert printed[0] == printed[1]
    assert "--no-such-flag" in printed[0][1].err


def test_a_metavar_that_does_not_match_nargs_is_still_refused():
    parser = score.build_parser()
    with pytest.raises(ValueError, match="length of metavar tuple"):
        parser.add_argument("--pair", nargs=2, metavar=("A", "B", "C"))
