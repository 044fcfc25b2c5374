"""Every page of docs/ runs its Python examples as printed (the rules: tests/docs_examples.py)."""

from __future__ import annotations

import pytest

from conftest import REPO
from docs_examples import python_blocks, run_examples, unnamed_tests

PAGES = sorted(page for page in (REPO / "docs").rglob("*.md") if python_blocks(page))


def test_the_docs_have_examples():
    assert len(PAGES) >= 4


@pytest.mark.parametrize("page", PAGES, ids=lambda page: str(page.relative_to(REPO / "docs")))
def test_every_skipped_block_names_its_test(page):
    assert unnamed_tests(page) == []


@pytest.mark.parametrize("page", PAGES, ids=lambda page: str(page.relative_to(REPO / "docs")))
def test_examples_run_as_printed(page, tmp_path):
    assert run_examples(page, tmp_path) >= 0
