"""Backends that turn text into :class:`~truebleu.stats.Statistics`.

Two backends implement the same two calls:

``prepare_references(segments, tokenizer, lowercase, max_order)``
    ``segments[i]`` is the list of reference strings of segment ``i`` (missing
    references already removed). Returns an opaque object, reusable for any
    number of hypothesis sets (reference caching).
``prepare_reference_streams(streams, tokenizer, lowercase, max_order, threads=None)``
    The same from sacreBLEU's layout (``streams[k][i]``, ``None`` = missing);
    returns ``(prepared, number of segments, references per segment or -1)``.
``statistics(hypotheses, prepared, tokenizer, lowercase, max_order, threads=None)``
    One statistics row per hypothesis, in input order.
``stream_statistics(hypotheses, streams, tokenizer, lowercase, max_order, threads=None)``
    ``prepare_reference_streams`` and ``statistics`` at once, for references
    used once (a cold ``corpus_bleu``, streaming): returns ``(statistics,
    references per segment or -1)``; nothing is kept.
``tokens(lines, tokenizer, lowercase)``
    The tokens of each line exactly as the statistics count them (the viewer
    shows them).
``tokenized_periods(hypotheses)``
    How many lines end in ``" ."`` (``str.endswith`` on the line as given):
    sacreBLEU's sign of tokenized output, warned about from 100 lines on.
``stream_totals(hypotheses, streams, tokenizer, lowercase, max_order, threads=None)``
    ``stream_statistics`` summed, for a corpus score that needs no rows:
    ``(column sums, references per segment, tokenized_periods(hypotheses))``.
``totals(hypotheses, prepared, tokenizer, lowercase, max_order, threads=None)``
    ``statistics`` summed: ``(column sums, tokenized_periods(hypotheses))``.

and, for the batch functions of :mod:`truebleu.batch` (many sentence scores
at once), three more; ``config`` is a :class:`~truebleu.bleu_config.BLEUConfig`:

``sentence_statistics(hypotheses, references_per_hyp, tokenizer, lowercase, max_order, threads=None)``
    One row per hypothesis against its own references (a str or a list).
``bleu_scores(statistics, config)``
    The sentence BLEU of every row, an ``array('d')``.
``pairwise_scores(a, b, config, threads=None)``
    The sentence BLEU of every ``a[i]`` against the single reference ``b[j]``,
    row-major, an ``array('d')`` of ``len(a) * len(b)`` (8 bytes per cell).

and the same two for chrF (:mod:`truebleu._reference_chrf`), whose
configuration is a :class:`~truebleu._reference_chrf.ChrfConfig`:

``chrf_prepare(segments, config, threads=None)``
    References per segment (``None`` already removed), prepared once.
``chrf_statistics(hypotheses, prepared, config, threads=None, scores=None)``
    A :class:`~truebleu.stats.RowTable` of ``3 * (char_order + word_order)``
    counts per hypothesis; ``scores`` (an ``array('d')``, one per hypothesis)
    gets each row's f-score.

TER (:mod:`truebleu.metrics.ter`) has two calls of its own:

``prepare_ter_references(segments, tokenizer)``
    ``segments[i]`` as above, tokenized with a
    :class:`~truebleu.tokenizers.tok_ter.TercomTokenizer` as sacreBLEU's TER
    does (twice: see :func:`ter_reference`).
``ter_statistics(hypotheses, prepared, tokenizer, threads=None)``
    A float64 :class:`~truebleu.stats.RowTable` of ``[edits, reference length]`` rows.

``python`` is the readable specification (:mod:`truebleu._reference`);
``native`` is the compiled core, used by default when it is importable.
``TRUEBLEU_BACKEND=python|native`` forces one.
"""

from __future__ import annotations

import os
import warnings
from array import array
from typing import TYPE_CHECKING, Protocol, Sequence

