"""A small sample shipped inside the package, so ``truebleu --sample`` runs anywhere.

Eight English sentences written for truebleu (a system output and two
references), not taken from any test set.
"""

from __future__ import annotations

from importlib import resources


def sample_files() -> tuple[str, list[str]]:
    """Paths of the sample hypothesis file and its two reference files."""
    folder = resources.files("truebleu") / "data"
    return (str(folder / "sample.hyp.en"),
            [str(folder / "sample.ref.A.en"), str(folder / "sample.ref.B.en")])
