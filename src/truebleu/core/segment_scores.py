"""Segment scores computed elsewhere (COMET, MetricX, human DA or MQM): one number per segment.

truebleu computes BLEU, chrF and TER itself; neural metrics and human judgements are
computed elsewhere, often on a GPU, and brought as numbers. :class:`SegmentScores` holds
one such metric's numbers for the systems compared: per system one float64 per segment,
in segment order, and optionally the official system-level score where it is not the
mean (mt-metrics-eval's ``NAME.sys.score``).

The readers (:mod:`truebleu.io.scores`) and the Python API
(``scores={"COMET": {"sysA": [...], ...}}``) both build one, and every check of the
numbers lives here, so a score is refused for the same reasons whichever way it came:
a value that is not a number, NaN or infinite, systems of different lengths, no segment.
The readers check the same things first, line by line, to name the file and the line.

As an additive metric (``docs/architecture.md``), a segment's row is ``[score, 1.0]``:
the column sums of any set of segments are their total and their count, whose ratio
is their mean.
"""

from __future__ import annotations

import math
import numbers
from array import array
from typing import Mapping, Optional, Sequence

from .statistics import RowTable

__all__ = ["SegmentScores", "finite_score"]


def finite_score(value: object, where: str) -> float:
    """``value`` as a float, or a ValueError naming ``where`` when it is not a finite number.

    Booleans and strings are refused (``True`` or ``"0.5"`` is a mistake upstream, not a
    score), NaN and infinities too: a mean or a ranking over them means nothing.
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ValueError(f"{where}: {value!r} is not a number")
    number = float(value)
    if not math.isfinite(number):
        raise ValueError(f"{where}: {value!r} is not a finite number (every score must be)")
    return number


class SegmentScores:
    """One external metric's scores: per system, one float64 per segment, in order.

    :param name: the metric's name as reports show it (``COMET``, ``MQM``).
    :param segments: system name -> its segment scores (numbers), every system as
        many as the others (at least one).
    :param system_scores: optional system name -> official system-level score, for
        exactly the systems of ``segments``; without it a system's score is the mean
        of its segment scores.
    """

    __slots__ = ("name", "segments", "system_scores")

    name: str
    segments: dict[str, array[float]]
    system_scores: Optional[dict[str, float]]

    def __init__(self, name: str, segments: Mapping[str, Sequence[float]],
                 system_scores: Optional[Mapping[str, float]] = None) -> None:
        if not isinstance(name, str) or not name:
            raise ValueError(f"an external metric needs a name, got {name!r}")
        if not isinstance(segments, Mapping) or not segments:
            raise ValueError(f"scores[{name!r}] must map each system's name to its segment "
                             "scores")
        checked: dict[str, array[float]] = {}
        for system, values in segments.items():
            if not isinstance(system, str):
                raise ValueError(f"scores[{name!r}]: system names are strings, got {system!r}")
            if isinstance(values, (str, bytes)) or not hasattr(values, "__len__"):
                raise ValueError(f"scores[{name!r}][{system!r}] must be a sequence of numbers")
            checked[system] = array("d", (finite_score(value, f"scores[{name!r}][{system!r}], "
                                                              f"segment {k + 1}")
                                          for k, value in enumerate(values)))
        lengths = {system: len(values) for system, values in checked.items()}
        if len(set(lengths.values())) > 1:
            raise ValueError(f"scores[{name!r}]: systems have different numbers of segment "
                             "scores: " + ", ".join(f"{s!r} {n}" for s, n in lengths.items()))
        if not next(iter(lengths.values())):
            raise ValueError(f"scores[{name!r}]: no segment scores")
        official = None
        if system_scores is not None:
            missing = [s for s in checked if s not in system_scores]
            unknown = [s for s in system_scores if s not in checked]
            if missing or unknown:
                raise ValueError(
                    f"system scores of {name!r} must name exactly the systems of its segment "
                    "scores: " + "; ".join(part for part in (
                        missing and "missing " + ", ".join(map(repr, missing)),
                        unknown and "unknown " + ", ".join(map(repr, unknown))) if part))
            official = {system: finite_score(system_scores[system],
                                             f"system score of {system!r} for {name!r}")
                        for system in checked}
        self.name = name
        self.segments = checked
        self.system_scores = official

    @property
    def systems(self) -> tuple[str, ...]:
        """The systems scored, in the order given."""
        return tuple(self.segments)

    @property
    def n_segments(self) -> int:
        return len(next(iter(self.segments.values())))

    def select(self, systems: Sequence[str], where: str = "") -> SegmentScores:
        """The scores of ``systems`` only, in that order: the systems compared.

        A system without scores is a ValueError naming ``where`` (the file) and the
        systems that have scores, so that a naming mismatch is easy to see.
        """
        missing = [system for system in systems if system not in self.segments]
        if missing:
            place = f"{where}: " if where else ""
            raise ValueError(f"{place}no {self.name} scores for system(s) "
                             f"{', '.join(map(repr, missing))}; scores are given for "
                             f"{', '.join(map(repr, self.segments))}")
        official = (None if self.system_scores is None
                    else {system: self.system_scores[system] for system in systems})
        return SegmentScores(self.name, {system: self.segments[system] for system in systems},
                             official)

    def rows(self, system: str) -> RowTable:
        """``system``'s additive rows, ``[score, 1.0]`` per segment (float64)."""
        values = self.segments[system]
        data = array("d", bytes(16 * len(values)))
        data[0::2] = values
        data[1::2] = array("d", [1.0]) * len(values)
        return RowTable(2, data)

    def __repr__(self) -> str:
        official = ", with system scores" if self.system_scores is not None else ""
        return (f"SegmentScores({self.name!r}: {len(self.segments)} systems x "
                f"{self.n_segments} segments{official})")
