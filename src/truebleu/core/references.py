"""Reference streams: checking them and turning them into per-segment lists.

sacreBLEU takes references as *streams*: ``references[k][i]`` is reference
``k`` of segment ``i``, ``None`` where a segment has fewer references.
Scoring needs them per segment. Streams of unequal length, and segments
without any reference, are errors (sacreBLEU silently cuts the first and
crashes on the second).
"""

from __future__ import annotations

from collections.abc import Sequence

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: importing typing costs about 16 M instructions
if TYPE_CHECKING:
    from typing import Any

#: sacreBLEU's reference streams: ``references[k][i]`` is reference ``k`` of segment ``i``
ReferenceStreams = Sequence[Sequence[str | None]]
#: the references of one hypothesis: one string, or a sequence of strings and ``None``
HypothesisReferences = str | Sequence[str | None]


def check_str_sequence(value: object, what: str) -> None:
    if isinstance(value, (str, bytes)) or not isinstance(value, Sequence):
        raise TypeError(f"{what} must be a sequence of strings, got {type(value).__name__}")


def check_strings(values: Sequence[object], what: str) -> None:
    """TypeError naming the first element of ``values`` that is not a string."""
    for i, value in enumerate(values):
        if not isinstance(value, str):
            raise TypeError(f"{what}[{i}] must be a string, got {type(value).__name__}")


def check_hypotheses(hypotheses: Sequence[str], what: str = "hypotheses") -> list[str]:
    """``hypotheses`` as a list of str, or a TypeError naming the first that is not one."""
    check_str_sequence(hypotheses, what)
    lines = list(hypotheses)
    check_strings(lines, what)
    return lines


def reference_segments(references: ReferenceStreams) -> tuple[list[list[str]], int]:
    """Transpose reference streams into per-segment lists, dropping ``None``.

    Returns the segments and the number of references (-1 when it varies from
    segment to segment, shown as ``nrefs:var``).
    """
    check_reference_streams(references)
    segments: list[list[str]] = []
    counts: set[int] = set()
    for i, refs in enumerate(zip(*references)):
        present = []
        for k, ref in enumerate(refs):
            if ref is None:
                continue
            if not isinstance(ref, str):
                raise TypeError(f"references[{k}][{i}] must be a string or None, "
                                f"got {type(ref).__name__}")
            present.append(ref)
        counts.add(len(present))
        segments.append(present)
    num_refs = counts.pop() if len(counts) == 1 else -1
    return segments, num_refs


def check_reference_streams(references: ReferenceStreams,
                            every_segment: bool = True) -> None:
    """The checks that need no pass over every string (the backends do the rest).

    ``every_segment=False`` leaves out the scan for segments without any
    reference, for a caller whose backend reports those itself.
    """
    check_str_sequence(references, "references")
    if len(references) == 0:
        raise ValueError("references: at least one reference stream is needed")
    for k, stream in enumerate(references):
        check_str_sequence(stream, f"references[{k}]")
    lengths = {len(stream) for stream in references}
    if len(lengths) > 1:
        raise ValueError(
            "reference streams differ in length: "
            + ", ".join(f"references[{k}] has {len(s)}" for k, s in enumerate(references)))
    if every_segment and any(None in stream for stream in references):
        for i, refs in enumerate(zip(*references)):
            if all(ref is None for ref in refs):
                raise ValueError(f"segment {i} has no reference (every reference is None)")


def check_references_per_hypothesis(references_per_hyp: Sequence[Any], n_hypotheses: int) -> None:
    """The batch layout: ``references_per_hyp[i]`` is a str or a sequence of str/None
    (:data:`HypothesisReferences`; anything else is what this function reports).

    Raises where :func:`truebleu.sentence_bleu` raises: a hypothesis without a
    reference (an empty list, or only ``None``) is an error, not a score of 0.
    """
    check_str_sequence(references_per_hyp, "references_per_hyp")
    if len(references_per_hyp) != n_hypotheses:
        raise ValueError(f"{n_hypotheses} hypotheses but {len(references_per_hyp)} reference lists")
    suspects: Sequence[int]
    try:  # one quick pass; only what may be wrong is looked at closely
        suspects = [i for i, refs in enumerate(references_per_hyp)
                    if not refs or refs[0] is None or type(refs) is bytes]
    except (TypeError, LookupError):
        suspects = range(len(references_per_hyp))
    for i in suspects:
        refs = references_per_hyp[i]
        if isinstance(refs, str):
            continue
        if isinstance(refs, bytes) or not isinstance(refs, Sequence):
            raise TypeError(f"references of hypothesis {i} must be a str or a sequence of str")
        if not refs or all(ref is None for ref in refs):
            raise ValueError(f"hypothesis {i} has no reference")


def references_of(refs: HypothesisReferences, index: int) -> list[str]:
    """The references of one hypothesis as a list (a str is one; ``None`` dropped, as sacreBLEU)."""
    if isinstance(refs, str):
        return [refs]
    lines = [ref for ref in refs if ref is not None]
    for ref in lines:
        if not isinstance(ref, str):
            raise TypeError(f"references of hypothesis {index} must be str, "
                            f"got {type(ref).__name__}")
    return lines
