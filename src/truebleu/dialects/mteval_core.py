"""mteval's corpus sums in the compiled core: the references' n-grams numbered once,
each system's clipped matches and NIST information counted on token ids.

:meth:`~.mteval.MtevalDialect.python_counts` is the specification; this path gives the
same numbers, bit for bit (the tests compare them on generated corpora):

* token ids: the tokens of :meth:`~.mteval.MtevalDialect.tokenize` as int32 ids (first
  occurrence in the references; a hypothesis word in no reference is ``UNKNOWN``, which
  matches nothing). With the 13a rules the core gives them straight from the lines
  (:class:`Core13aNumbering`); otherwise, and for lines the core refuses, the str tokens
  of all lines at once are numbered here (:class:`TokenNumbering`);
* the core numbers the references' n-grams and gives each one's count and its
  context's count;
* NIST's weights are computed here with the specification's expression
  (``-math.log(count / context) / math.log(2)``), once per distinct pair of counts;
* each segment's information is summed exactly by the core (as ``math.fsum``, so the
  order of the n-grams does not matter), and the segments' sums added in order; the
  segments are counted on the runtime's threads, each into a row of its own, so the
  order of the additions is the same for any number of threads.
"""

from __future__ import annotations

import math
from array import array
from itertools import repeat
from typing import Callable, Optional, Union

from ..core.kernels import native_core, thread_count
from ._perl import PERL_SPACE, squeeze_perl_spaces
from .core_counts import LINE_END, tokenize_13a_perl_lines

#: (matches, totals, information per order, (hypothesis length, reference lengths) per
#: segment, reference words, references per segment): ``python_counts``' tuple
MtevalSums = tuple[list[int], list[int], list[float], list[tuple[int, list[int]]], int, int]

#: the id of a hypothesis word that no reference holds (the core's TB_UNKNOWN_TOKEN)
UNKNOWN = -2
_LINE_END_ID = -1  # the core's TB_LINE_END
_NO_SUCH_TOKEN = -3
# Perl's whitespace but the space (PERL_SPACE is a character class: its range spelled out)
_OTHER_PERL_SPACES = tuple(PERL_SPACE.replace("\u2000-\u200a", "".join(map(chr, range(0x2000, 0x200b))))
                           .replace(" ", ""))
_OTHER_ASCII_SPACES = tuple(space for space in _OTHER_PERL_SPACES if space.isascii())


def sgml_escape(line: str) -> str:
    """The segment text as mteval reads it back from the SGML file (before tokenizing)."""
    line = line.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    # the squeeze changes only runs of two spaces or more and the other whitespace: one
    # substring scan each is much faster than the regular expression on text without them
    others = _OTHER_ASCII_SPACES if line.isascii() else _OTHER_PERL_SPACES
    if "  " not in line and not any(space in line for space in others):
        return line
    return squeeze_perl_spaces(line)


def joined_13a_tokens(lines: list[str], lowercase: bool) -> list[str]:
    """The 13a tokens of every line (mteval-v13a's, SGML step included), each line's
    followed by ``LINE_END`` (which no line may hold): the SGML step on all lines at
    once, then :func:`~.core_counts.tokenize_13a_perl_lines`."""
    return tokenize_13a_perl_lines(sgml_escape(LINE_END.join(lines)).split(LINE_END)
                                   if lines else [], lowercase)


class TokenNumbering:
    """Token ids from str tokens: ``flat_tokens(lines)`` gives every line's tokens, each
    line's followed by ``LINE_END`` (:meth:`~.mteval.MtevalDialect.flat_tokens`), and a dict
    numbers them (any tokenizer: the international one, 13a lines the core refuses).
    Lines holding ``LINE_END`` are refused (None)."""

    def __init__(self, flat_tokens: Callable[[list[str]], list[str]]) -> None:
        self._flat_tokens = flat_tokens
        self._vocab: dict[str, int] = {}

    def references(self, lines: list[str]) -> Optional[tuple["array[int]", int]]:
        """The ids of the reference lines (a new vocabulary) and the id of the token ``0``."""
        if LINE_END in "".join(lines):
            return None
        tokens = self._flat_tokens(lines)
        self._vocab = dict(zip(dict.fromkeys(tokens), range(len(tokens))))
        self._vocab[LINE_END] = _LINE_END_ID
        # (arrays are made from lists, not iterators: they then know their size)
        return (array("i", list(map(self._vocab.__getitem__, tokens))),
                self._vocab.get("0", _NO_SUCH_TOKEN))

    def hypotheses(self, lines: list[str], threads: Optional[int] = None) -> Optional["array[int]"]:
        """The ids of the lines in the references' vocabulary (``UNKNOWN`` for a new word);
        ``threads`` is not used (one dict numbers them)."""
        if LINE_END in "".join(lines):
            return None
        return array("i", list(map(self._vocab.get, self._flat_tokens(lines), repeat(UNKNOWN))))


