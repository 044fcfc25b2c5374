"""BLEU's native kernel: the compiled core (:mod:`truebleu._native_core`).

Same methods as :class:`~.kernels.PythonKernel`, same numbers. Tokenizers with
a ``native_mode`` (13a, intl, zh, char, none) run inside the core; the others
(MeCab, SentencePiece) tokenize in Python exactly as
:func:`~.spec.segment_tokens` does, and the core splits their output on
whitespace (mode ``none``). Importing this module raises ImportError when the
extension was not built; :mod:`truebleu.core.kernels` then falls back to the
Python kernel.
"""

from __future__ import annotations

import functools
import warnings
from array import array

from ...core.kernels import native_core, thread_count
from ...core.references import (
    check_hypotheses,
    check_reference_streams,
    check_references_per_hypothesis,
    check_str_sequence,
    check_strings,
    reference_segments,
    references_of,
)
from .config import check_order
from .score import python_bleu_scores
from .statistics import Statistics, row_width

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: importing typing costs about 16 M instructions
if TYPE_CHECKING:
    from typing import Any, Sequence

core = native_core()

# pairwise_scores works in blocks of rows whose statistics take at most this
# many bytes (and at most 4 bytes per cell), so a matrix costs its 8 bytes per
# score and not 8 * (2 + 2N)
MATRIX_BLOCK_BYTES = 1 << 23

MODES = {
    "none": core.MODE_NONE,
    "13a": core.MODE_13A,
    "intl": core.MODE_INTL,
    "zh": core.MODE_ZH,
    "char": core.MODE_CHAR,
}


def check_threads(threads: int | None) -> int:
    """The checked thread count; None means the available cores."""
    return thread_count(threads)


def check_max_order(max_order: int) -> int:
    return check_order(max_order, "max_order")


def intl_table_is_current() -> bool:
    """Whether the core's ``intl`` character classes are those of the installed ``regex``.

    The table is generated at build time from the ``regex`` of the build
    (``gen_tables.py``); under the same release it is current. Under another
    release what matters is the classification itself: it is compared, code
    point by code point, with the running ``regex`` (about 0.1 s, once per
    process). Only if they differ does Python tokenize ``intl`` (tokens stay
    exactly those of ``tok_intl`` and sacreBLEU), with a RuntimeWarning that
    says so, since it is many times slower.
    """
    import regex

    return _intl_table_matches(getattr(regex, "__version__", ""), core.REGEX_VERSION)


@functools.lru_cache(maxsize=4)
def _intl_table_matches(regex_version: str, table_version: str) -> bool:
    if regex_version == table_version:
        return True
    import regex

    from ...tokenizers.unicode_classes import intl_bits, intl_class_table

    if intl_class_table(regex) == intl_bits(core.class_table()):
        return True
    warnings.warn(
        f"truebleu: the compiled core's 'intl' character classes (from regex {table_version}) "
        f"differ from those of the installed regex {regex_version}; 'intl' is tokenized in "
        "Python instead (same tokens, many times slower). Reinstall truebleu to rebuild the "
        "tables from the installed regex.", RuntimeWarning, stacklevel=4)
    return False


def core_mode(tokenizer) -> int | None:
    """The core's mode number for ``tokenizer``, or None if Python must tokenize."""
    mode = getattr(tokenizer, "native_mode", None)
    if mode is None or (mode == "intl" and not intl_table_is_current()):
        return None
    if mode not in MODES:
        raise ValueError(f"unknown native_mode {mode!r} of tokenizer {tokenizer!r}")
    return MODES[mode]


def python_tokenized(lines: Sequence[str], tokenizer, lowercase: bool) -> list[str]:
    """Lines tokenized in Python as segment_tokens does, before splitting."""
    out = []
    for line in lines:
        if not isinstance(line, str):
            raise TypeError(f"segments must be str, got {type(line).__name__}")
        if lowercase:
            line = line.lower()
        out.append(tokenizer(line.rstrip()))
    return out


def output_buffers(n: int, max_order: int, totals_only: bool) -> tuple[array | None, array | None]:
    """The core's ``out`` (a zeroed int64 table of ``n`` rows) and ``totals`` (one
    zeroed row) for a statistics call: the table, or with ``totals_only`` the row."""
    width = row_width(max_order)
    if totals_only:
        return None, array("q", [0]) * width
    return array("q", [0]) * (n * width), None


