"""TER's kernels: tokenized text to ``[edits, reference length]`` rows.

The Python kernel tokenizes with the specification's tokenizer
(:mod:`truebleu.tokenizers.tokenizer_ter`); the native one tokenizes in the core
(its twin in C, ``ter_tokenize``: references once when prepared, hypotheses
inside the job, with no Python string per hypothesis) and computes the shifts
and edit distances there. Same methods, same numbers:

``prepare(segments, tokenizer)``
    ``segments[i]`` is the list of reference strings of segment ``i`` (``None``
    already removed), tokenized as sacreBLEU's TER does (twice: see
    :func:`ter_reference`).
``statistics(hypotheses, prepared, tokenizer, threads=None)``
    A float64 :class:`~truebleu.core.statistics.RowTable` of
    ``[edits, reference length]`` rows.
``alignments(hypotheses, prepared, tokenizer, threads=None)``
    What the search did to each hypothesis, one :class:`RawAlignment` each (the
    statistics' row, the best reference, its shifts and edit path), from the same
    search as the statistics.
"""

from __future__ import annotations

from array import array
from itertools import islice

from ...core.kernels import KernelLoader, native_core, thread_count
from ...core.references import check_strings
from ...core.statistics import RowTable
from ...tokenizers import Tokenizer


def ter_tokens(line: str, tokenizer: Tokenizer) -> list[str]:
    """sacreBLEU's TER preprocessing: strip trailing whitespace, tokenize, split."""
    return tokenizer(line.rstrip()).split()


def ter_reference(line: str, tokenizer: Tokenizer) -> str:
    """A reference as sacreBLEU's TER sees it: tokenized *twice*.

    sacreBLEU's ``Metric._cache_references`` preprocesses each reference and
    ``TER._extract_reference_info`` preprocesses the result again. With
    ``normalized`` the second pass can change tokens (``it's,`` becomes
    ``it's ,`` in the first pass, ``it 's ,`` in the second); hypotheses are
    tokenized once.
    """
    return tokenizer(tokenizer(line.rstrip()).rstrip())


TYPE_CHECKING = False  # not typing.TYPE_CHECKING: importing typing costs about 16 M instructions
if TYPE_CHECKING:
    from typing import NamedTuple

    class RawAlignment(NamedTuple):
        """What TER's search did to one hypothesis, as both kernels give it (the core's
        ``ter_alignment``): :class:`~truebleu.metrics.ter.alignment.TERAlignment` reads it."""

        reference: int                           # the reference with the fewest edits (first on ties)
        edits: int                               # the statistics row: edits ...
        ref_length: float                        # ... and the average reference length
        shifts: tuple[tuple[int, int, int], ...]  # (start, length, target), as spec.shifted
        steps: str                               # the edit path: spec.MATCH, SUBSTITUTE, ...
else:
    # The same tuple at run time, without typing (the scoring command never reads the types).
    from collections import namedtuple

    RawAlignment = namedtuple("RawAlignment", ["reference", "edits", "ref_length", "shifts", "steps"])


def check_segment_count(hypotheses, n_segments: int) -> None:
    if len(hypotheses) != n_segments:
        raise ValueError(f"{len(hypotheses)} hypotheses but {n_segments} reference segments")


class PythonKernel:
    """TER in plain Python (:mod:`.spec`)."""

    name = "python"

    def prepare(self, segments, tokenizer):
        return [[ter_reference(ref, tokenizer).split() for ref in refs] for refs in segments]

    def statistics(self, hypotheses, prepared, tokenizer, threads=None):
        check_segment_count(hypotheses, len(prepared))
        check_strings(hypotheses, "hypotheses")
        from . import spec  # (the specification: only this kernel runs it)

        data = array("d")
        for hyp, refs in zip(hypotheses, prepared):
            data.extend(spec.segment_row(ter_tokens(hyp, tokenizer), refs))
        return RowTable(2, data)

    def alignments(self, hypotheses, prepared, tokenizer, threads=None) -> list[RawAlignment]:
        check_segment_count(hypotheses, len(prepared))
        check_strings(hypotheses, "hypotheses")
        from . import spec

        found = []
        for hyp, refs in zip(hypotheses, prepared):
            reference, search, length = spec.best_reference(ter_tokens(hyp, tokenizer), refs)
            found.append(RawAlignment(reference, search.edits, length, tuple(search.shifts),
                                      "".join(search.steps)))
        return found


class NativeKernel:
    """TER's edit distances and shifts in the compiled core."""

    name = "native"

    def __init__(self) -> None:
        native_core()  # ImportError here, where the core was not built

    def prepare(self, segments, tokenizer):
        """The references as :func:`ter_reference` tokenizes them, as strings (the core
        splits them on spaces), tokenized by the core in one call."""
        flat = [ref for refs in segments for ref in refs]
        check_strings(flat, "references")
        tokens = iter(native_core().ter_tokenize(flat, **tokenizer.options(), reference=True))
        return [list(islice(tokens, len(refs))) for refs in segments]

    def statistics(self, hypotheses, prepared, tokenizer, threads=None):
        check_segment_count(hypotheses, len(prepared))
        data = array("d", bytes(16 * len(hypotheses)))
        native_core().ter_statistics(hypotheses, prepared, thread_count(threads), data,
                                     tokenize=True, **tokenizer.options())
        return RowTable(2, data)

    def alignments(self, hypotheses, prepared, tokenizer, threads=None) -> list[RawAlignment]:
        check_segment_count(hypotheses, len(prepared))
        found = native_core().ter_alignment(hypotheses, prepared, thread_count(threads),
                                            tokenize=True, **tokenizer.options())
        return [RawAlignment(*item) for item in found]


#: TER's kernels, chosen by name (``backend=``, ``$TRUEBLEU_BACKEND``)
kernels = KernelLoader(PythonKernel, NativeKernel)
