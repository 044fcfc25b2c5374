"""Fuzz BLEU on token ids: the core's ids_statistics against the specification (not part of CI).

A script of its own beside fuzz_native.py (which fuzzes text: tokenizers, lowercasing, the
fused paths): ids need none of that, but their own inputs. Each input is one item, a
hypothesis and 1..k references, in batches drawn as a training loop sends them:

* ids from an alphabet per batch: a few ids (many matches), hundreds, any in [0, 2**63),
  the edges (2**31 - 1, 2**32, 2**63 - 1, ...), or ids that fall into the same slot of the
  core's per-segment table (multiples of 2**40 and 2**56) or the same bit of its
  dropped-id filter (ids 64 apart);
* the dropped ids of a ``DroppedIds`` (-100, a pad id, skip ids) padded on the right, on
  the left and in between; empty hypotheses and references; orders 1..6, sometimes 7..12,
  50 or 1000;
* groups of consecutive items with the same references (GRPO's n completions of a prompt)
  as one list, equal copies, copies equal once the dropped ids are out, and look-alikes
  (an id changed, a sequence split elsewhere, the references reordered), with group sizes
  around the pool's chunk (32 items) and a few items before them, so that groups straddle
  chunk boundaries; 1, 2, 3 or 7 threads;
* the forms the core reads (lists, tuples, ``array("q")``, NumPy arrays of several dtypes,
  strided) against the same ids as lists for the Python kernel, and now and then an id
  neither reads (negative, 2**63, a bool, a float, a NumPy integer in a list): both must
  then decline (None).

The core's rows are written into a table filled with a sentinel (every row must be
written), its totals added to a row that is not zero (the core adds to it); both must equal
the Python kernel's (``PythonKernel.ids_statistics``) exactly. A difference prints the seed,
the batch, the item, the settings, and the item shrunk (alone, or with the items before it
that share its references, then id by id) with both rows; exit status 1.

    python bench/fuzz_ids.py -n 100000 --seed 1 [--threads 1,2,3,7] [--batch 400]
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from array import array

from truebleu import _native_core as core
from truebleu.metrics.bleu.kernels import PythonKernel
from truebleu.metrics.bleu.statistics import row_width
from truebleu.metrics.id_sequences import DroppedIds

try:
    import numpy
except ImportError:  # the other forms are still fuzzed
    numpy = None

EDGES = [0, 1, 63, 64, 65, 2**31 - 2, 2**31 - 1, 2**31, 2**32 - 1, 2**32, 2**32 + 1,
         2**53 + 1, 2**62, 2**63 - 64, 2**63 - 2, 2**63 - 1]
SENTINEL = -0x5A5A5A5A5A5A5A5B  # what the core's table holds before the call
TOTALS_START = 7  # what each column of the core's totals holds before the call
THREADS = (1, 2, 3, 7)
ORDERS = (1, 2, 3, 4, 4, 4, 5, 6)


def random_alphabet(rng: random.Random) -> list[int]:
    kind = rng.randrange(7)
    if kind == 0:  # a few ids: many matches
        return list(range(rng.randint(1, 4)))
    if kind == 1:
        return rng.sample(range(50_000), rng.randint(5, 300))
    if kind == 2:
        return [rng.randrange(2**63) for _ in range(rng.randint(2, 50))]
    if kind == 3:
        return rng.sample(EDGES, rng.randint(2, len(EDGES)))
    if kind == 4:  # one slot of the core's table (Fibonacci hashing keeps the low bits 0)
        shift = rng.choice((40, 48, 56))
        return [j << shift for j in range(rng.randint(2, 40))]
    if kind == 5:  # the same bit of the dropped ids' filter as a dropped one
        base = rng.randrange(64)
        return [base + 64 * j for j in range(rng.randint(2, 12))]
    return random_alphabet(rng) + random_alphabet(rng)


def random_dropped(rng: random.Random, alphabet: list[int]) -> DroppedIds:
    """-100 always; a pad id and skip ids, some of them ids of the alphabet or 64 from one."""
    near = [a + 64 for a in alphabet if a + 64 < 2**63] + alphabet
    pad = rng.choice((None, 0, -1, 2**63 - 1, rng.choice(near)))
    skip = rng.sample(near, min(len(near), rng.choice((0, 0, 1, 2, 5))))
    return DroppedIds(pad, skip)


def random_sequence(rng: random.Random, alphabet: list[int], length: int) -> list[int]:
    return [rng.choice(alphabet) for _ in range(length)]


def completion(rng: random.Random, refs: list[list[int]], alphabet: list[int]) -> list[int]:
    """A hypothesis: a reference edited (shared n-grams), or ids drawn afresh."""
    draw = rng.random()
    if draw < 0.05:
        return []
    if draw < 0.6:
        hyp = list(rng.choice(refs))
        for _ in range(rng.randint(0, 4)):
            if hyp and rng.random() < 0.5:
                del hyp[rng.randrange(len(hyp))]
            else:
                hyp.insert(rng.randint(0, len(hyp)), rng.choice(alphabet))
        return hyp * (rng.randint(2, 4) if rng.random() < 0.05 else 1)
    return random_sequence(rng, alphabet, rng.choice((1, 2, 5, 10, 30)))


def with_dropped(rng: random.Random, seq: list[int], dropped: list[int]) -> list[int]:
    """seq with dropped ids added: right padding, left padding or between its ids."""
    if not dropped or rng.random() < 0.5:
        return seq
    where = rng.random()
    pads = [rng.choice(dropped) for _ in range(rng.randint(1, 8))]
    if where < 0.4:
        return seq + pads
    if where < 0.7:
        return pads + seq
    out = list(seq)
    for pad in pads:
        out.insert(rng.randint(0, len(out)), pad)
    return out


def look_alike(rng: random.Random, refs: list[list[int]], alphabet: list[int]) -> list[list[int]]:
    """Other references that look like refs: an id changed, a boundary moved, reordered."""
    out = [list(r) for r in refs]
    draw = rng.random()
    filled = [r for r in out if r]
    if draw < 0.5 and filled:
        r = rng.choice(filled)
        r[rng.randrange(len(r))] = rng.choice(alphabet)
    elif draw < 0.75 and len(out) > 1 and out[0]:
        out[1].insert(0, out[0].pop())  # the same ids, split elsewhere
    elif len(out) > 1:
        out.reverse()
    else:
        out.append([])
    return out


def random_group(rng: random.Random, alphabet: list[int], dropped: list[int], order: int):
    """Items with the same references (a prompt's completions), in their various forms. (Long
    sequences only up to order 12: the specification's n-grams of order 1000 of 600 ids, each
    a tuple, would take minutes.)"""
    draw = rng.random()
    if draw < 0.01 and order <= 12:  # long sequences (a few items: the Python kernel is slow)
        length, n_refs, size = 600, rng.randint(1, 2), rng.randint(1, 3)
    else:
        length = rng.choice((0, 1, 2, 3, 5, 10, 10, 20, 40)) if draw > 0.02 else 5
        n_refs = rng.choice((1, 1, 1, 2, 2, 3, 4, 8)) if draw > 0.02 else 40
        size = rng.choice((1, 1, 1, 2, 4, 8, 16, 31, 32, 33, 63, 64, 65, 100))
    refs = [random_sequence(rng, alphabet, length if rng.random() < 0.7 else rng.randint(0, length))
            for _ in range(n_refs)]
    items = []
    for _ in range(size):
        draw = rng.random()
        if draw < 0.6:
            same = refs
        elif draw < 0.75:
            same = [list(r) for r in refs]
        elif draw < 0.9:
            same = [with_dropped(rng, r, dropped) for r in refs]  # equal once those are out
        else:
            same = look_alike(rng, refs, alphabet)
        items.append((with_dropped(rng, completion(rng, refs, alphabet), dropped), same))
    return items


def bad_value(rng: random.Random, dropped: frozenset[int]):
    """An element neither kernel reads as an id."""
    choices = [-1, -5, -2**63, 2**63, 2**64 + 3, True, 3.0]
    if numpy is not None:
        choices.append(numpy.int64(3))
    value = rng.choice(choices)
    return value if value not in dropped or type(value) is not int else -7


def given_form(rng: random.Random, seq: list[int]):
    """seq in a form the core reads: a list, a tuple, an int64 array or a NumPy array."""
    draw = rng.random()
    if draw < 0.4 or any(type(x) is not int for x in seq):
        return seq
    if draw < 0.55:
        return tuple(seq)
    lo, hi = min(seq, default=0), max(seq, default=0)
    if draw < 0.7 or numpy is None:  # (an id past int64 as "Q": the core must decline it)
        return array("q", seq) if hi < 2**63 and lo >= -2**63 else \
            array("Q", seq) if lo >= 0 and hi < 2**64 else seq
    dtypes = [t for t in ("int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64")
              if numpy.iinfo(t).min <= lo and hi <= numpy.iinfo(t).max]
    if not dtypes:  # (-100 beside an id past int64: no dtype holds both)
        return seq
    arr = numpy.array(seq, dtype=rng.choice(dtypes))
    if rng.random() < 0.3:  # a strided view (a column of a 2-D batch)
        arr = numpy.repeat(arr, 2)[::2]
    return arr


def random_batch(rng: random.Random, size: int) -> dict:
    alphabet = random_alphabet(rng)
    dropped = random_dropped(rng, alphabet)
    drop_list = sorted(dropped.ids)
    order = rng.choice(ORDERS) if rng.random() > 0.05 else rng.choice((7, 8, 12, 50, 50, 1000))
    if order > 12:  # (the specification walks every order of every sequence: few items)
        size = min(size, 40 if order <= 50 else 3)
    items = [(with_dropped(rng, completion(rng, [[]], alphabet), drop_list), [[]])
             for _ in range(rng.randrange(3))]  # groups shifted against the chunks
    while len(items) < size:
        items += random_group(rng, alphabet, drop_list, order)
    items = items[:size]
    hyps = [h for h, _ in items]
    refs = [r for _, r in items]
    if rng.random() < 0.02:  # a sequence that neither kernel reads: both decline
        target = rng.choice(hyps + [r for rs in refs for r in rs])
        target.insert(rng.randint(0, len(target)), bad_value(rng, dropped.ids))
    forms = rng.random() < 0.3
    given = {}  # each sequence object once (shared references stay shared)

    def form(seq):
        if not forms:
            return seq
        if id(seq) not in given:
            given[id(seq)] = given_form(rng, seq)
        return given[id(seq)]
    refs_given = [r if not forms else (tuple if rng.random() < 0.2 else list)(form(s) for s in r)
                  for r in refs]
    return {"hyps": hyps, "refs": refs, "dropped": dropped.int64, "order": order,
            "threads": rng.choice(THREADS), "totals_only": rng.random() < 0.2,
            "given_hyps": [form(h) for h in hyps], "given_refs": refs_given}


def native_rows(hyps, refs, dropped, order, threads, totals_only):
    """The core's rows (an array), or its totals minus TOTALS_START; None if it declines."""
    width = row_width(order)
    out = None if totals_only else array("q", [SENTINEL]) * (len(hyps) * width)
    totals = array("q", [TOTALS_START]) * width if totals_only else None
    if not core.ids_statistics(hyps, refs, dropped, order, threads, out, totals):
        return None
    return array("q", [t - TOTALS_START for t in totals]) if totals_only else out


