"""Every public call that resamples, listed once for the hostile tests that must reach each.

``test_hostile_resources`` checks that each refuses too many samples before any work, naming
its argument; ``test_hostile_no_power`` that each refuses to resample a single segment. A new
function that resamples is added here, and both tests cover it.
"""

from __future__ import annotations

from typing import Any, Callable

from truebleu.metrics.bleu import BLEUBatchScorer
from truebleu.significance import (
    PairedTest,
    bootstrap_ci,
    compare_all,
    compare_sentences,
    compare_systems,
    paired_bootstrap,
    paired_cells,
    paired_randomization,
)
from truebleu.viewer import report as make_report

#: name -> (the argument that sets how many samples, a call taking that number)
Calls = dict[str, tuple[str, Callable[[int], Any]]]


def resampling_calls(metric: Any, references: list[str], hypotheses: dict[str, list[str]]) -> Calls:
    """Each call on systems "a", "b", "c" of ``hypotheses`` (``metric`` holds ``references``)."""
    scorer = BLEUBatchScorer.from_metric(metric)
    a, b, c = (metric.corpus_statistics(hypotheses[name]) for name in "abc")
    systems = [("a", hypotheses["a"]), ("b", hypotheses["b"])]
    return {
        "paired_bootstrap": ("n_samples", lambda n: paired_bootstrap(a, b, scorer, n)),
        "paired_randomization": ("n_trials", lambda n: paired_randomization(a, b, scorer, n)),
        "bootstrap_ci": ("n_samples", lambda n: bootstrap_ci(a, scorer, n)),
        "compare_all": ("n_samples", lambda n: compare_all({"a": a, "b": b, "c": c}, scorer,
                                                           n_samples=n)),
        "compare_all ar ci_samples": ("ci_samples", lambda n: compare_all(
            {"a": a, "b": b}, scorer, test="ar", n_samples=10, ci_samples=n)),
        "compare_systems": ("n_samples", lambda n: compare_systems(systems, metric, n_samples=n)),
        "compare_sentences": ("n_samples", lambda n: compare_sentences(a, b, scorer, n)),
        "corpus_score n_bootstrap": ("n_bootstrap", lambda n: metric.corpus_score(
            hypotheses["a"], n_bootstrap=n)),
        "paired_cells bs": ("n_samples", lambda n: paired_cells(systems, metric, "bs", n)),
        "paired_cells ar": ("n_samples", lambda n: paired_cells(systems, metric, "ar", n)),
        "PairedTest bs": ("n_samples", lambda n: PairedTest(systems, {"BLEU": metric}, None,
                                                            "bs", n)()),
        "PairedTest ar": ("n_samples", lambda n: PairedTest(systems, {"BLEU": metric}, None,
                                                            "ar", n)()),
        "viewer.report": ("n_samples", lambda n: make_report([references], {"a": hypotheses["a"]},
                                                             n_samples=n)),
    }


#: every name resampling_calls gives (for parametrize, which runs before any fixture)
NAMES = ["paired_bootstrap", "paired_randomization", "bootstrap_ci", "compare_all",
         "compare_all ar ci_samples", "compare_systems", "compare_sentences",
         "corpus_score n_bootstrap", "paired_cells bs", "paired_cells ar", "PairedTest bs",
         "PairedTest ar", "viewer.report"]
