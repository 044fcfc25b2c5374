"""The "fake SGML" of WMT test sets before 2021 (``*.sgm``), read line by line as sacreBLEU does.

It is not parseable SGML, so sacreBLEU (and truebleu, to give the same lines)
reads it by lines: a line starting with ``<seg `` is one segment (the text
between the tags, whitespace collapsed); a line starting with ``<doc `` sets the
document attributes (``docid``, ``genre``, ``origlang``, ...) that apply to the
segments after it.
"""

from __future__ import annotations

import os
import re

from . import DEFAULT_MAX_LINE_LENGTH, read_lines
from .wmt_xml import clean

__all__ = ["sgml_segments", "sgml_doc_attribute", "read_sgml"]

_SEG = re.compile(r"<seg.*?>(.*)</seg>.*?")


def sgml_segments(lines: list[str]) -> list[str]:
    """The segments of an SGML file's lines, as sacreBLEU extracts them."""
    return [clean(_SEG.sub(r"\1", line)) for line in lines if line.startswith("<seg ")]


def sgml_doc_attribute(lines: list[str], attribute: str) -> list[str]:
    """One value per segment: the attribute of the ``<doc>`` line before it ('' if absent)."""
    pattern = re.compile(rf'{re.escape(attribute)}="(.*?)"')
    values, value = [], ""
    for line in lines:
        if line.startswith("<doc "):
            match = pattern.search(line)
            if match is not None:
                value = match.group(1)
        elif line.startswith("<seg "):
            values.append(value)
    return values


def read_sgml(path: str | os.PathLike, encoding: str = "utf-8",
              max_line_length: int = DEFAULT_MAX_LINE_LENGTH) -> list[str]:
    """The segments of an ``.sgm`` file (plain or compressed), in file order."""
    return sgml_segments(read_lines(path, encoding, max_line_length))