class NativePrepared:
    """Tokenized references, reusable for any number of hypothesis sets.

    The clip counts are derived from the cached token ids at scoring time, so
    the same object serves every ``max_order``.
    """

    __slots__ = ("core", "tokenizer", "lowercase")

    def __init__(self, prepared, tokenizer, lowercase: bool) -> None:
        self.core = prepared
        self.tokenizer = tokenizer
        self.lowercase = lowercase

    def __len__(self) -> int:
        return len(self.core)

    def __repr__(self) -> str:
        return (f"NativePrepared(segments={len(self)}, tokenizer={self.tokenizer.signature()!r}, "
                f"lowercase={self.lowercase}, bytes={self.core.nbytes})")


def check_prepared(prepared, max_order: int) -> None:
    """References prepared by this kernel, and a valid order."""
    if not isinstance(prepared, NativePrepared):
        raise TypeError("prepared must come from NativeKernel.prepare_references")
    check_max_order(max_order)


def check_prepared_with(prepared, tokenizer, lowercase: bool) -> None:
    """References prepared with this tokenizer and case setting."""
    if prepared.lowercase != bool(lowercase) or (
            prepared.tokenizer is not tokenizer
            and prepared.tokenizer.signature() != tokenizer.signature()):
        raise ValueError("references were prepared with another tokenizer or case setting")


def prepare_segments(segments: Sequence[Sequence[str]], tokenizer, lowercase: bool,
                     threads: int | None = None):
    """Tokenize each segment (a sequence of strings) once: a core ``Prepared``."""
    lowercase = bool(lowercase)
    threads = check_threads(threads)
    mode = core_mode(tokenizer)
    if mode is None:
        segments = [python_tokenized(refs, tokenizer, lowercase) for refs in segments]
        return core.prepare(segments, core.MODE_NONE, False, threads)
    return core.prepare(segments, mode, lowercase, threads)


