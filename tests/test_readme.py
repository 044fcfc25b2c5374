"""The README's Python examples run as printed (the rules: tests/docs_examples.py)."""

from __future__ import annotations

import pytest

from conftest import REPO
from docs_examples import python_blocks, run_examples, unnamed_tests

README = REPO / "README.md"


def test_readme_has_examples():
    assert len(python_blocks(README)) >= 5


def test_every_skipped_block_names_its_test():
    assert unnamed_tests(README) == []


def test_python_examples_run_as_printed(tmp_path):
    pytest.importorskip("numpy")  # the TER example asks for a bootstrap interval
    assert run_examples(README, tmp_path) >= 5
