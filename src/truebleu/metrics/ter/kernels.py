"""TER's kernels: tokenized text to ``[edits, reference length]`` rows.

Both kernels tokenize in Python (tercom's rules are regular expressions, and
the edit distance dominates); the native one computes the shifts and edit
distances in the core. Same methods, same numbers:

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
from typing import NamedTuple

from ...core.kernels import KernelLoader, native_core, thread_count
from ...core.references import check_strings
from ...core.statistics import RowTable
from ...tokenizers import Tokenizer
from . import spec


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


class RawAlignment(NamedTuple):
    """What TER's search did to one hypothesis, as both kernels give it (the core's
    ``ter_alignment``): :class:`~truebleu.metrics.ter.alignment.TERAlignment` reads it."""

    reference: int                             # the reference with the fewest edits (first on ties)
    edits: int                                 # the statistics row: edits ...
    ref_length: float                          # ... and the average reference length
    shifts: tuple[tuple[int, int, int], ...]   # (start, length, target), as spec.shifted
    steps: str                                 # the edit path: spec.MATCH, SUBSTITUTE, ...


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
        data = array("d")
        for hyp, refs in zip(hypotheses, prepared):
            data.extend(spec.segment_row(ter_tokens(hyp, tokenizer), refs))
        return RowTable(2, data)

    def alignments(self, hypotheses, prepared, tokenizer, threads=None) -> list[RawAlignment]:
        check_segment_count(hypotheses, len(prepared))
        check_strings(hypotheses, "hypotheses")
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
        """The tokenized references as strings (the core splits them on spaces)."""
        return [[ter_reference(ref, tokenizer) for ref in refs] for refs in segments]

    def statistics(self, hypotheses, prepared, tokenizer, threads=None):
        tokenized = self._tokenized(hypotheses, prepared, tokenizer)
        data = array("d", bytes(16 * len(hypotheses)))
        native_core().ter_statistics(tokenized, prepared, thread_count(threads), data)
        return RowTable(2, data)

    def alignments(self, hypotheses, prepared, tokenizer, threads=None) -> list[RawAlignment]:
        tokenized = self._tokenized(hypotheses, prepared, tokenizer)
        found = native_core().ter_alignment(tokenized, prepared, thread_count(threads))
        return [RawAlignment(*item) for item in found]

    @staticmethod
    def _tokenized(hypotheses, prepared, tokenizer) -> list[str]:
        """The hypotheses as the core reads them (tercom-tokenized, words split on spaces)."""
        check_segment_count(hypotheses, len(prepared))
        tokenized = []
        for i, hyp in enumerate(hypotheses):
            if not isinstance(hyp, str):
                raise TypeError(f"hypotheses[{i}] must be a string, got {type(hyp).__name__}")
            tokenized.append(tokenizer(hyp.rstrip()))
        return tokenized


#: TER's kernels, chosen by name (``backend=``, ``$TRUEBLEU_BACKEND``)
kernels = KernelLoader(PythonKernel, NativeKernel)
