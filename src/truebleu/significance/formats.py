"""Reports of a :class:`~truebleu.significance.multi.MultiComparison`.

``text`` for the terminal, ``json`` for programs (every number, full
precision), ``latex`` for a paper (booktabs; one block per cluster), ``tsv``
for spreadsheets (a systems table, a blank line, a pairs table).
"""

from __future__ import annotations

import json
import re
from dataclasses import asdict
from typing import Optional, Sequence

from .multi import MultiComparison
from .pvalues import format_p_value
from .sentence import SentenceComparison

FORMATS = ("text", "json", "latex", "tsv")
TEST_TITLES = {"bs": "paired bootstrap resampling", "ar": "paired approximate randomization"}


def describe(result: MultiComparison) -> str:
    """One sentence naming the procedure, for captions and footers."""
    seed = "OS entropy" if result.seed is None else f"seed {result.seed}"
    correction = "Holm-Bonferroni-adjusted " if result.holm else ""
    unit = "trials" if result.test == "ar" else "resamples"
    statistic = f", {result.statistic} statistic" if result.statistic else ""
    return (f"{TEST_TITLES[result.test].capitalize()} ({result.n_samples} {unit}, {seed}"
            f"{statistic}); "
            f"clusters: systems not significantly different at {correction}p < {result.alpha:g}.")


def resolution_note(result: MultiComparison) -> str:
    """A warning when too few samples make significance unreachable, else ''."""
    m = len(result.pairs) if result.holm else 1
    if m / (result.n_samples + 1) < result.alpha:
        return ""
    needed = int(m / result.alpha)
    return (f"Note: with {result.n_samples} samples no p-value is below 1/{result.n_samples + 1}"
            + (f"; Holm over {m} pairs" if result.holm else "")
            + f" cannot reach p < {result.alpha:g}: use at least {needed} samples (-n).")


#: characters that would act on a terminal, reorder text or hide in it: control
#: characters, bidirectional controls, zero-width characters, lone surrogates
_INVISIBLE = re.compile("[\x00-\x1f\x7f-\x9f\u200b-\u200f\u2028-\u202e"
                        "\u2060-\u2069\ufeff\ufff9-\ufffb\ud800-\udfff]")


def shown(text: str, left: str = "\u27e8", right: str = "\u27e9") -> str:
    """``text`` with every invisible or control character as a visible ``⟨U+XXXX⟩`` mark
    (as the viewer shows them): a system or metric name from a file name or a score
    file cannot then move the cursor, recolour a terminal or reorder a line."""
    return _INVISIBLE.sub(lambda m: f"{left}U+{ord(m.group()):04X}{right}", text)


def to_text(result: MultiComparison, width: int = 2,
            sentences: Sequence[SentenceComparison] = ()) -> str:
    rows = [("Rank", "Cluster", "System", shown(result.metric), "95% CI")]
    for s in result.systems:
        rows.append((str(s.rank), str(s.cluster), shown(s.name), f"{s.score:.{width}f}",
                     f"{s.mean:.{width}f} ± {s.ci:.{width}f}"))
    widths = [max(len(r[c]) for r in rows) for c in range(len(rows[0]))]
    lines: list[str] = []
    for k, row in enumerate(rows):
        if k > 1 and result.systems[k - 1].cluster != result.systems[k - 2].cluster:
            lines.append("-" * (sum(widths) + 2 * (len(widths) - 1)))
        lines.append("  ".join(cell.rjust(w) if c in (0, 1, 3) else cell.ljust(w)
                               for c, (cell, w) in enumerate(zip(row, widths))).rstrip())
    lines.insert(1, "=" * (sum(widths) + 2 * (len(widths) - 1)))
    lines += ["", describe(result)]
    if resolution_note(result):
        lines.append(resolution_note(result))
    lines += ["", "Pairwise comparisons (better system first):"]
    p_title = "p (Holm)" if result.holm else "p"
    for pair in result.pairs:
        mark = "*" if pair.significant else " "
        adjusted = (f"  {format_p_value(pair.p_adjusted, result.alpha, label=p_title)}"
                    if result.holm else "")
        lines.append(f"  {shown(pair.a)} vs {shown(pair.b)}: delta = {pair.delta:.{width}f}, "
                     f"{format_p_value(pair.p_value, result.alpha)}{adjusted} {mark}".rstrip())
    if sentences:
        lines += ["", "Segment-level comparison (B against A):"]
        for c in sentences:
            lines.append(
                f"  {shown(c.name_b)} vs {shown(c.name_a)}: B better on {c.wins_b}, "
                f"worse on {c.wins_a}, "
                f"tied on {c.ties} of {c.n_segments} (share {c.share_b:.3f}, "
                f"95% CI {c.share_low:.3f}-{c.share_high:.3f}); sign test p = {c.sign_test_p:.4g}; "
                f"mean delta {c.mean_delta:.{width}f} "
                f"[{c.delta_low:.{width}f}, {c.delta_high:.{width}f}]")
    return "\n".join(lines) + "\n"


