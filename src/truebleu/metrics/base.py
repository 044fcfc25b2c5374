"""The metric family: one template for every metric, and the score it returns.

sacreBLEU's module (``sacrebleu.metrics.base``) and shape: a :class:`Metric` object fixes
a configuration; ``corpus_score`` and ``sentence_score`` take text and return
a :class:`Score`; ``get_signature`` names every setting. What truebleu makes
explicit is the contract underneath, which every layer above relies on and
nothing else: a metric turns each segment into one row of numbers that *add*
(a :class:`~truebleu.core.statistics.RowTable`), and scores the column sums of
any set of rows. Significance tests resample rows, the accumulator and Spark
add partial sums, streaming adds chunks, the viewer scores subsets; none of
them knows which metric it serves.

``corpus_score``, ``corpus_statistics`` and ``sentence_score`` are written
once, here, over a few hooks that each metric fills in:

``_prepare(segments)``
    the references of each segment (a list of strings), prepared once, in
    whatever form the metric's kernel wants;
``_statistics(hypotheses, prepared)``
    one row per hypothesis, in order;
``score_from_statistics(totals)``
    the score of summed rows;
``_signature_settings()``
    the settings the signature shows (besides nrefs, bootstrap and seed);

and may refine, for speed or for sacreBLEU's warnings:
``_prepare_streams``, ``_statistics_once``, ``_totals``, ``input_warnings``,
``warn_about_inputs``, ``utf8_statistics``, ``systems_statistics`` and ``batch_scorer``.
"""

from __future__ import annotations

from abc import ABC, abstractmethod

from ..core.config import MetricConfig
from ..core.kernels import KernelLoader, check_threads
from ..core.references import (
    ReferenceStreams,
    check_reference_streams,
    check_str_sequence,
    reference_segments,
)
from ..core.settings import is_integral
from ..core.signature import Signature
from ..core.statistics import RowTable
from ..core.typing_stubs import Generic, TypeVar, overload

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: importing typing costs about 16 M instructions
if TYPE_CHECKING:
    from array import array
    from typing import Any, ClassVar, Literal, Optional, Sequence, Union

    from ..core.accumulator import Accumulator
    from ..significance.compat import Seed
    from ..significance.scoring import BatchScorer

__all__ = ["Metric", "MetricConfig", "Score", "Signature", "format_score"]

References = ReferenceStreams


class Score:
    """A metric's value with its name; ``format()`` gives sacreBLEU's text or JSON.

    ``_mean`` and ``_ci`` are set by a bootstrap confidence estimate
    (``corpus_score(n_bootstrap=...)``, ``-ci``); negative means not set.
    ``_verbose`` is what is printed after the score (BLEU's precisions).
    """

    _verbose = ""

    def __init__(self, name: str, score: float) -> None:
        self.name = name
        self.score = score
        self._mean = -1.0
        self._ci = -1.0

    def format(self, width: int = 2, score_only: bool = False, signature: str = "",
               is_json: bool = False) -> str:
        """``name|signature = 12.34`` (or JSON), exactly as sacreBLEU formats a score."""
        return format_score(self, width=width, score_only=score_only, signature=signature,
                            is_json=is_json)

    def __str__(self) -> str:
        return self.format()

    def __repr__(self) -> str:
        return self.format()


def format_score(score: Score, width: int = 2, score_only: bool = False, signature: str = "",
                 is_json: bool = False) -> str:
    """``BLEU|sig = 12.34 <verbose>`` or JSON, exactly as sacreBLEU formats a Score."""
    text = f"{score.score:.{width}f}"
    record: dict[str, object] = {"name": score.name, "score": float(text), "signature": signature}

    if score._mean > 0:
        mean, ci = f"{score._mean:.{width}f}", f"{score._ci:.{width}f}"
        confidence = f"μ = {mean} ± {ci}"
        text += f" ({confidence})"
        if is_json:
            record["confidence_mean"] = float(mean)
            record["confidence_var"] = float(ci)
            record["confidence"] = confidence

    if score_only:
        return text

    line = f"{score.name}|{signature}" if signature else score.name
    line = f"{line} = {text}"
    verbose = score._verbose
    if verbose:
        line += f" {verbose}"
        record["verbose_score"] = verbose

    if is_json:
        import json  # here: a -b or text run does not load it

        for item in signature.split("|"):
            key, value = item.split(":")
            record[key] = value
        return json.dumps(record, indent=1, ensure_ascii=False)
    return line