from ..metrics.bleu import spec as _reference
from ..metrics.bleu.config import BLEUConfig, check_order
from .references import (check_references_per_hypothesis, check_str_sequence, check_strings,
                         reference_segments, references_of)
from ..metrics.bleu.score import compute_bleu
from .statistics import RowTable
from ..metrics.bleu.statistics import Statistics, row_width
from ..tokenizers import Tokenizer

if TYPE_CHECKING:  # chrF's and TER's specifications load when used (a BLEU command never does)
    from ..metrics.chrf.spec import ChrfConfig


def segment_tokens(line: str, tokenizer: Tokenizer, lowercase: bool) -> list[str]:
    """sacreBLEU's preprocessing: lowercase, strip trailing whitespace, tokenize, split."""
    if lowercase:
        line = line.lower()
    return tokenizer(line.rstrip()).split()


class Backend(Protocol):
    name: str

    def prepare_references(self, segments: Sequence[Sequence[str]], tokenizer: Tokenizer,
                           lowercase: bool, max_order: int) -> object: ...

    def prepare_reference_streams(self, streams: Sequence[Sequence[str | None]],
                                  tokenizer: Tokenizer, lowercase: bool, max_order: int,
                                  threads: int | None = None) -> tuple[object, int, int]: ...

    def statistics(self, hypotheses: Sequence[str], prepared: object, tokenizer: Tokenizer,
                   lowercase: bool, max_order: int, threads: int | None = None) -> Statistics: ...

    def stream_statistics(self, hypotheses: Sequence[str], streams: Sequence[Sequence[str | None]],
                          tokenizer: Tokenizer, lowercase: bool, max_order: int,
                          threads: int | None = None) -> tuple[Statistics, int]: ...

    def tokens(self, lines: Sequence[str], tokenizer: Tokenizer,
               lowercase: bool) -> list[list[str]]: ...

    def tokenized_periods(self, hypotheses: Sequence[str]) -> int: ...

    def stream_totals(self, hypotheses: Sequence[str], streams: Sequence[Sequence[str | None]],
                      tokenizer: Tokenizer, lowercase: bool, max_order: int,
                      threads: int | None = None) -> tuple[list[int], int, int]: ...

    def totals(self, hypotheses: Sequence[str], prepared: object, tokenizer: Tokenizer,
               lowercase: bool, max_order: int,
               threads: int | None = None) -> tuple[list[int], int]: ...

    def sentence_statistics(self, hypotheses: Sequence[str], references_per_hyp: Sequence,
                            tokenizer: Tokenizer, lowercase: bool, max_order: int,
                            threads: int | None = None) -> Statistics: ...

    def bleu_scores(self, statistics: Statistics, config: BLEUConfig) -> array: ...

    def pairwise_scores(self, a: Sequence[str], b: Sequence[str], config: BLEUConfig,
                        threads: int | None = None) -> array: ...

    def chrf_prepare(self, segments: Sequence[Sequence[str]], config: ChrfConfig,
                     threads: int | None = None) -> object: ...

    def chrf_statistics(self, hypotheses: Sequence[str], prepared: object, config: ChrfConfig,
                        threads: int | None = None, scores: array | None = None) -> RowTable: ...

    def prepare_ter_references(self, segments: Sequence[Sequence[str]],
                               tokenizer: Tokenizer) -> object: ...

    def ter_statistics(self, hypotheses: Sequence[str], prepared: object, tokenizer: Tokenizer,
                       threads: int | None = None) -> RowTable: ...


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


def python_bleu_scores(data: array, config: BLEUConfig) -> array:
    """Sentence BLEU of each row of ``data`` through :func:`truebleu.score.compute_bleu`."""
    n = config.max_ngram_order
    width = row_width(n)
    out = array("d")
    for start in range(0, len(data), width):
        row = data[start:start + width]
        out.append(compute_bleu(row[2:2 + n], row[2 + n:], row[0], row[1],
                                smooth_method=config.smooth_method,
                                smooth_value=config.smooth_value,
                                effective_order=config.effective_order, max_ngram_order=n).score)
    return out


