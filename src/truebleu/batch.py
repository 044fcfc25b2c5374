"""Many sentence BLEU scores at once: batches, pairwise matrices, MBR selection.

Every number is bit-identical to sacreBLEU's ``sentence_bleu(hypothesis,
references, ...)`` with the same settings (defaults as there: ``smooth_method
="exp"``, ``use_effective_order=True``, ``tokenize="13a"``).

Keyword settings, shared by the three functions:

``smooth_method``, ``smooth_value``, ``lowercase``, ``tokenize``,
``use_effective_order``
    as in sacreBLEU's ``sentence_bleu``;
``max_ngram_order``
    n-gram order (sacreBLEU's ``BLEU(max_ngram_order=...)``), default 4;
``threads``
    worker threads of the compiled core (default: the available cores);
``backend``
    ``"native"`` or ``"python"`` (default: as :func:`truebleu.backends.get_backend`).

With the compiled core, the statistics are computed without the GIL (a
pairwise matrix tokenizes each distinct string once, into one shared
vocabulary, and compares n-gram profiles), and the scores come from the core's
replica of sacreBLEU's ``compute_bleu``: the same operations in the same order,
used only on Pythons whose float ``sum()`` adds left to right (before 3.12).
Elsewhere, and with the Python backend, every row goes through
:func:`truebleu.score.compute_bleu`. The tests compare every cell with
sacreBLEU on both paths.
"""

from __future__ import annotations

from array import array
from typing import Sequence

from .backends import get_backend
from .score import SMOOTH_DEFAULTS, compute_bleu
from .stats import row_width
from .tokenizers import get_tokenizer

_SMOOTH_CODES = {"none": 0, "floor": 1, "add-k": 2, "exp": 3}


