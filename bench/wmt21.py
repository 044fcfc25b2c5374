"""The WMT21 into-English systems the benches score, read only as far as a bench uses them.

Several benches take "the first N systems" or "the first N segments" of the WMT21 X-en
outputs. Reading every file and slicing afterwards puts the reading of all of them into
what a small run measures (its instruction count, its peak RSS); ``into_english`` reads a
file only when its system is reached, so ``itertools.islice`` of it reads only the files of
the systems kept. (``python bench/X.py`` puts this folder on ``sys.path``: a script imports
it as ``from wmt21 import into_english``.)
"""

from __future__ import annotations

from itertools import islice
from pathlib import Path
from typing import Callable, Iterator, TypeVar

Reference = TypeVar("Reference")


def read_lines(path: Path) -> list[str]:
    """A file's lines without their newlines (a last newline ends the last line)."""
    lines = path.read_text(encoding="utf-8").split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def into_english(data: Path, reference: Callable[[Path], Reference] = read_lines  # type: ignore[assignment]
                 ) -> Iterator[tuple[list[str], Reference]]:
    """(hypothesis lines, reference) of every X-en system output of ``data``, lazily: the
    pairs in the name order of their reference A files, each pair's outputs in name order.

    Each file is read when its system is reached, and each pair's reference once (by
    ``reference(path)``, ``read_lines`` unless given): the same object for every output of
    the pair, so that a bench can prepare it once per pair."""
    for ref_path in sorted((data / "references").glob("*-en.ref.A.en")):
        prefix = ref_path.name.split(".ref.")[0]
        ref = None
        for hyp_path in sorted((data / "system-outputs").glob(f"{prefix}.hyp.*")):
            if ref is None:
                ref = reference(ref_path)
            yield read_lines(hyp_path), ref


def first_segment_pairs(data: Path, count: int) -> list[tuple[str, str]]:
    """The first ``count`` (hypothesis, reference) segments of ``into_english``, in order:
    only the files of the systems they come from are read."""
    return list(islice(((hyp, ref) for hyps, refs in into_english(data, read_lines)
                        for hyp, ref in zip(hyps, refs)), count))
