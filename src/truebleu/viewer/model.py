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
from .metrics_model import MetricChoice, metric_objects, metrics_payload

if TYPE_CHECKING:
    from numpy.typing import NDArray

    from ..significance.multimetric import ExternalScoresArgument
    from ..significance.scoring import BatchScorer

#: reference-length buckets (tokens of the first reference): lower bounds
LENGTH_BUCKETS = (0, 10, 20, 30, 40, 50)
#: word-frequency buckets (occurrences in the reference corpus): lower bounds
FREQUENCY_BUCKETS = (1, 2, 4, 10, 100, 1000)


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
    tokens: list[Optional[list[str]]]
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
    reference_tokens: list[list[Optional[list[str]]]]
    significance: dict[str, Any]
    documents: Optional[dict[str, Any]]
    buckets: dict[str, Any]
    options: dict[str, Any] = field(default_factory=dict)
    #: every metric chosen (``metrics=``/``scores=``), as :func:`.metrics_model.metrics_payload`
    #: gives it; None: the BLEU-only report
    metrics: Optional[dict[str, Any]] = None

    def payload(self) -> dict[str, Any]:
        """The JSON-ready document the page reads (columnar)."""
        inputs = self.inputs
        order = self.metric.max_ngram_order
        document = {
            "format": 1,
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


def _token_column(texts: Sequence[Optional[str]], tokens: Sequence[Optional[list[str]]]
                  ) -> list[Optional[str]]:
    """Tokenized segments joined by one space; ``None`` where that equals the text itself."""
    column: list[Optional[str]] = []
    for text, toks in zip(texts, tokens):
        if toks is None:
            column.append(None)
            continue
        joined = " ".join(toks)
        column.append(None if joined == text else joined)
    return column


def _finite(value: float) -> Optional[float]:
    return value if math.isfinite(value) else None


def _system_payload(result: SystemResult, text: list[str]) -> dict[str, Any]:
    score = result.corpus
    return {
        "name": result.name,
        "text": text,
        "tokens": _token_column(text, result.tokens),
        "stats": result.statistics.data.tolist(),
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
    check_report(n_samples, inputs.n_segments, len(inputs.systems), test=test)
    bleu_options = {"force": True, **(bleu_options or {})}
    references = [list(stream) for stream in inputs.references]
    metric_refs = BLEU(**bleu_options, references=references)
    sentence = metric_refs.batch_scorer(effective_order=True)
    corpus_scorer = metric_refs.batch_scorer()
    kernel = metric_refs.kernel

    def tokens(lines: Sequence[Optional[str]]) -> list[Optional[list[str]]]:
        present = [line for line in lines if line is not None]
        found = iter(kernel.tokens(present, metric_refs.tokenizer, metric_refs.lowercase))
        return [None if line is None else next(found) for line in lines]

    systems = []
    with Progress(len(inputs.systems), "scoring systems", "systems") as bar:
        for name, hyps in zip(inputs.system_names, inputs.systems):
            stats = metric_refs.corpus_statistics(hyps)
            matrix = stats.to_numpy()
            corpus = metric_refs.score_from_statistics(stats.sum())
            systems.append(SystemResult(
                name=name, statistics=stats, corpus=corpus,
                sentence_bleu=sentence.score_rows(matrix).tolist(),
                bleu_without=corpus_scorer.score_rows(matrix.sum(axis=0) - matrix).tolist(),
                tokens=tokens(hyps)))
            bar.update()

    reference_tokens = [tokens(stream) for stream in references]
    significance = _significance(systems, corpus_scorer, seed, n_samples, test)
    documents = _documents(inputs.doc_ids, systems, metric_refs)
    buckets = {
        "length": _length_buckets(reference_tokens[0], systems, corpus_scorer, seed, n_samples),
        "frequency": _frequency_buckets(reference_tokens[0], systems, seed, n_samples),
    }
    signature = metric_refs.get_signature().format()
    sentence_metric = BLEU(**{**bleu_options, "effective_order": True})
    sentence_metric.num_refs = metric_refs.num_refs
    every_metric = None
    if metrics is not None or scores is not None:
        every_metric = metrics_payload(
            dict(zip(inputs.system_names, inputs.systems)),
            metric_objects(metrics or (), references, metric_refs), own_bleu=metric_refs,
            references=references,
            scores=scores,
            higher_is_better=higher_is_better, gold=gold, test=test, n_samples=n_samples,
            seed=seed, n_permutations=n_permutations)
    return ReportData(inputs, metric_refs, signature, sentence_metric.get_signature().format(),
                      systems, reference_tokens, significance, documents, buckets,
                      options=dict(options or {}), metrics=every_metric)


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
                  test: str) -> dict[str, Any]:
    """Bootstrap CIs for every system and, with two or more, all-pairs tests and clusters."""
    from ..significance import bootstrap_ci, compare_all
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
    result = compare_all([(s.name, s.statistics) for s in systems], scorer, test=test,
                         n_samples=n_samples, seed=seed)
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
    if doc_ids is None:
        return None
    names: dict[str, int] = {}
    index = [names.setdefault(doc, len(names)) for doc in doc_ids]
    width = systems[0].statistics.width
    scores = []
    for s in systems:
        sums: list[list[float]] = [[0] * width for _ in names]
        for doc, row in zip(index, s.statistics.rows()):
            total = sums[doc]
            for col, value in enumerate(row):
                total[col] += value
        scores.append([metric.score_from_statistics(row).score for row in sums])
    return {"names": list(names), "index": index, "bleu": scores}


def _length_buckets(ref_tokens: list[Optional[list[str]]], systems: list[SystemResult],
                    scorer: BatchScorer, seed: int, n_samples: int) -> dict[str, Any]:
    """Corpus BLEU of each system per reference-length bucket, with bootstrap CIs.

    Each interval is :func:`truebleu.significance.bootstrap_ci` of that system
    on that bucket's segments with ``seed``; since those resamples depend only
    on the seed and the bucket's size, one set of resamples serves every system.
    """
    from ..core.lazy_numpy import numpy
    from ..significance.paired import bootstrap_scores, interval, score_of
    from ..significance.preconditions import MIN_SEGMENTS
    from ..significance.resampling import bootstrap_draws, make_rng

    np = numpy()
    lengths = [0 if toks is None else len(toks) for toks in ref_tokens]
    members = _bucket_members(lengths, LENGTH_BUCKETS)
    matrices = [s.statistics.to_numpy() for s in systems]
    bleu: list[list[Optional[float]]] = [[None] * len(members) for _ in systems]
    ci: list[list[Optional[float]]] = [[None] * len(members) for _ in systems]
    resampled = [b for b, rows in enumerate(members) if len(rows) >= MIN_SEGMENTS]
    with Progress(n_samples * len(resampled), "length buckets", "samples") as bar:
        for b, rows in enumerate(members):
            if not rows:
                continue
            subsets = [m[np.asarray(rows)] for m in matrices]
            for k, subset in enumerate(subsets):
                bleu[k][b] = score_of(subset, scorer)
            if b not in resampled:
                continue  # no interval from one segment (its width would be 0)
            # drawn block by block: the same samples as all at once, in bounded memory
            table = bootstrap_scores(bootstrap_draws(make_rng(seed), len(rows), n_samples),
                                     subsets, scorer, bar)
            for k in range(len(subsets)):
                ci[k][b] = float(interval(table[:, k])[1])
    return {"labels": _bucket_labels(LENGTH_BUCKETS), "segments": [len(m) for m in members],
            "bleu": bleu, "ci": ci}


def _frequency_buckets(ref_tokens: list[Optional[list[str]]], systems: list[SystemResult],
                       seed: int, n_samples: int) -> dict[str, Any]:
    """Word F-measure per frequency bucket (compare-mt's analysis), with bootstrap CIs.

    A word's frequency is its number of occurrences in the (first) reference
    stream; a hypothesis word absent from it falls in the first bucket. Per
    segment and word, ``min(hyp count, ref count)`` occurrences are matched.
    The intervals resample segments (the same resamples for every system).
    """
    from ..core.lazy_numpy import numpy
    from ..significance.resampling import bootstrap_indices, make_rng, sample_counts

    np = numpy()
    vocabulary: dict[str, int] = {}
    n, n_buckets = len(ref_tokens), len(FREQUENCY_BUCKETS)

    def pairs(token_lists: Sequence[Optional[list[str]]]) -> tuple[NDArray[Any], NDArray[Any]]:
        """(segment, word id) of every token, as two int64 arrays."""
        segs = [i for i, toks in enumerate(token_lists) if toks for _ in toks]
        ids = [vocabulary.setdefault(t, len(vocabulary)) for toks in token_lists if toks for t in toks]
        return np.asarray(segs, dtype=np.int64), np.asarray(ids, dtype=np.int64)

    ref_segs, ref_ids = pairs(ref_tokens)
    system_pairs = [pairs(s.tokens) for s in systems]
    size = max(len(vocabulary), 1)
    frequency = np.bincount(ref_ids, minlength=size)
    word_bucket = np.searchsorted(np.asarray(FREQUENCY_BUCKETS), np.maximum(frequency, 1),
                                  side="right") - 1
    ref_keys, ref_count = np.unique(ref_segs * size + ref_ids, return_counts=True)
    ref_column = np.zeros((n, n_buckets), dtype=np.int64)
    np.add.at(ref_column, (ref_keys // size, word_bucket[ref_keys % size]), ref_count)

    all_counts = []
    for segs, ids in system_pairs:
        keys, hyp_count = np.unique(segs * size + ids, return_counts=True)
        where = np.searchsorted(ref_keys, keys)
        found = where < len(ref_keys)
        found[found] = ref_keys[where[found]] == keys[found]
        in_ref = np.zeros(len(keys), dtype=np.int64)
        in_ref[found] = ref_count[where[found]]
        counts = np.zeros((n, n_buckets, 3), dtype=np.int64)  # matched, hyp, ref
        rows, buckets = keys // size, word_bucket[keys % size]
        np.add.at(counts, (rows, buckets, 0), np.minimum(hyp_count, in_ref))
        np.add.at(counts, (rows, buckets, 1), hyp_count)
        counts[:, :, 2] = ref_column
        all_counts.append(counts.reshape(n, -1))
    f = [_nullable(_f_measure(c.sum(axis=0).reshape(n_buckets, 3))) for c in all_counts]
    # float64 products run on BLAS; every count and sum stays an exact integer below 2**53
    all_counts = [c.astype(np.float64) for c in all_counts]
    ci: list[list[Optional[float]]] = [[None] * n_buckets for _ in all_counts]
    if n >= 2:  # (no interval from one segment)
        # the same resamples of segments for every system, drawn in blocks to bound memory
        resampled: list[list[NDArray[Any]]] = [[] for _ in all_counts]
        rng = make_rng(seed)
        block = max(1, min(n_samples, 4_000_000 // n))
        with Progress(n_samples, "frequency buckets", "samples") as bar:
            for start in range(0, n_samples, block):
                rows = min(block, n_samples - start)
                weights = sample_counts(bootstrap_indices(rng, n, rows), n).astype(np.float64)
                for k, flat in enumerate(all_counts):
                    resampled[k].append(weights @ flat)
                bar.update(rows)
        lower = n_samples // 40
        for k, parts in enumerate(resampled):
            fs = np.sort(_f_measure(np.concatenate(parts).reshape(n_samples, n_buckets, 3)), axis=0)
            ci[k] = _nullable(0.5 * (fs[n_samples - lower - 1] - fs[lower]))
    return {"labels": _bucket_labels(FREQUENCY_BUCKETS), "f": f, "ci": ci,
            "ref_words": ref_column.sum(axis=0).tolist(), "n_samples": n_samples}


def _nullable(values: NDArray[Any]) -> list[Optional[float]]:
    return [None if v != v else float(v) for v in values.tolist()]


def _f_measure(counts: NDArray[Any]) -> NDArray[Any]:
    """F1 (in percent) from ``[..., bucket, (matched, hyp, ref)]`` counts; NaN where undefined."""
    from ..core.lazy_numpy import numpy

    np = numpy()
    matched, hyp, ref = (counts[..., k].astype(np.float64) for k in range(3))
    with np.errstate(divide="ignore", invalid="ignore"):
        precision = matched / hyp
        recall = matched / ref
        f = 200.0 * precision * recall / (precision + recall)
    f = np.where((hyp == 0) & (ref == 0), np.nan, f)
    return np.where(np.isnan(f) & ~((hyp == 0) & (ref == 0)), 0.0, f)


def _bucket_members(values: Sequence[int], bounds: Sequence[int]) -> list[list[int]]:
    members: list[list[int]] = [[] for _ in bounds]
    for i, value in enumerate(values):
        k = len(bounds) - 1
        while k > 0 and value < bounds[k]:
            k -= 1
        members[k].append(i)
    return members


def _bucket_labels(bounds: Sequence[int]) -> list[str]:
    labels = []
    for k, low in enumerate(bounds):
        if k + 1 < len(bounds):
            high = bounds[k + 1] - 1
            labels.append(str(low) if high == low else f"{low}-{high}")
        else:
            labels.append(f"{low}+")
    return labels