def to_record(result: MultiComparison, sentences: Sequence[SentenceComparison] = ()
              ) -> dict[str, object]:
    """Every number of the comparison as JSON-ready values (full precision)."""
    record = asdict(result)
    record["procedure"] = describe(result)
    record["note"] = resolution_note(result) or None
    if sentences:
        record["sentences"] = [asdict(s) for s in sentences]
    return record


def json_text(record: object) -> str:
    """``record`` as indented JSON, with every invisible character of a name as its
    ``\\uXXXX`` escape (JSON gives the name back exactly; a terminal shows no bidi
    override, and a lone surrogate of an undecodable file name still encodes as UTF-8)."""
    text = json.dumps(record, indent=2, ensure_ascii=False) + "\n"
    # outside strings JSON has only ASCII: every such character is inside a string
    return _INVISIBLE.sub(lambda m: f"\\u{ord(m.group()):04x}"
                          if m.group() != "\n" else "\n", text)


def to_json(result: MultiComparison, sentences: Sequence[SentenceComparison] = ()) -> str:
    return json_text(to_record(result, sentences))


_LATEX_SPECIALS = {
    "\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#",
    "_": r"\_", "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}",
}


def latex_escape(text: str) -> str:
    """``text`` safe in a LaTeX table: its special characters escaped, invisible and
    control characters as ``[U+XXXX]``."""
    return "".join(_LATEX_SPECIALS.get(ch, ch) for ch in shown(text, "[", "]"))


def to_latex(result: MultiComparison, width: int = 1, caption: Optional[str] = None,
             label: str = "tab:significance") -> str:
    """A booktabs table: rank, system, score with its 95% CI, one block per cluster."""
    caption = caption or (f"{latex_escape(result.metric)} with 95\\% bootstrap confidence "
                          f"intervals. {latex_escape(describe(result))}")
    lines = [r"\begin{table}[t]", r"\centering", r"\begin{tabular}{rlr}", r"\toprule",
             f"Rank & System & {latex_escape(result.metric)} \\\\", r"\midrule"]
    previous = None
    for s in result.systems:
        if previous is not None and s.cluster != previous:
            lines.append(r"\midrule")
        previous = s.cluster
        lines.append(f"{s.rank} & {latex_escape(s.name)} & "
                     f"{s.score:.{width}f} {{\\small $\\pm$ {s.ci:.{width}f}}} \\\\")
    lines += [r"\bottomrule", r"\end{tabular}", f"\\caption{{{caption}}}",
              f"\\label{{{label}}}", r"\end{table}"]
    return "\n".join(lines) + "\n"


def _tsv_cell(value: object) -> str:
    """A number in full precision, a name with its control characters (tabs, line
    breaks) as visible marks: one row per line, whatever the names."""
    return repr(value) if isinstance(value, float) else shown(str(value))


def to_tsv(result: MultiComparison) -> str:
    lines = ["\t".join(("rank", "cluster", "system", "score", "mean", "ci"))]
    for s in result.systems:
        lines.append("\t".join(_tsv_cell(v) for v in (s.rank, s.cluster, s.name, s.score,
                                                      s.mean, s.ci)))
    lines += ["", "\t".join(("system_a", "system_b", "score_a", "score_b", "delta",
                             "p_value", "p_adjusted", "significant"))]
    for p in result.pairs:
        lines.append("\t".join(_tsv_cell(v) for v in (p.a, p.b, p.score_a, p.score_b, p.delta,
                                                      p.p_value, p.p_adjusted,
                                                      "yes" if p.significant else "no")))
    return "\n".join(lines) + "\n"


def render(result: MultiComparison, fmt: str = "text", width: int = 2,
           sentences: Sequence[SentenceComparison] = ()) -> str:
    """The report in ``fmt`` (one of :data:`FORMATS`)."""
    if fmt == "text":
        return to_text(result, width, sentences)
    if fmt == "json":
        return to_json(result, sentences)
    if fmt == "latex":
        return to_latex(result, width)
    if fmt == "tsv":
        return to_tsv(result)
    raise ValueError(f"unknown format {fmt!r}; choose one of: {', '.join(FORMATS)}")
