"""TER's alignment: the edits TER counts for one hypothesis, as its search found them.

TER is not an edit distance one can recompute from the two sentences: the greedy
shift search decides which blocks move, and the beam and tie rules decide the
edit path. So the alignment is not rebuilt afterwards; both kernels return what
their search did (:class:`~truebleu.metrics.ter.kernels.RawAlignment`: the shifts
applied, in order, and the edit path of the shifted hypothesis against the
reference with the fewest edits), and :func:`read_alignment` turns that into
words and positions.

The edits are named as edits *of the hypothesis* (Snover et al., 2006): applying
the shifts, then the edits in order, turns the hypothesis into the reference:

* ``match``: the hypothesis word is the reference word;
* ``substitute``: the hypothesis word is replaced by the reference word;
* ``delete``: the hypothesis word has no counterpart in the reference;
* ``insert``: the reference word has no counterpart in the hypothesis.

Every shift and every edit other than a match costs one:
:attr:`TERAlignment.num_edits` is the statistics' number of edits, and
:attr:`TERAlignment.ref_length` their (average) reference length.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Literal, Optional, Sequence

from . import spec
from .kernels import RawAlignment

Operation = Literal["match", "substitute", "insert", "delete"]

#: the operation of each step of the search's edit path
OPERATIONS: dict[str, Operation] = {spec.MATCH: "match", spec.SUBSTITUTE: "substitute",
                                    spec.HYP_ONLY: "delete", spec.REF_ONLY: "insert"}


@dataclass(frozen=True)
class Shift:
    """One block of words the search moved (one edit), in the order it moved them.

    ``start`` and ``to`` are positions in the hypothesis as the shifts before this
    one left it: the block's first word is at ``start`` before the shift and at
    ``to`` after it. ``origin`` holds the positions of the moved words in the
    hypothesis as written, whatever shifts came before.
    """

    words: tuple[str, ...]
    start: int
    to: int
    origin: tuple[int, ...]


@dataclass(frozen=True)
class Edit:
    """One step of the edit path from the shifted hypothesis to the reference.

    A position is an index in the hypothesis as written (``hypothesis_position``)
    or in the reference; the word and position of the side a step does not
    touch are ``None`` (no reference word for a deletion, no hypothesis word for
    an insertion).
    """

    operation: Operation
    hypothesis_word: Optional[str]
    reference_word: Optional[str]
    hypothesis_position: Optional[int]
    reference_position: Optional[int]


@dataclass(frozen=True)
class TERAlignment:
    """The edits TER counts for one hypothesis against its best reference.

    ``hypothesis`` and ``reference`` are the words as TER compares them
    (tercom-tokenized, lowercased unless case-sensitive); ``reference_index`` is
    the reference's place among those given (the first with the fewest edits);
    ``shifted_hypothesis`` is the hypothesis after every shift, the words the
    ``edits`` walk through in order. ``ref_length`` is the statistics' reference
    length: the *average* length of all the references given, as TER divides by it.
    """

    hypothesis: tuple[str, ...]
    reference: tuple[str, ...]
    reference_index: int
    shifts: tuple[Shift, ...]
    shifted_hypothesis: tuple[str, ...]
    edits: tuple[Edit, ...]
    ref_length: float

    def count(self, operation: Operation) -> int:
        """How many edits of one kind (``"match"`` counts the words kept)."""
        return sum(edit.operation == operation for edit in self.edits)

    @property
    def num_edits(self) -> int:
        """TER's edits: the shifts, insertions, deletions and substitutions."""
        return len(self.shifts) + sum(edit.operation != "match" for edit in self.edits)

    def to_dict(self) -> dict[str, Any]:
        """Plain values (dicts, tuples, str, int, float, None), as ``json.dumps`` writes them."""
        return {**asdict(self), "num_edits": self.num_edits}


def read_alignment(hypothesis: Sequence[str], reference: Sequence[str],
                   raw: RawAlignment) -> TERAlignment:
    """The alignment of ``raw`` (a kernel's) for these words: ``hypothesis`` as TER
    tokenized it and ``reference``, the words of the reference ``raw`` chose."""
    words = list(hypothesis)
    origin = list(range(len(words)))
    shifts = []
    for start, length, target in raw.shifts:
        shifts.append(Shift(tuple(words[start:start + length]), start,
                            spec.shifted_to(start, length, target),
                            tuple(origin[start:start + length])))
        words = spec.shifted(words, start, length, target)
        origin = spec.shifted(origin, start, length, target)
    edits = []
    h = r = 0  # the next word of the shifted hypothesis, of the reference
    for step in raw.steps:
        operation = OPERATIONS[step]
        takes_hyp, takes_ref = operation != "insert", operation != "delete"
        if (takes_hyp and h >= len(words)) or (takes_ref and r >= len(reference)):
            raise ValueError("the edit path is longer than the words it aligns")
        edits.append(Edit(operation,
                          words[h] if takes_hyp else None, reference[r] if takes_ref else None,
                          origin[h] if takes_hyp else None, r if takes_ref else None))
        h += takes_hyp
        r += takes_ref
    if (h, r) != (len(words), len(reference)):
        raise ValueError("the edit path does not cover both sentences")
    alignment = TERAlignment(tuple(hypothesis), tuple(reference), raw.reference, tuple(shifts),
                             tuple(words), tuple(edits), raw.ref_length)
    if alignment.num_edits != raw.edits:
        raise ValueError(f"the alignment has {alignment.num_edits} edits, the search counted "
                         f"{raw.edits}")
    return alignment