class NativeKernel:
    """BLEU on the compiled core (see the module docstring)."""

    name = "native"

    def prepare_references(self, segments, tokenizer, lowercase, max_order, threads=None):
        check_max_order(max_order)
        return NativePrepared(prepare_segments(segments, tokenizer, lowercase, threads), tokenizer,
                              bool(lowercase))

    def prepare_reference_streams(self, streams, tokenizer, lowercase, max_order, threads=None):
        """``prepare_references`` for sacreBLEU's layout: ``streams[k][i]`` is
        reference ``k`` of segment ``i``, ``None`` when missing. The transposing
        happens in C, which saves building one list per segment in Python.
        Returns ``(prepared, number of segments, references per segment)``
        (-1 when the number varies).
        """
        check_max_order(max_order)
        lowercase = bool(lowercase)
        threads = check_threads(threads)
        mode = core_mode(tokenizer)
        if mode is None:
            streams = [[None if line is None else python_tokenized([line], tokenizer, lowercase)[0]
                        for line in stream] for stream in streams]
            prepared = core.prepare_streams(streams, core.MODE_NONE, False, threads)
        else:
            prepared = core.prepare_streams(streams, mode, lowercase, threads)
        return NativePrepared(prepared, tokenizer, lowercase), len(prepared), prepared.num_refs

    def stream_statistics(self, hypotheses, streams, tokenizer, lowercase, max_order,
                          threads=None):
        """A cold corpus in one pass of the core: each worker tokenizes a segment's
        references, then its hypothesis, and writes the row; nothing is kept."""
        data, num_refs, _ = self._stream(hypotheses, streams, tokenizer, lowercase, max_order,
                                         threads, totals_only=False)
        return Statistics(max_order, data), num_refs

    def stream_totals(self, hypotheses, streams, tokenizer, lowercase, max_order, threads=None):
        """:meth:`stream_statistics` summed, with no table of rows (each worker adds
        its rows up). Returns ``(column sums, references per segment, hypotheses
        ending in " .")``."""
        totals, num_refs, periods = self._stream(hypotheses, streams, tokenizer, lowercase,
                                                 max_order, threads, totals_only=True)
        return totals.tolist(), num_refs, periods

    def _stream(self, hypotheses, streams, tokenizer, lowercase, max_order, threads, totals_only):
        """The rows (or, totals_only, their sum), references per segment, periods."""
        check_max_order(max_order)
        check_reference_streams(streams, every_segment=False)  # the core names a segment without any
        threads = check_threads(threads)
        lowercase = bool(lowercase)
        mode = core_mode(tokenizer)
        periods = None
        if mode is None:  # Python tokenizes: first the errors the core would report
            segments, _ = reference_segments(streams)
            if len(segments) != len(hypotheses):
                raise ValueError(
                    f"{len(hypotheses)} hypotheses but {len(segments)} reference segments")
            check_strings(hypotheses, "hypotheses")
            periods = self.tokenized_periods(hypotheses)  # of the lines as given
            streams = [[None if line is None else python_tokenized([line], tokenizer, lowercase)[0]
                        for line in stream] for stream in streams]
            hypotheses = python_tokenized(hypotheses, tokenizer, lowercase)
            mode, lowercase = core.MODE_NONE, False
        out, totals = output_buffers(len(hypotheses), max_order, totals_only)
        num_refs, core_periods = core.stream_statistics(hypotheses, streams, mode, lowercase,
                                                        max_order, threads, out, totals)
        return (totals if totals_only else out), num_refs, (
            core_periods if periods is None else periods)

    def reads_utf8(self, tokenizer) -> bool:
        """Whether :meth:`utf8_statistics` can run ``tokenizer`` (the core runs it)."""
        return core_mode(tokenizer) is not None

    def utf8_statistics(self, buffers, ends, n, tokenizer, lowercase, max_order, totals,
                        threads=None, keep_rows=True):
        """:meth:`stream_statistics` of the first ``n`` lines of buffers of valid UTF-8
        (hypotheses, then one buffer per reference file; a line ends at ``"\\n"``, the
        last may end at ``ends[f]``), without a ``str`` per line. Adds the rows to
        ``totals`` (an int64 array of one row). Returns ``(statistics, bytes taken per
        buffer, hypotheses ending in " ." after rstrip)``; the statistics are None with
        ``keep_rows=False`` (only the totals are wanted). Only for tokenizers the core
        runs (:func:`core_mode` not None).
        """
        check_max_order(max_order)
        mode = core_mode(tokenizer)
        if mode is None:
            raise ValueError(f"the core does not run tokenizer {tokenizer!r}")
        data = array("q", [0]) * (n * row_width(max_order)) if keep_rows else None
        consumed, periods = core.stream_statistics_utf8(
            buffers, ends, n, mode, bool(lowercase), max_order, check_threads(threads), data, totals)
        return (Statistics(max_order, data) if keep_rows else None), consumed, periods

    def tokens(self, lines, tokenizer, lowercase):
        mode = core_mode(tokenizer)
        if mode is None:
            return [line.split() for line in python_tokenized(lines, tokenizer, lowercase)]
        lowercase = bool(lowercase)
        out = []
        for line in lines:
            if not isinstance(line, str):
                raise TypeError(f"segments must be str, got {type(line).__name__}")
            out.append(core.tokenize(line, mode, lowercase))
        return out

    def tokenized_periods(self, hypotheses):
        """The Python backend's count, in C: no Python call per (exact) str."""
        return core.tokenized_periods(hypotheses)

    def statistics(self, hypotheses, prepared, tokenizer, lowercase, max_order, threads=None):
        data, _ = self._statistics(hypotheses, prepared, tokenizer, lowercase, max_order, threads,
                                   totals_only=False)
        return Statistics(max_order, data)

    def totals(self, hypotheses, prepared, tokenizer, lowercase, max_order, threads=None):
        """:meth:`statistics` summed, with no table of rows. Returns ``(column sums,
        hypotheses ending in " .")``."""
        totals, periods = self._statistics(hypotheses, prepared, tokenizer, lowercase, max_order,
                                           threads, totals_only=True)
        return totals.tolist(), periods

    def _statistics(self, hypotheses, prepared, tokenizer, lowercase, max_order, threads,
                    totals_only):
        """The rows (or, totals_only, their sum) and the periods."""
        check_prepared(prepared, max_order)
        threads = check_threads(threads)
        lowercase = bool(lowercase)
        if len(hypotheses) != len(prepared):
            raise ValueError(
                f"{len(hypotheses)} hypotheses but {len(prepared)} reference segments")
        check_prepared_with(prepared, tokenizer, lowercase)
        out, totals = output_buffers(len(hypotheses), max_order, totals_only)
        mode = core_mode(tokenizer)
        if mode is None:
            tokenized = python_tokenized(hypotheses, tokenizer, lowercase)  # checks each is a str
            core.statistics(tokenized, prepared.core, core.MODE_NONE, False, max_order, threads,
                            out, totals)
            periods = self.tokenized_periods(hypotheses)  # of the lines as given
        else:
            periods = core.statistics(hypotheses, prepared.core, mode, lowercase, max_order,
                                      threads, out, totals)
        return (totals if totals_only else out), periods

    def systems_statistics(self, systems, prepared, tokenizer, lowercase, max_order,
                           threads=None):
        """:meth:`statistics` of each system against the same prepared references, in one
        call of the core: one job, in which each segment's references are learned once and
        matched against every system's hypothesis in turn (one call per system started
        the pool's threads and counted the references' n-grams again for each). Returns
        ``(statistics, periods)``, one of each per system in order (periods: hypotheses
        ending in " ."); None where Python tokenizes (the caller takes the systems one
        by one). The core raises statistics()'s errors: a system of another length
        (ValueError), a hypothesis that is not a str (TypeError)."""
        check_prepared(prepared, max_order)
        check_prepared_with(prepared, tokenizer, lowercase)
        mode = core_mode(tokenizer)
        if mode is None:
            return None
        outs = [output_buffers(len(prepared), max_order, False)[0] for _ in systems]
        periods = core.systems_statistics(systems, prepared.core, mode, bool(lowercase),
                                          max_order, check_threads(threads), outs)
        return [Statistics(max_order, out) for out in outs], list(periods)

    # -- the batch functions (metrics.bleu.batch) -------------------------------

    def sentence_statistics(self, hypotheses, references_per_hyp, tokenizer, lowercase, max_order,
                            threads=None):
        """Each hypothesis against its own references, in one pass of the core."""
        data = self._sentence_pass(hypotheses, references_per_hyp, tokenizer, lowercase,
                                   max_order, threads)
        return Statistics(max_order, data)

    def sentence_scores(self, hypotheses, references_per_hyp, config, threads=None):
        """Each hypothesis's sentence BLEU, scored by the core's worker that counted
        its row (in parallel, while the row is in cache; no table of rows), where
        floats add as in sacreBLEU; elsewhere the rows, then the Python scores."""
        if not core.SUM_IS_PLAIN:
            return self.bleu_scores(
                self.sentence_statistics(hypotheses, references_per_hyp, config.tokenizer,
                                         config.lowercase, config.max_ngram_order, threads),
                config)
        scoring = {"smooth": config.smooth_code, "smooth_value": float(config.smoothing or 0),
                   "effective_order": config.effective_order}
        return self._sentence_pass(hypotheses, references_per_hyp, config.tokenizer,
                                   config.lowercase, config.max_ngram_order, threads, scoring)

    def _sentence_pass(self, hypotheses, references_per_hyp, tokenizer, lowercase, max_order,
                       threads, scoring=None):
        """core.sentence_statistics: the rows, an ``array('q')``; with ``scoring`` (the
        core's smoothing keywords) the scores alone, an ``array('d')``, and no rows.

        The core checks the layout as it reads it; only when it finds a fault
        do the Python checks run, to raise what the Python backend raises.
        """
        check_max_order(max_order)
        threads = check_threads(threads)
        lowercase = bool(lowercase)
        check_str_sequence(hypotheses, "hypotheses")  # the core checks each one's type
        check_str_sequence(references_per_hyp, "references_per_hyp")
        if len(references_per_hyp) != len(hypotheses):
            raise ValueError(
                f"{len(hypotheses)} hypotheses but {len(references_per_hyp)} reference lists")
        mode = core_mode(tokenizer)
        if mode is None:
            check_strings(hypotheses, "hypotheses")
            check_references_per_hypothesis(references_per_hyp, len(hypotheses))
            hypotheses = python_tokenized(hypotheses, tokenizer, lowercase)
            references_per_hyp = [python_tokenized(references_of(refs, i), tokenizer, lowercase)
                                  for i, refs in enumerate(references_per_hyp)]
            mode, lowercase = core.MODE_NONE, False
        data: array[Any]
        if scoring is None:
            out = data = array("q", [0]) * (len(hypotheses) * row_width(max_order))
        else:
            out, data = None, array("d", [0.0]) * len(hypotheses)
            scoring = {"scores": data, **scoring}
        # the core reads a str as one reference and drops None, as references_of does
        try:
            missing = core.sentence_statistics(hypotheses, references_per_hyp, mode, lowercase,
                                               max_order, threads, out, **(scoring or {}))
        except (TypeError, ValueError):  # the Python backend's checks, in its order
            check_strings(hypotheses, "hypotheses")
            check_references_per_hypothesis(references_per_hyp, len(hypotheses))
            raise
        if missing >= 0:
            check_strings(hypotheses, "hypotheses")
            check_references_per_hypothesis(references_per_hyp, len(hypotheses))
            raise ValueError(f"hypothesis {missing} has no reference")
        return data

    def ids_statistics(self, hypotheses, references, dropped, max_order, threads=None,
                       totals_only=False):
        """Token ids copied into C arrays (with the GIL), counted without it; no text."""
        check_max_order(max_order)
        out, totals = output_buffers(len(hypotheses), max_order, totals_only)
        if not core.ids_statistics(hypotheses, references, dropped, max_order,
                                   check_threads(threads), out, totals):
            return None
        return Statistics(max_order, out) if totals is None else totals.tolist()

    def stream_ids_statistics(self, hyp_ids, hyp_lengths, references, max_order, threads=None):
        """One row per line of a stream given as token ids, every line's ids one after
        another (int32 or int64 buffers) and each line's number of them (int64), against
        ``references``: ``(ids, lengths)`` pairs of the same form, one per reference stream.
        The report's tokens come so from one vocabulary (:func:`truebleu.viewer.tokens.
        stream_tokens`): each id one token, so these are the rows of the tokens' text."""
        check_max_order(max_order)
        out = output_buffers(len(hyp_lengths), max_order, False)[0]
        core.ids_statistics_streams(hyp_ids, hyp_lengths, list(references), max_order,
                                    check_threads(threads), out)
        return Statistics(max_order, out)

    def bleu_scores(self, statistics, config):
        """The core's replica of sacreBLEU's ``compute_bleu`` where floats add as there."""
        if not core.SUM_IS_PLAIN:
            return python_bleu_scores(statistics.data, config)
        out = array("d", [0.0]) * len(statistics)
        core.bleu_scores(statistics.data, config.max_ngram_order, config.smooth_code,
                         float(config.smoothing or 0), config.effective_order, out)
        return out

    def pairwise_scores(self, a, b, config, threads=None):
        """Every (a[i], b[j]) score; each distinct string tokenized once, in one vocabulary.

        The rows are computed in blocks of ``a`` so that the statistics never
        take more than ``MATRIX_BLOCK_BYTES``; only the scores are kept.
        """
        a = check_hypotheses(a, "a")
        b = check_hypotheses(b, "b")
        threads = check_threads(threads)
        order = config.max_ngram_order
        index: dict[str, int] = {}
        pa = array("q", [index.setdefault(x, len(index)) for x in a])
        pb = array("q", [index.setdefault(x, len(index)) for x in b])
        # one segment, one sequence per distinct string: a shared vocabulary
        prepared = prepare_segments([list(index)], config.tokenizer, config.lowercase, threads)
        na, nb = len(a), len(b)
        out = array("d", [0.0]) * (na * nb)
        if not na or not nb:
            return out
        width = row_width(order)
        # the block of statistics: at most half the scores' size (and 1 MiB at least)
        budget = min(MATRIX_BLOCK_BYTES, max(1 << 20, 4 * na * nb))
        block = max(1, budget // (8 * width * nb))
        rows = array("q", [0]) * (width * nb * min(block, na))
        value = float(config.smoothing or 0)
        with memoryview(out) as view, memoryview(rows) as rows_view:
            for start in range(0, na, block):
                stop = min(na, start + block)
                with rows_view[:(stop - start) * nb * width] as block_rows, \
                        view[start * nb:stop * nb] as scores:
                    core.cross_statistics(prepared, pa[start:stop], pb, order, threads,
                                          block_rows, scores if core.SUM_IS_PLAIN else None,
                                          config.smooth_code, value, config.effective_order)
                    if not core.SUM_IS_PLAIN:
                        scores[:] = python_bleu_scores(block_rows, config)
        return out
