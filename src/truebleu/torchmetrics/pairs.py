"""Predictions with several references: the (prediction, reference) pairs of a batch, and
choosing one reference per prediction, as torchmetrics chooses it (the *first* best).

The choices run as one elementwise step per reference rank (a batch has few), not as
``max``/``argmin`` over a dimension: on a small batch those reductions start torch's thread
pool, which costs milliseconds on a busy machine, and their tie rules are the first index
only by documentation, where a strict comparison in order is torchmetrics' rule by
construction.
"""

from __future__ import annotations

from typing import Any, Sequence

from ._require import torch


class Pairs:
    """Where each reference of a batch sits: ``segment[p]`` and ``rank[p]`` of pair ``p``
    (references flattened in order), ``width`` the most references of a segment."""

    def __init__(self, references: Sequence[Sequence[str]]) -> None:
        self.counts = [len(refs) for refs in references]
        self.n = len(self.counts)
        self.width = max(self.counts, default=0)
        self.segment_list = [i for i, count in enumerate(self.counts) for _ in range(count)]
        self.segment = torch.tensor(self.segment_list, dtype=torch.int64)
        self.rank = torch.tensor([k for count in self.counts for k in range(count)],
                                 dtype=torch.int64)

    def table(self, values: Any, fill: float) -> Any:
        """``values`` of the pairs as a ``[segments, width]`` table, ``fill`` where a segment
        has fewer references."""
        table = torch.full((self.n, max(self.width, 1)), fill, dtype=values.dtype)
        table[self.segment, self.rank] = values
        return table

    def pair_index(self) -> Any:
        """``[segments, width]`` table of pair numbers (-1 where there is no reference)."""
        return self.table(torch.arange(len(self.segment_list)), -1)


def first_best(table: Any, better: str) -> tuple[Any, Any]:
    """``(best value, first column holding it)`` per row, scanning the columns in order and
    moving only on a strictly better value (``better``: ``"greater"`` or ``"less"``); NaN
    never wins. Starts from the first column."""
    best = table[:, 0].clone()
    first = torch.zeros(table.shape[0], dtype=torch.int64)
    for column in range(1, table.shape[1]):
        value = table[:, column]
        wins = value > best if better == "greater" else value < best
        best = torch.where(wins, value, best)
        first = torch.where(wins, torch.full_like(first, column), first)
    return best, first
