"""BLEU's tokens of a stream, kept as one string per segment, and their word ids.

A report shows, counts and buckets the tokens BLEU counted. Kept as one Python list
of ``str`` per segment, the 200,000-segment report held 12 million token objects
(most of its memory); kept as each segment's tokens joined by single spaces (what the
page shows anyway), a stream is one string per segment. Tokens never contain a space
(a tokenizer splits on whitespace), so ``joined.split(" ")`` gives them back exactly.

The frequency buckets count words by id. The ids are given while the tokens are made,
so that no stream is split into token strings a second time. Where the core runs the
tokenizer (:func:`stream_tokens`), one call per stream gives the joined strings, the
counts and the ids (``tokens_stream``: no ``str`` per token, the 200,000-segment report
made 18 million of them); otherwise the ids come from the tokenizer's own lists (one
``dict.setdefault`` per token, in C through ``map``, :func:`tokenize_stream`). The core
gives the page's column of the tokens (:func:`page_token_column`) in the same call, in
place of the joined strings: at 13a most segments' items are None or a few offsets, so
that few strings are made at all; the joined strings are made from it when read.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import chain, count
from typing import TYPE_CHECKING, Any, Callable, Iterable, Optional, Union, overload

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = ["Tokens", "Vocabulary", "statistics_of_tokens", "stream_tokens", "streams_tokens",
           "tokenize_stream"]

#: lines tokenized per call of the kernel (its lists of tokens are joined at once)
CHUNK = 8192

#: a page token column's item: None (the text itself), offsets of inserted spaces, or the tokens
PageTokens = Union[None, list[int], str]


class Vocabulary:
    """One id per distinct word, shared by the streams whose words are compared.

    Numbered by one of three means, whichever numbers its first words, never two: by the
    core (:func:`stream_tokens`: :meth:`core_vocabulary`, whose ids are already ``0 ..
    len(self) - 1`` in order of first occurrence); from the core's vocabularies of
    streams tokenized side by side (:func:`streams_tokens`: :meth:`merged_ids`, the
    words of each numbered in turn, so the same ids again); or here
    (:func:`tokenize_stream`): a word's raw id is the number of tokens numbered before
    its first occurrence (so one C-level ``setdefault`` per token numbers it, with no
    Python code per token), and :meth:`dense` renumbers raw ids to ``0 .. len(self) - 1``
    in order of first occurrence.
    """

    def __init__(self) -> None:
        self._ids: dict[str, int] = {}
        #: tokens numbered so far: every raw id is below it
        self.numbered = 0
        self._table: Optional[NDArray[Any]] = None
        self._core: Any = None  # the core's vocabulary (a capsule), once the core numbers words
        self._core_size = 0
        self._merged: Optional[dict[bytes, int]] = None  # words (UTF-8) of merged_ids

    def __len__(self) -> int:
        if self._merged is not None:
            return len(self._merged)
        return self._core_size if self._core is not None else len(self._ids)

    @property
    def dense_ids(self) -> bool:
        """Whether the ids given are already ``0 .. len(self) - 1`` (the core's, or merged)."""
        return self._core is not None or self._merged is not None

    def merged_ids(self, words: list[bytes]) -> NDArray[Any]:
        """The ids here of a core vocabulary's ``words`` (``tokens_vocabulary_words``: its
        words in id order), numbering the new ones: int32 (int64 beyond), by its ids."""
        from ..core.lazy_numpy import numpy

        if self._core is not None or self.numbered:
            raise ValueError("this vocabulary's words are numbered otherwise")
        np = numpy()
        merged = self._merged = {} if self._merged is None else self._merged
        ids = [merged.setdefault(word, len(merged)) for word in words]
        kind = np.int32 if len(merged) < 2**31 else np.int64
        table: NDArray[Any] = np.array(ids, dtype=kind)
        return table

    def core_vocabulary(self) -> Any:
        """The core's vocabulary for ``tokens_stream`` (made at the first call)."""
        if self._core is None:
            if self.numbered or self._merged is not None:
                raise ValueError("this vocabulary's words were numbered in Python, not by the core")
            from ..core.kernels import native_core

            self._core = native_core().tokens_vocabulary()
        return self._core

    def core_numbered(self, size: int) -> None:
        """The core's vocabulary holds ``size`` words now (``tokens_stream``'s last result)."""
        self._core_size = size

    def raw_ids(self, words: Iterable[str], n_words: int) -> NDArray[Any]:
        """The raw ids of ``words`` (exactly ``n_words`` of them), int64, numbering new ones."""
        from ..core.lazy_numpy import numpy

        if self.dense_ids:
            raise ValueError("this vocabulary's words are numbered by the core")
        np = numpy()
        ids: NDArray[Any] = np.fromiter(map(self._ids.setdefault, words, count(self.numbered)),
                                        dtype=np.int64, count=n_words)
        self.numbered += n_words
        self._table = None
        return ids

    def dense(self, raw: NDArray[Any]) -> NDArray[Any]:
        """Raw ids as ids from 0 to ``len(self) - 1`` (int32 while they fit: a table of one
        entry per numbered token is made once); the core's ids are those already."""
        from ..core.lazy_numpy import numpy

        if self.dense_ids:
            return raw
        np = numpy()
        if self._table is None:
            firsts = np.fromiter(self._ids.values(), dtype=np.int64, count=len(self._ids))
            table = np.zeros(self.numbered, dtype=np.int32 if len(firsts) < 2**31 else np.int64)
            table[firsts] = np.arange(len(firsts), dtype=np.int64)  # values in insertion order
            self._table = table
        dense: NDArray[Any] = self._table[raw]
        return dense


class Tokens(Sequence[Optional[list[str]]]):
    """A stream's tokens: ``tokens[i]`` is segment ``i``'s list (None: no segment).

    Kept as each segment's tokens joined by single spaces (``joined``), or, where the core
    made them (:func:`stream_tokens`), as the page's column of them (``column``, with the
    ``texts`` it is of: see :func:`page_token_column`), from which ``joined`` is made
    when first read (the report itself reads only the column)."""

    def __init__(self, joined: Optional[list[Optional[str]]], lengths: Optional[NDArray[Any]] = None,
                 raw_ids: Optional[NDArray[Any]] = None,
                 vocabulary: Optional[Vocabulary] = None, *,
                 texts: Optional[Sequence[Optional[str]]] = None,
                 column: Optional[list[PageTokens]] = None) -> None:
        if joined is None and (texts is None or column is None or len(texts) != len(column)):
            raise ValueError("tokens need their joined strings, or texts and their page column")
        self._joined = joined
        self._lengths = lengths
        self._raw_ids = raw_ids
        self.vocabulary = vocabulary
        self._texts = texts
        self._column = column

    @property
    def joined(self) -> list[Optional[str]]:
        """Each segment's tokens joined by single spaces (None where it has none)."""
        if self._joined is None:
            assert self._texts is not None and self._column is not None
            self._joined = list(map(_joined_of_page, self._texts, self._column))
        return self._joined

    def page_column(self, texts: Sequence[Optional[str]]) -> list[PageTokens]:
        """The page's column of these tokens of ``texts`` (:func:`page_token_column`): the
        one the core made with them where ``texts`` are the lines they were made of."""
        if self._column is not None and (texts is self._texts or texts == self._texts):
            return list(self._column)
        return page_token_column(texts, self.joined)

    def __len__(self) -> int:
        if self._joined is not None:
            return len(self._joined)
        assert self._column is not None
        return len(self._column)

    @overload
    def __getitem__(self, i: int) -> Optional[list[str]]: ...

    @overload
    def __getitem__(self, i: slice) -> list[Optional[list[str]]]: ...

    def __getitem__(self, i: Union[int, slice]) -> Any:
        if isinstance(i, slice):
            return [_split(line) for line in self.joined[i]]
        return _split(self.joined[i])

    def lengths(self) -> NDArray[Any]:
        """Tokens per segment (0 where there is no segment), int64."""
        from ..core.lazy_numpy import numpy

        if self._lengths is None:
            np = numpy()
            self._lengths = np.fromiter(
                (0 if line is None or not line else line.count(" ") + 1 for line in self.joined),
                dtype=np.int64, count=len(self.joined))
        return self._lengths

    def word_ids(self) -> tuple[NDArray[Any], NDArray[Any]]:
        """(each token's segment, each token's id in :attr:`vocabulary`), two integer arrays
        in token order; only for tokens made with a vocabulary (:func:`tokenize_stream`)."""
        from ..core.lazy_numpy import numpy

        if self._raw_ids is None or self.vocabulary is None:
            raise ValueError("these tokens were made without a vocabulary")
        np = numpy()
        segments = np.repeat(np.arange(len(self), dtype=np.int64), self.lengths())
        return segments, self.vocabulary.dense(self._raw_ids)


def statistics_of_tokens(hypotheses: Tokens, references: Sequence[Tokens], kernel: Any,
                         max_order: int, threads: Optional[int]) -> Optional[Any]:
    """BLEU's rows (a ``Statistics``) of ``hypotheses`` against ``references`` counted on
    their word ids, where they were all numbered in one :class:`Vocabulary` by the core
    (:func:`stream_tokens`, :func:`streams_tokens`) and ``kernel`` is the core's; else None.

    The ids are the tokens BLEU counts, one id per token and one token per id, so the
    rows are those of the tokens' text: the report tokenizes each stream once, for its
    page and its statistics alike, instead of a second time in the statistics' call."""
    vocabulary = hypotheses.vocabulary
    streams = [hypotheses, *references]
    if (vocabulary is None or not vocabulary.dense_ids or not references
            or getattr(kernel, "name", None) != "native"
            or any(t.vocabulary is not vocabulary or t._raw_ids is None or t._texts is None
                   or None in t._texts for t in streams)):
        return None
    return kernel.stream_ids_statistics(hypotheses._raw_ids, hypotheses.lengths(),
                                        [(t._raw_ids, t.lengths()) for t in references],
                                        max_order, threads)


def _split(line: Optional[str]) -> Optional[list[str]]:
    if line is None:
        return None
    return line.split(" ") if line else []


def tokenize_stream(lines: Sequence[Optional[str]],
                    tokens_of: Callable[[list[str]], list[list[str]]],
                    vocabulary: Optional[Vocabulary] = None) -> Tokens:
    """The tokens of ``lines`` (None stays None) by ``tokens_of`` (a kernel's ``tokens``
    with the metric's settings), a chunk of lines at a time; with ``vocabulary``, every
    token's word id too (:meth:`Tokens.word_ids`)."""
    from ..core.lazy_numpy import numpy

    np = numpy()
    joined: list[Optional[str]] = [None] * len(lines)
    lengths = np.zeros(len(lines), dtype=np.int64)
    ids = []
    for start in range(0, len(lines), CHUNK):
        block = lines[start:start + CHUNK]
        present = [k for k, line in enumerate(block) if line is not None]
        found = tokens_of([str(block[k]) for k in present])
        texts = list(map(" ".join, found))
        if len(present) == len(block):
            joined[start:start + len(block)] = texts
        else:
            for k, text in zip(present, texts):
                joined[start + k] = text
        counts = np.fromiter(map(len, found), dtype=np.int64, count=len(found))
        lengths[np.asarray(present, dtype=np.int64) + start] = counts
        if vocabulary is not None:
            ids.append(vocabulary.raw_ids(chain.from_iterable(found), int(counts.sum())))
    if vocabulary is None:
        return Tokens(joined, lengths)
    raw = np.concatenate(ids) if ids else np.empty(0, dtype=np.int64)
    return Tokens(joined, lengths, raw, vocabulary)


def stream_tokens(lines: Sequence[Optional[str]], kernel: Any, tokenizer: Any, lowercase: bool,
                  vocabulary: Optional[Vocabulary] = None) -> Tokens:
    """BLEU's tokens of ``lines`` (None stays None) by ``kernel``'s ``tokens`` with the
    metric's ``tokenizer`` and ``lowercase``: in one call of the core where the kernel is
    the core's and the core runs the tokenizer, else by :func:`tokenize_stream`. The same
    tokens and ids either way (tests/viewer/test_viewer_compact.py)."""
    mode = _core_mode(kernel, tokenizer)
    if mode is None:
        return tokenize_stream(lines, lambda present: kernel.tokens(present, tokenizer, lowercase),
                               vocabulary)
    from ..core.kernels import native_core
    from ..core.lazy_numpy import numpy

    np = numpy()
    words = vocabulary if vocabulary is not None else Vocabulary()
    texts = list(lines)
    column, lengths, ids, size = native_core().tokens_stream(
        texts, mode, bool(lowercase), words.core_vocabulary())
    words.core_numbered(size)
    counts = np.frombuffer(lengths, dtype=np.int64)
    raw = np.frombuffer(ids, dtype=np.uint32)
    raw = raw.view(np.int32) if size < 2**31 else raw.astype(np.int64)  # (ids below size)
    if vocabulary is None:
        return Tokens(None, counts, texts=texts, column=column)
    return Tokens(None, counts, raw, vocabulary, texts=texts, column=column)


def streams_tokens(streams: Sequence[Sequence[Optional[str]]], kernel: Any, tokenizer: Any,
                   lowercase: bool, vocabulary: Vocabulary, threads: Optional[int] = None
                   ) -> list[Tokens]:
    """:func:`stream_tokens` of each stream, their words numbered in ``vocabulary`` as one
    call after the other would number them. Where the core tokenizes, the streams are
    tokenized side by side on ``threads`` threads (default: the available cores), each with
    a vocabulary of its own (the core's call holds no GIL while it tokenizes and reads
    the tokens against the text), whose words are then numbered here in the streams'
    order; elsewhere one after the other."""
    mode = _core_mode(kernel, tokenizer)
    if mode is None:
        return [stream_tokens(lines, kernel, tokenizer, lowercase, vocabulary) for lines in streams]
    from ..core.kernels import native_core, thread_count
    from ..core.lazy_numpy import numpy

    np, core = numpy(), native_core()

    def tokenized(lines: Sequence[Optional[str]]) -> tuple[Any, ...]:
        texts, own = list(lines), core.tokens_vocabulary()
        return (texts, *core.tokens_stream(texts, mode, bool(lowercase), own)[:3],
                core.tokens_vocabulary_words(own))

    workers = min(thread_count(threads), len(streams))
    if workers > 1:
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(workers, thread_name_prefix="truebleu-tokens") as pool:
            made = list(pool.map(tokenized, streams))
    else:
        made = [tokenized(lines) for lines in streams]
    out = []
    for texts, column, lengths, ids, words in made:  # (numbered in the streams' order)
        local = np.frombuffer(ids, dtype=np.uint32)
        out.append(Tokens(None, np.frombuffer(lengths, dtype=np.int64),
                          vocabulary.merged_ids(words).take(local), vocabulary, texts=texts,
                          column=column))
    return out


def _core_mode(kernel: Any, tokenizer: Any) -> Optional[int]:
    """The core's number of ``tokenizer`` if ``kernel`` is the core's and the core runs it."""
    if getattr(kernel, "name", None) != "native":
        return None
    from ..metrics.bleu.native import core_mode

    mode: Optional[int] = core_mode(tokenizer)
    return mode


def page_token_column(texts: Sequence[Optional[str]], joined: Sequence[Optional[str]]) -> list[PageTokens]:
    """The page's column of a stream's tokens (``joined``: each segment's tokens joined by
    single spaces), small where the tokens are nearly the text: per segment, None where
    there are no tokens (no segment) or they equal the text; else, where the tokens are the
    text with spaces inserted (13a's and intl's usual case: a space before punctuation), the
    UTF-16 offsets into the text (as the page's strings index it) before which a space goes;
    else the joined tokens themselves. The page (static/js/10-data.js, ``pageTokens``) puts
    the spaces back. The core gives the same column (``page_token_column``); this is its
    definition, used without the core."""
    from ..core.kernels import native_available, native_core

    if not native_available():
        return [_page_tokens(text, tokens) for text, tokens in zip(texts, joined)]
    column: list[PageTokens] = native_core().page_token_column(list(texts), list(joined))
    return column


def _page_tokens(text: Optional[str], tokens: Optional[str]) -> PageTokens:
    """One segment of :func:`page_token_column`: the text's characters are read in order
    against the tokens'; a character of the tokens that is not the text's next one must be
    an inserted space."""
    if tokens is None or tokens == text:
        return None
    assert text is not None
    offsets, i, utf16 = [], 0, 0
    for char in tokens:
        if i < len(text) and text[i] == char:
            utf16 += 2 if ord(char) > 0xFFFF else 1
            i += 1
        elif char == " ":
            offsets.append(utf16)
        else:
            return tokens
    return offsets if i == len(text) and offsets else tokens


def _joined_of_page(text: Optional[str], item: PageTokens) -> Optional[str]:
    """A segment's joined tokens from its page column item (the page's reading of it,
    static/js/10-data.js ``pageTokens``): None is the text itself, a list the UTF-16
    offsets into the text before which a space goes, a str the tokens themselves."""
    if not isinstance(item, list):
        return text if item is None else item
    assert text is not None
    units = text.encode("utf-16-le", "surrogatepass")
    cuts = [0, *(2 * at for at in item), len(units)]
    return " ".join(units[a:b].decode("utf-16-le", "surrogatepass") for a, b in zip(cuts, cuts[1:]))
