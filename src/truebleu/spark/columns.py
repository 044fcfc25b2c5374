"""Which DataFrame columns hold the texts, checked on the driver and read on the executors.

References are either string columns (one reference set each) or one
array-of-strings column (any number of references per row). ``null`` means
"no such reference" for this row, as ``None`` does in truebleu's reference
streams; a row needs at least one reference and a non-null hypothesis.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence, Union

References = Union[str, Sequence[str]]


@dataclass(frozen=True)
class TextColumns:
    """The hypothesis column and the reference columns of one scoring job."""

    hypothesis: str
    references: tuple[str, ...]
    array: bool  # True: ``references`` is one array<string> column

    @property
    def names(self) -> list[str]:
        return [self.hypothesis, *self.references]


def _field(schema, name: str, role: str):
    if not isinstance(name, str):
        raise TypeError(f"{role} must name a column (a str), got {name!r}")
    for field in schema.fields:
        if field.name == name:
            return field
    raise ValueError(f"{role} column {name!r} is not in the DataFrame "
                     f"(columns: {', '.join(schema.fieldNames())})")


def text_columns(schema, hypothesis: str, references: References) -> TextColumns:
    """Check the columns against the DataFrame's schema (on the driver, before any job)."""
    from pyspark.sql.types import ArrayType, StringType

    hyp_field = _field(schema, hypothesis, "hypothesis")
    if not isinstance(hyp_field.dataType, StringType):
        raise TypeError(f"hypothesis column {hypothesis!r} must hold strings, "
                        f"not {hyp_field.dataType.simpleString()}")
    names = (references,) if isinstance(references, str) else tuple(references)
    if not names:
        raise ValueError("references: name at least one column")
    fields = [_field(schema, name, "reference") for name in names]
    arrays = [f for f in fields if isinstance(f.dataType, ArrayType)]
    if arrays:
        field = arrays[0]
        if len(fields) > 1:
            raise TypeError(f"reference column {field.name!r} is an array: give it alone "
                            "(references='{field.name}'), not with other reference columns")
        if not isinstance(field.dataType.elementType, StringType):
            raise TypeError(f"reference column {field.name!r} must hold strings or arrays of "
                            f"strings, not {field.dataType.simpleString()}")
        return TextColumns(hypothesis, names, array=True)
    for field in fields:
        if not isinstance(field.dataType, StringType):
            raise TypeError(f"reference column {field.name!r} must hold strings or arrays of "
                            f"strings, not {field.dataType.simpleString()}")
    return TextColumns(hypothesis, names, array=False)


def batch_texts(columns: TextColumns, hyp_array, ref_arrays):
    """Hypotheses, reference streams and references per row of one Arrow batch (executor side).

    The counts are a NumPy array, computed from Arrow's validity bitmaps
    (no Python loop over the rows unless references are in an array column).
    Raises ValueError naming the column for a null hypothesis or a row
    without any reference.
    """
    import numpy as np

    hyps = hyp_array.to_pylist()
    if hyp_array.null_count:
        row = hyps.index(None)
        raise ValueError(f"hypothesis column {columns.hypothesis!r} is null in a row "
                         f"(row {row} of an Arrow batch); use '' for an empty hypothesis")
    if columns.array:
        per_row = [[ref for ref in refs if ref is not None] if refs is not None else []
                   for refs in ref_arrays[0].to_pylist()]
        width = max(map(len, per_row), default=1) or 1
        streams = [[refs[k] if k < len(refs) else None for refs in per_row] for k in range(width)]
        counts = np.fromiter(map(len, per_row), dtype=np.int64, count=len(per_row))
    else:
        streams = [array.to_pylist() for array in ref_arrays]
        counts = np.full(len(hyps), len(ref_arrays), dtype=np.int64)
        for array in ref_arrays:
            if array.null_count:
                counts -= np.asarray(array.is_null().to_numpy(zero_copy_only=False), dtype=np.int64)
    if len(counts) and counts.min() == 0:
        row = int(np.argmin(counts))
        raise ValueError(f"a row has no reference: every reference in "
                         f"{', '.join(map(repr, columns.references))} is null or empty "
                         f"(hypothesis {hyps[row]!r})")
    return hyps, streams, counts


def reference_count(columns: TextColumns):
    """A Spark column: the references (non-null) of each row, counted by Spark itself.

    Where the statistics are computed by the executors, :func:`batch_texts`
    counts them; where only the statistics column is collected, this
    expression does, without sending the texts to Python.
    """
    from pyspark.sql import functions as F

    if columns.array:
        refs = F.col(columns.references[0])
        present = F.size(F.filter(refs, lambda ref: ref.isNotNull()))
        return F.when(refs.isNull(), F.lit(0)).otherwise(present)  # size(null) may be -1
    counts = [F.col(name).isNotNull().cast("int") for name in columns.references]
    total = counts[0]
    for count in counts[1:]:
        total = total + count
    return total