def python_rows(hyps, refs, dropped, order, totals_only):
    stats = PythonKernel().ids_statistics(hyps, refs, dropped, order)
    if stats is None:
        return None
    return array("q", stats.sum()) if totals_only else stats.data


def differs(hyps, refs, dropped, order, threads, totals_only=False) -> bool:
    return native_rows(hyps, refs, dropped, order, threads, totals_only) != \
        python_rows(hyps, refs, dropped, order, totals_only)


def shrink(hyps, refs, i, dropped, order, threads):
    """The fewest items that still differ: a run of items ending at item i (it alone, or
    with up to 64 items before it: the references it may have taken from them), or the whole
    batch; then without each other item, and without each id, while it still differs."""
    def copy(lo, hi):
        return [list(x) for x in hyps[lo:hi]], [[list(s) for s in rs] for rs in refs[lo:hi]]
    for lo in [*range(i, max(-1, i - 65), -1), 0]:
        h, r = copy(lo, i + 1)
        t = next((t for t in (threads, 1) if differs(h, r, dropped, order, t)), None)
        if t is not None:
            break
    else:
        return None
    k = 0
    while k < len(h) - 1:
        item = h.pop(k), r.pop(k)
        if not differs(h, r, dropped, order, t):
            h.insert(k, item[0])
            r.insert(k, item[1])
            k += 1
    for seq in [s for pair in zip(h, r) for s in (pair[0], *pair[1])]:
        k = 0
        while k < len(seq):
            removed = seq.pop(k)
            if not differs(h, r, dropped, order, t):
                seq.insert(k, removed)
                k += 1
    return h, r, t


