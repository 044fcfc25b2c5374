"""Fuzz the report's tokens and its rows counted on them (not part of CI).

The report tokenizes each stream once (``truebleu.viewer.tokens.streams_tokens``: the
streams side by side on threads, each with a core vocabulary of its own, the words then
numbered in the streams' order) and counts BLEU's rows on the tokens' word ids
(``statistics_of_tokens``, the core's ``ids_statistics_streams``). Each batch here is a
small report: 1-3 systems and 1-3 references of the same lines, made of fuzz_native.py's
adversarial pieces (Unicode spaces, combining marks, astral characters, lone surrogates,
13a entities, ``<skipped>``, numbers around ``.,-``, ...), one PyUnicode kind or a mix per
batch, some lines empty, some references equal to a hypothesis; a tokenizer the core runs,
``lowercase`` on or off, an order of 1-6 (sometimes 7-12), 1, 2 or 3 threads. For every
batch:

* each system's rows on the ids equal BLEU's rows on the text (``systems_statistics``: the
  references prepared, the systems tokenized again), the way the report counted before;
* every stream's page column, token counts and word ids equal those of ``stream_tokens``
  called one stream after another in one vocabulary;
* every line's tokens read back from the page column equal the kernel's token list, and
  the column is the one its Python definition (``_page_tokens``) gives for them.

A difference prints the seed, the batch, its settings and the first line that differs
(repr); exit status 1. An input is one segment of a batch (its lines in every stream).

    python bench/fuzz_report_tokens.py -n 100000 --seed 1
"""

from __future__ import annotations

import argparse
import random
import sys
import time

from fuzz_native import PIECES, WORDS, below, random_text
from truebleu import BLEU
from truebleu.viewer.tokens import (
    Vocabulary,
    _page_tokens,
    statistics_of_tokens,
    stream_tokens,
    streams_tokens,
)

TOKENIZERS = ["13a", "13a", "intl", "zh", "char", "none"]


def random_batch(rng: random.Random) -> tuple[dict, list[list[str]], list[list[str]], int]:
    limit = rng.choice((0x80, 0x100, 0x10000, 0x110000, 0x110000))
    vocab = rng.sample(WORDS + PIECES, rng.randrange(2, 14))
    if limit < 0x110000:
        vocab = below(limit, vocab)
    n = rng.choice((1, 2, 5, 30, 100, 300))
    max_parts = rng.choice((0, 3, 10, 30, 100))

    def line() -> str:
        mixed = limit if rng.random() < 0.9 else 0x110000
        return random_text(rng, vocab, max_parts, mixed).replace("\n", " ")

    systems = [[line() for _ in range(n)] for _ in range(rng.randint(1, 3))]
    refs = [[line() for _ in range(n)] for _ in range(rng.randint(1, 3))]
    for k in range(n):  # a reference equal to a hypothesis now and then
        if rng.random() < 0.1:
            rng.choice(refs)[k] = rng.choice(systems)[k]
    order = rng.randint(1, 6) if rng.random() < 0.9 else rng.randint(7, 12)
    options = {"tokenize": rng.choice(TOKENIZERS), "lowercase": rng.random() < 0.3,
               "max_ngram_order": order, "force": True}
    return options, systems, refs, rng.choice((1, 2, 3))


def first_difference(a: list, b: list) -> int:
    return next(i for i, (x, y) in enumerate(zip(a, b)) if x != y) if a != b else -1


def check(options: dict, systems: list[list[str]], refs: list[list[str]], threads: int) -> str:
    """'' where everything agrees, else what differs first."""
    want = BLEU(**options, references=refs).systems_statistics(systems)
    metric = BLEU(**options)
    kernel, tokenizer, lowercase = metric.kernel, metric.tokenizer, metric.lowercase
    streams = [*systems, *refs]
    side = streams_tokens(streams, kernel, tokenizer, lowercase, Vocabulary(), threads)
    one = Vocabulary()
    serial = [stream_tokens(lines, kernel, tokenizer, lowercase, one) for lines in streams]
    for s, (lines, a, b) in enumerate(zip(streams, side, serial)):
        if a.page_column(lines) != b.page_column(lines):
            i = first_difference(a.page_column(lines), b.page_column(lines))
            return f"stream {s}: page column differs at line {i}: {lines[i]!r}"
        if a.lengths().tolist() != b.lengths().tolist():
            return f"stream {s}: token counts differ"
        if a.word_ids()[1].tolist() != b.word_ids()[1].tolist():
            return f"stream {s}: word ids differ"
        listed = kernel.tokens(list(lines), tokenizer, lowercase)
        got = [line.split(" ") if line else [] for line in a.joined]
        if got != listed:
            i = first_difference(got, listed)
            return f"stream {s}: tokens differ at line {i}: {lines[i]!r}: {got[i]} != {listed[i]}"
        defined = [_page_tokens(text, " ".join(t)) for text, t in zip(lines, listed)]
        if a.page_column(lines) != defined:
            i = first_difference(a.page_column(lines), defined)
            return f"stream {s}: page item differs from its definition at line {i}: {lines[i]!r}"
    ref_tokens = side[len(systems):]
    for k, (hyps, rows) in enumerate(zip(side, want)):
        table = statistics_of_tokens(hyps, ref_tokens, kernel, options["max_ngram_order"], threads)
        if table is None:
            return f"system {k}: no rows on ids"
        got_rows, want_rows = table.to_numpy().tolist(), rows.to_numpy().tolist()
        if got_rows != want_rows:
            i = first_difference(got_rows, want_rows)
            return (f"system {k}, line {i}: {got_rows[i]} != {want_rows[i]}: hyp "
                    f"{systems[k][i]!r}, refs {[r[i] for r in refs]!r}")
    return ""


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-n", type=int, default=10_000, help="segments to check")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    done = batches = 0
    start = last = time.perf_counter()
    while done < args.n:
        options, systems, refs, threads = random_batch(rng)
        found = check(options, systems, refs, threads)
        if found:
            print(f"DIFFERENCE (seed {args.seed}, batch {batches}, {options}, threads {threads}): "
                  f"{found}")
            return 1
        done += len(systems[0])
        batches += 1
        if time.perf_counter() - last > 30:
            last = time.perf_counter()
            print(f"{done:,} segments, {batches:,} batches, {last - start:.0f} s", flush=True)
    print(f"OK: {done:,} segments in {batches:,} batches, seed {args.seed}, no difference "
          f"({time.perf_counter() - start:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
