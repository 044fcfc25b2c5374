"""The interactive viewer: every segment and every system, on truebleu's exact statistics.

``truebleu.viewer.report(references, systems, ...)`` scores the systems and
returns a :class:`Report`: ``report.save("report.html")`` writes one
self-contained HTML file (no network access when viewed, shareable by e-mail),
``report`` displays inline in Jupyter, and :func:`truebleu.viewer.server.serve`
shows it from a local server that also runs exact tests on demand. The command
line has ``truebleu report`` and ``truebleu serve``.

NumPy is needed (``pip install 'truebleu[stats]'``): confidence intervals and
significance clusters come from :mod:`truebleu.significance`.
"""

from __future__ import annotations

import html
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterator, Mapping, Optional, Sequence, Union

from .collector import collector_paused
from .early_gzip import EarlyTexts, start_early_texts
from .metrics_model import MetricChoice
from .model import ReportData, ReportInputs, build_report_data
from .page import encode_payload, page_pieces

if TYPE_CHECKING:
    from typing import TypedDict

    from ..significance.multimetric import ExternalScoresArgument
    from ..significance.scoring import BatchScorer

    class PairedTestResult(TypedDict):
        """:meth:`Report.paired_test`'s result (the page's ``serve`` mode shows the same)."""

        delta: float
        p: float
        n: int
        seed: Optional[int]
        segments: int
        score_a: float
        score_b: float
        metric: str
        where: str

__all__ = ["Report", "ReportInputs", "report"]

Systems = Union[Mapping[str, Sequence[str]], Sequence[Sequence[str]]]


class Report:
    """A computed report: its data, its HTML, and exact tests on any subset of segments."""

    def __init__(self, data: ReportData, early: Optional[EarlyTexts] = None) -> None:
        self.data = data
        self._payload: Optional[bytes] = None
        self._early = early  # its texts, deflated while it was computed (.early_gzip)

    @property
    def title(self) -> str:
        title: str = self.data.options.get("title") or "truebleu report"
        return title

    @property
    def system_names(self) -> list[str]:
        return list(self.data.inputs.system_names)

    def payload_bytes(self) -> bytes:
        """The data the page reads (:func:`.page.encode_payload`; computed once, without
        the cyclic collector's walks: :mod:`.collector`)."""
        if self._payload is None:
            with collector_paused():
                early, self._early = self._early, None
                self._payload = encode_payload(self.data.payload(), early)
        return self._payload

    def html(self, mode: str = "file") -> str:
        """The page; ``mode="serve"`` leaves the data out (the page fetches them)."""
        return b"".join(self._page_pieces(mode)).decode("utf-8")

    def _page_pieces(self, mode: str) -> Iterator[bytes]:
        """:meth:`html` as UTF-8 in pieces (:func:`.page.page_pieces`)."""
        from .._version import __version__

        return page_pieces(self.payload_bytes() if mode == "file" else None, title=self.title,
                           mode=mode, generator=f"truebleu {__version__}")

    def save(self, path: Union[str, Path], *,
             inputs: Sequence[Union[str, Path]] = ()) -> Path:
        """Write the self-contained HTML file; ``"-"`` writes it to standard output.

        Written by :func:`truebleu.io.output.output_file`: whole or not at all
        (a temporary file, then a rename), never over one of ``inputs`` (the
        files the report was read from), never replacing a FIFO or a device.
        """
        from ..io.output import output_file

        pieces = self._page_pieces("file")  # (the payload made before the file is opened)
        with output_file(path, inputs=inputs) as out:
            for piece in pieces:
                out.write(piece)
        return Path(path)

    def _repr_html_(self) -> str:
        """Jupyter: the page in a sandboxed frame (its own CSP; scripts, no same-origin)."""
        return (f'<iframe srcdoc="{html.escape(self.html(), quote=True)}" '
                'sandbox="allow-scripts allow-downloads" '
                'style="width:100%;height:820px;border:1px solid #ddd"></iframe>')

    @property
    def metric_names(self) -> list[str]:
        """The metrics :meth:`paired_test` can test: the report's BLEU and every one chosen."""
        chosen = [metric.name for metric in self.data.metric_rows or ()]
        return chosen if chosen else ["BLEU"]

    def paired_test(self, a: int, b: int, segments: Optional[Sequence[int]] = None, *,
                    n_samples: Optional[int] = None, seed: Optional[int] = None,
                    metric: Optional[str] = None) -> PairedTestResult:
        """Paired bootstrap of system ``b`` against ``a`` on ``segments`` (default: all),
        by ``metric`` (a name of :attr:`metric_names`; default: the report's BLEU).

        The numbers are :func:`truebleu.significance.paired_bootstrap`'s on the
        metric's own rows and scorer (an external metric's: its scores, their mean);
        the page shows them for the current filter in ``serve`` mode.
        """
        from ..significance import paired_bootstrap

        systems = self.data.systems
        for index in (a, b):
            if isinstance(index, bool) or not isinstance(index, int) or not 0 <= index < len(systems):
                raise ValueError(f"system index must be an integer in [0, {len(systems)}), got {index!r}")
        n = self.data.inputs.n_segments
        rows = list(range(n)) if segments is None else list(segments)
        if len(rows) < 1:
            raise ValueError("no segments to test")
        if any(isinstance(i, bool) or not isinstance(i, int) or not 0 <= i < n for i in rows):
            raise ValueError(f"segment indices must be integers in [0, {n})")
        significance = self.data.significance
        n_samples = significance["n_samples"] if n_samples is None else n_samples
        seed = significance["seed"] if seed is None else seed
        scorer: BatchScorer
        if metric is None:
            scorer = self.data.metric.batch_scorer()
            matrix_a = systems[a].statistics.to_numpy()[rows]
            matrix_b = systems[b].statistics.to_numpy()[rows]
            name = "BLEU"
        else:
            chosen = {m.name: m for m in self.data.metric_rows or ()}
            if metric not in chosen:
                raise ValueError(f"metric must be one of {', '.join(self.metric_names)}, "
                                 f"got {metric!r}")
            scorer = chosen[metric].scorer
            matrix_a, matrix_b = chosen[metric].rows[a][rows], chosen[metric].rows[b][rows]
            name = metric
        result = paired_bootstrap(matrix_a, matrix_b, scorer, n_samples=n_samples, seed=seed,
                                  names=(systems[a].name, systems[b].name))
        return {"delta": result.delta, "p": result.p_value, "n": result.n_samples, "seed": seed,
                "segments": len(rows), "score_a": result.score_a, "score_b": result.score_b,
                "metric": name, "where": "api"}


