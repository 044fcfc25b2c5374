"""BLEU's kernels: text to statistics rows, in Python (the specification) or in the core.

Both kernels have the same methods and give the same numbers; a test runs
every method on both. ``tokenizer``, ``lowercase`` and ``max_order`` are the
configuration's (:class:`~truebleu.metrics.bleu.config.BLEUConfig`);
``threads`` is the native kernel's worker count (None: the available cores).

``prepare_references(segments, tokenizer, lowercase, max_order, threads=None)``
    ``segments[i]`` is the list of reference strings of segment ``i`` (missing
    references already removed). Returns an opaque object, reusable for any
    number of hypothesis sets (reference caching).
``prepare_reference_streams(streams, tokenizer, lowercase, max_order, threads=None)``
    The same from sacreBLEU's layout (``streams[k][i]``, ``None`` = missing);
    returns ``(prepared, number of segments, references per segment or -1)``.
``statistics(hypotheses, prepared, tokenizer, lowercase, max_order, threads=None)``
    One :class:`~truebleu.metrics.bleu.statistics.Statistics` row per hypothesis, in order.
``totals(hypotheses, prepared, tokenizer, lowercase, max_order, threads=None)``
    ``statistics`` summed: ``(column sums, tokenized_periods(hypotheses))``.
``stream_statistics`` / ``stream_totals(hypotheses, streams, ...)``
    The same against references used once (a cold ``corpus_bleu``):
    ``(statistics, references per segment)`` and ``(column sums, references
    per segment, tokenized periods)``; nothing is kept.
``sentence_statistics(hypotheses, references_per_hyp, tokenizer, lowercase, max_order, threads=None)``
    One row per hypothesis against its own references (a str or a list).
``sentence_scores(hypotheses, references_per_hyp, config, threads=None)``
    ``bleu_scores`` of ``sentence_statistics`` with the configuration's
    settings, an ``array('d')`` (the native kernel scores each row where it
    counts it and keeps no rows).
``ids_statistics(hypotheses, references, dropped, max_order, threads=None, totals_only=False)``
    BLEU on token ids without text: one row per hypothesis (a sequence of int
    ids) against ``references[i]`` (a list of such sequences), the ids of
    ``dropped`` (an ascending ``array("q")``) left out; with ``totals_only``
    the column sums. Each id is one token, so the rows are those of the ids'
    written form with ``tokenize="none"``. None when a sequence is not in a
    form the kernel reads (the caller scores the written form instead):
    both read lists and tuples of ints (exactly ``int``) that are in
    ``[0, 2**63)`` once the dropped ids are out; the native kernel also reads
    one-dimensional integer buffers (NumPy arrays).
``bleu_scores(statistics, config)``
    The sentence BLEU of every row, an ``array('d')``.
``pairwise_scores(a, b, config, threads=None)``
    The sentence BLEU of every ``a[i]`` against the single reference ``b[j]``,
    row-major, an ``array('d')`` of ``len(a) * len(b)`` (8 bytes per cell).
``tokens(lines, tokenizer, lowercase)``
    The tokens of each line exactly as the statistics count them (the viewer
    shows them).
``tokenized_periods(hypotheses)``
    How many lines end in ``" ."`` (``str.endswith`` on the line as given):
    sacreBLEU's sign of tokenized output, warned about from 100 lines on.
"""

from __future__ import annotations

from array import array

from ...core.kernels import KernelLoader
from ...core.references import (
    check_hypotheses,
    check_references_per_hypothesis,
    check_strings,
    reference_segments,
    references_of,
)
from .config import check_order
from .score import python_bleu_scores
from .statistics import Statistics

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: importing typing costs about 16 M instructions
if TYPE_CHECKING:
    from typing import Any, Sequence, TypeGuard


def distinct(lines: Sequence[str]) -> tuple[list[str], array]:
    """The distinct strings in first-seen order, and each line's position among them."""
    index: dict[str, int] = {}
    positions = array("q", [index.setdefault(line, len(index)) for line in lines])
    return list(index), positions


_INT_ONLY = frozenset({int})
_INT64_MAX = 2**63 - 1


def _is_list_or_tuple(value: object) -> TypeGuard[list[Any] | tuple[Any, ...]]:
    """A list or a tuple, not a subclass of either: the containers the core reads."""
    return type(value) is list or type(value) is tuple


def _kept_ids(sequences: Sequence[object], drop: frozenset[int]) -> list[list[int]] | None:
    """Each sequence without its dropped ids, if each is a list or tuple of ints, all in
    [0, 2**63) once those are out; else None."""
    kept_all = []
    for seq in sequences:
        if not _is_list_or_tuple(seq) or not _INT_ONLY.issuperset(map(type, seq)):
            return None
        kept = [token for token in seq if token not in drop]
        if kept and (min(kept) < 0 or max(kept) > _INT64_MAX):
            return None
        kept_all.append(kept)
    return kept_all


def tokenized_periods(hypotheses: Sequence[str]) -> int:
    """sacreBLEU's count: lines that end in " ." (``str.endswith`` on each line as given)."""
    return sum(1 for hyp in hypotheses if hyp.endswith(" ."))


