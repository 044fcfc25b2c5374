"""TER (Snover et al., 2006) on token lists: the readable specification.

TER is the number of edits (insertions, deletions, substitutions and *shifts*
of a block of words) that turn the hypothesis into the reference, divided by
the reference length. The minimum over all shift sequences is NP-hard, so
tools search greedily. This module computes what sacreBLEU 2.6.0 computes
(its re-implementation of tercom), decision for decision:

* **Edit distance** is a Levenshtein distance restricted to a *beam* around
  the pseudo-diagonal ``j = floor(i * len(ref) / len(hyp))``: row ``i`` of the
  matrix is computed for ``j`` within ``beam`` of that diagonal (the last row
  completely), other cells are "infinite" (:data:`INFINITY`). Ties prefer a
  match/substitution, then consuming a hypothesis word, then a reference word;
  the path through the matrix (the *trace*) decides the alignment.
* **Shifts**: every block of 1..:data:`MAX_SHIFT_SIZE` hypothesis words equal
  to a block of reference words starting at most :data:`MAX_SHIFT_DIST`
  positions away is a candidate, if both blocks hold an edit and the block is
  not already where the reference wants it. Each candidate is tried at the
  hypothesis positions aligned to the reference block (and before the start).
  The best candidate (largest gain, then longest block, then earliest start,
  then earliest target) is applied while it lowers the distance.
* After :data:`MAX_SHIFT_CANDIDATES` candidates have been scored in one
  segment (counting across rounds), the search stops, *without* applying the
  best shift of the round in which the limit was reached.

What the search did is kept (:class:`Search`): the shifts it applied and the
edit path of the shifted hypothesis, which :func:`best_reference` keeps for the
reference TER counts. That is TER's alignment, and its edits are the statistics'
edits by construction: the statistics are read from it.

sacreBLEU memoizes matrix rows by hypothesis prefix; the rows depend only on
the prefix (the hypothesis length never changes during the search), so the
memo changes no result. Here the rows of the current hypothesis are reused for
the prefix a shifted candidate shares with it (the compiled core does the same).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: importing typing costs about 16 M instructions
if TYPE_CHECKING:
    from typing import Optional, Sequence, TypeVar

    T = TypeVar("T")

INFINITY = 10**16          # the cost of a cell outside the beam
BEAM_WIDTH = 25
MAX_SHIFT_SIZE = 10        # longest block of words moved by one shift
MAX_SHIFT_DIST = 50        # |hypothesis start - reference start| of a block
MAX_SHIFT_CANDIDATES = 1000

# How a cell of the matrix was reached (what the step consumes).
MATCH, SUBSTITUTE, HYP_ONLY, REF_ONLY, UNDEFINED = "=", "s", "h", "r", "x"

Row = tuple[list[int], list[str]]  # costs and steps of one matrix row


class BeamEditDistance:
    """Beam edit distance from hypotheses of one length to one reference."""

    def __init__(self, ref: Sequence[str], hyp_len: int) -> None:
        self.ref = ref
        self.hyp_len = hyp_len
        n_ref = len(ref)
        ratio = n_ref / hyp_len if hyp_len else 1
        # very unequal lengths: widen the beam so that consecutive rows overlap
        beam = math.ceil(ratio / 2 + BEAM_WIDTH) if BEAM_WIDTH < ratio / 2 else BEAM_WIDTH
        self.bounds = [(0, n_ref + 1)]  # row i computes cells lo <= j < hi
        for i in range(1, hyp_len + 1):
            diagonal = math.floor(i * ratio)
            hi = n_ref + 1 if i == hyp_len else min(n_ref + 1, diagonal + beam)
            self.bounds.append((max(0, diagonal - beam), hi))
        self.first_row: Row = (list(range(n_ref + 1)), [REF_ONLY] * (n_ref + 1))

    def rows(self, hyp: Sequence[str], known: Sequence[Row] = ()) -> list[Row]:
        """All rows of the matrix; ``known`` are rows 0..k already computed for ``hyp[:k]``."""
        rows = list(known) or [self.first_row]
        for i in range(len(rows), len(hyp) + 1):
            rows.append(self._row(hyp[i - 1], rows[i - 1], *self.bounds[i]))
        return rows

    def _row(self, word: str, above: Row, lo: int, hi: int) -> Row:
        above_cost = above[0]
        cost = [INFINITY] * len(above_cost)
        step = [UNDEFINED] * len(above_cost)
        for j in range(lo, hi):
            if j == 0:
                cost[0], step[0] = above_cost[0] + 1, HYP_ONLY
                continue
            options: tuple[tuple[int, str], ...]
            if word == self.ref[j - 1]:
                options = ((above_cost[j - 1], MATCH),)
            else:
                options = ((above_cost[j - 1] + 1, SUBSTITUTE),)
            options += ((above_cost[j] + 1, HYP_ONLY), (cost[j - 1] + 1, REF_ONLY))
            for option_cost, option_step in options:  # first of the cheapest wins
                if option_cost < cost[j]:
                    cost[j], step[j] = option_cost, option_step
        return cost, step

    @staticmethod
    def trace(rows: Sequence[Row]) -> list[str]:
        """The steps of the path from the first cell to the last, in order."""
        steps = []
        i, j = len(rows) - 1, len(rows[0][0]) - 1
        while i > 0 or j > 0:
            step = rows[i][1][j]
            steps.append(step)
            if step in (MATCH, SUBSTITUTE):
                i, j = i - 1, j - 1
            elif step == HYP_ONLY:
                i -= 1
            elif step == REF_ONLY:
                j -= 1
            else:
                raise RuntimeError(f"TER: the edit path left the beam at cell ({i}, {j})")
        steps.reverse()
        return steps


def alignment(steps: Sequence[str]) -> tuple[list[int], list[int], list[int]]:
    """From the steps: the hypothesis position aligned to each reference word
    (-1 = before the first), and which reference / hypothesis words carry an edit."""
    align, ref_err, hyp_err = [], [], []
    pos_hyp = -1
    for step in steps:
        if step != REF_ONLY:
            pos_hyp += 1
            hyp_err.append(0 if step == MATCH else 1)
        if step != HYP_ONLY:
            align.append(pos_hyp)
            ref_err.append(0 if step == MATCH else 1)
    return align, ref_err, hyp_err


def matching_blocks(hyp: Sequence[str], ref: Sequence[str], max_shift_size: int = MAX_SHIFT_SIZE):
    """``(hyp_start, ref_start, length)`` for every block of equal words
    (length 1..max_shift_size, starts at most MAX_SHIFT_DIST apart), in order
    of hypothesis start, then reference start, then length."""
    for h in range(len(hyp)):
        for r in range(max(0, h - MAX_SHIFT_DIST), min(len(ref), h + MAX_SHIFT_DIST + 1)):
            length = 0
            while (h + length < len(hyp) and r + length < len(ref) and length < max_shift_size
                   and hyp[h + length] == ref[r + length]):
                length += 1
                yield h, r, length


def shifted(words: Sequence[T], start: int, length: int, target: int) -> list[T]:
    """``words`` with the block ``words[start:start+length]`` moved (sacreBLEU's rule).

    ``target`` is a position in ``words``: the block goes before it when
    ``target < start``, before ``words[target]`` when ``target > start + length``,
    and otherwise (``start <= target <= start + length``) after the
    ``target - start`` words that follow the block. The block's first word ends up at
    ``target - length`` in the second case, at ``target`` otherwise (:func:`shifted_to`).
    """
    block = list(words[start:start + length])
    if target < start:
        return [*words[:target], *block, *words[target:start], *words[start + length:]]
    if target > start + length:
        return [*words[:start], *words[start + length:target], *block, *words[target:]]
    return [*words[:start], *words[start + length:length + target], *block,
            *words[length + target:]]


def shifted_to(start: int, length: int, target: int) -> int:
    """Where :func:`shifted` puts the first word of the block it moves."""
    return target - length if target > start + length else target


def common_prefix(a: Sequence[str], b: Sequence[str]) -> int:
    n = 0
    for x, y in zip(a, b):
        if x != y:
            break
        n += 1
    return n


#: ``(start, length, target)`` of one shift: the block ``words[start:start+length]``
#: moved by :func:`shifted` with that ``target``
Shift = tuple[int, int, int]


def best_shift(words: list[str], ref: Sequence[str], distance: BeamEditDistance,
               checked: int, max_shift_size: int = MAX_SHIFT_SIZE
               ) -> tuple[int, Optional[Shift], list[str], int]:
    """One round of the search: ``(gain, best shift, shifted words, candidates checked so far)``
    (``None`` and ``words`` when no block is a candidate)."""
    rows = distance.rows(words)
    cost = rows[-1][0][-1]
    align, ref_err, hyp_err = alignment(distance.trace(rows))
    best_key, best_words = None, words
    for start, ref_start, length in matching_blocks(words, ref, max_shift_size):
        if (not any(hyp_err[start:start + length]) or not any(ref_err[ref_start:ref_start + length])
                or start <= align[ref_start] < start + length):
            continue
        previous = -1
        for offset in range(-1, length):
            target = 0 if ref_start + offset == -1 else align[ref_start + offset] + 1
            if target == previous:
                continue
            previous = target
            candidate = shifted(words, start, length, target)
            known = rows[:common_prefix(words, candidate) + 1]
            gain = cost - distance.rows(candidate, known)[-1][0][-1]
            checked += 1
            key = (gain, length, -start, -target)
            if best_key is None or key > best_key:
                best_key, best_words = key, candidate
        if checked >= MAX_SHIFT_CANDIDATES:
            break
    if best_key is None:
        return 0, None, words, checked
    gain, length, start, target = best_key
    return gain, (-start, length, -target), best_words, checked


@dataclass
class Search:
    """What the shift search did to one hypothesis against one reference: the alignment.

    ``shifts`` in the order applied (each on the words left by the ones before),
    ``words`` the hypothesis after them, ``steps`` the edit path from ``words`` to the
    reference (:data:`MATCH`, :data:`SUBSTITUTE`, :data:`HYP_ONLY`, :data:`REF_ONLY`)
    and ``distance`` its cost, the steps other than matches.
    """

    shifts: list[Shift]
    words: list[str]
    steps: list[str]
    distance: int

    @property
    def edits(self) -> int:
        """TER's edits: one per shift, one per step other than a match."""
        return len(self.shifts) + self.distance


def shift_search(hyp: Sequence[str], ref: Sequence[str],
                 max_shift_size: int = MAX_SHIFT_SIZE) -> Search:
    """The greedy search of tercom: shift the best block while that lowers the distance.

    An empty reference aligns nothing: every hypothesis word is an edit.
    """
    if not ref:
        return Search([], list(hyp), [HYP_ONLY] * len(hyp), len(hyp))
    distance = BeamEditDistance(ref, len(hyp))
    words, shifts, checked = list(hyp), [], 0
    while True:
        gain, shift, candidate, checked = best_shift(words, ref, distance, checked, max_shift_size)
        if checked >= MAX_SHIFT_CANDIDATES or gain <= 0 or shift is None:
            break
        words = candidate
        shifts.append(shift)
    rows = distance.rows(words)
    return Search(shifts, words, distance.trace(rows), rows[-1][0][-1])


def translation_edit_rate(hyp: Sequence[str], ref: Sequence[str],
                          max_shift_size: int = MAX_SHIFT_SIZE) -> tuple[int, int]:
    """``(number of edits, reference length)`` of one hypothesis against one reference.

    ``max_shift_size`` is the longest block one shift moves: sacreBLEU's 10 (torchmetrics'
    copy of the algorithm stops at 9, the ``torchmetrics-ter`` dialect passes that).
    """
    return shift_search(hyp, ref, max_shift_size).edits, len(ref)


def best_reference(hyp: Sequence[str], refs: Sequence[Sequence[str]]) -> tuple[int, Search, float]:
    """``(index, search, average reference length)``: the search against the reference
    with the fewest edits (the first on ties), which TER's statistics count."""
    best, best_index = None, 0
    total_length = 0
    for index, ref in enumerate(refs):
        search = shift_search(hyp, ref)
        total_length += len(ref)
        if best is None or search.edits < best.edits:
            best, best_index = search, index
    if best is None:
        raise ValueError("TER needs at least one reference")
    return best_index, best, total_length / len(refs)


def segment_row(hyp: Sequence[str], refs: Sequence[Sequence[str]]) -> tuple[float, float]:
    """``[edits, reference length]`` of one segment: the fewest edits over the
    references (the first on ties) and the average reference length."""
    _, search, length = best_reference(hyp, refs)
    return float(search.edits), length
