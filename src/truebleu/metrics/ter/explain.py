"""TER, shown step by step for one hypothesis: the edits it counts.

The edits are those of TER's own search (:meth:`TER.sentence_alignment`), against
the reference with the fewest edits: the blocks of words the search shifted, in
order, with where each moved; then the shifted hypothesis aligned word by word
with the reference, each column marked as an insertion (``I``), a deletion
(``D``), a substitution (``S``) or a match (no mark); then the count and the score,
``edits / average reference length``.

TER has no sentence-level settings of its own: one sentence is scored with the
corpus defaults (``sacrebleu.sentence_ter``'s), and the signature names them.
"""

from __future__ import annotations

import unicodedata
from dataclasses import asdict, dataclass
from typing import Any, Sequence

from ..explanation import SentenceExplanation, check_sentence
from .alignment import Edit, TERAlignment
from .metric import TER, score_from_totals

#: the width of the aligned rows before they wrap
WRAP = 100
#: the mark of each operation under the aligned words
MARKS = {"match": "", "substitute": "S", "insert": "I", "delete": "D"}
GAP = "*"  # the missing word of an insertion or a deletion


@dataclass
class TERExplanation(SentenceExplanation):
    hypothesis: str
    references: list[str]
    reference_edits: list[int]   # the edits against each reference alone
    alignment: TERAlignment      # against the reference with the fewest (the first on ties)
    num_edits: int
    ref_length: float            # the average length of the references
    score: float
    signature: str

    @property
    def title(self) -> str:
        """The metric's name, heading its part when several metrics are explained."""
        return "TER"

    def to_dict(self) -> dict[str, Any]:
        """Plain values, as ``json.dumps`` writes them; ``metric`` names the metric."""
        return {"metric": "ter", **asdict(self), "alignment": self.alignment.to_dict()}

    def body_lines(self) -> list[str]:
        """Everything but the sentences: settings, shifts, the aligned words, the score."""
        a = self.alignment
        best = a.reference_index + 1
        out = [f"Settings:    {self.signature}"]
        if len(self.references) > 1:
            edits = ", ".join(f"{k}: {e}" for k, e in enumerate(self.reference_edits, 1))
            out.append(f"Best reference: {best} (the fewest edits; per reference {edits}); "
                       f"the edits below are against it")
        out += ["", "The words as TER compares them:",
                f"  hypothesis  ({len(a.hypothesis)}): {' '.join(a.hypothesis)}".rstrip(),
                f"  reference {best} ({len(a.reference)}): {' '.join(a.reference)}".rstrip(), ""]
        if a.shifts:
            out.append("Shifts (one edit each), in the order the search made them:")
            words = list(a.hypothesis)
            for k, shift in enumerate(a.shifts, 1):
                rest = words[:shift.start] + words[shift.start + len(shift.words):]
                words = rest[:shift.to] + list(shift.words) + rest[shift.to:]
                which = "word" if len(shift.origin) == 1 else "words"
                out.append(f"  {k}. \"{' '.join(shift.words)}\" (hypothesis {which} "
                           f"{_positions(shift.origin)}) moved from position {shift.start + 1} "
                           f"to {shift.to + 1}:")
                moved = [*rest[:shift.to], f"[{' '.join(shift.words)}]", *rest[shift.to:]]
                out.append(f"     {' '.join(moved)}")
        else:
            out.append("Shifts: none")
        out += ["", f"The {'shifted ' if a.shifts else ''}hypothesis aligned with reference {best}:"]
        out += _aligned_rows(a.edits)
        out.append(f"  (I: a reference word inserted; D: a hypothesis word deleted; "
                   f"S: substituted; {GAP}: no word)")
        out.append("")
        counts = [(len(a.shifts), "shift"), (a.count("insert"), "insertion"),
                  (a.count("delete"), "deletion"), (a.count("substitute"), "substitution")]
        out.append("Edits: " + " + ".join(f"{n} {name}{'' if n == 1 else 's'}" for n, name in counts)
                   + f" = {self.num_edits}")
        out.append(_score_line(self.num_edits, self.ref_length, self.score, len(self.references)))
        return out


def _positions(origin: Sequence[int]) -> str:
    """1-based positions, runs written as ranges: ``3-5``, ``2, 7``."""
    runs: list[list[int]] = []
    for position in origin:
        if runs and position == runs[-1][-1] + 1:
            runs[-1].append(position)
        else:
            runs.append([position])
    return ", ".join(f"{run[0] + 1}" if len(run) == 1 else f"{run[0] + 1}-{run[-1] + 1}"
                     for run in runs)


def _width(text: str) -> int:
    """Columns ``text`` takes in a terminal: wide (CJK) characters two, combining marks none."""
    return sum(0 if unicodedata.combining(c) else 2 if unicodedata.east_asian_width(c) in "WF" else 1
               for c in text)


def _pad(text: str, width: int) -> str:
    return text + " " * (width - _width(text))


def _aligned_rows(edits: Sequence[Edit]) -> list[str]:
    """``HYP:``/``REF:`` rows and the marks under them, one column per edit (as wide as
    its wider word), wrapped at :data:`WRAP` columns."""
    columns = []  # (hypothesis word, reference word, mark) of each edit
    for edit in edits:
        columns.append((GAP if edit.hypothesis_word is None else edit.hypothesis_word,
                        GAP if edit.reference_word is None else edit.reference_word,
                        MARKS[edit.operation]))
    if not columns:
        return ["  (both sides are empty)"]
    widths = [max(_width(hyp), _width(ref)) for hyp, ref, _ in columns]
    rows: list[str] = []
    start = 0
    while start < len(columns):
        end, used = start + 1, len("  HYP: ") + widths[start]
        while end < len(columns) and used + 1 + widths[end] <= WRAP:
            used += 1 + widths[end]
            end += 1
        if rows:
            rows.append("")
        for label, side in (("HYP: ", 0), ("REF: ", 1), ("     ", 2)):
            cells = [_pad(columns[k][side], widths[k]) for k in range(start, end)]
            rows.append(f"  {label}{' '.join(cells)}".rstrip())
        start = end
    return rows


def _score_line(edits: int, length: float, score: float, n_refs: int) -> str:
    average = f" (the average of {n_refs} references)" if n_refs > 1 else ""
    if length > 0:
        return (f"TER = 100 * edits / reference length = 100 * {edits} / {length:g}{average} "
                f"= {score:.2f}")
    return (f"TER = {score:.2f}: the reference is empty, so TER is 100 with any edit and 0 "
            f"without")


def explain(hypothesis: str, references: Sequence[str], *, normalized: bool = False,
            no_punct: bool = False, asian_support: bool = False,
            case_sensitive: bool = False) -> TERExplanation:
    """Every edit behind the TER of ``hypothesis`` against ``references`` (sacreBLEU's
    ``TER`` settings)."""
    check_sentence(hypothesis, references)
    metric = TER(normalized, no_punct, asian_support, case_sensitive)
    alignment = metric.sentence_alignment(hypothesis, references)
    alone = metric.alignments([hypothesis] * len(references), list(references))
    metric.sentence_score(hypothesis, list(references))  # the signature's nrefs
    score = score_from_totals(alignment.num_edits, alignment.ref_length)
    return TERExplanation(hypothesis, list(references), [a.num_edits for a in alone], alignment,
                          alignment.num_edits, alignment.ref_length, score.score,
                          metric.get_signature().format())
