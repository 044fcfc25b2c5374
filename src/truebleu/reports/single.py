"""One score per line, or one JSON object: sacreBLEU's single-system output."""

from __future__ import annotations

from .color import Color

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: importing typing costs about 16 M instructions
if TYPE_CHECKING:
    from typing import Sequence

_CONFIDENCE = r"(\(μ = [0-9\.]+ ± [0-9\.]+\))"


def single_results_text(results: Sequence[str], fmt: str) -> str:
    """Join formatted scores as sacreBLEU prints them (aligned on ``=``)."""
    results = list(results)
    if fmt == "json":
        if len(results) > 1:
            return "[\n" + ",\n".join(results) + "\n]"
        return results[0]
    if "μ" in results[0]:
        import re

        results = [re.sub(_CONFIDENCE, lambda m: Color.format(m.group(), "cyan"), r) for r in results]
    if len(results) == 1:
        return results[0]
    lines, offsets = [], []
    for line in results:
        if "=" in line:
            offsets.append((line.index("=") - 1, line))
        else:
            lines.append(line)
    if offsets:
        width = max(offset for offset, _ in offsets)
        lines += [f"{line[:offset]:>{width}}{line[offset:]}" for offset, line in offsets]
    return "\n".join(lines)
