"""TER's alignments for the page: the edits TER counted, segment by segment.

For every system and segment, :meth:`truebleu.metrics.TER.alignments` (the exact
search TER ran, C core or Python specification alike) gives the shifts and the
edit path against the best reference. The page draws them from a compact form:

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
    from ..metrics.ter.alignment import TERAlignment

__all__ = ["OPERATION_LETTERS", "ter_alignment_payload"]

OPERATION_LETTERS = {"match": "m", "substitute": "s", "delete": "d", "insert": "i"}


def ter_alignment_payload(metric: Any, systems: Mapping[str, Sequence[str]],
                          references: Sequence[Sequence[Optional[str]]]) -> dict[str, Any]:
    """The alignments of every system's segments under ``metric`` (a TER object)."""
    from ..metrics.ter.kernels import ter_reference

    n = len(references[0])
    present = [[k for k, stream in enumerate(references) if stream[i] is not None]
               for i in range(n)]
    scored = [i for i in range(n) if present[i]]
    segment_refs = [[str(references[k][i]) for k in present[i]] for i in scored]
    words: list[list[Optional[str]]] = [
        [None if line is None else ter_reference(line, metric.tokenizer) for line in stream]
        for stream in references]
    out = []
    for hyps in systems.values():
        found = metric.alignments([hyps[i] for i in scored], segment_refs)
        entry: dict[str, list[Any]] = {key: [None] * n
                                       for key in ("hyp", "ref", "ops", "order", "shifts")}
        for i, alignment in zip(scored, found):
            _fill(entry, i, alignment, present[i])
        out.append(entry)
    return {"references": words, "systems": out}


def _fill(entry: dict[str, list[Any]], i: int, alignment: TERAlignment,
          streams: list[int]) -> None:
    entry["hyp"][i] = " ".join(alignment.hypothesis)
    entry["ref"][i] = streams[alignment.reference_index]
    entry["ops"][i] = "".join(OPERATION_LETTERS[e.operation] for e in alignment.edits)
    entry["order"][i] = [e.hypothesis_position for e in alignment.edits
                         if e.hypothesis_position is not None]
    entry["shifts"][i] = [[list(s.origin), s.start, s.to] for s in alignment.shifts]
