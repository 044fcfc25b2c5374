"""Fuzz the compiled core against the pure-Python specification (not part of CI).

Each input is one segment: a hypothesis, 0-6 references (sometimes many
more), a tokenizer, lowercase on/off and an n-gram order 1-6; half of the
segments are ASCII or Latin-1 only (the core reads an ASCII line in place and
any other line as code points: both paths, and a hypothesis on one path
against references on the other, must agree). Built from
adversarial pieces (Unicode spaces, combining marks, astral characters,
13a entities, ``<skipped>``, ``-\\n``, digits around ``.,-``, the characters
of sacreBLEU's buggy zh ranges, case-changing characters ...). For every input
the native statistics row and token lists must equal the Python backend's,
through every entry point: prepare/statistics, the fused sentence path
(references given as a str, or with None entries), the fused stream path
(a cold corpus; its rows, its tokenized-period count, and its totals-only form for
corpus scores), both on the inputs that have a reference, the command line's UTF-8
byte path (stream_statistics_utf8: lines as bytes, against the stream path), and
pairwise matrices. One batch in four shares reference sets between its items
(share_references), as several systems in one call or a test set's duplicate lines.

    python bench/fuzz_native.py -n 1000000 --seed 1 [--threads 2] [--tokenizers intl,char,zh]

Prints progress, and the first differing inputs (repr) if any; exit status 1
on a difference.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from array import array

from truebleu import _native_core as core
from truebleu.metrics.bleu.config import BLEUConfig
from truebleu.metrics.bleu.kernels import PythonKernel
from truebleu.metrics.bleu.native import MODES, NativeKernel
from truebleu.metrics.bleu.score import python_bleu_scores
from truebleu.metrics.bleu.spec import segment_tokens
from truebleu.tokenizers import get_tokenizer

SPACES = [chr(c) for c in range(0x10000) if chr(c).isspace()] + ["\u200b", "\ufeff"]
PIECES = [
    "&quot;", "&amp;", "&lt;", "&gt;", "&amp;quot;", "&", ";", "<skipped>", "<skip", "ped>",
    "-\n", "\n", "-", ".", ",", "'", "3.5", "1,000", "12-", "-3", "a.", ".b", "..", ",,",
    "İ", "Σ", "ς", "ß", "ẞ", "ǅ", "ΐ", "ﬃ", "K", "Å", "Ⅻ", "ⓐ", "𐐀", "𞤀",
    "e\u0301", "\u0301", "\u20dd", "\u0345", "a\u0308\u0301",
    "你", "好", "。", "，", "\u2001", "\u2013", "\u2014", "\u2026", "\u2a6d", "\u2a6e",
    "\u2f81", "\u2fa1", "\u3000", "\uff0c", "\U00020000", "\U0002f800",
    "😀", "👍🏽", "\U0001f1e9\U0001f1ea", "$", "%", "€", "¥", "©", "°", "½", "²", "٣", "۵",
    "¡", "¿", "«", "»", "“", "”", "„", "‐", "—", "·", "՚", "؟", "।", "᭚", "\ud800", "\udfff",
    "\u2019", "\u2019s", "s\u2019.", "\u201c.", ".\u201d", "é.", ".é", "3.é", "é-3", "\xa0.", ".\u3000",
    # intl's punctuation between numbers, after punctuation or symbols, non-ASCII numbers
    "9:30", "(1)", "\u201d,", ",\u201d", "\u0663,\u0663", "\u00b2.", ".\u00bd", "5%", "$5.", "\u20ac.",
    "-\u00e9-",
    # code points sharing their low 9 bits (one slot of the core's one-character cache)
    "\u4e00", "\u5000", "\u5200", "\u0100", "\u0300", "\u2018", "\u2218", "\U0001f600", "\U0001f800",
]
WORDS = ["the", "The", "a", "cat", "CAT", "Cat", "sat", "on", "mat", "Haus", "ÉTÉ", "été",
         "naïve", "x", "y", "1", "2", "99", "3.14", "U.S.", "e.g.", "don't", "o'clock",
         "state-of-the-art", "mother-in-law", "2-3", "AT&T", "a/b", "c++", "#tag", "@user",
         "www.example.com", "東京", "中文", "한국어", "ありがとう", "Ελλάδα", "ΣΟΦΟΣ", "мир",
         # the vocabulary's keys: 8 bytes and around, long shared prefixes, NUL bytes (a
         # token's first 8 bytes with zeros after them are its key)
         "abcdefg", "abcdefgh", "abcdefghi", "abcdefgh1", "international", "internationally",
         "internationalization", "internationalisation", "a\x00", "a\x00\x00", "\x00", "ab\x00c",
         "abcdefg\x00", "abcdefgh\x00",
         # numbers around '.' and ',' (13a's byte path splits some without replaying the rules)
         "1,000.", "3.5,", ",5", "5,", ".5", "1.2.3", "a.5", "5.a", "1-2.", "2.-", "1.-2", "0.5-"]


def random_char(rng: random.Random, limit: int = 0x110000) -> str:
    if limit <= 0x100:  # an ASCII or Latin-1 line: mostly ASCII letters, some of the rest
        return chr(rng.randrange(32, 127) if rng.random() < 0.7 else rng.randrange(limit))
    r = rng.random()
    if r < 0.5:
        return chr(rng.randrange(32, 127))
    if r < 0.7:
        return chr(rng.randrange(0x80, 0x3000))
    if r < 0.85:
        return chr(rng.randrange(0x3000, 0x10000))
    return chr(rng.randrange(0x10000, 0x110000))


def below(limit: int, pieces: list[str]) -> list[str]:
    return [p for p in pieces if max(map(ord, p)) < limit]


def random_text(rng: random.Random, vocab: list[str], max_parts: int, limit: int = 0x110000) -> str:
    """Up to max_parts pieces; every character below `limit` (0x80: an ASCII
    line, 0x100: Latin-1, which the compiled core reads on other paths)."""
    pieces, spaces = (PIECES, SPACES) if limit > 0x10000 else (below(limit, PIECES), below(limit, SPACES))
    parts = []
    for _ in range(rng.randrange(max_parts + 1)):
        r = rng.random()
        if r < 0.45 and vocab:
            parts.append(rng.choice(vocab))
        elif r < 0.65:
            parts.append(rng.choice(pieces))
        elif r < 0.75:
            parts.append(rng.choice(spaces))
        else:
            parts.append(random_char(rng, limit))
        sep = rng.random()
        if sep < 0.6:
            parts.append(" ")
        elif sep < 0.7:
            parts.append(rng.choice(spaces))
    return "".join(parts)


def random_case(rng: random.Random):
    # ASCII, Latin-1 (PyUnicode kind 1), the BMP (kind 2), any (kind 4)
    limit = rng.choice((0x80, 0x80, 0x100, 0x10000, 0x110000, 0x110000))
    vocab = rng.sample(WORDS + PIECES, rng.randrange(2, 12))
    if limit < 0x110000:
        vocab = below(limit, vocab)
    long = rng.random() < 0.01
    max_parts = 400 if long else rng.choice((3, 10, 30))
    n_refs = rng.choice((0, 1, 1, 1, 2, 3, 4, 6)) if rng.random() > 0.005 else rng.randrange(50, 300)
    hyp = random_text(rng, vocab, max_parts, limit)
    refs = [random_text(rng, vocab, max_parts, limit if rng.random() < 0.8 else 0x110000)
            for _ in range(n_refs)]
    if refs and rng.random() < 0.2:
        refs[0] = hyp  # identical reference
    return hyp, refs


def look_alike(rng: random.Random, refs: list[str]) -> list[str]:
    """refs with one character changed past the first 8 of each line long enough: the
    same length and start, the core's first look at references cannot tell them apart."""
    out = []
    for ref in refs:
        if len(ref) > 9:
            pos = rng.randrange(8, len(ref))
            other = rng.choice(ref)  # (a character of the line: its width most often)
            other = other if other != ref[pos] else "x" if ref[pos] != "x" else "y"
            ref = ref[:pos] + other + ref[pos + 1:]
        out.append(ref)
    return out


