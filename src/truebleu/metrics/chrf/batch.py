"""Many sentence chrF scores at once: batches and pairwise matrices (for MBR).

Every number is bit-identical to sacreBLEU's ``sentence_chrf(hypothesis,
references, ...)`` with the same settings. Keyword settings, shared:

``char_order``, ``word_order``, ``beta``, ``remove_whitespace``, ``eps_smoothing``
    as in sacreBLEU's ``sentence_chrf`` (defaults 6, 0, 2, True, False);
``lowercase``
    case-insensitive (``CHRF(lowercase=True)``);
``threads``, ``backend``
    as in :class:`~.metric.CHRF`.

With the compiled core the f-scores come from the core's replica of the
scalar :func:`.spec.f_score` (the same double operations
in the same order); with the Python backend each row goes through that
function. The tests compare every cell with sacreBLEU on both backends.
The matrix counts each line's n-grams once (:func:`.spec.matrix_scores`; in
the core, profiles with an index of the n-grams the lines share, the rows on
the runtime's threads), not once per cell.
"""

from __future__ import annotations

from array import array
from typing import TYPE_CHECKING, Any, Literal, Optional, Sequence, Union, overload

from ...core.kernels import check_threads
from ...core.references import check_str_sequence, check_strings
from .config import ChrfConfig
from .kernels import kernels

if TYPE_CHECKING:
    from numpy.typing import NDArray
    from typing_extensions import TypedDict, Unpack

    class ChrfSettings(TypedDict, total=False):
        """The keyword settings of the functions here (the module docstring), but
        ``threads`` and ``backend``."""

        char_order: int
        word_order: int
        beta: float
        remove_whitespace: bool
        eps_smoothing: bool
        lowercase: bool


def _config(char_order: int = 6, word_order: int = 0, beta: float = 2,
            remove_whitespace: bool = True, eps_smoothing: bool = False,
            lowercase: bool = False) -> ChrfConfig:
    """sacreBLEU's ``sentence_chrf`` keywords as a checked configuration."""
    return ChrfConfig(char_order, word_order, beta, lowercase, not remove_whitespace,
                      eps_smoothing)


def _scores(hypotheses: Sequence[str], segments: list[list[str]], config: ChrfConfig,
            kernel: Any, threads: Optional[int]) -> list[float]:
    """The f-score of each hypothesis against its best reference."""
    if not hypotheses:
        return []
    prepared = kernel.prepare(segments, config, threads)
    scores = array("d", bytes(8 * len(hypotheses)))
    kernel.statistics(hypotheses, prepared, config, threads, scores=scores)
    return scores.tolist()


def sentence_chrf_scores(hypotheses: Sequence[str],
                         references: Sequence[Union[str, Sequence[str]]], *,
                         threads: int | None = None, backend: str | None = None,
                         **settings: Unpack[ChrfSettings]) -> list[float]:
    """``[sentence_chrf(h, refs).score for h, refs in zip(hypotheses, references)]``, fast.

    ``references[i]`` is the list of references of hypothesis ``i`` (or one string).
    """
    check_str_sequence(hypotheses, "hypotheses")
    check_str_sequence(references, "references")
    if len(references) != len(hypotheses):
        raise ValueError(f"{len(hypotheses)} hypotheses but {len(references)} reference lists")
    segments: list[list[str]] = []
    for i, given in enumerate(references):
        refs = [given] if isinstance(given, str) else list(given)
        if not refs:
            raise ValueError(f"hypothesis {i} has no reference")
        check_strings(refs, f"references[{i}]")
        segments.append(refs)
    check_strings(hypotheses, "hypotheses")
    config = _config(**settings)
    return _scores(hypotheses, segments, config, kernels.load(backend), check_threads(threads))


@overload
def chrf_matrix(hypotheses: Sequence[str], references: Sequence[str], *,
                as_numpy: Literal[False] = False, threads: int | None = None,
                backend: str | None = None, **settings: Unpack[ChrfSettings]
                ) -> list[list[float]]: ...


@overload
def chrf_matrix(hypotheses: Sequence[str], references: Sequence[str], *,
                as_numpy: Literal[True], threads: int | None = None,
                backend: str | None = None, **settings: Unpack[ChrfSettings]
                ) -> NDArray[Any]: ...


@overload
def chrf_matrix(hypotheses: Sequence[str], references: Sequence[str], *,
                as_numpy: bool, threads: int | None = None,
                backend: str | None = None, **settings: Unpack[ChrfSettings]
                ) -> Union[list[list[float]], NDArray[Any]]: ...


def chrf_matrix(hypotheses: Sequence[str], references: Sequence[str], *, as_numpy: bool = False,
                threads: int | None = None, backend: str | None = None,
                **settings: Unpack[ChrfSettings]) -> Union[list[list[float]], NDArray[Any]]:
    """Cell ``[i][j]`` is ``sentence_chrf(hypotheses[i], [references[j]]).score``.

    For minimum-Bayes-risk decoding pass the candidates as both arguments.
    A list of rows, or a float64 NumPy array with ``as_numpy=True``.
    """
    check_str_sequence(hypotheses, "hypotheses")
    check_str_sequence(references, "references")
    check_strings(hypotheses, "hypotheses")
    check_strings(references, "references")
    n, m = len(hypotheses), len(references)
    kernel: Any = kernels.load(backend)
    flat = kernel.matrix(hypotheses, references, _config(**settings), check_threads(threads))
    if as_numpy:
        import numpy as np

        matrix: NDArray[Any] = np.frombuffer(flat, dtype=np.float64).reshape(n, m)
        return matrix
    return [flat[i * m:(i + 1) * m].tolist() for i in range(n)]
