"""chrF's kernels: text to statistics rows, in Python (the specification) or in the core.

Both kernels have the same two methods and give the same numbers:

``prepare(segments, config, threads=None)``
    ``segments[i]`` is the list of reference strings of segment ``i``
    (``None`` already removed); returns the references in the kernel's form.
``prepare_streams(streams, config, threads=None)``
    The same from sacreBLEU's reference streams (``streams[k][i]``: reference
    ``k`` of segment ``i``, or ``None``), already checked by
    :func:`~truebleu.core.references.check_reference_streams`; returns
    ``(segments, references per segment or -1 when it varies, prepared)``.
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
from ...core.references import check_strings, reference_segments
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

    def prepare_streams(self, streams, config, threads=None):
        segments, num_refs = reference_segments(streams)
        return len(segments), num_refs, self.prepare(segments, config, threads)

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
    """References for the core, (lowercased) strings as given: per segment the list of its
    references, or (``streams``) sacreBLEU's reference streams, ``None`` for a missing one,
    which the core reads in place (no per-segment lists made in Python)."""

    __slots__ = ("references", "lowercase", "streams", "n_segments")

    def __init__(self, references: list, lowercase: bool, streams: bool = False) -> None:
        self.references = references
        self.lowercase = lowercase
        self.streams = streams
        self.n_segments = len(references[0]) if streams else len(references)

    def __len__(self) -> int:
        return self.n_segments


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

    def prepare_streams(self, streams, config, threads=None):
        streams = [stream if isinstance(stream, (list, tuple)) else list(stream)
                   for stream in streams]
        if any(None in stream for stream in streams):  # references per segment vary
            counts = {sum(ref is not None for ref in refs) for refs in zip(*streams)}
            num_refs = counts.pop() if len(counts) == 1 else -1
        else:
            num_refs = len(streams)
        if config.lowercase:
            try:
                streams = [[None if ref is None else ref.lower() for ref in stream]
                           for stream in streams]
            except AttributeError:
                reference_segments(streams)  # says which one is not a string
                raise
        return len(streams[0]), num_refs, ChrfPrepared(streams, config.lowercase, streams=True)

    def statistics(self, hypotheses, prepared, config, threads=None, scores=None):
        """chrF rows; ``scores`` (an ``array('d')`` of one per hypothesis) gets each row's f-score."""
        if not isinstance(prepared, ChrfPrepared):
            raise TypeError("prepared must come from the native chrF kernel's prepare")
        if prepared.lowercase != config.lowercase:
            raise ValueError("references were prepared with another case setting")
        check_segment_count(hypotheses, len(prepared))
        if config.lowercase:
            check_strings(hypotheses, "hypotheses")
            hypotheses = [hyp.lower() for hyp in hypotheses]
        data = array("q", [0]) * (len(hypotheses) * config.width)
        factor = config.beta ** 2
        try:
            native_core().chrf_statistics(hypotheses, prepared.references, config.char_order,
                                          config.word_order, config.whitespace,
                                          config.eps_smoothing, float(factor), float(1 + factor),
                                          thread_count(threads), data, scores,
                                          streams=prepared.streams)
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