class PythonKernel:
    """BLEU's statistics in plain Python (:mod:`.spec`): slow, obviously correct, always there."""

    name = "python"

    def prepare_references(self, segments, tokenizer, lowercase, max_order, threads=None):
        from . import spec
        from .spec import segment_tokens

        check_order(max_order, "max_order")
        return [
            spec.reference_info([segment_tokens(ref, tokenizer, lowercase) for ref in refs],
                                max_order)
            for refs in segments
        ]

    def prepare_reference_streams(self, streams, tokenizer, lowercase, max_order, threads=None):
        segments, num_refs = reference_segments(streams)
        return (self.prepare_references(segments, tokenizer, lowercase, max_order),
                len(segments), num_refs)

    def statistics(self, hypotheses, prepared, tokenizer, lowercase, max_order, threads=None):
        from . import spec
        from .spec import segment_tokens

        check_order(max_order, "max_order")
        if len(hypotheses) != len(prepared):
            raise ValueError(
                f"{len(hypotheses)} hypotheses but {len(prepared)} reference segments")
        check_strings(hypotheses, "hypotheses")
        data = array("q")
        for hyp, refs in zip(hypotheses, prepared):
            data.extend(spec.segment_row(segment_tokens(hyp, tokenizer, lowercase), refs,
                                         max_order))
        return Statistics(max_order, data)

    def totals(self, hypotheses, prepared, tokenizer, lowercase, max_order, threads=None):
        stats = self.statistics(hypotheses, prepared, tokenizer, lowercase, max_order)
        return stats.sum(), tokenized_periods(hypotheses)

    def stream_statistics(self, hypotheses, streams, tokenizer, lowercase, max_order,
                          threads=None):
        prepared, n_segments, num_refs = self.prepare_reference_streams(
            streams, tokenizer, lowercase, max_order)
        if n_segments != len(hypotheses):
            raise ValueError(f"{len(hypotheses)} hypotheses but {n_segments} reference segments")
        return self.statistics(hypotheses, prepared, tokenizer, lowercase, max_order), num_refs

    def stream_totals(self, hypotheses, streams, tokenizer, lowercase, max_order, threads=None):
        stats, num_refs = self.stream_statistics(hypotheses, streams, tokenizer, lowercase,
                                                 max_order)
        return stats.sum(), num_refs, tokenized_periods(hypotheses)

    def sentence_statistics(self, hypotheses, references_per_hyp, tokenizer, lowercase, max_order,
                            threads=None):
        check_order(max_order, "max_order")
        hypotheses = check_hypotheses(hypotheses)
        check_references_per_hypothesis(references_per_hyp, len(hypotheses))
        segments = [references_of(refs, i) for i, refs in enumerate(references_per_hyp)]
        prepared = self.prepare_references(segments, tokenizer, lowercase, max_order)
        return self.statistics(hypotheses, prepared, tokenizer, lowercase, max_order)

    def sentence_scores(self, hypotheses, references_per_hyp, config, threads=None):
        return self.bleu_scores(
            self.sentence_statistics(hypotheses, references_per_hyp, config.tokenizer,
                                     config.lowercase, config.max_ngram_order), config)

    def ids_statistics(self, hypotheses, references, dropped, max_order, threads=None,
                       totals_only=False):
        """The specification's rows with ids for tokens: equal ids, equal tokens.

        Refuses what the compiled core refuses, with its errors: containers other than lists
        and tuples, and an entry without references (its row would hold no reference length).
        """
        from . import spec

        check_order(max_order, "max_order")
        if not (_is_list_or_tuple(hypotheses) and _is_list_or_tuple(references)):
            raise TypeError("hypotheses and references must be lists or tuples")
        if len(hypotheses) != len(references):
            raise ValueError(f"{len(hypotheses)} hypotheses but {len(references)} reference "
                             "entries")
        drop = frozenset(dropped)
        data = array("q")
        for k, (hyp, refs) in enumerate(zip(hypotheses, references)):
            if not (_is_list_or_tuple(refs) and refs):
                raise TypeError(f"references[{k}] must be a non-empty list or tuple of id "
                                "sequences")
            tokens = _kept_ids((hyp, *refs), drop)
            if tokens is None:
                return None
            data.extend(spec.segment_row(tokens[0], spec.reference_info(tokens[1:], max_order),
                                         max_order))
        stats = Statistics(max_order, data)
        return stats.sum() if totals_only else stats

    def bleu_scores(self, statistics, config):
        return python_bleu_scores(statistics.data, config)

    def pairwise_scores(self, a, b, config, threads=None):
        a = check_hypotheses(a, "a")
        b = check_hypotheses(b, "b")
        ua, pa = distinct(a)
        ub, pb = distinct(b)
        tokenizer, lowercase, order = config.tokenizer, config.lowercase, config.max_ngram_order
        prepared = self.prepare_references([[x] for x in ub], tokenizer, lowercase, order)
        nb = len(b)
        out = array("d", [0.0]) * (len(a) * nb)
        first_row: dict[int, int] = {}  # distinct hypothesis -> the first row that holds it
        for i, x in enumerate(pa):
            if x in first_row:  # a repeated hypothesis: copy its row
                j = first_row[x]
                out[i * nb:(i + 1) * nb] = out[j * nb:(j + 1) * nb]
                continue
            first_row[x] = i
            row = self.bleu_scores(
                self.statistics([ua[x]] * len(ub), prepared, tokenizer, lowercase, order), config)
            out[i * nb:(i + 1) * nb] = array("d", [row[j] for j in pb])
        return out

    def tokens(self, lines, tokenizer, lowercase):
        from .spec import segment_tokens

        check_strings(lines, "segments")
        return [segment_tokens(line, tokenizer, lowercase) for line in lines]

    def tokenized_periods(self, hypotheses):
        return tokenized_periods(hypotheses)


def _native_kernel():
    from .native import NativeKernel

    return NativeKernel()


#: BLEU's kernels, chosen by name (``backend=``, ``$TRUEBLEU_BACKEND``)
kernels = KernelLoader(PythonKernel, _native_kernel)
