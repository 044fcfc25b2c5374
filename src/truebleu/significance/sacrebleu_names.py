"""sacreBLEU's names in ``sacrebleu.significance``: ``Result``, ``estimate_ci``, ``PairedTest``.

Thin, on :mod:`.compat` (which computes sacreBLEU's numbers for the same seed):
code written for ``sacrebleu.significance`` keeps working after
``sacrebleu`` -> ``truebleu`` in its imports. Differences, documented:
``n_jobs`` is accepted and ignored (the tests are vectorised), an AR test with
``n_ar_confidence > 0`` (bootstrap intervals beside AR; off by default and
never used by sacreBLEU's command line) is refused with a ValueError, and seed
0 is a seed like any other (sacreBLEU draws fresh entropy for it).
"""

from __future__ import annotations

from typing import Any, Mapping, Optional, Sequence, Union

from .compat import PairedCell, paired_cells
from .paired import interval

__all__ = ["Result", "estimate_ci", "PairedTest"]

# one system's cell: score, p_value, mean, ci (sacreBLEU's attributes, in its order)
Result = PairedCell


def estimate_ci(scores) -> tuple[float, float]:
    """(mean, half the 2.5%-97.5% spread) of bootstrap ``scores``, as sacreBLEU computes them."""
    return interval(scores)


class _WithReferences:
    """A metric that scores against explicitly given references (attributes delegated)."""

    def __init__(self, metric, references) -> None:
        self._metric, self._references = metric, references

    def corpus_statistics(self, hypotheses):
        return self._metric.corpus_statistics(hypotheses, self._references)

    def systems_statistics(self, systems):
        """Every system against the given references: in one call of the metric's kernel
        where it has one (:meth:`truebleu.metrics.base.Metric.systems_statistics`)."""
        method = getattr(self._metric, "systems_statistics", None)
        if method is None:  # (an object with corpus_statistics only)
            return [self.corpus_statistics(hypotheses) for hypotheses in systems]
        return method(systems, self._references)

    def __getattr__(self, name):
        return getattr(self._metric, name)


class PairedTest:
    """Every system against the first (the baseline): sacreBLEU's ``PairedTest``.

    ``PairedTest(named_systems, {"BLEU": bleu}, references=None, test_type="bs",
    n_samples=0)()`` returns ``(signatures, scores)``: signatures by metric name,
    and ``scores["System"]`` (the names) with one list of :class:`Result` per metric.
    ``n_samples=0`` means the default (1000 for ``bs``, 10000 for ``ar``); the seed
    is ``$SACREBLEU_SEED``, else 12345 (``none``: fresh entropy).
    """

    _DEFAULT_SAMPLES = {"ar": 10000, "bs": 1000}

    def __init__(self, named_systems: Sequence[tuple[str, Sequence[str]]],
                 metrics: Mapping[str, Any],
                 references: Optional[Sequence[Sequence[str]]],
                 test_type: str = "ar", n_samples: int = 0, n_ar_confidence: int = -1,
                 n_jobs: int = 1) -> None:
        if test_type not in self._DEFAULT_SAMPLES:
            raise ValueError(f"Unknown test type {test_type!r}; use 'ar' or 'bs'")
        if test_type == "ar" and n_ar_confidence not in (-1,):
            raise ValueError("truebleu's PairedTest has no bootstrap intervals beside the AR "
                             "test (n_ar_confidence must be -1)")
        if len(named_systems) < 2:
            raise ValueError("paired tests need a baseline and at least one other system")
        self.test_type = test_type
        self.named_systems = list(named_systems)
        self.references = references
        self.n_samples = n_samples if n_samples > 0 else self._DEFAULT_SAMPLES[test_type]
        self.n_ar_confidence = n_ar_confidence
        self.n_jobs = n_jobs
        self.n_systems = len(self.named_systems) - 1
        self.metrics = dict(metrics)

    def __call__(self) -> tuple[dict[str, Any], dict[str, Union[list[str], list[PairedCell]]]]:
        signatures: dict[str, Any] = {}
        scores: dict[str, Union[list[str], list[PairedCell]]] = {
            "System": [name for name, _ in self.named_systems]}
        for metric in self.metrics.values():
            used = metric if self.references is None else _WithReferences(metric, self.references)
            seed_text, cells = paired_cells(self.named_systems, used, self.test_type,
                                            self.n_samples)
            name = metric.corpus_score(self.named_systems[0][1], self.references).name
            signature = metric.get_signature()
            signature.update("seed", seed_text)
            signature.update(self.test_type, self.n_samples)
            signatures[name] = signature
            scores[name] = cells
        return signatures, scores
