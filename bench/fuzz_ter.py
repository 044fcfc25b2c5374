"""Fuzz the compiled TER against the pure-Python specification (not part of CI).

Each input is one segment: a hypothesis and 1-4 references (some empty) over
a small vocabulary (so blocks match and the shift search works hard), often a
reordered and edited reference, sometimes of very unequal lengths (widened
beam), with words that only differ in Unicode details (combining marks,
astral characters, lone surrogates). The native row must equal the Python
row, with 1 and with several threads.

With ``--text`` the words are joined into lines by separators that tercom's
rules act on (punctuation, entities, line breaks, CJK, Unicode spaces), and
the core tokenizes them (``ter_tokenize`` for the references, the job for the
hypotheses) under random tokenizer options, against the Python tokenizer and
the specification.

    python bench/fuzz_ter.py -n 100000 --seed 1 [--seconds 300] [--text]

Prints progress and the first differing input (repr); exit status 1 on a difference.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from array import array

from truebleu import _native_core as core
from truebleu.metrics.ter import TER
from truebleu.metrics.ter import spec as _reference_ter
from truebleu.metrics.ter.kernels import ter_reference, ter_tokens

WORDS = ["a", "b", "c", "the", "The", "é", "e\u0301", "😀", "\U00020000", "\ud800", "x" * 40,
         "-", ".", "'s", "中", "ab", "a\u00a0b"]


def segment(rng: random.Random) -> tuple[list[str], list[list[str]]]:
    vocabulary = rng.sample(WORDS, k=rng.randint(1, len(WORDS)))
    length = rng.choice([0, 1, 3, 8, 8, 15, 15, 25, 40])
    refs = []
    for _ in range(rng.randint(1, 4)):
        n = 0 if rng.random() < 0.05 else rng.randint(0, length)
        refs.append([rng.choice(vocabulary) for _ in range(n)])
    if refs[0] and rng.random() < 0.6:
        hyp = list(refs[0])
        for _ in range(rng.randint(0, 4)):  # move blocks
            i = rng.randrange(len(hyp))
            j = rng.randint(i, min(len(hyp), i + rng.randint(1, 12)))
            block = hyp[i:j]
            del hyp[i:j]
            k = rng.randint(0, len(hyp))
            hyp[k:k] = block
        for _ in range(rng.randint(0, 3)):  # edit words
            if hyp:
                hyp[rng.randrange(len(hyp))] = rng.choice(WORDS)
    else:
        hyp = [rng.choice(vocabulary) for _ in range(rng.randint(0, length))]
    if rng.random() < 0.05:
        hyp = hyp[:2] if rng.random() < 0.5 or len(hyp) > 8 else hyp * 15  # unequal lengths
    return hyp, refs


# what joins words into lines with --text: what tercom's rules look at
SEPARATORS = [" ", " ", " ", "  ", "\t", "", ", ", ",", ".", ". ", "-", " - ", "'", "'s ", "\n",
              "\n-", "&amp;", "&quot;", "&amp;lt;", "\u3000", "\u00a0", "\u2028", "、", "。", "（",
              "中", "A", "S", "1", "1.", ".1", "/", "$", "?!", "\"", "(", ")"]
OPTIONS = ("normalized", "no_punct", "asian_support", "case_sensitive")


def line(rng: random.Random, words: list[str]) -> str:
    return "".join(word + rng.choice(SEPARATORS) for word in words)


def text_rows(batch, rng: random.Random, threads: int):
    """(expected rows, native rows, the lines) of the batch as lines under random options."""
    options = {name: rng.random() < 0.5 for name in OPTIONS}
    tokenizer = TER(**options).tokenizer
    hyps = [line(rng, hyp) for hyp, _ in batch]
    refs = [[line(rng, ref) for ref in refs] for _, refs in batch]
    expected = [_reference_ter.segment_row(ter_tokens(hyp, tokenizer),
                                           [ter_reference(ref, tokenizer).split() for ref in rs])
                for hyp, rs in zip(hyps, refs)]
    prepared = [core.ter_tokenize(rs, **options, reference=True) for rs in refs]
    out = array("d", bytes(16 * len(batch)))
    core.ter_statistics(hyps, prepared, threads, out, tokenize=True, **options)
    native = [tuple(out[2 * i:2 * i + 2]) for i in range(len(batch))]
    return expected, native, [(options, hyp, rs) for hyp, rs in zip(hyps, refs)]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", type=int, default=100000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--seconds", type=float, default=None, help="stop after this long")
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--text", action="store_true",
                        help="lines of text, tokenized by the core under random options")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    start, done = time.time(), 0
    while done < args.n and (args.seconds is None or time.time() - start < args.seconds):
        batch = [segment(rng) for _ in range(min(args.batch, args.n - done))]
        if args.text:
            for threads in (1, 3):
                expected, native, lines = text_rows(batch, rng, threads)
                for i, row in enumerate(expected):
                    if native[i] != row:
                        print(f"DIFFERENCE (threads={threads}): {lines[i]!r}\n"
                              f"python {row}, native {native[i]}")
                        return 1
            done += len(batch)
            continue
        expected = [_reference_ter.segment_row(hyp, refs) for hyp, refs in batch]
        hyps = [" ".join(hyp) for hyp, _ in batch]
        refs = [[" ".join(ref) for ref in refs] for _, refs in batch]
        for threads in (1, 3):
            out = array("d", bytes(16 * len(batch)))
            core.ter_statistics(hyps, refs, threads, out)
            for i, row in enumerate(expected):
                if tuple(out[2 * i:2 * i + 2]) != row:
                    print(f"DIFFERENCE (threads={threads}): {batch[i]!r}\n"
                          f"python {row}, native {tuple(out[2 * i:2 * i + 2])}")
                    return 1
        done += len(batch)
        if done % (args.batch * 10) == 0:
            print(f"{done} segments, {time.time() - start:.0f} s", flush=True)
    print(f"fuzz_ter: {done} segments identical (seed {args.seed}{', text' if args.text else ''}), "
          f"{time.time() - start:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
