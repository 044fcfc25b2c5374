"""chrF's kernels: text to statistics rows, in Python (the specification) or in the core.

Both kernels have the same two methods and give the same numbers:

``prepare(segments, config, threads=None)``
    ``segments[i]`` is the list of reference strings of segment ``i``
    (``None`` already removed); returns the references in the kernel's form.
``statistics(hypotheses, prepared, config, threads=None, scores=None)``
    A :class:`~truebleu.core.statistics.RowTable` of ``3 * (char_order +
    word_order)`` counts per hypothesis; ``scores`` (an ``array('d')``, one
    per hypothesis) gets each row's f-score.
``matrix(hypotheses, references, config, threads=None)``
    The f-score of every hypothesis against every reference alone, as an
    ``array('d')`` row by row (each line's n-grams counted once).
"""

from __future__ import annotations

from array import array

from ...core.kernels import KernelLoader, native_core, thread_count
from ...core.references import check_strings
from ...core.statistics import RowTable
from . import spec


def check_segment_count(hypotheses, n_segments: int) -> None:
    if len(hypotheses) != n_segments:
        raise ValueError(f"{len(hypotheses)} hypotheses but {n_segments} reference segments")


class PythonKernel:
    """chrF in plain Python (:mod:`.spec`)."""

    name = "python"

    def prepare(self, segments, config, threads=None):
        for i, refs in enumerate(segments):
            check_strings(refs, f"references of segment {i}")
        return spec.prepare_references(segments, config)

    def statistics(self, hypotheses, prepared, config, threads=None, scores=None):
        check_segment_count(hypotheses, len(prepared))
        check_strings(hypotheses, "hypotheses")
        table = RowTable(config.width)
        for row in spec.statistics_rows(hypotheses, prepared, config):
            table.data.extend(row)
        if scores is not None:
            if len(scores) != len(hypotheses):
                raise ValueError("scores must hold one float per hypothesis")
            for i, row in enumerate(table.rows()):
                scores[i] = spec.f_score(row, config.beta, config.eps_smoothing)
        return table

    def matrix(self, hypotheses, references, config, threads=None):
        return array("d", [score for row in spec.matrix_scores(hypotheses, references, config)
                           for score in row])


class ChrfPrepared:
    """References for the core: per segment, the list of (lowercased) reference strings."""

    __slots__ = ("segments", "lowercase")

    def __init__(self, segments: list, lowercase: bool) -> None:
        self.segments = segments
        self.lowercase = lowercase

    def __len__(self) -> int:
        return len(self.segments)


class NativeKernel:
    """chrF in the compiled core, which reads the (lowercased) strings directly."""

    name = "native"

    def __init__(self) -> None:
        native_core()  # ImportError here, where the core was not built

    def prepare(self, segments, config, threads=None):
        try:
            if config.lowercase:
                segments = [[ref.lower() for ref in refs] for refs in segments]
            else:
                segments = [list(refs) for refs in segments]
        except AttributeError:
            for i, refs in enumerate(segments):
                check_strings(refs, f"references of segment {i}")
            raise
        return ChrfPrepared(segments, config.lowercase)

    def statistics(self, hypotheses, prepared, config, threads=None, scores=None):
        """chrF rows; ``scores`` (an ``array('d')`` of one per hypothesis) gets each row's f-score."""
        if not isinstance(prepared, ChrfPrepared):
            raise TypeError("prepared must come from the native chrF kernel's prepare")
        if prepared.lowercase != config.lowercase:
            raise ValueError("references were prepared with another case setting")
        check_segment_count(hypotheses, len(prepared.segments))
        if config.lowercase:
            check_strings(hypotheses, "hypotheses")
            hypotheses = [hyp.lower() for hyp in hypotheses]
        data = array("q", [0]) * (len(hypotheses) * config.width)
        factor = config.beta ** 2
        try:
            native_core().chrf_statistics(hypotheses, prepared.segments, config.char_order,
                                      config.word_order, config.whitespace, config.eps_smoothing,
                                      float(factor), float(1 + factor), thread_count(threads),
                                      data, scores)
        except TypeError:
            check_strings(hypotheses, "hypotheses")  # say which one, when one is not a string
            raise
        return RowTable(config.width, data)

    def matrix(self, hypotheses, references, config, threads=None):
        same = hypotheses is references  # MBR: the core makes one profile per line
        if config.lowercase:
            hypotheses = [hyp.lower() for hyp in hypotheses]
            references = hypotheses if same else [ref.lower() for ref in references]
        out = array("d", bytes(8 * len(hypotheses) * len(references)))
        factor = config.beta ** 2
        native_core().chrf_matrix(hypotheses, references, config.char_order, config.word_order,
                                  config.whitespace, config.eps_smoothing, float(factor),
                                  float(1 + factor), thread_count(threads), out)
        return out


#: chrF's kernels, chosen by name (``backend=``, ``$TRUEBLEU_BACKEND``)
kernels = KernelLoader(PythonKernel, NativeKernel)
