"""BLEU's tokens of a report's streams (viewer/tokens.py): kept as one string per segment
or, where the core made them, as the page's column of them (no joined string made), with
word ids in a vocabulary shared by streams. The Python path over the kernel's token lists
(``tokenize_stream``) and the page column's Python definition (``_page_tokens``) are the
specification the core's one call per stream (``tokens_stream``) is checked against."""

from __future__ import annotations

import random

import pytest

pytest.importorskip("numpy")

from page_tokens import joined_tokens  # noqa: E402

WORDS = "the a cat dog sat on mat house red blue runs quickly , . is was Über naïve".split()

SPACES = [" ", "  ", "\t", "\u00a0", "\u3000", " \n "]


def awkward_lines(seed: int, n: int = 200) -> list:
    rng = random.Random(seed)
    pieces = WORDS + ["&quot;", "'s", "U.S.", "3.14", "co-op", "«", "»", "—", "東京", "x\u0301"]
    lines = []
    for _ in range(n):
        if rng.random() < 0.05:
            lines.append(None)
            continue
        words = [rng.choice(pieces) for _ in range(rng.randint(0, 12))]
        lines.append("".join(w + rng.choice(SPACES) for w in words).strip(" ") if words else "")
    return lines


@pytest.mark.parametrize("means", ["tokenize_stream", "stream_tokens"])
@pytest.mark.parametrize("lowercase", [False, True])
@pytest.mark.parametrize("tokenize", ["13a", "intl", "char", "zh", "none"])
def test_tokens_decode_to_the_kernels_token_lists(tokenize, lowercase, means, backend):
    """Both means (Python over the kernel's lists; the core in one call per stream, which
    ``stream_tokens`` takes on the native backend) give the kernel's tokens and ids."""
    from truebleu import BLEU
    from truebleu.viewer.tokens import CHUNK, Tokens, Vocabulary, stream_tokens, tokenize_stream

    lines = awkward_lines(7, n=CHUNK + 50)  # more than one chunk
    lines[5] = "UPPER Straße ÀB lone \ud800 surrogate"
    metric = BLEU(tokenize=tokenize, lowercase=lowercase, backend=backend)
    kernel = metric.kernel

    def tokens_of(present):
        return kernel.tokens(present, metric.tokenizer, metric.lowercase)

    def tokenized(stream, words=None):
        if means == "stream_tokens":
            return stream_tokens(stream, kernel, metric.tokenizer, metric.lowercase, words)
        return tokenize_stream(stream, tokens_of, words)

    vocabulary = Vocabulary()
    first = tokenized(lines[::-1], vocabulary)  # words seen before
    tokens = tokenized(lines, vocabulary)
    assert isinstance(tokens, Tokens) and len(tokens) == len(lines)
    slow = [None if line is None else tokens_of([line])[0] for line in lines]
    assert list(tokens) == slow
    assert tokens[3:9] == slow[3:9]
    assert tokens.lengths().tolist() == [0 if t is None else len(t) for t in slow]
    assert tokenized(lines).lengths().tolist() == tokens.lengths().tolist()
    # word ids: one per distinct word, numbered in order of first occurrence over both streams
    ids: dict[str, int] = {}
    for stream in (slow[::-1], slow):
        want = [ids.setdefault(w, len(ids)) for t in stream if t for w in t]
    assert len(vocabulary) == len(ids)
    assert first.word_ids()[1].tolist() == [ids[w] for t in slow[::-1] if t for w in t]
    segments, word_ids = tokens.word_ids()
    assert word_ids.tolist() == want
    assert segments.tolist() == [i for i, t in enumerate(slow) if t for _ in t]