def share_references(rng: random.Random, cases: list[tuple[str, list[str]]]) -> list[tuple[str, list[str]]]:
    """A batch in four: its items share reference sets, as several systems scored in one
    call (a test set repeated: the core groups the items) or one test set's few duplicate
    lines (the items keep their order, neighbours compared): the same lists, equal copies
    as other objects, look-alikes (look_alike); systems that agree repeat hypotheses."""
    draw = rng.random()
    if draw < 0.75 or not cases:
        return cases
    n = len(cases)
    out = list(cases)
    if draw < 0.9:  # systems: a test set of n / k items, k times over
        m = max(1, n // rng.choice((2, 3, 5, 10)))
        for i in range(m, n):
            hyp, _ = cases[i]
            src_hyp, src_refs = cases[i % m]
            refs = src_refs if rng.random() < 0.5 else ["".join(list(r)) for r in src_refs]
            if rng.random() < 0.05:
                refs = look_alike(rng, refs)
            out[i] = (src_hyp if rng.random() < 0.3 else hyp, refs)
    else:  # a few duplicates, some next to their first
        for _ in range(rng.randrange(1, 6)):
            i = rng.randrange(n)
            j = min(n - 1, i + 1) if rng.random() < 0.5 else rng.randrange(n)
            refs = out[i][1]
            out[j] = (out[j][0], look_alike(rng, refs) if rng.random() < 0.5 else list(refs))
    return out


#: the smoothings (method, value) the sentence scores' path is fuzzed with
SMOOTHINGS = [("exp", None), ("floor", None), ("floor", 0.01), ("add-k", None), ("add-k", 0.5),
              ("none", None)]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-n", type=int, default=100_000, help="number of inputs")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--batch", type=int, default=2000)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--tokenizers", default=",".join(MODES),
                        help="comma-separated tokenizers to draw from (default: all native ones)")
    args = parser.parse_args(argv)
    names = args.tokenizers.split(",")
    unknown = sorted(set(names) - set(MODES))
    if unknown:
        parser.error(f"unknown tokenizer(s) {', '.join(unknown)}; choose from {', '.join(MODES)}")

    rng = random.Random(args.seed)
    tokenizers = {name: get_tokenizer(name) for name in MODES}
    native, python = NativeKernel(), PythonKernel()
    done = differences = 0
    start = time.time()
    while done < args.n:
        size = min(args.batch, args.n - done)
        name = rng.choice(names)
        tok = tokenizers[name]
        lowercase = rng.random() < 0.5
        order = rng.randrange(1, 7)
        cases = share_references(rng, [random_case(rng) for _ in range(size)])
        hyps = [h for h, _ in cases]
        refs = [r for _, r in cases]
        got = native.statistics(hyps, native.prepare_references(refs, tok, lowercase, order),
                                tok, lowercase, order, threads=args.threads)
        want = python.statistics(hyps, python.prepare_references(refs, tok, lowercase, order),
                                 tok, lowercase, order)
        if got != want:
            for i, (g, w) in enumerate(zip(got.rows(), want.rows())):
                if g != w:
                    differences += 1
                    if differences <= 10:
                        print(f"DIFF tok={name} lc={lowercase} order={order}\n"
                              f"  hyp={hyps[i]!r}\n  refs={refs[i]!r}\n  native={g}\n  python={w}")
        # several systems against the same prepared references in one call (-pbs, the
        # systems table): the first is `hyps`, the others the same lines rotated, so each
        # segment's references meet other hypotheses; one system takes the single-row path
        rotations = [rng.randrange(1, size) for _ in range(rng.randrange(3))] if size > 1 else []
        systems = [hyps] + [hyps[r:] + hyps[:r] for r in rotations]
        prepared = native.prepare_references(refs, tok, lowercase, order)
        tables, periods = native.systems_statistics(systems, prepared, tok, lowercase, order,
                                                    threads=args.threads)
        wants = [want] + [python.statistics(system, python.prepare_references(
            refs, tok, lowercase, order), tok, lowercase, order) for system in systems[1:]]
        if tables != wants or periods != [sum(h.endswith(" .") for h in s) for s in systems]:
            differences += 1
            print(f"SYSTEMS PATH DIFF tok={name} lc={lowercase} order={order} "
                  f"systems={len(systems)}")
        # the fused paths read only inputs with a reference (the core refuses a
        # batch holding one without: the caller raises)
        keep = [i for i, r in enumerate(refs) if r]
        width = 2 + 2 * order
        want_kept = array("q")
        for i in keep:
            want_kept.extend(want.data[i * width:(i + 1) * width])
        kept_hyps = [hyps[i] for i in keep]
        # the fused sentence path (str / None references)
        rows = array("q", [0]) * len(want_kept)
        loose = [refs[i][0] if len(refs[i]) == 1 and rng.random() < 0.5 else [None, *refs[i]]
                 for i in keep]
        missing = core.sentence_statistics(kept_hyps, loose, MODES[name], lowercase, order,
                                           args.threads, rows)
        if missing != -1 or rows != want_kept:
            differences += 1
            print(f"SENTENCE PATH DIFF tok={name} lc={lowercase} order={order}")
        # the sentence scores' path: each row scored by the worker that counted it, no rows
        # (the core's arithmetic is sacreBLEU's only where float sum() adds left to right)
        if core.SUM_IS_PLAIN:
            config = BLEUConfig.create(name, lowercase, *rng.choice(SMOOTHINGS), order,
                                       rng.random() < 0.5)
            scores = array("d", [0.0]) * len(kept_hyps)
            core.sentence_statistics(kept_hyps, loose, MODES[name], lowercase, order, args.threads,
                                     None, scores=scores, smooth=config.smooth_code,
                                     smooth_value=float(config.smoothing or 0),
                                     effective_order=config.effective_order)
            want_scores = python_bleu_scores(want_kept, config)
            if [x.hex() for x in scores] != [x.hex() for x in want_scores]:
                differences += 1
                print(f"SENTENCE SCORES DIFF tok={name} lc={lowercase} order={order} "
                      f"smooth={config.smooth_method} {config.smooth_value} "
                      f"effective={config.effective_order}")
        # the cold corpus path: reference streams (None = missing), one pass
        nstreams = max((len(refs[i]) for i in keep), default=0)
        streams = [[refs[i][k] if k < len(refs[i]) else None for i in keep] for k in range(nstreams)]
        if streams:
            rows = array("q", [0]) * len(want_kept)
            _, periods = core.stream_statistics(kept_hyps, streams, MODES[name], lowercase, order,
                                                args.threads, rows)
            if rows != want_kept or periods != sum(h.endswith(" .") for h in kept_hyps):
                differences += 1
                print(f"STREAM PATH DIFF tok={name} lc={lowercase} order={order}")
            # the corpus score's path: no rows, only their sum
            totals = array("q", [0]) * width
            core.stream_statistics(kept_hyps, streams, MODES[name], lowercase, order, args.threads,
                                   None, totals)
            if list(totals) != [sum(want_kept[c::width]) for c in range(width)]:
                differences += 1
                print(f"STREAM TOTALS DIFF tok={name} lc={lowercase} order={order}")
        # the command line's byte path: lines of UTF-8 files (one reference file here), the
        # hypotheses' rstrip for the tokenized-period count included
        lines = [(hyps[i], refs[i][0]) for i in keep if "\n" not in hyps[i] + refs[i][0]
                 and not any(0xD800 <= ord(c) < 0xE000 for c in hyps[i] + refs[i][0])]
        if lines:
            rows = array("q", [0]) * (len(lines) * width)
            core.stream_statistics([h for h, _ in lines], [[r for _, r in lines]], MODES[name],
                                   lowercase, order, args.threads, rows)
            buffers = [bytearray("".join(line + "\n" for line in side).encode("utf-8"))
                       for side in zip(*lines)]
            byte_rows, totals = array("q", [0]) * len(rows), array("q", [0]) * width
            _, periods = core.stream_statistics_utf8(
                buffers, [len(b) for b in buffers], len(lines), MODES[name], lowercase, order,
                args.threads, byte_rows, totals)
            want_periods = sum(h.rstrip().endswith(" .") for h, _ in lines)
            if byte_rows != rows or periods != want_periods or list(totals) != [
                    sum(rows[c::width]) for c in range(width)]:
                differences += 1
                print(f"UTF-8 BYTE PATH DIFF tok={name} lc={lowercase} order={order}")
        # pairwise matrices: every pair of a small sample, one shared vocabulary
        sample = hyps[:12] + [r[0] for r in refs[:12] if r]
        shared = core.prepare([sample], MODES[name], lowercase, args.threads)
        index = array("q", range(len(sample)))
        cells = array("q", [0]) * (len(sample) ** 2 * (2 + 2 * order))
        core.cross_statistics(shared, index, index, order, args.threads, cells, None, 3, 0.0, True)
        prepared = python.prepare_references([[x] for x in sample], tok, lowercase, order)
        expect = array("q")
        for x in sample:
            expect.extend(python.statistics([x] * len(sample), prepared, tok, lowercase, order).data)
        if cells != expect:
            differences += 1
            print(f"MATRIX DIFF tok={name} lc={lowercase} order={order} sample={sample!r}")
        # token sequences too, on a sample
        for h in hyps[: size // 10]:
            want_tokens = segment_tokens(h, tok, lowercase)
            if core.tokenize(h, MODES[name], lowercase) != want_tokens:
                differences += 1
                if differences <= 10:
                    print(f"TOKENS DIFF tok={name} lc={lowercase} line={h!r}")
            # the same line as UTF-8 bytes (TB_KIND_UTF8): 13a reads any valid UTF-8
            # (a lone surrogate is not), the others (and lowercasing) an ASCII one only
            surrogate = any(0xD800 <= ord(c) < 0xE000 for c in h)
            if h.isascii() or (name == "13a" and not lowercase and not surrogate):
                if core.tokenize(h.encode("utf-8"), MODES[name], lowercase) != want_tokens:
                    differences += 1
                    if differences <= 10:
                        print(f"UTF-8 TOKENS DIFF tok={name} lc={lowercase} line={h!r}")
        done += size
        if done % (args.batch * 50) == 0 or done >= args.n:
            rate = done / (time.time() - start)
            print(f"{done} inputs, {differences} differences, {rate:.0f}/s", flush=True)
    print(f"finished: {done} inputs, {differences} differences, {time.time() - start:.0f} s")
    return 1 if differences else 0


if __name__ == "__main__":
    sys.exit(main())
