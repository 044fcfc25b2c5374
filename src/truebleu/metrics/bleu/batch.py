"""Many sentence BLEU scores at once: batches, pairwise matrices, MBR selection.

Every number is bit-identical to sacreBLEU's ``sentence_bleu(hypothesis,
references, ...)`` with the same settings (defaults as there: ``smooth_method
="exp"``, ``use_effective_order=True``, ``tokenize="13a"``).

Keyword settings, shared by the three functions:

``smooth_method``, ``smooth_value``, ``lowercase``, ``tokenize``,
``use_effective_order``
    as in sacreBLEU's ``sentence_bleu``;
``max_ngram_order``
    n-gram order (sacreBLEU's ``BLEU(max_ngram_order=...)``), default 4, from 1
    to 1000 (checked before anything is allocated);
``threads``
    worker threads of the compiled core (default: the available cores);
``backend``
    ``"native"`` or ``"python"`` (default: as :mod:`truebleu.core.kernels` chooses).

The settings are validated once into a :class:`~.config.BLEUConfig`
(the same checks as :class:`~truebleu.BLEU`: a negative or non-finite
``smooth_value`` for ``floor``/``add-k`` is an error), and every computation
goes through a kernel (:mod:`.kernels`), so both kernels take the same
inputs and give the same numbers.

With the compiled core, the statistics are computed without the GIL (a
pairwise matrix tokenizes each distinct string once, into one shared
vocabulary, and compares n-gram profiles), and the scores come from the core's
replica of sacreBLEU's ``compute_bleu``: the same operations in the same order,
used only on Pythons whose float ``sum()`` adds left to right (before 3.12).
Elsewhere, and with the Python backend, every row goes through
:func:`.score.compute_bleu`. The tests compare every cell with
sacreBLEU on both paths.
"""

from __future__ import annotations

from itertools import chain
from typing import TYPE_CHECKING, Any, Literal, Optional, Sequence, Union, overload

from ...core.kernels import check_threads
from ...core.references import HypothesisReferences, check_hypotheses
from .config import BLEUConfig
from .kernels import kernels

if TYPE_CHECKING:
    from numpy.typing import NDArray
    from typing_extensions import TypedDict, Unpack

    from ...tokenizers import Tokenizer

    class SentenceSettings(TypedDict, total=False):
        """The keyword settings of the functions here (the module docstring)."""

        smooth_method: str
        smooth_value: Optional[float]
        lowercase: bool
        tokenize: Optional[Union[str, Tokenizer]]
        use_effective_order: bool
        max_ngram_order: int
        threads: Optional[int]
        backend: Optional[str]


def _settings(smooth_method: str = "exp", smooth_value: Optional[float] = None,
              lowercase: bool = False, tokenize: Optional[Union[str, Tokenizer]] = "13a",
              use_effective_order: bool = True, max_ngram_order: int = 4,
              threads: Optional[int] = None, backend: Optional[str] = None
              ) -> tuple[BLEUConfig, Any, int | None]:
    """sacreBLEU's ``sentence_bleu`` keywords as a validated configuration."""
    config = BLEUConfig.create(tokenize, lowercase, smooth_method, smooth_value, max_ngram_order,
                               use_effective_order)
    return config, kernels.load(backend), check_threads(threads)


def sentence_scores(hypotheses: Sequence[str],
                    references_per_hyp: Sequence[HypothesisReferences],
                    **settings: Unpack[SentenceSettings]) -> list[float]:
    """Sentence BLEU of each hypothesis against its own references.

    ``references_per_hyp[i]`` is the list of references of ``hypotheses[i]``
    (a single str counts as one reference; ``None`` entries are dropped, as
    sacreBLEU does; a hypothesis left without any reference is a ValueError,
    as in ``sentence_bleu``). Returns one float per hypothesis, each equal to
    ``sacrebleu.sentence_bleu(hypotheses[i], references_per_hyp[i], **settings).score``.
    """
    config, backend, threads = _settings(**settings)
    return _scores(config, backend, threads, hypotheses, references_per_hyp)


