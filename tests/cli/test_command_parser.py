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


def _write_catalog(path, translations: dict[str, str]) -> None:
    """A GNU ``.mo`` file (little-endian, no hash table) of ``translations``."""
    import struct

    keys = sorted(translations)
    originals = [k.encode() for k in keys]
    translated = [translations[k].encode() for k in keys]
    start = 7 * 4 + 2 * len(keys) * 8
    table_o, table_t, blob = [], [], b""
    for text in originals + translated:
        (table_o if len(table_o) < len(keys) else table_t).append((len(text), start + len(blob)))
        blob += text + b"\0"
    header = struct.pack("<7I", 0x950412DE, 0, len(keys), 28, 28 + len(keys) * 8, 0, 0)
    pairs = b"".join(struct.pack("<2I", *entry) for entry in table_o + table_t)
    path.parent.mkdir(parents=True)
    path.write_bytes(header + pairs + blob)


def test_argparse_s_titles_are_translated_where_a_catalog_can_exist(monkeypatch, tmp_path):
    """The parser skips gettext's catalog search only where no catalog can exist (its
    folder absent); with one, its titles are translated as argparse's are."""
    import gettext

    _write_catalog(tmp_path / "xx" / "LC_MESSAGES" / "messages.mo", {"options": "Optionen"})
    monkeypatch.setattr(gettext, "_default_localedir", str(tmp_path))
    monkeypatch.setenv("LANGUAGE", "xx")
    ours, plain = _both_parsers(monkeypatch)
    assert "Optionen:" in plain.format_help()
    assert ours.format_help() == plain.format_help()


def test_the_parser_leaves_argparse_s_translation_as_it_was(monkeypatch, tmp_path):
    translate = argparse._  # type: ignore[attr-defined]
    monkeypatch.setattr("gettext._default_localedir", str(tmp_path / "absent"))
    score.build_parser()
    assert argparse._ is translate  # type: ignore[attr-defined]