#: the class of a metric's scores (``Metric[BLEUScore]`` is BLEU)
ScoreT = TypeVar("ScoreT", bound=Score, covariant=True)


class Metric(ABC, Generic[ScoreT]):
    """A metric with a fixed configuration: additive rows per segment, a score from their sum.

    Subclasses set the class attributes and fill in the hooks (module docstring);
    their ``__init__`` checks their own settings into a :class:`MetricConfig`
    and calls ``super().__init__(config, references, backend=..., threads=...)``.

    :param references: reference streams (``references[k][i]``: reference ``k`` of
        segment ``i``, ``None`` where a segment has fewer) to prepare once and
        reuse for every system scored.
    :param backend: ``"native"`` or ``"python"``; default: ``$TRUEBLEU_BACKEND``
        or the best available (:mod:`truebleu.core.kernels`).
    :param threads: worker threads of the native kernel (default: the available cores).
    """

    #: whether a larger score is better (BLEU, chrF) or worse (TER): tests and
    #: rankings take the direction from here (a class attribute; an external
    #: metric, whose direction the user gives, sets it per object)
    higher_is_better: bool = True
    #: the score of a hypothesis identical to its reference (long enough to have every
    #: n-gram the metric counts): the best a score can be
    best_score: ClassVar[float] = 100.0
    #: the class of the scores (a :class:`Score` subclass)
    score_type: ClassVar[type[Score]] = Score
    #: the class of the signature (a :class:`Signature` subclass)
    signature_type: ClassVar[type[Signature]] = Signature
    #: the :mod:`array` type of the rows: ``"q"`` (int64 counts, whose sums do not
    #: depend on the order of additions) or ``"d"`` (float64, whose sums do)
    row_typecode: ClassVar[str] = "q"
    #: whether an empty corpus is an error (else it scores as zero statistics)
    empty_corpus_is_error: ClassVar[bool] = True
    #: the metric's python and native kernels (metrics/<name>/kernels.py): twins with the
    #: same methods, duck-typed (each metric's own methods; no common base)
    kernels: ClassVar[KernelLoader[Any]]

    config: MetricConfig

    def __init__(self, config: MetricConfig, references: Optional[References] = None, *,
                 backend: Optional[str] = None, threads: Optional[int] = None) -> None:
        self.config = config
        self.threads = check_threads(threads)
        self._kernel = self.kernels.load(backend)
        self.n_bootstrap: Optional[int] = None
        self.seed: Optional[str] = None
        self.num_refs: Optional[int] = None
        self._ref_cache: Optional[tuple[int, Any]] = None
        if references is not None:
            self._ref_cache = self._prepare_streams(references)

    @property
    def backend(self) -> str:
        """Name of the kernel computing the statistics (``native`` or ``python``)."""
        name: str = self._kernel.name
        return name

    @property
    def kernel(self) -> Any:
        """The kernel computing the statistics (see :mod:`truebleu.core.kernels`)."""
        return self._kernel

    @property
    def integer_rows(self) -> bool:
        """Whether the rows are integers: sums then do not depend on their order."""
        return self.row_typecode in "bhilqBHILQ"

    # -- hooks every metric fills in ------------------------------------------------

    @abstractmethod
    def _prepare(self, segments: list[list[str]]) -> Any:
        """The references of each segment (``None`` already left out), prepared once."""

    @abstractmethod
    def _statistics(self, hypotheses: Sequence[str], prepared: Any) -> RowTable:
        """One row per hypothesis against ``prepared`` (as many segments), in order."""

    @abstractmethod
    def score_from_statistics(self, totals: Sequence[float]) -> ScoreT:
        """The score of summed statistics (the column sums of some rows)."""

    @abstractmethod
    def _signature_settings(self) -> dict[str, object]:
        """The signature's fields that name this configuration's settings."""

    # -- hooks a metric may refine --------------------------------------------------

    def _prepare_streams(self, streams: References) -> tuple[int, Any]:
        """``(number of segments, prepared)`` from sacreBLEU's reference streams; sets
        ``num_refs`` (references per segment, -1 when it varies)."""
        check_reference_streams(streams)
        segments, self.num_refs = reference_segments(streams)
        return len(segments), self._prepare(segments)

    def _statistics_once(self, hypotheses: Sequence[str], streams: References,
                         totals_only: bool) -> Union[RowTable, list[float]]:
        """Rows (or with ``totals_only`` their column sums) against references used
        once; a kernel may do it in one pass without keeping anything."""
        n_segments, prepared = self._prepare_streams(streams)
        check_segment_count(hypotheses, n_segments)
        if totals_only:
            return self._totals(hypotheses, prepared)
        return self._statistics(hypotheses, prepared)

    def _totals(self, hypotheses: Sequence[str], prepared: Any) -> list[float]:
        """The column sums of :meth:`_statistics` (a kernel may add without a table)."""
        table = self._statistics(hypotheses, prepared)
        if self.empty_corpus_is_error and not len(table):
            raise ValueError("no segments to score")
        return table.sum()

    def input_warnings(self, hypotheses: Sequence[str]) -> int:
        """How many hypotheses look wrong in a way the metric warns about (0 here;
        BLEU counts lines ending in " .", a sign of tokenized output)."""
        return 0

    def warn_about_inputs(self, count: int) -> None:  # noqa: B027 (an optional hook)
        """Warn, if ``count`` (a sum of :meth:`input_warnings`) calls for it."""

    def reads_utf8(self) -> bool:
        """Whether :meth:`utf8_statistics` can run (the kernel reads UTF-8 bytes itself)."""
        return False

    def utf8_statistics(self, buffers: list[bytearray], ends: list[int], n: int,
                        totals: array[int], keep_rows: bool
                        ) -> tuple[Optional[RowTable], list[int], int]:
        """Statistics of the first ``n`` lines of UTF-8 buffers (hypotheses, then one
        buffer per reference file), without a ``str`` per line, where
        :meth:`reads_utf8` (:mod:`truebleu.metrics.streaming`): ``(rows or None,
        bytes taken per buffer, input warnings)``, the rows also added to
        ``totals`` (an int64 array of one row)."""
        raise NotImplementedError(f"{type(self).__name__} does not read UTF-8 bytes")

    def batch_scorer(self, **options: Any) -> BatchScorer:
        """The score of many summed rows at once, for resampling
        (:class:`truebleu.significance.scoring.RowScorer` over
        :meth:`score_from_statistics`; a metric may vectorise it)."""
        from ..significance.scoring import RowScorer

        return RowScorer(lambda hyps: self.corpus_statistics(hyps).to_numpy(),
                         lambda row: self.score_from_statistics(row).score,
                         name=self.score_name(), higher_is_better=self.higher_is_better)

    def score_name(self) -> str:
        """The name of this configuration's scores (``BLEU``, ``chrF2++``, ``TER``)."""
        return self.score_from_statistics([0] * self.row_width()).name

    def row_width(self) -> int:
        """Numbers in one statistics row."""
        return self.empty_statistics().width

    def empty_statistics(self) -> RowTable:
        """A table of no rows, of this metric's row type and width."""
        import copy  # here: the command line never copies a metric (3 M instructions)

        return copy.copy(self).corpus_statistics([], [[]], check_inputs=False)

    # -- the template -----------------------------------------------------------------

    def corpus_statistics(self, hypotheses: Sequence[str], references: Optional[References] = None,
                          *, check_inputs: bool = True) -> RowTable:
        """One additive row per hypothesis, in order.

        Without ``references`` those given to the constructor are used.
        ``check_inputs=False`` leaves the input warnings (BLEU's tokenized-output
        warning) to the caller, who may count them over many calls.
        """
        table = self._compute(hypotheses, references, totals_only=False)
        if check_inputs:
            self.warn_about_inputs(self.input_warnings(hypotheses))
        return table

    def systems_statistics(self, systems: Sequence[Sequence[str]],
                           references: Optional[References] = None, *,
                           check_inputs: bool = True) -> list[RowTable]:
        """:meth:`corpus_statistics` of each system against the same references, in order
        (a paired test's systems, a table's). A metric may compute them all in one call of
        its kernel; the tables, errors and warnings are those of one call per system."""
        return [self.corpus_statistics(hypotheses, references, check_inputs=check_inputs)
                for hypotheses in systems]

    def corpus_score(self, hypotheses: Sequence[str], references: Optional[References] = None,
                     n_bootstrap: int = 1, *, seed: Seed = None) -> ScoreT:
        """The corpus score; ``n_bootstrap > 1`` adds sacreBLEU's bootstrap 95% confidence interval.

        ``seed`` (truebleu's addition) fixes the resampling; by default it is
        ``$SACREBLEU_SEED`` or 12345, as in sacreBLEU.
        """
        if isinstance(n_bootstrap, bool) or not is_integral(n_bootstrap):
            raise TypeError(f"n_bootstrap must be an integer, got {n_bootstrap!r}")
        if n_bootstrap <= 1:  # the column sums only: no table of rows is needed
            totals = self._compute(hypotheses, references, totals_only=True)
            self.warn_about_inputs(self.input_warnings(hypotheses))
            return self.score_from_statistics(totals)
        from ..significance import bootstrap_confidence
        from ..significance.compat import check_confidence

        check_str_sequence(hypotheses, "hypotheses")
        if self.empty_corpus_is_error and not len(hypotheses):
            raise ValueError("no segments to score")
        check_confidence(n_bootstrap, len(hypotheses))  # before any statistic is computed
        stats = self.corpus_statistics(hypotheses, references)
        score = self.score_from_statistics(stats.sum())
        self.n_bootstrap = int(n_bootstrap)
        self.seed, score._mean, score._ci = bootstrap_confidence(stats, self, n_bootstrap,
                                                                 seed=seed)
        return score

    def sentence_score(self, hypothesis: str, references: Sequence[str]) -> ScoreT:
        """The score of one hypothesis against its references (a list of strings)."""
        if not isinstance(hypothesis, str):
            raise TypeError(f"hypothesis must be a string, got {type(hypothesis).__name__}")
        check_str_sequence(references, "references")
        return self.corpus_score([hypothesis], [[ref] for ref in references])

    @overload
    def _compute(self, hypotheses: Sequence[str], references: Optional[References],
                 totals_only: Literal[False]) -> RowTable: ...

    @overload
    def _compute(self, hypotheses: Sequence[str], references: Optional[References],
                 totals_only: Literal[True]) -> list[float]: ...

    def _compute(self, hypotheses: Sequence[str], references: Optional[References],
                 totals_only: bool) -> Union[RowTable, list[float]]:
        check_str_sequence(hypotheses, "hypotheses")
        if references is not None:
            return self._statistics_once(hypotheses, references, totals_only)
        if self._ref_cache is None:
            raise ValueError(f"no references given, and none were given to "
                             f"{type(self).__name__}(references=...)")
        n_segments, prepared = self._ref_cache
        check_segment_count(hypotheses, n_segments)
        if totals_only:
            return self._totals(hypotheses, prepared)
        return self._statistics(hypotheses, prepared)

    # -- the command line -----------------------------------------------------------------
    # A metric's flags live in a module of their own (``flags_module``: ``add_arguments``,
    # ``check_args``, ``from_args``), imported only when a command builds its parser, so that
    # importing a metric imports no argument-parsing code. A metric without flags scores
    # with its defaults. ``parser`` is an ``argparse.ArgumentParser`` and ``args`` its
    # ``Namespace`` (typed Any: the layers below the command line do not import argparse,
    # even for types).

    #: the module of the metric's command-line flags (``truebleu.metrics.bleu.cli``), or None
    flags_module: ClassVar[Optional[str]] = None

    @classmethod
    def _flags(cls) -> Any:
        if cls.flags_module is None:
            return None
        from importlib import import_module

        return import_module(cls.flags_module)

    @classmethod
    def add_arguments(cls, parser: Any) -> None:
        """Add this metric's flags to an :mod:`argparse` parser. Every command that scores
        adds ``-m``, ``--backend`` and ``--threads`` itself."""
        flags = cls._flags()
        if flags is not None:
            flags.add_arguments(parser)

    @classmethod
    def check_args(cls, args: Any) -> None:
        """A ValueError, naming the flag, for settings of the parsed ``args`` that this
        metric cannot use (the metric's own checks name its Python parameters)."""
        flags = cls._flags()
        if flags is not None:
            flags.check_args(args)

    @classmethod
    def from_args(cls: type[MetricT], args: Any,
                  references: Optional[References]) -> MetricT:
        """The metric of the parsed command line, with ``references`` prepared once."""
        flags = cls._flags()
        if flags is not None:
            made: MetricT = flags.from_args(cls, args, references)
            return made
        # a metric's constructor takes its settings (each with a default) and these keywords,
        # where the template's takes the configuration they make
        return cls(references=references, backend=args.backend,  # type: ignore[call-arg]
                   threads=args.threads)

    # -- signature, accumulation --------------------------------------------------------

    def get_signature(self) -> Signature:
        """The reproducibility signature (after scoring: ``nrefs`` is known then)."""
        if self.num_refs is None:
            raise ValueError("Number of references unknown, please evaluate the metric first.")
        return self.signature_type(nrefs="var" if self.num_refs == -1 else self.num_refs,
                                   bs=self.n_bootstrap, seed=self.seed,
                                   **self._signature_settings())

    def configuration(self) -> tuple[object, ...]:
        """Everything that changes this metric's statistics or score, as plain values."""
        return self.config.key()

    def accumulator(self, keep_segments: bool = False) -> Accumulator[ScoreT]:
        """A mergeable, picklable :class:`~truebleu.core.accumulator.Accumulator` of this
        configuration. Its ``update`` takes references with every batch; references
        given to the constructor are not carried over (they would make it large)."""
        from ..core.accumulator import Accumulator

        return Accumulator(self.without_references(), keep_segments=keep_segments)

    def without_references(self: MetricT, threads: Optional[int] = None) -> MetricT:
        """A copy of this metric without the references given to its constructor (for an
        object that travels: an accumulator, a Spark task), with ``threads`` if given."""
        import copy

        metric = copy.copy(self)
        metric._ref_cache = None
        if threads is not None:
            metric.threads = check_threads(threads)
        return metric

    def _compute_score_from_stats(self, totals: Sequence[float]) -> ScoreT:
        """sacreBLEU's name for :meth:`score_from_statistics` (its significance code calls it)."""
        return self.score_from_statistics(totals)


#: a metric of any class (``from_args`` and ``without_references`` give the class they are
#: called on), for the type checker only: at run time typing is not imported (see
#: :mod:`truebleu.core.typing_stubs`), and no annotation is evaluated.
if TYPE_CHECKING:
    MetricT = TypeVar("MetricT", bound=Metric[Any])


def check_segment_count(hypotheses: Sequence[str], n_segments: int) -> None:
    if n_segments != len(hypotheses):
        raise ValueError(f"{len(hypotheses)} hypotheses but {n_segments} reference segments")
