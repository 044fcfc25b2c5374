"""The README is a front page: short, its quick start exactly what CI runs, its example and links
working (the rules of its examples: tests/docs_examples.py)."""

from __future__ import annotations

import re

from conftest import REPO
from docs_examples import blocks, command_lines, run_examples, unnamed_tests

README = REPO / "README.md"
#: the quick start that .ci/run executes, line by line (README.md's ci:begin/ci:end block)
QUICK_START = [
    "python -m pip install . && truebleu --sample",
    "python -m pip install '.[test,test-integrations,spark]' && python -m pytest -q",
]


def test_readme_is_a_front_page_under_8_kb():
    assert len(README.read_bytes()) < 8 * 1024


def test_the_quick_start_is_exactly_the_two_commands_ci_runs():
    text = README.read_text(encoding="utf-8")
    block = re.search(r"<!-- ci:begin -->\n```sh\n(.*?)```\n<!-- ci:end -->", text, re.S)
    assert block is not None
    assert command_lines(block.group(1)) == QUICK_START
    assert "sed -n '/<!-- ci:begin -->/,/<!-- ci:end -->/p' README.md" in (REPO / ".ci" / "run").read_text()


def test_readme_has_an_example_in_python_and_one_on_the_command_line():
    langs = [block.lang for block in blocks(README) if block.reason is None]
    assert "python" in langs and "sh" in langs


def test_every_skipped_block_names_its_test():
    assert unnamed_tests(README) == []


def test_every_link_into_the_repository_resolves():
    text = README.read_text(encoding="utf-8")
    links = re.findall(r"\]\(((?!https?:)[^)#]+)(?:#[^)]*)?\)", text)
    assert len(links) >= 10
    assert [link for link in links if not (REPO / link).is_file()] == []


def test_examples_run_as_printed(tmp_path):
    assert run_examples(README, tmp_path) >= 2
