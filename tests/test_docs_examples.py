"""Every page of docs/ runs its examples as printed (the rules: tests/docs_examples.py), and the
site's generated parts say what the code does."""

from __future__ import annotations

import importlib.util
import re

import pytest

from conftest import REPO
from docs_examples import blocks, command_lines, comparison_rows, run_examples, unnamed_tests

DOCS = REPO / "docs"
PAGES = sorted(page for page in DOCS.rglob("*.md") if blocks(page) or comparison_rows(page))
#: the pages with something to run (others hold only blocks that are not run, and say why)
RUN_PAGES = [page for page in PAGES
             if comparison_rows(page) or any(block.reason is None for block in blocks(page))]


def _page_id(page):
    return str(page.relative_to(DOCS))


def _load_hook(name: str):
    spec = importlib.util.spec_from_file_location(name, DOCS / "hooks" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_docs_have_examples():
    assert len(RUN_PAGES) >= 12
    assert sum(len(comparison_rows(page)) for page in PAGES) >= 40


@pytest.mark.parametrize("page", PAGES, ids=_page_id)
def test_every_skipped_block_names_its_test(page):
    assert unnamed_tests(page) == []


@pytest.mark.parametrize("page", RUN_PAGES, ids=_page_id)
def test_examples_run_as_printed(page, tmp_path):
    assert run_examples(page, tmp_path) >= 1


def test_every_page_is_in_the_sites_navigation():
    nav = (REPO / "mkdocs.yml").read_text(encoding="utf-8")
    pages = [_page_id(page) for page in DOCS.rglob("*.md") if "hooks" not in page.parts]
    assert [page for page in pages if f": {page}\n" not in nav] == []


def test_benchmark_commands_name_their_scripts_and_flags():
    """The benchmarks are too long for the suite (they are not run): each command names a
    script of the repository, and each flag it passes is one the script defines."""
    checked = 0
    for page in [REPO / "README.md", *DOCS.rglob("*.md")]:
        for block in blocks(page):
            for line in command_lines(block.code) if block.reason else []:
                script = re.match(r"(?:python|bash) ((?:bench|tools|src)/\S+)", line)
                if script is None:
                    continue
                source = (REPO / script.group(1)).read_text(encoding="utf-8")
                flags = re.findall(r"(?<=\s)--[a-z][\w-]*", line.split("#")[0])
                assert [flag for flag in flags if f'"{flag}"' not in source] == [], (page.name, line)
                checked += 1
    assert checked >= 10


def test_the_command_line_reference_shows_every_argument_of_every_parser():
    from truebleu.cli.parsers import command_parsers

    reference = _load_hook("cli_reference").render_reference()
    for name, parser in command_parsers().items():
        assert f"## `{name}`" in reference
        for action in parser._actions:
            if action.help == "==SUPPRESS==":
                continue
            for option in action.option_strings or [action.dest]:
                assert f"`{option}`" in reference, (name, option)
            if action.help and "%" not in action.help:
                assert " ".join(action.help.split()).split("`")[0][:40] in reference, (name, action.dest)


# -- the rules can fail -----------------------------------------------------------------------

def _page(tmp_path, text: str):
    page = tmp_path / "page.md"
    page.write_text(text, encoding="utf-8")
    return page


def test_a_migration_row_with_different_numbers_fails(tmp_path):
    pytest.importorskip("sacrebleu")
    page = _page(tmp_path, "```python\nimport truebleu\nhyps = ['a b c d']\nrefs = [['a b c e']]\n```\n\n"
                           "<!-- compare: sacrebleu -->\n| sacreBLEU | truebleu |\n|---|---|\n"
                           "| `sacrebleu.corpus_bleu(hyps, refs)` | `truebleu.corpus_chrf(hyps, refs)` |\n")
    (tmp_path / "run").mkdir()
    with pytest.raises(pytest.fail.Exception, match="the numbers differ"):
        run_examples(page, tmp_path / "run")


def test_a_failing_command_fails(tmp_path):
    page = _page(tmp_path, "```sh\ntruebleu --no-such-flag\n```\n")
    assert unnamed_tests(page) == []
    with pytest.raises(pytest.fail.Exception, match="no-such-flag"):
        run_examples(page, tmp_path)


def test_a_command_that_is_not_truebleus_must_be_marked_not_run(tmp_path):
    page = _page(tmp_path, "```sh\npip install truebleu\n```\n\n"
                           "<!-- not run: no test named -->\n```sh\ntruebleu --sample\n```\n")
    assert len(unnamed_tests(page)) == 2
