"""Every system of a WMT XML file against each of its references: one score per pair.

For reference *R*, the scored segments are those *R* covers with non-empty
text (so a second reference that covers only part of the test set is scored on
that part); a system output missing for such a segment counts as an empty
hypothesis (and is reported in the log). With a reference that covers the
segments sacreBLEU keeps, the score equals sacreBLEU's on the text files
extracted from the same file. With several references, a last column scores
against all of them together, on the segments that every one covers.
"""

from __future__ import annotations

from typing import Callable

from ..core.log import logger
from ..io.wmt_xml import WMTTestSet

__all__ = ["wmt_xml_scores"]


def wmt_xml_scores(testset: WMTTestSet, make_metric: Callable, width: int,
                   translators: list[str] | None = None,
                   systems: list[str] | None = None) -> tuple[dict, dict]:
    """``(scores, signatures)`` for :func:`truebleu.reports.table.results_table`.

    ``make_metric(references)`` builds the metric for one reference stream;
    columns are ``"<metric> (ref <translator>)"``, rows the systems.
    """
    translators = list(testset.references) if translators is None else translators
    systems = list(testset.systems) if systems is None else systems
    for translator in translators:
        if translator not in testset.references:
            raise ValueError(f"{testset.name}: no reference by {translator!r}; the file has "
                             f"{', '.join(testset.references) or 'none'}")
    for system in systems:
        if system not in testset.systems:
            raise ValueError(f"{testset.name}: no system {system!r}; the file has "
                             f"{', '.join(testset.systems) or 'none'}")
    if not systems:
        raise ValueError(f"{testset.name}: no system outputs (<hyp> documents) to score")
    scores: dict = {"System": systems}
    signatures: dict = {}
    reference_sets = [[translator] for translator in translators]
    if len(translators) > 1:
        reference_sets.append(list(translators))
    for chosen in reference_sets:
        streams = [testset.references[t] for t in chosen]
        covered = [i for i in range(len(testset)) if all(stream[i] for stream in streams)]
        metric = make_metric([[stream[i] for i in covered] for stream in streams])
        label = ("ref " if len(chosen) == 1 else "refs ") + "+".join(t or "-" for t in chosen)
        for system in systems:
            outputs = testset.systems[system]
            missing = sum(outputs[i] is None for i in covered)
            if missing:
                logger.warning("%s: %s lacks %d of the %d segments of %s; they count as empty",
                               testset.name, system, missing, len(covered), label)
            score = metric.corpus_score([outputs[i] or "" for i in covered], None)
            column = f"{score.name} ({label})"
            scores.setdefault(column, []).append(score.format(width, True))
            signatures[column] = metric.get_signature()
    return scores, signatures
