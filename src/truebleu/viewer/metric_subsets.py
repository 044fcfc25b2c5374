"""Every metric's corpus score on subsets of the segments: all but one, and each document.

The A vs B view explains a corpus-level difference Δ = score(B) − score(A) segment by
segment and document by document, for whichever metric the reader picks. All of it
comes from one mechanism: a metric's statistics are additive rows (BLEU's n-gram
counts, chrF's n-gram counts, TER's edits and reference lengths, an external metric's
``[score, 1]``), so the corpus score of any set of segments is the metric's scorer
applied to the sum of their rows.

- **Leave one out**: ``without[k][i]`` is system ``k``'s corpus score on every segment
  but ``i`` (the column sums minus row ``i``). The contribution of segment ``i`` to Δ
  is then ``Δ(all) − Δ(all but i)``: exact, not an approximation, for every metric
  whose statistics are integer counts (BLEU, chrF); TER's averaged reference lengths
  and external scores are floats, where the subtraction may differ from summing the
  other rows afresh in the last bit (1e-12 relative).
- **Documents**: ``documents[k][j]`` is system ``k``'s corpus score on the segments of
  document ``j`` (the document's own BLEU, chrF, TER or mean score).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Optional, Sequence

from ..core.lazy_numpy import numpy

if TYPE_CHECKING:
    from numpy.typing import NDArray

    from ..significance.scoring import BatchScorer

__all__ = ["document_scores", "leave_one_out", "rows_score"]


def _plain(values: NDArray[Any]) -> list[Optional[float]]:
    """JSON numbers; ``None`` where a score is undefined (a document of no segment's mean)."""
    return [value if math.isfinite(value) else None for value in values.tolist()]


def rows_score(rows: NDArray[Any], scorer: BatchScorer) -> Optional[float]:
    """The corpus score of all ``rows`` (an external metric's mean even where an official
    system score ranks the systems): the Δ that the contributions add up from."""
    return _plain(scorer.score_rows(rows.sum(axis=0)[None, :]))[0]


def leave_one_out(rows: NDArray[Any], scorer: BatchScorer) -> list[Optional[float]]:
    """The corpus score of all segments but ``i``, for every ``i``."""
    return _plain(scorer.score_rows(rows.sum(axis=0)[None, :] - rows))


def document_scores(rows: NDArray[Any], scorer: BatchScorer, index: Sequence[int],
                    n_documents: int) -> list[Optional[float]]:
    """The corpus score of each document's segments (``index``: each segment's document)."""
    np = numpy()
    sums = np.zeros((n_documents, rows.shape[1]), dtype=rows.dtype)
    np.add.at(sums, np.asarray(index, dtype=np.intp), rows)  # in segment order, per document
    return _plain(scorer.score_rows(sums))