def distinct(lines: Sequence[str]) -> tuple[list[str], array]:
    """The distinct strings in first-seen order, and each line's position among them."""
    index: dict[str, int] = {}
    positions = array("q", [index.setdefault(line, len(index)) for line in lines])
    return list(index), positions


def check_hypotheses(hypotheses, what: str = "hypotheses") -> list[str]:
    """``hypotheses`` as a list of str, or a TypeError naming the first that is not one."""
    check_str_sequence(hypotheses, what)
    hypotheses = list(hypotheses)
    check_strings(hypotheses, what)
    return hypotheses


def check_ter_lengths(hypotheses: Sequence, prepared: Sequence) -> None:
    if len(hypotheses) != len(prepared):
        raise ValueError(f"{len(hypotheses)} hypotheses but {len(prepared)} reference segments")


class PythonBackend:
    """The pure-Python backend: slow, obviously correct, always available."""

    name = "python"

    def prepare_references(self, segments, tokenizer, lowercase, max_order):
        check_order(max_order, "max_order")
        return [
            _reference.reference_info(
                [segment_tokens(ref, tokenizer, lowercase) for ref in refs], max_order)
            for refs in segments
        ]

    def prepare_reference_streams(self, streams, tokenizer, lowercase, max_order, threads=None):
        segments, num_refs = reference_segments(streams)
        return (self.prepare_references(segments, tokenizer, lowercase, max_order),
                len(segments), num_refs)

    def statistics(self, hypotheses, prepared, tokenizer, lowercase, max_order, threads=None):
        check_order(max_order, "max_order")
        if len(hypotheses) != len(prepared):
            raise ValueError(
                f"{len(hypotheses)} hypotheses but {len(prepared)} reference segments")
        check_strings(hypotheses, "hypotheses")
        data = array("q")
        for hyp, refs in zip(hypotheses, prepared):
            data.extend(_reference.segment_row(
                segment_tokens(hyp, tokenizer, lowercase), refs, max_order))
        return Statistics(max_order, data)

    def stream_statistics(self, hypotheses, streams, tokenizer, lowercase, max_order,
                          threads=None):
        prepared, n_segments, num_refs = self.prepare_reference_streams(
            streams, tokenizer, lowercase, max_order)
        if n_segments != len(hypotheses):
            raise ValueError(f"{len(hypotheses)} hypotheses but {n_segments} reference segments")
        return self.statistics(hypotheses, prepared, tokenizer, lowercase, max_order), num_refs

    def tokens(self, lines, tokenizer, lowercase):
        check_strings(lines, "segments")
        return [segment_tokens(line, tokenizer, lowercase) for line in lines]

    def tokenized_periods(self, hypotheses):
        return sum(1 for hyp in hypotheses if hyp.endswith(" ."))

    def stream_totals(self, hypotheses, streams, tokenizer, lowercase, max_order, threads=None):
        stats, num_refs = self.stream_statistics(hypotheses, streams, tokenizer, lowercase,
                                                 max_order)
        return stats.sum(), num_refs, self.tokenized_periods(hypotheses)

    def totals(self, hypotheses, prepared, tokenizer, lowercase, max_order, threads=None):
        stats = self.statistics(hypotheses, prepared, tokenizer, lowercase, max_order)
        return stats.sum(), self.tokenized_periods(hypotheses)

    def sentence_statistics(self, hypotheses, references_per_hyp, tokenizer, lowercase, max_order,
                            threads=None):
        check_order(max_order, "max_order")
        hypotheses = check_hypotheses(hypotheses)
        check_references_per_hypothesis(references_per_hyp, len(hypotheses))
        segments = [references_of(refs, i) for i, refs in enumerate(references_per_hyp)]
        prepared = self.prepare_references(segments, tokenizer, lowercase, max_order)
        return self.statistics(hypotheses, prepared, tokenizer, lowercase, max_order)

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

    def chrf_prepare(self, segments, config, threads=None):
        for i, refs in enumerate(segments):
            check_strings(refs, f"references of segment {i}")
        from ..metrics.chrf import spec as _reference_chrf

        return _reference_chrf.prepare_references(segments, config)

    def chrf_statistics(self, hypotheses, prepared, config, threads=None, scores=None):
        if len(hypotheses) != len(prepared):
            raise ValueError(
                f"{len(hypotheses)} hypotheses but {len(prepared)} reference segments")
        check_strings(hypotheses, "hypotheses")
        from ..metrics.chrf import spec as _reference_chrf

        table = RowTable(config.width)
        for row in _reference_chrf.statistics_rows(hypotheses, prepared, config):
            table.data.extend(row)
        if scores is not None:
            if len(scores) != len(hypotheses):
                raise ValueError("scores must hold one float per hypothesis")
            for i, row in enumerate(table.rows()):
                scores[i] = _reference_chrf.f_score(row, config.beta, config.eps_smoothing)
        return table

    def prepare_ter_references(self, segments, tokenizer):
        return [[ter_reference(ref, tokenizer).split() for ref in refs] for refs in segments]

    def ter_statistics(self, hypotheses, prepared, tokenizer, threads=None):
        check_ter_lengths(hypotheses, prepared)
        check_strings(hypotheses, "hypotheses")
        from ..metrics.ter import spec as _reference_ter

        data = array("d")
        for hyp, refs in zip(hypotheses, prepared):
            data.extend(_reference_ter.segment_row(ter_tokens(hyp, tokenizer), refs))
        return RowTable(2, data)