def report(references: Sequence[Sequence[Optional[str]]], systems: Systems, *,
           reference_names: Optional[Sequence[str]] = None, source: Optional[Sequence[str]] = None,
           doc_ids: Optional[Sequence[str]] = None, title: Optional[str] = None,
           seed: int = 12345, n_samples: int = 1000,
           metrics: Optional[Sequence[MetricChoice]] = None,
           scores: Optional[ExternalScoresArgument] = None,
           higher_is_better: Optional[Mapping[str, bool]] = None,
           gold: Optional[str] = None, n_permutations: int = 1000,
           **bleu_options: Any) -> Report:
    """Score ``systems`` against ``references`` and build the viewer's report.

    :param references: reference streams, as for :func:`truebleu.corpus_bleu`.
    :param systems: ``{name: lines}``, or a list of line lists (named "System 1", ...).
    :param source: the source segments (optional, shown and searchable).
    :param doc_ids: one document id per segment (optional: documents ranked by ΔBLEU).
    :param seed: seed of the bootstrap intervals and tests (numbers as ``truebleu.significance``).
    :param n_samples: bootstrap samples for intervals, clusters and tests.
    :param metrics: the metrics shown side by side (``["bleu", "chrf", "ter"]``, or metric
        objects holding the references, ``CHRF(word_order=2, references=refs)``): each one's
        scores, intervals, clusters and sentence scores, and how they agree. Default: the
        BLEU-only report.
    :param scores: scores computed elsewhere, ``{"COMET": {system: [one per segment]}}``
        (or a :class:`truebleu.core.segment_scores.SegmentScores`), shown as metrics.
    :param higher_is_better: an external metric's direction (default True).
    :param gold: the metric the others are measured against (human scores).
    :param n_permutations: permutations of each agreement test against ``gold``.
    :param bleu_options: :class:`truebleu.BLEU`'s keyword arguments (tokenize, lowercase, ...).
    """
    if isinstance(systems, Mapping):
        names, streams = list(systems), [list(s) for s in systems.values()]
    else:
        streams = [list(s) for s in systems]
        names = [f"System {k + 1}" for k in range(len(streams))]
    refs = [list(stream) for stream in references]
    inputs = ReportInputs(
        references=refs,
        reference_names=list(reference_names) if reference_names is not None
        else [f"ref{k + 1}" if len(refs) > 1 else "reference" for k in range(len(refs))],
        systems=streams, system_names=names,
        source=list(source) if source is not None else None,
        doc_ids=[str(doc) for doc in doc_ids] if doc_ids is not None else None)
    early = start_early_texts(inputs)
    try:
        data = build_report_data(inputs, bleu_options, seed=seed, n_samples=n_samples,
                                 options={"title": title, **_shown_options(bleu_options)},
                                 metrics=metrics, scores=scores,
                                 higher_is_better=higher_is_better, gold=gold,
                                 n_permutations=n_permutations)
    except BaseException:
        if early is not None:
            early.abandon()
        raise
    return Report(data, early)


def _shown_options(bleu_options: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in bleu_options.items()
            if key not in ("backend", "threads", "references") and value is not None}
