"""The lowest layer: the types every metric and every layer above shares.

Statistics tables (:mod:`.statistics`), reference streams (:mod:`.references`),
signatures (:mod:`.signature`), the metric template (:mod:`.metric`), the
choice of kernels (:mod:`.backends`), the accumulator and the logger. Nothing
here knows any particular metric.
"""
