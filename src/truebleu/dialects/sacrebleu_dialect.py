"""The default dialect, sacreBLEU, as a thin adapter over :class:`truebleu.metrics.bleu.BLEU`."""

from __future__ import annotations

from ._base import Dialect, DialectScore


class SacreBleuDialect(Dialect):
    """sacreBLEU 2.x through truebleu's engine; options are ``BLEU``'s keyword arguments."""

    name = "sacrebleu"

    def __init__(self, **options) -> None:
        super().__init__()
        from ..metrics.bleu.metric import BLEU

        self._metric = BLEU(**options)

    def signature(self) -> str:
        return f"dialect:sacrebleu|{self._metric.get_signature()}"

    def _corpus(self, hypotheses, refs):
        streams = [list(stream) for stream in zip(*refs)] if refs else [[]]
        result = self._metric.corpus_score(hypotheses, streams)
        return DialectScore(
            dialect=self.name, score=result.score, bleu=result.score,
            precisions=list(result.precisions), bp=result.bp, sys_len=result.sys_len,
            ref_len=result.ref_len, counts=list(result.counts), totals=list(result.totals))