def test_core_tokens_of_a_stream_refuse_what_they_cannot_number():
    """A vocabulary is numbered by one means only; a line that is not a str is an error."""
    from truebleu import BLEU
    from truebleu.viewer.tokens import Vocabulary, stream_tokens, tokenize_stream

    metric = BLEU(backend="native")
    kernel = metric.kernel
    numbered_here = Vocabulary()
    tokenize_stream(["a b"], lambda present: [line.split() for line in present], numbered_here)
    with pytest.raises(ValueError, match="numbered in Python"):
        stream_tokens(["a"], kernel, metric.tokenizer, False, numbered_here)
    numbered_by_core = Vocabulary()
    stream_tokens(["a b"], kernel, metric.tokenizer, False, numbered_by_core)
    with pytest.raises(ValueError, match="numbered by the core"):
        tokenize_stream(["a"], lambda present: [line.split() for line in present], numbered_by_core)
    with pytest.raises(TypeError, match="segments must be str, got int"):
        stream_tokens(["a", 3], kernel, metric.tokenizer, False, Vocabulary())


@pytest.mark.parametrize("threads", [1, 2, 3])
@pytest.mark.parametrize("lowercase", [False, True])
@pytest.mark.parametrize("tokenize", ["13a", "intl", "char", "zh", "none"])
def test_streams_side_by_side_are_numbered_as_one_after_the_other(tokenize, lowercase, threads,
                                                                   backend):
    """``streams_tokens`` (the core: each stream on a thread with a vocabulary of its own,
    the words numbered afterwards) gives every stream's column, lengths and word ids as
    ``stream_tokens`` of one stream after the other in one vocabulary."""
    from truebleu import BLEU
    from truebleu.viewer.tokens import CHUNK, Vocabulary, stream_tokens, streams_tokens

    metric = BLEU(tokenize=tokenize, lowercase=lowercase, backend=backend)
    streams = [awkward_lines(k, n=CHUNK + 50 if k == 1 else 300) for k in range(4)]
    streams[2][3] = "UPPER Straße ÀB lone \ud800 surrogate"
    streams.append([])

    def made(tokens, lines):
        segments, ids = tokens.word_ids()
        return tokens.page_column(lines), tokens.lengths().tolist(), segments.tolist(), ids.tolist()

    one_by_one, side_by_side = Vocabulary(), Vocabulary()
    want = [stream_tokens(lines, metric.kernel, metric.tokenizer, lowercase, one_by_one)
            for lines in streams]
    got = streams_tokens(streams, metric.kernel, metric.tokenizer, lowercase, side_by_side, threads)
    assert len(side_by_side) == len(one_by_one)
    for lines, a, b in zip(streams, want, got):
        assert made(b, lines) == made(a, lines)


def test_a_merged_vocabulary_is_numbered_by_no_other_means():
    from truebleu import BLEU
    from truebleu.viewer.tokens import Vocabulary, stream_tokens, streams_tokens, tokenize_stream

    metric = BLEU(backend="native")
    merged = Vocabulary()
    streams_tokens([["a b"], ["b c"]], metric.kernel, metric.tokenizer, False, merged)
    assert len(merged) == 3
    with pytest.raises(ValueError, match="numbered in Python"):
        stream_tokens(["a"], metric.kernel, metric.tokenizer, False, merged)
    with pytest.raises(ValueError, match="numbered by the core"):
        tokenize_stream(["a"], lambda present: [line.split() for line in present], merged)
    by_core = Vocabulary()
    stream_tokens(["a b"], metric.kernel, metric.tokenizer, False, by_core)
    with pytest.raises(ValueError, match="numbered otherwise"):
        streams_tokens([["a"]], metric.kernel, metric.tokenizer, False, by_core)


def test_tokens_of_no_words_at_all():
    from truebleu.viewer.tokens import Tokens, Vocabulary, tokenize_stream

    assert list(Tokens([None, "", ""])) == [None, [], []]
    tokens = tokenize_stream([None, "", " "], lambda present: [[] for _ in present], Vocabulary())
    assert list(tokens) == [None, [], []] and tokens.lengths().tolist() == [0, 0, 0]
    segments, ids = tokens.word_ids()
    assert segments.tolist() == [] and ids.tolist() == []
    with pytest.raises(ValueError, match="without a vocabulary"):
        Tokens(["a"]).word_ids()


