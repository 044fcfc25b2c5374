"""``--scores NAME=FILE`` and its companions, shared by ``compare``, ``report`` and ``serve``.

Scores computed elsewhere (COMET, MetricX, human DA/MQM) come with their files
(``--scores``, ``--system-scores``), their direction (``--higher-is-better`` /
``--lower-is-better``) and, optionally, the gold metric the others are measured
against (``--gold``). The flags are defined, checked and read here once, so that
every command spells them, explains them and rejects them the same way.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any, Optional, Sequence

from .options import UsageError

if TYPE_CHECKING:
    from ..core.segment_scores import SegmentScores
    from ..metrics.base import Metric
    from .options import Parser

__all__ = ["ExternalScoreFiles", "add_external_score_arguments", "gold_metric",
           "read_external_scores"]


def add_external_score_arguments(group: Parser, systems_named_by: str) -> None:
    """``--scores``, ``--system-scores``, ``--higher-is-better``, ``--lower-is-better``
    and ``--gold``; ``systems_named_by`` is the command whose naming of the ``-i`` files
    the score files follow (its help says so)."""
    group.add_argument("--scores", action="append", default=[], metavar="NAME=FILE",
                       help="segment scores of metric NAME for every system "
                            "(repeatable): mt-metrics-eval's SYSTEM<TAB>SCORE lines, a .tsv "
                            "with a header naming the systems, or a .jsonl of "
                            f"{{system: score}} objects; systems named as {systems_named_by} "
                            "names the -i files. A NAME.sys.score beside a NAME.seg.score "
                            "file gives the official system scores")
    group.add_argument("--system-scores", action="append", default=[], metavar="NAME=FILE",
                       help="official system scores of metric NAME (SYSTEM<TAB>SCORE), "
                            "where they are not the mean of its segment scores")
    group.add_argument("--higher-is-better", action="append", default=[], metavar="NAME",
                       help="metric NAME's larger scores are better (the default)")
    group.add_argument("--lower-is-better", action="append", default=[], metavar="NAME",
                       help="metric NAME's smaller scores are better (MQM error points)")
    group.add_argument("--gold", default=None, metavar="NAME",
                       help="measure every metric against NAME (human scores): WMT's "
                            "pairwise accuracy over the system pairs NAME separates "
                            "significantly, segment-level Kendall tau and acc23, and "
                            "permutation tests between metrics")


class ExternalScoreFiles:
    """The checked ``--scores``/``--system-scores`` files and directions of a command line."""

    def __init__(self, args: argparse.Namespace) -> None:
        self.score_files = _named_files(args.scores, "--scores")
        self.system_files = _named_files(args.system_scores, "--system-scores")
        unknown = [name for name in self.system_files if name not in self.score_files]
        if unknown:
            raise UsageError(f"--system-scores {unknown[0]}=...: no --scores {unknown[0]}=FILE")
        self.higher_is_better = _directions(args, list(self.score_files))

    @property
    def names(self) -> list[str]:
        return list(self.score_files)

    def paths(self) -> list[str]:
        """Every file named (an output may not be written over any of them)."""
        return [*self.score_files.values(), *self.system_files.values()]


def read_external_scores(files: ExternalScoreFiles, systems: Sequence[str], n_segments: int,
                         max_line_length: int) -> dict[str, SegmentScores]:
    """Each ``--scores`` file read for ``systems`` (errors name the file and line)."""
    from ..io.scores import read_segment_scores

    return {name: read_segment_scores(path, name, systems, n_segments,
                                      system_scores=files.system_files.get(name),
                                      max_line_length=max_line_length)
            for name, path in files.score_files.items()}


def _named_files(values: Sequence[str], flag: str) -> dict[str, str]:
    """``NAME=FILE`` values of a repeatable flag, by name (a name given twice is an error)."""
    named: dict[str, str] = {}
    for value in values:
        name, equals, path = value.partition("=")
        if not equals or not name or not path:
            raise UsageError(f"{flag} takes NAME=FILE, got {value!r}")
        if name in named:
            raise UsageError(f"{flag} names {name!r} twice")
        named[name] = path
    return named


def _directions(args: argparse.Namespace, external: Sequence[str]) -> dict[str, bool]:
    """``--higher-is-better`` / ``--lower-is-better``: the direction of external metrics."""
    directions: dict[str, bool] = {}
    for names, higher in ((args.higher_is_better, True), (args.lower_is_better, False)):
        for name in names:
            if name not in external:
                raise UsageError(f"--{'higher' if higher else 'lower'}-is-better {name}: no "
                                 f"--scores {name}=FILE (the direction of BLEU, chrF and TER "
                                 "is their own)")
            if directions.get(name, higher) != higher:
                raise UsageError(f"{name} is given both --higher-is-better and "
                                 "--lower-is-better")
            directions[name] = higher
    return directions


def gold_metric(gold: Optional[str], metrics: dict[str, Metric[Any]], external: Sequence[str]
                ) -> Optional[str]:
    """The metric ``--gold`` names: an external name or a score name (``chrF2``), exactly
    or, when only one matches so, without regard to case; or an ``-m`` name (``chrf``)."""
    if gold is None:
        return None
    names = {metric.score_name(): key for key, metric in metrics.items()}
    every = [*names, *external]
    if gold in every:
        return str(gold)
    matches = {name for name in every if name.lower() == gold.lower()}
    matches |= {name for name, key in names.items() if key.lower() == gold.lower()}
    if len(matches) == 1:
        return matches.pop()
    raise UsageError(f"--gold {gold}: not a metric compared ({', '.join(every)})")