_BACKENDS: dict[str, Backend] = {}


def _load(name: str) -> Backend:
    if name not in _BACKENDS:
        if name == "python":
            _BACKENDS[name] = PythonBackend()
        elif name == "native":
            try:
                from ..metrics.bleu.native import NativeBackend
            except ImportError as exc:
                raise ImportError(
                    "truebleu's compiled core is not available (was it built? a C compiler "
                    f"is needed at install time): {exc}; the 'python' backend always is") from exc
            _BACKENDS[name] = NativeBackend()
        else:
            raise ValueError(f"unknown backend {name!r}; choose 'python' or 'native'")
    return _BACKENDS[name]


NO_CORE_WARNING = (
    "truebleu: the compiled core is not available ({reason}); using the pure-Python backend, "
    "which gives the same numbers 8-27x slower. Reinstall truebleu where a C compiler is "
    "available to build it, or set TRUEBLEU_BACKEND=python to choose the Python backend "
    "(and silence this warning).")


def get_backend(name: str | None = None) -> Backend:
    """The backend to use: ``name``, else ``$TRUEBLEU_BACKEND``, else the best available.

    Falling back to Python because the compiled core is missing (an install
    without a C compiler) is not silent: a RuntimeWarning says so, once per
    process (Python's default warning filter shows it once per location).
    """
    name = name or os.environ.get("TRUEBLEU_BACKEND") or None
    if name:
        return _load(name.lower())
    try:
        return _load("native")
    except ImportError as exc:
        warnings.warn(NO_CORE_WARNING.format(reason=exc.__cause__ or exc), RuntimeWarning,
                      stacklevel=2)
        return _load("python")


def backend_status() -> str:
    """The default backend and why, for ``truebleu --version``."""
    forced = os.environ.get("TRUEBLEU_BACKEND")
    if forced:
        return f"{get_backend().name} (TRUEBLEU_BACKEND={forced})"
    try:
        return _load("native").name
    except ImportError as exc:
        return f"python (compiled core not available: {exc.__cause__ or exc})"


def active_backend() -> str:
    """Name of the backend used by default in this process."""
    return get_backend().name