PAGE_LINES = ["Hello, world.", "a", "", "x\U0001d11e,y\U0001d11e.", "a  b", " lead", "trail ",
              "it's \ud800 lone.", "(\u00e9t\u00e9)", "\u6771\u4eac\u3002", "x\u0301!", "A.B.C",
              "3.14 km.", "«quoted»", "tab\there", "U.S. and U.K.", "e\u00a0f;"]


def page_lines(seed: int, n: int) -> list:
    """Lines for the core's page walk: ASCII tokens of every length up to 20 bytes (its
    8-byte words, the text's last bytes) in texts of 1, 2 and 4 bytes per character."""
    rng = random.Random(seed)
    lines: list = []
    for k in range(n):
        words = ["".join(rng.choice("abcXYZ09") for _ in range(rng.randint(1, 20)))
                 + rng.choice(["", ",", ".", "!", "'s"]) for _ in range(rng.randint(0, 6))]
        wide = ["", "\u00fc", "\u201e", "\U0001d11e"][k % 4]  # (the text's kind)
        if words and wide:
            words.insert(rng.randrange(len(words) + 1), wide + "w")
        lines.append(" ".join(words))
    return lines


@pytest.mark.parametrize("tokenize", ["13a", "intl", "char", "zh", "none"])
@pytest.mark.parametrize("lowercase", [False, True])
def test_page_token_column_gives_back_the_tokens(tokenize, lowercase):
    """The page columns (the core's of each segment's text and joined tokens, and the one
    ``tokens_stream`` makes with the tokens, no joined string made) equal their Python
    definition on the kernel's token lists, put back exactly each segment's joined tokens
    (the page's reading: UTF-16 offsets), and are offsets for the usual tokens (spaces
    before punctuation)."""
    from truebleu import BLEU
    from truebleu.viewer.tokens import Vocabulary, _page_tokens, page_token_column, stream_tokens

    lines = PAGE_LINES + [None] + awkward_lines(11, n=400) + page_lines(3, 400)
    metric = BLEU(tokenize=tokenize, lowercase=lowercase, backend="native")
    present = [line for line in lines if line is not None]
    found = iter(metric.kernel.tokens(present, metric.tokenizer, lowercase))
    joined = [None if line is None else " ".join(next(found)) for line in lines]
    want = [_page_tokens(text, tokens) for text, tokens in zip(lines, joined)]
    column = page_token_column(lines, joined)
    assert column == want
    assert [joined_tokens(text, item) for text, item in zip(lines, column)] == joined
    words = Vocabulary()
    stream_tokens(lines[::-1], metric.kernel, metric.tokenizer, lowercase, words)  # (words seen)
    tokens = stream_tokens(lines, metric.kernel, metric.tokenizer, lowercase, words)
    assert tokens.page_column(lines) == want and tokens.page_column(list(lines)) == want
    assert tokens.joined == joined
    if tokenize == "13a" and not lowercase:
        assert column[:4] == [[5, 12], None, None, [3, 4, 7]]
        assert column[4] == "a b" and column[7] == [11]
    assert any(isinstance(item, list) for item in column) == (tokenize != "none")


def test_page_column_of_other_texts_is_made_again():
    """A stream's tokens give their own page column only for the texts they were made of."""
    from truebleu import BLEU
    from truebleu.viewer.tokens import _page_tokens, stream_tokens

    metric = BLEU(backend="native")
    tokens = stream_tokens(["a, b", None], metric.kernel, metric.tokenizer, False)
    assert tokens.page_column(["a, b", None]) == [[1], None]
    assert tokens.page_column(["a , b", None]) == [_page_tokens("a , b", "a , b"), None] == [None, None]
