"""TER's alignments for the page: the edits TER counted, segment by segment.

For every system and segment, the exact search TER ran (C core or Python
specification alike, :meth:`truebleu.metrics.TER.corpus_alignments`) gives the
shifts and the edit path against the best reference. The search runs once: the
report's TER statistics are read from the same results (:class:`AligningTER`),
and the page's compact form is written straight from the kernel's compact record,
with no Python object per edit (what :class:`~truebleu.metrics.ter.alignment.TERAlignment`
holds, the form :meth:`truebleu.metrics.TER.alignments` gives, decodes to the same
values; tests/viewer/test_viewer_compact.py checks it). The compact form:

- ``references``: per reference stream, each segment's words as TER compared them
  (tokenized as TER tokenizes references), joined by single spaces;
- per system ``hyp`` (the hypothesis's TER words, joined), ``ref`` (the index of the
  reference chosen, into ``references``), ``ops`` (the edit path, one letter a step:
  ``m`` match, ``s`` substitute, ``d`` delete: a hypothesis word without a reference
  word, ``i`` insert: a reference word without a hypothesis word), ``order`` (the
  positions, in the hypothesis as written, of the words the path walks through, that
  is the hypothesis after its shifts) and ``shifts`` (each moved block as
  ``[positions as written, start, to]``, in the order the search moved them).

A segment without any reference has ``null`` in each of these.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping, Optional, Sequence

if TYPE_CHECKING:
    from numpy.typing import NDArray

    from ..metrics.ter.kernels import RawAlignment

__all__ = ["OPERATION_LETTERS", "AligningTER", "ter_alignment_payload"]

OPERATION_LETTERS = {"match": "m", "substitute": "s", "delete": "d", "insert": "i"}


def _step_letters() -> dict[int, str]:
    """The kernels' step codes (:mod:`truebleu.metrics.ter.spec`) to the page's letters."""
    from ..metrics.ter.alignment import OPERATIONS

    return str.maketrans({step: OPERATION_LETTERS[operation]
                          for step, operation in OPERATIONS.items()})


class AligningTER:
    """A TER metric's batch scorer that keeps what its search did.

    :func:`truebleu.significance.compare_metrics` asks it for each system's statistics;
    it runs :meth:`~truebleu.metrics.TER.corpus_alignments` instead of the statistics
    kernel (the same search: each alignment's ``(edits, ref_length)`` is the row) and
    keeps the alignments for the page. Scores are the metric's own batch scorer's.
    """

    def __init__(self, metric: Any) -> None:
        self.metric = metric
        self._scorer = metric.batch_scorer()
        self.name: str = self._scorer.name
        self.higher_is_better: bool = bool(metric.higher_is_better)
        self._found: dict[int, tuple[Sequence[str], list[RawAlignment]]] = {}

    def statistics(self, hypotheses: Sequence[str]) -> NDArray[Any]:
        from ..core.lazy_numpy import numpy

        np = numpy()
        found = self.metric.corpus_alignments(hypotheses)
        self._found[id(hypotheses)] = (hypotheses, found)  # the list kept: its id stays its own
        rows: NDArray[Any] = np.array([(raw.edits, raw.ref_length) for raw in found],
                                      dtype=np.float64).reshape(len(found), 2)
        return rows

    def score_rows(self, sums: Any) -> NDArray[Any]:
        scores: NDArray[Any] = self._scorer.score_rows(sums)
        return scores

    def alignments(self, hypotheses: Sequence[str]) -> list[RawAlignment]:
        """The search's record of ``hypotheses`` (those :meth:`statistics` scored, or anew)."""
        kept = self._found.get(id(hypotheses))
        if kept is not None and kept[0] is hypotheses:
            return kept[1]
        found: list[RawAlignment] = self.metric.corpus_alignments(hypotheses)
        return found


def ter_alignment_payload(scorer: AligningTER, systems: Mapping[str, Sequence[str]],
                          references: Sequence[Sequence[Optional[str]]]) -> dict[str, Any]:
    """The alignments of every system's segments under ``scorer``'s TER metric.

    ``references`` are the report's streams, those the metric holds: an alignment's
    reference (its place among the segment's references) is turned into the stream's
    index.
    """
    from ..metrics.ter.kernels import ter_reference, ter_tokens

    metric = scorer.metric
    n = len(references[0])
    present = [[k for k, stream in enumerate(references) if stream[i] is not None]
               for i in range(n)]
    words: list[list[Optional[str]]] = [
        [None if line is None else ter_reference(line, metric.tokenizer) for line in stream]
        for stream in references]
    letters = _step_letters()
    out = []
    for hyps in systems.values():
        found = scorer.alignments(hyps)
        entry: dict[str, list[Any]] = {"hyp": [], "ref": [], "ops": [], "order": [],
                                       "shifts": []}
        for i, (hyp, raw) in enumerate(zip(hyps, found)):
            if not present[i]:
                for column in entry.values():
                    column.append(None)
                continue
            tokens = ter_tokens(hyp, metric.tokenizer)
            order, shifts = _shifts(len(tokens), raw.shifts)
            entry["hyp"].append(" ".join(tokens))
            entry["ref"].append(present[i][raw.reference])
            entry["ops"].append(raw.steps.translate(letters))
            entry["order"].append(order)
            entry["shifts"].append(shifts)
        out.append(entry)
    return {"references": words, "systems": out}


def _shifts(n_words: int, moves: Sequence[tuple[int, int, int]]
            ) -> tuple[list[int], list[list[Any]]]:
    """(the hypothesis's positions after the moves, each move as the page draws it)."""
    from ..metrics.ter.spec import shifted, shifted_to

    origin = list(range(n_words))
    shifts: list[list[Any]] = []
    for start, length, target in moves:
        shifts.append([origin[start:start + length], start, shifted_to(start, length, target)])
        origin = shifted(origin, start, length, target)
    return origin, shifts