def sentence_scores_with(config: BLEUConfig, hypotheses: Sequence[str],
                         references_per_hyp: Sequence[HypothesisReferences], *,
                         threads: Optional[int] = None, backend: Optional[str] = None
                         ) -> list[float]:
    """:func:`sentence_scores` with settings validated once, as ``config``
    (``BLEUConfig.create(...)``): for a caller that scores batch after batch with
    the same settings, such as a reward function (building the configuration
    costs a few microseconds of a call's few hundred)."""
    return _scores(config, kernels.load(backend), check_threads(threads), hypotheses,
                   references_per_hyp)


def _scores(config: BLEUConfig, backend: Any, threads: Optional[int],
            hypotheses: Sequence[str],
            references_per_hyp: Sequence[HypothesisReferences]) -> list[float]:
    scores: list[float] = backend.sentence_scores(hypotheses, references_per_hyp, config,
                                                  threads).tolist()
    return scores


@overload
def pairwise_matrix(a: Sequence[str], b: Sequence[str], *, as_numpy: Literal[False] = False,
                    **settings: Unpack[SentenceSettings]) -> list[list[float]]: ...


@overload
def pairwise_matrix(a: Sequence[str], b: Sequence[str], *, as_numpy: Literal[True],
                    **settings: Unpack[SentenceSettings]) -> NDArray[Any]: ...


@overload
def pairwise_matrix(a: Sequence[str], b: Sequence[str], *, as_numpy: bool,
                    **settings: Unpack[SentenceSettings]
                    ) -> Union[list[list[float]], NDArray[Any]]: ...


def pairwise_matrix(a: Sequence[str], b: Sequence[str], *, as_numpy: bool = False,
                    **settings: Unpack[SentenceSettings]
                    ) -> Union[list[list[float]], NDArray[Any]]:
    """Sentence BLEU of every ``a[i]`` (hypothesis) against ``b[j]`` (its one reference).

    Returns a list of ``len(a)`` rows of ``len(b)`` floats (cell ``[i][j]``
    equals ``sacrebleu.sentence_bleu(a[i], [b[j]], **settings).score``), or,
    with ``as_numpy=True``, a float64 NumPy array of shape ``(len(a), len(b))``
    that shares the scores' buffer (8 bytes per cell). Each distinct string is
    tokenized once.
    """
    config, backend, threads = _settings(**settings)
    flat = backend.pairwise_scores(a, b, config, threads)  # checks a and b
    na, nb = len(a), len(b)
    if as_numpy:
        import numpy as np

        matrix: NDArray[Any] = np.frombuffer(flat, dtype=np.float64).reshape(na, nb)
        return matrix
    if not na or not nb:
        return [[] for _ in range(na)]
    with memoryview(flat) as view, view.cast("B") as raw, raw.cast("d", (na, nb)) as rows:
        # the nested lists built in one call (typeshed types tolist() as one flat list)
        cells: list[list[float]] = rows.tolist()  # type: ignore[assignment]
        return cells


def mbr_select(candidates: Sequence[str], **settings: Unpack[SentenceSettings]
               ) -> tuple[int, float]:
    """Minimum-Bayes-risk selection: the candidate with the highest expected BLEU.

    The expected BLEU of candidate ``i`` is the mean, over every *other*
    position ``j != i``, of ``sentence_bleu(candidates[i], [candidates[j]])``:
    a candidate is never compared with itself, while duplicates at other
    positions count (each is a sample). The mean is ``sum(row) / (n - 1)``,
    summed in position order. Ties go to the lowest index. Returns
    ``(index, expected_bleu)``; a single candidate gives ``(0, nan)`` (there
    are no others). Raises ValueError on an empty list. The matrix is kept as
    8 bytes per cell.
    """
    config, backend, threads = _settings(**settings)
    cands = check_hypotheses(candidates, "candidates")
    if not cands:
        raise ValueError("mbr_select needs at least one candidate")
    n = len(cands)
    if n == 1:
        return 0, float("nan")
    flat = backend.pairwise_scores(cands, cands, config, threads)

    def expected(i: int) -> float:
        # every other position, in position order (as the generator this replaces)
        total: float = sum(chain(flat[i * n:i * n + i], flat[i * n + i + 1:(i + 1) * n]))
        return total / (n - 1)

    best, best_value = 0, expected(0)
    for i in range(1, n):
        value = expected(i)
        if value > best_value:
            best, best_value = i, value
    return best, best_value
