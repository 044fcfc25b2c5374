"""One score per line, or one JSON object: sacreBLEU's single-system output."""

from __future__ import annotations

from typing import Sequence

from .color import Color


def format_score(score, width: int = 2, score_only: bool = False, signature: str = "",
                 is_json: bool = False) -> str:
    """``BLEU|sig = 12.34 <verbose>`` or JSON, exactly as sacreBLEU formats a Score."""
    text = f"{score.score:.{width}f}"
    record: dict = {"name": score.name, "score": float(text), "signature": signature}

    if score._mean > 0:
        mean, ci = f"{score._mean:.{width}f}", f"{score._ci:.{width}f}"
        confidence = f"μ = {mean} ± {ci}"
        text += f" ({confidence})"
        if is_json:
            record["confidence_mean"] = float(mean)
            record["confidence_var"] = float(ci)
            record["confidence"] = confidence

    if score_only:
        return text

    line = f"{score.name}|{signature}" if signature else score.name
    line = f"{line} = {text}"
    verbose = score._verbose
    if verbose:
        line += f" {verbose}"
        record["verbose_score"] = verbose

    if is_json:
        import json  # here: a -b or text run does not load it

        for item in signature.split("|"):
            key, value = item.split(":")
            record[key] = value
        return json.dumps(record, indent=1, ensure_ascii=False)
    return line


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
