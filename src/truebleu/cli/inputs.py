"""Reading what the scoring command scores: reference streams and named system outputs.

Files are read through :mod:`truebleu.io` (plain, ``.gz``, ``.bz2``, ``.xz``,
``.sgm``, JSON Lines; ``-`` is standard input), so every command reports a bad
input with the same one-line error. Nothing here parses arguments.
"""

from __future__ import annotations

import os
import re

from ..core.log import logger
from ..core.references import ReferenceStreams
from ..io import DEFAULT_MAX_LINE_LENGTH, InputError, iter_lines, read_stdin_lines
from ..io.segments import read_reference_streams, read_segments
from .options import UsageError

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: importing typing costs about 16 M instructions
if TYPE_CHECKING:
    from typing import Optional, Sequence


def read_references(paths: Sequence[str], num_refs: int, encoding: str,
                    ref_field: str = "ref",
                    max_line_length: int = DEFAULT_MAX_LINE_LENGTH) -> ReferenceStreams:
    """Reference streams, one per file (JSON Lines: one per list entry), or ``num_refs``
    tab-separated ones in one file."""
    if num_refs == 1:
        return [stream for path in paths
                for stream in read_reference_streams(path, encoding, ref_field, max_line_length)]
    streams: list[list[str]] = [[] for _ in range(num_refs)]
    path = paths[0]
    for line_no, line in enumerate(iter_lines(path, encoding, max_line_length), 1):
        fields = line.rstrip().split("\t", num_refs - 1)
        if len(fields) != num_refs:
            raise InputError(f"{path}, line {line_no}: expected {num_refs} tab-separated "
                             f"references, found {len(fields)}")
        for stream, ref in zip(streams, fields):
            stream.append(ref)
    return streams


def read_systems(inputs: Optional[Sequence[str]], encoding: str, paired: bool,
                 hyp_field: str = "hyp", max_line_length: int = DEFAULT_MAX_LINE_LENGTH
                 ) -> tuple[list[list[str]], list[str]]:
    """System outputs and their names: from ``-i`` files (None: tab-separated stdin).

    With ``paired`` (a paired test), the first system is the baseline.
    """
    if inputs is None:
        return read_stdin_systems(encoding, paired, max_line_length)
    return read_file_systems(inputs, encoding, paired, hyp_field, max_line_length)


def read_stdin_systems(encoding: str, paired: bool,
                       max_line_length: int = DEFAULT_MAX_LINE_LENGTH
                       ) -> tuple[list[list[str]], list[str]]:
    """Systems side by side on standard input, one tab-separated column each, as sacreBLEU
    reads them; named ``System 1``, ... (``Baseline`` first for a paired test)."""
    lines = read_stdin_lines(encoding, max_line_length)
    first = lines[0].rstrip().split("\t") if lines else [""]
    systems = [[field] for field in first]
    for line_no, line in enumerate(lines[1:], 2):
        fields = line.rstrip().split("\t")
        if len(fields) != len(systems):
            raise InputError(f"<stdin>, line {line_no}: {len(fields)} tab-separated systems, "
                             f"but line 1 has {len(systems)}")
        for system, field in zip(systems, fields):
            system.append(field.rstrip())
    names = [f"System {i + 1}" for i in range(len(systems))]
    if paired:
        names = ["Baseline"] + [f"System {i + 1}" for i in range(len(systems) - 1)]
    return systems, names


def read_file_systems(paths: Sequence[str], encoding: str, paired: bool,
                      hyp_field: str = "hyp", max_line_length: int = DEFAULT_MAX_LINE_LENGTH
                      ) -> tuple[list[list[str]], list[str]]:
    """One system per file, named by its path. A file given twice is an error, except
    the baseline of a paired test given again (sacreBLEU ignores it)."""
    systems: list[list[str]] = []
    names: list[str] = []
    for path in paths:
        if path in names:
            if paired and path == names[0]:
                logger.info("Ignoring %r as it was also given as the baseline.", path)
                continue
            raise UsageError(f"{path!r} already used to name a system; give each system a "
                             "different file name")
        systems.append(read_segments(path, encoding, hyp_field, max_line_length))
        names.append(path)
    if paired and names:
        names[0] = f"Baseline: {names[0]}"
    return systems, names


def system_names(paths: Sequence[str]) -> list[str]:
    """Names for system files: their base names without what all of them share (the names
    ``compare``, ``report`` and ``serve`` show, and that score files must use).

    ``newstest2021.en-de.hyp.Online-W.de`` and ``...hyp.UEdin.de`` become
    ``Online-W`` and ``UEdin`` (a ``.gz``/``.bz2``/``.xz`` ending is ignored); if that would
    leave a name empty or two names
    equal, the base names (or, failing that, the paths) are used as they are.
    """
    bases = [re.sub(r"\.(gz|bz2|xz)$", "", os.path.basename(path)) or path for path in paths]
    if len(set(bases)) != len(bases):
        return list(paths)
    if len(bases) < 2:
        return bases
    parts = [base.split(".") for base in bases]
    head, tail = _shared_parts(parts)
    names = [".".join(p[head:len(p) - tail]) for p in parts]
    return names if all(names) and len(set(names)) == len(names) else bases


def _shared_parts(parts: Sequence[Sequence[str]]) -> tuple[int, int]:
    """How many dot-separated parts every name shares at its start and at its end (each
    name keeps one of its own)."""
    head = 0
    while all(len(p) > head + 1 for p in parts) and len({p[head] for p in parts}) == 1:
        head += 1
    tail = 0
    while (all(len(p) - head - tail > 1 for p in parts)
           and len({p[len(p) - 1 - tail] for p in parts}) == 1):
        tail += 1
    return head, tail


def files_title(paths: Sequence[str]) -> str:
    """Files as a title names them: the file name, or the names' shared parts with what
    differs in braces (``newstest2021.en-de.ref.{A,C,D}.de``, as a shell would expand it),
    so that one file and several read alike and the reader recognises them."""
    bases = [re.sub(r"\.(gz|bz2|xz)$", "", os.path.basename(path)) or path for path in paths]
    if len(bases) == 1:
        return bases[0]
    names = system_names(paths)
    if names in (bases, list(paths)):  # nothing shared, or names that would clash
        return ", ".join(names)
    parts = [base.split(".") for base in bases]
    head, tail = _shared_parts(parts)
    first = parts[0]
    return ".".join([*first[:head], "{" + ",".join(names) + "}", *first[len(first) - tail:]])
