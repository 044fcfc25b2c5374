"""Fuzz the compiled chrF core against the pure-Python specification (not part of CI).

Inputs are fuzz_native.py's adversarial segments (Unicode spaces, combining
marks, astral characters, punctuation at word edges, long lines, up to 300
references); each batch draws a configuration (character order 0-8, word
order 0-3, beta, lowercase, whitespace, eps smoothing). For every input the
native statistics row must equal the Python backend's, and the core's
f-score (``scores=``) must equal ``_reference_chrf.f_score`` to the last bit.
The same rows must come from the references given as sacreBLEU's streams
(``None``-padded), and each batch's first MATRIX_SIDE hypotheses give two
matrices (against the first references, and against themselves: MBR) that
must equal the Python kernel's cell for cell.

``--alphabet small`` draws instead plain text from a few letters (Latin, Latin-1 or
CJK, PyUnicode kinds 1 and 2) with ASCII spaces and punctuation: n-grams repeat
within a line, as in real sentences, so the core's packed counting (direct low
orders, repeated anchors, extended matches) is exercised rather than the astral
fallback.

    python bench/fuzz_chrf.py -n 200000 --seed 1 [--threads 2] [--alphabet small]

Prints progress and the first differing inputs; exit status 1 on a difference.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from array import array

from fuzz_native import random_case
from truebleu.metrics.chrf.config import ChrfConfig
from truebleu.metrics.chrf.kernels import NativeKernel, PythonKernel
from truebleu.metrics.chrf.spec import f_score

MATRIX_SIDE = 16

#: --alphabet small: letters of plain Latin, Latin-1 and CJK text, and what separates words
SMALL_LETTERS = ("abcdefghijklmnopqrstuvwxyz", "abcdeéèàçüöß", "的一是不了人我在有他这中大来上国")
SMALL_MARKS = " " * 8 + ".,!?'\"-()"


def small_case(rng: random.Random) -> tuple[str, list[str]]:
    """A hypothesis and its references over a few letters (2 to 16 of one script, or
    up to 150 of two, past the 127 symbols the core counts low orders of directly),
    with spaces and punctuation; references often share words with the hypothesis."""
    letters = rng.choice(SMALL_LETTERS)
    letters = letters[:rng.randrange(2, len(letters) + 1)]
    if rng.random() < 0.1:  # many distinct symbols in one segment
        letters += "".join(chr(0x4E00 + k) for k in range(rng.randrange(100, 150)))
    words = ["".join(rng.choice(letters) for _ in range(rng.randrange(1, 6)))
             for _ in range(rng.randrange(1, 10))]

    def line() -> str:
        parts = []
        for _ in range(rng.randrange(0, rng.choice((5, 20, 80)))):
            parts.append(rng.choice(words) if rng.random() < 0.8 else rng.choice(letters))
            parts.append(rng.choice(SMALL_MARKS))
        return "".join(parts)

    hyp = line()
    refs = [line() for _ in range(rng.choice((0, 1, 1, 1, 2, 3)))]
    if refs and rng.random() < 0.2:
        refs[0] = hyp
    return hyp, refs


def as_streams(refs: list[list[str]]) -> list[list]:
    """Per-segment reference lists as reference streams, None where a segment has fewer."""
    k = max(len(r) for r in refs)
    return [[r[j] if j < len(r) else None for r in refs] for j in range(k)]


def matrix_differences(native, python, hyps, refs, config, threads) -> int:
    """Cells where the native matrix differs from the Python kernel's (printed, the first few)."""
    found = 0
    for other in (refs, hyps):  # two lists, then one list on both sides (MBR)
        want = python.matrix(hyps, other, config)
        got = native.matrix(hyps, other, config, threads)
        for cell, (g, w) in enumerate(zip(got, want)):
            if g != w:
                found += 1
                if found <= 3:
                    i, j = divmod(cell, len(other))
                    print(f"MATRIX DIFF {config}\n  hyp={hyps[i]!r}\n  ref={other[j]!r}\n"
                          f"  native={g!r} python={w!r}")
    return found


def random_config(rng: random.Random) -> ChrfConfig:
    word_order = rng.choice((0, 0, 2, 1, 3))
    char_order = rng.choice((6, 6, 1, 2, 4, 8, 0 if word_order else 1))
    return ChrfConfig(char_order, word_order, rng.choice((2, 2, 1, 3, 0.5, 0)),
                      rng.random() < 0.3, rng.random() < 0.3, rng.random() < 0.3)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-n", type=int, default=100_000, help="number of inputs")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--batch", type=int, default=1000)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--alphabet", choices=("any", "small"), default="any",
                        help="any: fuzz_native's adversarial text; small: a few letters (small_case)")
    args = parser.parse_args(argv)

    rng = random.Random(args.seed)
    native, python = NativeKernel(), PythonKernel()
    done = differences = 0
    start = time.time()
    while done < args.n:
        size = min(args.batch, args.n - done)
        config = random_config(rng)
        draw = random_case if args.alphabet == "any" else small_case
        cases = [draw(rng) for _ in range(size)]
        hyps = [h for h, _ in cases]
        refs = [r if r else [""] for _, r in cases]  # chrF needs a reference per segment
        want = python.statistics(hyps, python.prepare(refs, config), config)
        scores = array("d", [0.0]) * size
        got = native.statistics(hyps, native.prepare(refs, config, args.threads), config,
                                threads=args.threads, scores=scores)
        _, _, from_streams = native.prepare_streams(as_streams(refs), config, args.threads)
        if native.statistics(hyps, from_streams, config, threads=args.threads).data != got.data:
            differences += 1
            print(f"STREAMS DIFF {config}: the rows from reference streams differ")
        differences += matrix_differences(native, python, hyps[:MATRIX_SIDE],
                                          [r[0] for r in refs[:MATRIX_SIDE]], config, args.threads)
        for i, (g, w) in enumerate(zip(got.rows(), want.rows())):
            expected_score = f_score(w, config.beta, config.eps_smoothing)
            if g != w or scores[i] != expected_score:
                differences += 1
                if differences <= 10:
                    print(f"DIFF {config}\n  hyp={hyps[i]!r}\n  refs={refs[i]!r}\n"
                          f"  native={g} {scores[i]!r}\n  python={w} {expected_score!r}")
        done += size
        if done % (args.batch * 50) == 0 or done >= args.n:
            rate = done / (time.time() - start)
            print(f"{done} inputs, {differences} differences, {rate:.0f}/s", flush=True)
    print(f"finished: {done} inputs, {differences} differences, {time.time() - start:.0f} s")
    return 1 if differences else 0


if __name__ == "__main__":
    sys.exit(main())