class Core13aNumbering:
    """Token ids of mteval-v13a's tokens straight from the lines, in the core
    (``mteval_13a_ids``, ``_native/dialects/mteval_text.h``): no str token is made. The
    core refuses (None) lines holding U+0000 or U+001C..U+001F."""

    def __init__(self, lowercase: bool) -> None:
        self._core = native_core()
        self._lowercase = lowercase
        self._vocabulary: object = None

    def references(self, lines: list[str]) -> Optional[tuple[memoryview, int]]:
        """As :meth:`TokenNumbering.references`."""
        found = self._core.mteval_13a_ids(lines, self._lowercase)
        if found is None:
            return None
        self._vocabulary, ids = found
        _, zero = self._core.mteval_13a_ids(["0"], False, self._vocabulary)
        return memoryview(ids).cast("i"), memoryview(zero).cast("i")[0]

    def hypotheses(self, lines: list[str], threads: Optional[int] = None) -> Optional[memoryview]:
        """As :meth:`TokenNumbering.hypotheses`; the core tokenizes the lines on ``threads``
        threads (None: the cores this process may use), with the same ids for any count."""
        found = self._core.mteval_13a_ids(lines, self._lowercase, self._vocabulary,
                                          thread_count(threads))
        return None if found is None else memoryview(found[1]).cast("i")


Numbering = Union[TokenNumbering, Core13aNumbering]


class CoreReferences:
    """A corpus' references in the core: their ids, n-gram table and NIST weights.

    ``numbering`` gives the lines' token ids; build it with :meth:`build`, which is None
    where the numbering refuses the references.
    """

    def __init__(self, numbering: Numbering, ids: Union["array[int]", memoryview], zero: int,
                 nrefs: int, max_order: int, threads: Optional[int] = None) -> None:
        self._core = native_core()
        self._numbering = numbering
        self.nrefs = nrefs
        # (each segment's clip counts gathered on `threads` threads, None: the cores this
        # process may use; the same table for any count)
        self.table, pairs, lengths = self._core.mteval_table(ids, nrefs, max_order, zero,
                                                             thread_count(threads))
        # the distinct (count << 32 | context count) of the n-grams: NIST's weight of each
        log2 = math.log(2)
        self.weights = array("d", [-math.log((pair >> 32) / (pair & 0xFFFFFFFF)) / log2
                                   for pair in memoryview(pairs).cast("Q").tolist()])
        per_line = memoryview(lengths).cast("q").tolist()
        self.lengths = [per_line[i:i + self.nrefs] for i in range(0, len(per_line), self.nrefs)]
        self.ref_words = sum(per_line)

    @classmethod
    def build(cls, numbering: Numbering, refs: list[list[str]], max_order: int,
              threads: Optional[int] = None) -> Optional["CoreReferences"]:
        """The references prepared with ``numbering`` (on ``threads`` threads, None: the
        cores this process may use); None if it refuses their lines."""
        found = numbering.references([ref for seg in refs for ref in seg])
        if found is None:
            return None
        ids, zero = found
        return cls(numbering, ids, zero, len(refs[0]), max_order, threads)

    def sums(self, hypotheses: list[str], threads: Optional[int] = None) -> Optional[MtevalSums]:
        """The specification's tuple (``python_counts``) for ``hypotheses``; None if the
        numbering refuses their lines. The core tokenizes and counts the segments on
        ``threads`` threads (None: the cores this process may use); the sums are the same
        for any count."""
        threads = thread_count(threads)  # (once: finding the cores is a system call)
        ids = self._numbering.hypotheses(hypotheses, threads)
        if ids is None:
            return None
        matches, totals, info, sizes = self._core.mteval_sums(self.table, self.weights, ids, threads)
        lengths_by_segment = list(zip(memoryview(sizes).cast("q").tolist(), self.lengths))
        return matches, totals, info, lengths_by_segment, self.ref_words, self.nrefs