def report(batch: dict, number: int, seed: int, got, want, shrinking: bool = True) -> None:
    order, threads, dropped = batch["order"], batch["threads"], list(batch["dropped"])
    print(f"DIFF seed={seed} batch={number} order={order} threads={threads} dropped={dropped} "
          f"totals_only={batch['totals_only']} items={len(batch['hyps'])}")
    if got is None or want is None or batch["totals_only"]:
        print(f"  native={None if got is None else list(got)}\n"
              f"  python={None if want is None else list(want)}")
        return
    width = row_width(order)
    i = next(k for k in range(len(batch["hyps"]))
             if got[k * width:(k + 1) * width] != want[k * width:(k + 1) * width])
    print(f"  first item {i}: hyp={batch['hyps'][i]!r}\n  refs={batch['refs'][i]!r}\n"
          f"  native={list(got[i * width:(i + 1) * width])}\n"
          f"  python={list(want[i * width:(i + 1) * width])}")
    if not shrinking:
        return
    small = shrink(batch["hyps"], batch["refs"], i, batch["dropped"], order, threads)
    if small:
        h, r, t = small
        print(f"  shrunk ({len(h)} items, threads={t}): hyps={h!r}\n  refs={r!r}\n"
              f"  native={native_rows(h, r, batch['dropped'], order, t, False).tolist()}\n"
              f"  python={python_rows(h, r, batch['dropped'], order, False).tolist()}")
    else:
        print("  (the lists alone agree: the difference needs the batch's forms)")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-n", type=int, default=100_000, help="number of inputs (items)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--batch", type=int, default=400, help="items per batch, at most")
    parser.add_argument("--threads", default=",".join(map(str, THREADS)),
                        help="comma-separated thread counts to draw from")
    args = parser.parse_args(argv)
    threads = [int(t) for t in args.threads.split(",")]
    rng = random.Random(args.seed)
    done = differences = number = 0
    start = time.time()
    while done < args.n:
        batch = random_batch(rng, rng.randint(1, min(args.batch, args.n - done)))
        batch["threads"] = rng.choice(threads)
        got = native_rows(batch["given_hyps"], batch["given_refs"], batch["dropped"],
                          batch["order"], batch["threads"], batch["totals_only"])
        want = python_rows(batch["hyps"], batch["refs"], batch["dropped"], batch["order"],
                           batch["totals_only"])
        if got != want:
            differences += 1
            if differences <= 3:
                report(batch, number, args.seed, got, want, shrinking=differences == 1)
        number += 1
        done += len(batch["hyps"])
        if number % 100 == 0 or done >= args.n:
            print(f"{done} inputs, {differences} differences, {done / (time.time() - start):.0f}/s",
                  flush=True)
    print(f"finished: {done} inputs in {number} batches, {differences} differences, "
          f"{time.time() - start:.0f} s")
    return 1 if differences else 0


if __name__ == "__main__":
    sys.exit(main())
