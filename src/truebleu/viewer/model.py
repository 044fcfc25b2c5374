"""What the viewer shows, computed once in Python with truebleu's own API.

Every number the page displays comes from here (or, for a filtered subset of
segments, from the page's replica of ``compute_bleu`` on these same integer
statistics): corpus BLEU and its signature from :class:`truebleu.BLEU`,
sentence BLEU from the same statistics rows with effective order (what
``truebleu REF -i SYS -sl`` prints), confidence intervals and significance
clusters from :mod:`truebleu.significance`, and for each segment the corpus
BLEU *without* it, so that the page can show how much the segment contributes
to a corpus-level difference by plain subtraction.

The result is a :class:`ReportData`; :meth:`ReportData.payload` turns it into
the columnar JSON document the page reads (one list per column, never one
object per segment or token).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Mapping, Optional, Sequence

from ..core.progress import Progress
from ..core.resources import Cost
from ..core.statistics import RowTable
from ..metrics.bleu.metric import BLEU
from ..metrics.bleu.score import BLEUScore
from .buckets import FREQUENCY_BUCKETS, frequency_counts, length_buckets
from .metrics_model import MetricChoice, metric_objects, metrics_payload
from .tokens import (
    PageTokens,
    Tokens,
    Vocabulary,
    _core_mode,
    statistics_of_tokens,
    stream_tokens,
    streams_tokens,
)

if TYPE_CHECKING:
    from ..significance.extra_columns import ExtraColumns
    from ..significance.multimetric import ExternalScoresArgument, MetricRows
    from ..significance.scoring import BatchScorer



@dataclass
class ReportInputs:
    """The texts of a report: references, systems, and optional source and documents."""

    references: list[list[Optional[str]]]
    reference_names: list[str]
    systems: list[list[str]]
    system_names: list[str]
    source: Optional[list[str]] = None
    doc_ids: Optional[list[str]] = None

    def __post_init__(self) -> None:
        if not self.systems:
            raise ValueError("a report needs at least one system")
        if not self.references:
            raise ValueError("a report needs at least one reference")
        if len(self.system_names) != len(self.systems):
            raise ValueError("one name per system is needed")
        if len(set(self.system_names)) != len(self.system_names):
            raise ValueError("system names must be unique: "
                             + ", ".join(sorted(self.system_names)))
        if len(self.reference_names) != len(self.references):
            raise ValueError("one name per reference is needed")
        n = len(self.references[0])
        streams: list[tuple[str, Sequence[Optional[str]]]] = list(zip(self.system_names,
                                                                      self.systems))
        streams += [(name, s) for name, s in zip(self.reference_names, self.references)]
        if self.source is not None:
            streams.append(("source", self.source))
        if self.doc_ids is not None:
            streams.append(("document ids", self.doc_ids))
        wrong = [f"{name} has {len(s)}" for name, s in streams if len(s) != n]
        if wrong:
            raise ValueError(f"every input must have one line per segment ({n} in "
                             f"{self.reference_names[0]}), but " + ", ".join(wrong))

    @property
    def n_segments(self) -> int:
        return len(self.references[0])


@dataclass
class SystemResult:
    name: str
    statistics: RowTable  # BLEU's rows (a metrics.bleu.statistics.Statistics)
    corpus: BLEUScore
    sentence_bleu: list[float]
    bleu_without: list[float]
    tokens: Tokens  # the hypotheses' BLEU tokens
    ci_mean: float = float("nan")
    ci_half_width: float = float("nan")
    rank: int = 1
    cluster: int = 1


@dataclass
class ReportData:
    inputs: ReportInputs
    metric: BLEU
    signature: str
    sentence_signature: str
    systems: list[SystemResult]
    reference_tokens: list[Tokens]
    significance: dict[str, Any]
    documents: Optional[dict[str, Any]]
    buckets: dict[str, Any]
    options: dict[str, Any] = field(default_factory=dict)
    #: every metric chosen (``metrics=``/``scores=``), as :func:`.metrics_model.metrics_payload`
    #: gives it; None: the BLEU-only report
    metrics: Optional[dict[str, Any]] = None
    #: each metric's rows and scorer, in ``metrics["list"]`` order (serve's paired tests)
    metric_rows: Optional[list[MetricRows]] = None

    def payload(self) -> dict[str, Any]:
        """The document the page reads (columnar): JSON's types, but for each system's
        ``stats``, its row table's ``array.array`` as it is (viewer/page.py sends the
        number columns as blocks of binary numbers, never as JSON)."""
        inputs = self.inputs
        order = self.metric.max_ngram_order
        document = {
            "format": 2,  # 2: the token columns as page_token_column gives them
            "tool": _tool_version(),
            "title": self.options.get("title") or "truebleu report",
            "options": {key: value for key, value in self.options.items() if key != "title"},
            "signature": self.signature,
            "sentence_signature": self.sentence_signature,
            "python_sum": "compensated" if _compensated_sum() else "sequential",
            "n_segments": inputs.n_segments,
            "max_order": order,
            "smoothing": {"method": self.metric.smooth_method,
                          "value": _smooth_value(self.metric)},
            "source": inputs.source,
            "references": [
                {"name": name, "text": stream, "tokens": _token_column(stream, tokens)}
                for name, stream, tokens in zip(inputs.reference_names, inputs.references,
                                                self.reference_tokens)],
            "systems": [_system_payload(s, text) for s, text in zip(self.systems, inputs.systems)],
            "significance": self.significance,
            "documents": self.documents,
            "buckets": self.buckets,
        }
        if self.metrics is not None:
            document["metrics"] = self.metrics
        return document


def _tool_version() -> str:
    from .._version import __version__

    return f"truebleu {__version__}"


def _compensated_sum() -> bool:
    import sys

    return sys.version_info >= (3, 12)


def _smooth_value(metric: BLEU) -> Optional[float]:
    from ..metrics.bleu.config import SMOOTH_DEFAULTS

    value = metric.smooth_value
    return SMOOTH_DEFAULTS[metric.smooth_method] if value is None else float(value)


def _token_column(texts: Sequence[Optional[str]], tokens: Tokens) -> list[PageTokens]:
    """The tokens as the page reads them (:func:`.tokens.page_token_column`; made with
    the tokens where the core made them)."""
    return tokens.page_column(texts)


def _finite(value: float) -> Optional[float]:
    return value if math.isfinite(value) else None


def _system_payload(result: SystemResult, text: list[str]) -> dict[str, Any]:
    score = result.corpus
    return {
        "name": result.name,
        "text": text,
        "tokens": _token_column(text, result.tokens),
        "stats": result.statistics.data,  # (an array: viewer/page.py's block reads it as it is)
        "sentence_bleu": result.sentence_bleu,
        "bleu_without": result.bleu_without,
        "corpus": {
            "score": score.score, "precisions": list(score.precisions), "bp": score.bp,
            "ratio": score.ratio, "sys_len": score.sys_len, "ref_len": score.ref_len,
            "counts": list(score.counts), "totals": list(score.totals),
            "ci_mean": _finite(result.ci_mean), "ci": _finite(result.ci_half_width),
            "rank": result.rank, "cluster": result.cluster,
        },
    }


# -- computing ----------------------------------------------------------------

def build_report_data(inputs: ReportInputs, bleu_options: Optional[dict[str, Any]] = None, *,
                      seed: int = 12345, n_samples: int = 1000, test: str = "bs",
                      options: Optional[dict[str, Any]] = None,
                      metrics: Optional[Sequence[MetricChoice]] = None,
                      scores: Optional[ExternalScoresArgument] = None,
                      higher_is_better: Optional[Mapping[str, bool]] = None,
                      gold: Optional[str] = None, n_permutations: int = 1000) -> ReportData:
    """Score every system and derive everything the views need.

    ``bleu_options`` are :class:`truebleu.BLEU`'s keyword arguments; sentence
    BLEU uses the same ones with ``effective_order=True``. ``metrics`` (names or
    metric objects) and ``scores`` (computed elsewhere) add every metric's
    scores, tests and agreement (:mod:`.metrics_model`); ``gold`` names the
    metric the others are measured against, ``n_permutations`` its tests.
    """
    from ..significance.native import scored_int_rows

    check_report(n_samples, inputs.n_segments, len(inputs.systems), test=test)
    bleu_options = {"force": True, **(bleu_options or {})}
    references = [list(stream) for stream in inputs.references]
    metric = BLEU(**bleu_options)  # the settings; with the references only where needed
    vocabulary = Vocabulary()  # the words of every stream (the buckets read the first reference's)

    def tokens(lines: Sequence[Optional[str]], words: Optional[Vocabulary] = vocabulary) -> Tokens:
        return stream_tokens(lines, metric.kernel, metric.tokenizer, metric.lowercase, words)

    found = _statistics_of_tokens(inputs, references, metric, vocabulary)
    if found is None:  # the references prepared, the systems tokenized for their rows
        metric_refs = BLEU(**bleu_options, references=references)
        # every system's rows in one call of the kernel where it has one (BLEU's native:
        # each segment's references counted once for all systems)
        all_statistics = metric_refs.systems_statistics(inputs.systems)
        system_tokens = [tokens(hyps) for hyps in inputs.systems]
        reference_tokens = [tokens(stream, vocabulary if k == 0 else None)
                            for k, stream in enumerate(references)]
    else:  # counted on the page's tokens' ids
        system_tokens, reference_tokens, all_statistics = found
        metric.num_refs = len(references)
        # the other metrics take BLEU's references from the BLEU they are given
        metric_refs = (metric if metrics is None and scores is None
                       else BLEU(**bleu_options, references=references))
    sentence = metric_refs.batch_scorer(effective_order=True)
    corpus_scorer = metric_refs.batch_scorer()
    systems = []
    with Progress(len(inputs.systems), "scoring systems", "systems") as bar:
        for name, stats, hyp_tokens in zip(inputs.system_names, all_statistics, system_tokens):
            matrix = stats.to_numpy()
            corpus = metric_refs.score_from_statistics(stats.sum())
            systems.append(SystemResult(
                name=name, statistics=stats, corpus=corpus,
                sentence_bleu=scored_int_rows(sentence, matrix),
                bleu_without=scored_int_rows(corpus_scorer, matrix.sum(axis=0) - matrix),
                tokens=hyp_tokens))
            bar.update()

    # the frequency buckets' counts first: the significance test's core pass sums them on
    # its own draws, which are theirs too (the same seed and n_samples), where both run there
    frequency = frequency_counts(reference_tokens[0], systems)
    shared = frequency.shared_columns(seed)
    significance = _significance(systems, corpus_scorer, seed, n_samples, test, shared)
    documents = _documents(inputs.doc_ids, systems, metric_refs)
    buckets = {
        "length": length_buckets(reference_tokens[0], systems, corpus_scorer, seed, n_samples),
        "frequency": frequency.buckets(seed, n_samples, shared),
    }
    signature = metric_refs.get_signature().format()
    sentence_metric = BLEU(**{**bleu_options, "effective_order": True})
    sentence_metric.num_refs = metric_refs.num_refs
    every_metric = metric_rows = None
    if metrics is not None or scores is not None:
        every_metric, metric_rows = metrics_payload(
            dict(zip(inputs.system_names, inputs.systems)),
            metric_objects(metrics or (), references, metric_refs), own_bleu=metric_refs,
            references=references,
            scores=scores,
            higher_is_better=higher_is_better, gold=gold, test=test, n_samples=n_samples,
            seed=seed, n_permutations=n_permutations,
            document_index=documents["index"] if documents is not None else None)
    return ReportData(inputs, metric_refs, signature, sentence_metric.get_signature().format(),
                      systems, reference_tokens, significance, documents, buckets,
                      options=dict(options or {}), metrics=every_metric, metric_rows=metric_rows)


def _statistics_of_tokens(inputs: ReportInputs, references: list[list[Optional[str]]], metric: BLEU,
                          vocabulary: Vocabulary
                          ) -> Optional[tuple[list[Tokens], list[Tokens], list[RowTable]]]:
    """(each system's tokens, each reference's, each system's BLEU rows), the rows counted
    on the tokens' word ids (:func:`.tokens.statistics_of_tokens`): each stream tokenized
    once, for the page and the rows alike, the streams side by side on the metric's
    threads (:func:`.tokens.streams_tokens`). None where that cannot be: the core does not
    tokenize (Python's tokenizers, the Python backend), a segment has no reference in some
    stream, a hypothesis or reference is not a str (then the references are prepared and
    the systems scored as any BLEU scores them, which raises the errors it always has),
    or ``force=False`` (the systems' " ." lines warned about as every BLEU call does)."""
    if (not metric.force or _core_mode(metric.kernel, metric.tokenizer) is None
            or any(None in stream for stream in references)):
        return None
    try:
        every = streams_tokens([*inputs.systems, *references], metric.kernel, metric.tokenizer,
                               metric.lowercase, vocabulary, metric.threads)
    except TypeError:
        return None
    system_tokens, reference_tokens = every[:len(inputs.systems)], every[len(inputs.systems):]
    order, threads = metric.max_ngram_order, metric.threads
    rows: list[RowTable] = []
    for hyps in system_tokens:
        table = statistics_of_tokens(hyps, reference_tokens, metric.kernel, order, threads)
        if table is None:
            return None
        rows.append(table)
    return system_tokens, reference_tokens, rows


def report_cost(n_samples: int, n_segments: int, n_systems: int, test: str = "bs") -> Cost:
    """What :func:`build_report_data`'s resampling takes, one step after the other.

    The intervals and tests (:func:`truebleu.significance.compare_all`, or one
    system's interval), then the length buckets (one bootstrap of every system
    per bucket: the buckets' segments add up to all of them), then the frequency
    buckets (18 sums per sample and system, kept until sorted; one system's
    F-measures and their temporaries at a time; a block of 4,000,000 weights).
    """
    from ..significance.preconditions import bootstrap_cost, comparison_cost

    tests = (bootstrap_cost(n_samples, n_segments, 1) if n_systems == 1
             else comparison_cost(test, n_samples, n_segments, n_systems))
    width = 3 * len(FREQUENCY_BUCKETS)
    frequency = Cost(n_samples * width * 8 * (n_systems + 6) + 4 * 4_000_000 * 8,
                     n_samples * n_segments * n_systems)
    return tests.then(bootstrap_cost(n_samples, n_segments, n_systems)).then(frequency)


def check_report(n_samples: int, n_segments: int, n_systems: int, option: str = "n_samples",
                 test: str = "bs") -> None:
    """The report's resource check, on sizes alone: before any system is scored.

    (Fewer than two segments is no error: the report then has no intervals or
    tests, and says so.)
    """
    from ..significance.paired import check_samples
    from ..significance.preconditions import MIN_SEGMENTS, check_test

    check_samples(n_samples, option)
    if n_segments >= MIN_SEGMENTS:
        check_test(report_cost(n_samples, n_segments, n_systems, test), option, n_samples,
                   "the report's bootstrap", n_segments, n_systems)


def no_power_note(n_segments: int) -> str:
    """What the report says instead of intervals and tests on too few segments."""
    from ..significance.preconditions import MIN_SEGMENTS

    return (f"No confidence intervals or significance tests: they need at least "
            f"{MIN_SEGMENTS} segments to resample, and this report has {n_segments}.")


def _significance(systems: list[SystemResult], scorer: BatchScorer, seed: int, n_samples: int,
                  test: str, shared: Optional[ExtraColumns] = None) -> dict[str, Any]:
    """Bootstrap CIs for every system and, with two or more, all-pairs tests and clusters
    (whose core pass, where it runs, also sums ``shared``'s columns: the frequency buckets')."""
    from ..significance import bootstrap_ci, compare_all
    from ..significance.multi import compare_all_with_columns
    from ..significance.preconditions import MIN_SEGMENTS

    n_segments = len(systems[0].statistics)
    if n_segments < MIN_SEGMENTS:  # no power: ranks by score, one cluster, and a note
        order = sorted(range(len(systems)), key=lambda k: -systems[k].corpus.score)
        for rank, k in enumerate(order, start=1):
            systems[k].rank, systems[k].cluster = rank, 1
        return {"test": None, "n_samples": n_samples, "seed": seed, "pairs": [],
                "clusters": [order], "note": no_power_note(n_segments)}
    if len(systems) == 1:
        ci = bootstrap_ci(systems[0].statistics, scorer, n_samples, seed=seed)
        systems[0].ci_mean, systems[0].ci_half_width = ci.mean, ci.ci
        return {"test": None, "n_samples": n_samples, "seed": seed, "pairs": [], "clusters": [[0]]}
    named = [(s.name, s.statistics) for s in systems]
    result = (compare_all(named, scorer, test=test, n_samples=n_samples, seed=seed)
              if shared is None else
              compare_all_with_columns(shared, named, scorer, test, n_samples, seed))
    index = {s.name: k for k, s in enumerate(systems)}
    for summary in result.systems:
        s = systems[index[summary.name]]
        s.ci_mean, s.ci_half_width = summary.mean, summary.ci
        s.rank, s.cluster = summary.rank, summary.cluster
    return {
        "test": test, "n_samples": n_samples, "seed": seed, "alpha": result.alpha,
        "statistic": result.statistic,
        # [better, worse, p-value]: index pairs into "systems"
        "pairs": [[index[p.a], index[p.b], p.p_value] for p in result.pairs],
        "clusters": [[index[name] for name in c.members] for c in result.clusters],
    }


def _documents(doc_ids: Optional[list[str]], systems: list[SystemResult],
               metric: BLEU) -> Optional[dict[str, Any]]:
    """Document names in order of first appearance, each segment's document, BLEU per document."""
    from ..core.lazy_numpy import numpy

    if doc_ids is None:
        return None
    np = numpy()
    names: dict[str, int] = {}
    index = [names.setdefault(doc, len(names)) for doc in doc_ids]
    rows = np.asarray(index, dtype=np.int64)
    scores = []
    for s in systems:
        matrix = s.statistics.to_numpy()
        sums = np.zeros((len(names), matrix.shape[1]), dtype=matrix.dtype)
        np.add.at(sums, rows, matrix)  # exact: integer counts
        scores.append([metric.score_from_statistics(row).score for row in sums.tolist()])
    return {"names": list(names), "index": index, "bleu": scores}
