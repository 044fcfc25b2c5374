"""sacreBLEU's ``-pbs``/``-par`` report: every system against the baseline, as a table."""

from __future__ import annotations

from ..significance.compat import Seed, paired_cells
from .table import results_table


def paired_test_report(named_systems: list[tuple[str, list[str]]], metric, test_type: str,
                       n_samples: int, fmt: str = "text", width: int = 1, short: bool = False,
                       seed: Seed = None) -> str:
    """The whole stdout of ``sacrebleu REF -i SYS... -pbs|-par`` (ends with a newline).

    ``named_systems[0]`` is the baseline, already named ``Baseline: ...``;
    ``metric`` holds the references: one metric object, or a list of them
    (``-m bleu chrf ter``: one column each, in the given order). Every metric
    draws the same samples, as in sacreBLEU. Write the result with
    ``sys.stdout.write``.
    """
    metrics = list(metric) if isinstance(metric, (list, tuple)) else [metric]
    scores: dict = {"System": [n for n, _ in named_systems]}
    signatures = {}
    for each in metrics:
        seed_text, cells = paired_cells(named_systems, each, test_type, n_samples, seed)
        signature = each.get_signature()
        signature.update("seed", seed_text)
        signature.update(test_type, n_samples)
        name = getattr(each, "name", None) or type(each).__name__  # BLEU, chrF2, TER
        scores[name] = cells
        signatures[name] = signature.format(short)
    text = results_table(scores, signatures, fmt=fmt, width=width,
                         paired=test_type, n_samples=n_samples)
    return text + "\n"
