"""The lowest layer: the types every metric and every layer above shares.

Statistics tables (:mod:`.statistics`), reference streams (:mod:`.references`),
signatures (:mod:`.signature`), frozen configurations (:mod:`.config`), the
choice of kernels and the thread rule (:mod:`.kernels`), the accumulator, the
logger and the lazy NumPy import. Nothing here knows any particular metric (the
metric template is :mod:`truebleu.metrics.base`).
"""
