"""The ``intl`` tokenizer's character classes, read from the running ``regex`` module.

``tok_intl`` uses ``regex``'s ``\\p{P}``, ``\\p{S}`` and ``\\p{N}``; the
compiled core has a table of the same classes (``unicode_tables.h``,
written by ``_native/gen_tables.py`` at build time from the ``regex`` of the
build). What matters for exact tokens is that the two classify every code
point alike, not which ``regex`` release made the table: this module computes
the running module's classification (about 0.1 s), so that the core can be
checked against it when the releases differ.

No imports from the rest of truebleu: ``gen_tables.py`` loads this file by
path during the build.
"""

from __future__ import annotations

from array import array

# class bits, as in the core: 1 = \p{P}, 2 = \p{S}, 4 = \p{N}
CLASSES = (("P", 1), ("S", 2), ("N", 4))
INTL_BITS = 7
CODE_POINTS = 0x110000


def every_code_point() -> str:
    """One str holding every code point in order (surrogates included)."""
    return array("I", range(CODE_POINTS)).tobytes().decode("utf-32-le", "surrogatepass")


def intl_class_table(regex) -> bytes:
    """Per code point, the OR of the class bits that ``regex`` gives it."""
    text = every_code_point()
    table = bytearray(CODE_POINTS)
    for name, bit in CLASSES:
        for match in regex.finditer(r"\p{%s}+" % name, text):
            start, end = match.span()
            table[start:end] = bytes(cls | bit for cls in table[start:end])
    return bytes(table)


def intl_bits(core_table: bytes) -> bytes:
    """Only the ``intl`` bits of the core's ``class_table()`` (it also marks Chinese)."""
    return core_table.translate(bytes(cls & INTL_BITS for cls in range(256)))