class _Settings:
    __slots__ = ("smooth_method", "smooth_value", "lowercase", "tokenizer", "effective_order",
                 "max_order", "threads", "backend")

    def __init__(self, smooth_method="exp", smooth_value=None, lowercase=False, tokenize="13a",
                 use_effective_order=True, max_ngram_order=4, threads=None, backend=None):
        if smooth_method not in SMOOTH_DEFAULTS:
            raise ValueError(f"unknown smooth_method {smooth_method!r}; "
                             f"choose one of: {', '.join(SMOOTH_DEFAULTS)}")
        if smooth_value is not None and (isinstance(smooth_value, bool)
                                         or not isinstance(smooth_value, (int, float))):
            raise TypeError("smooth_value must be a number or None")
        if isinstance(max_ngram_order, bool) or not isinstance(max_ngram_order, int):
            raise TypeError("max_ngram_order must be an int")
        if max_ngram_order < 1:
            raise ValueError(f"max_ngram_order must be >= 1, got {max_ngram_order}")
        self.smooth_method = smooth_method
        self.smooth_value = smooth_value
        self.lowercase = bool(lowercase)
        self.tokenizer = get_tokenizer(tokenize) if isinstance(tokenize, str) else tokenize
        self.effective_order = bool(use_effective_order)
        self.max_order = max_ngram_order
        self.threads = threads
        self.backend = get_backend(backend)

    @property
    def native(self) -> bool:
        return self.backend.name == "native"

    def scores(self, data: array) -> list[float]:
        """Sentence BLEU of each statistics row in ``data`` (an int64 array)."""
        n = self.max_order
        value = self.smooth_value
        if value is None:
            value = SMOOTH_DEFAULTS[self.smooth_method]
        if self.native:
            from . import _native_core as core

            if core.SUM_IS_PLAIN:
                out = array("d", [0.0]) * (len(data) // row_width(n))
                core.bleu_scores(data, n, _SMOOTH_CODES[self.smooth_method],
                                 float(value or 0), self.effective_order, out)
                return out.tolist()
        width = row_width(n)
        scores = []
        for start in range(0, len(data), width):
            row = data[start:start + width]
            scores.append(compute_bleu(row[2:2 + n], row[2 + n:], row[0], row[1],
                                       smooth_method=self.smooth_method,
                                       smooth_value=self.smooth_value,
                                       effective_order=self.effective_order,
                                       max_ngram_order=n).score)
        return scores


def _reference_list(refs, index: int) -> list[str]:
    if isinstance(refs, str):
        return [refs]
    try:
        lines = [r for r in refs if r is not None]  # sacreBLEU drops missing references
    except TypeError:
        raise TypeError(f"references of hypothesis {index} must be a str or a sequence of str") from None
    for line in lines:
        if not isinstance(line, str):
            raise TypeError(f"references of hypothesis {index} must be str, got {type(line).__name__}")
    return lines


def _check_strings(lines, what: str) -> list[str]:
    if isinstance(lines, str):
        raise TypeError(f"{what} must be a sequence of str, not a str")
    lines = list(lines)
    for line in lines:
        if not isinstance(line, str):
            raise TypeError(f"{what} must be str, got {type(line).__name__}")
    return lines


def sentence_scores(hypotheses: Sequence[str], references_per_hyp: Sequence[Sequence[str]],
                    **settings) -> list[float]:
    """Sentence BLEU of each hypothesis against its own references.

    ``references_per_hyp[i]`` is the list of references of ``hypotheses[i]``
    (a single str counts as one reference; ``None`` entries are dropped, as
    sacreBLEU does). Returns one float per hypothesis, each equal to
    ``sacrebleu.sentence_bleu(hypotheses[i], references_per_hyp[i], **settings).score``.
    """
    s = _Settings(**settings)
    if isinstance(hypotheses, str) or isinstance(references_per_hyp, str):
        raise TypeError("hypotheses and references_per_hyp must be sequences, not a str")
    if len(references_per_hyp) != len(hypotheses):
        raise ValueError(f"{len(hypotheses)} hypotheses but {len(references_per_hyp)} reference lists")
    if s.native and getattr(s.tokenizer, "native_mode", None) is not None:
        # the core checks the types, reads a str as one reference and drops None
        from . import _native_core as core
        from ._native_backend import MODES, check_threads

        threads = check_threads(s.threads)
        mode = MODES[s.tokenizer.native_mode]
        data = array("q", [0]) * (len(hypotheses) * row_width(s.max_order))
        core.sentence_statistics(hypotheses, references_per_hyp, mode, s.lowercase, s.max_order,
                                 threads, data)
        return s.scores(data)
    hyps = _check_strings(hypotheses, "hypotheses")
    segments = [_reference_list(r, i) for i, r in enumerate(references_per_hyp)]
    prepared = s.backend.prepare_references(segments, s.tokenizer, s.lowercase, s.max_order)
    stats = s.backend.statistics(hyps, prepared, s.tokenizer, s.lowercase, s.max_order,
                                 threads=s.threads)
    return s.scores(stats.data)


def _distinct(lines: list[str]) -> tuple[list[str], list[int]]:
    index: dict[str, int] = {}
    positions = [index.setdefault(line, len(index)) for line in lines]
    return list(index), positions


def _native_matrix(s: _Settings, a: list[str], b: list[str]) -> list[float]:
    """Row-major scores of every (a[i], b[j]) with the compiled core."""
    from . import _native_core as core
    from ._native_backend import check_threads, prepare_segments

    threads = check_threads(s.threads)
    index: dict[str, int] = {}
    pa = array("q", [index.setdefault(x, len(index)) for x in a])
    pb = array("q", [index.setdefault(x, len(index)) for x in b])
    # one segment, one sequence per distinct string: a shared vocabulary
    prepared = prepare_segments([list(index)], s.tokenizer, s.lowercase, threads)
    cells = len(a) * len(b)
    rows = array("q", [0]) * (cells * row_width(s.max_order))
    value = s.smooth_value if s.smooth_value is not None else SMOOTH_DEFAULTS[s.smooth_method]
    scores = array("d", [0.0]) * cells if core.SUM_IS_PLAIN else None
    core.cross_statistics(prepared, pa, pb, s.max_order, threads, rows, scores,
                          _SMOOTH_CODES[s.smooth_method], float(value or 0), s.effective_order)
    return scores.tolist() if scores is not None else s.scores(rows)


def _python_matrix(s: _Settings, a: list[str], b: list[str]) -> list[float]:
    ua, pa = _distinct(a)
    ub, pb = _distinct(b)
    prepared = s.backend.prepare_references([[x] for x in ub], s.tokenizer, s.lowercase,
                                            s.max_order)
    data = array("q")
    for x in ua:  # each distinct hypothesis against every distinct reference
        data.extend(s.backend.statistics([x] * len(ub), prepared, s.tokenizer, s.lowercase,
                                         s.max_order).data)
    flat = s.scores(data)
    nb = len(ub)
    return [flat[i * nb + j] for i in pa for j in pb]


def pairwise_matrix(a: Sequence[str], b: Sequence[str], *, as_numpy: bool = False, **settings):
    """Sentence BLEU of every ``a[i]`` (hypothesis) against ``b[j]`` (its one reference).

    Returns a list of ``len(a)`` rows of ``len(b)`` floats (cell ``[i][j]``
    equals ``sacrebleu.sentence_bleu(a[i], [b[j]], **settings).score``), or,
    with ``as_numpy=True``, a float64 NumPy array of shape ``(len(a), len(b))``.
    Each distinct string is tokenized once.
    """
    s = _Settings(**settings)
    a = _check_strings(a, "a")
    b = _check_strings(b, "b")
    flat = _native_matrix(s, a, b) if s.native else _python_matrix(s, a, b)
    nb = len(b)
    if as_numpy:
        import numpy as np

        return np.array(flat, dtype=np.float64).reshape(len(a), nb)
    return [flat[i * nb:(i + 1) * nb] for i in range(len(a))]


def mbr_select(candidates: Sequence[str], **settings) -> tuple[int, float]:
    """Minimum-Bayes-risk selection: the candidate with the highest expected BLEU.

    The expected BLEU of candidate ``i`` is the mean, over every *other*
    position ``j != i``, of ``sentence_bleu(candidates[i], [candidates[j]])``:
    a candidate is never compared with itself, while duplicates at other
    positions count (each is a sample). The mean is ``sum(row) / (n - 1)``,
    summed in position order. Ties go to the lowest index. Returns
    ``(index, expected_bleu)``; a single candidate gives ``(0, nan)`` (there
    are no others). Raises ValueError on an empty list.
    """
    cands = _check_strings(candidates, "candidates")
    if not cands:
        raise ValueError("mbr_select needs at least one candidate")
    if len(cands) == 1:
        return 0, float("nan")
    matrix = pairwise_matrix(cands, cands, **settings)
    best, best_value = 0, None
    for i, row in enumerate(matrix):
        value = sum(x for j, x in enumerate(row) if j != i) / (len(cands) - 1)
        if best_value is None or value > best_value:
            best, best_value = i, value
    return best, best_value
