"""truebleu's rewards vs a loop over sacreBLEU 2.6.0's sentence scores, side by side, one run.

    python bench/bench_rewards.py [--calls 1000] [--batch 64] [--refs 4] [--threads N] [--quick]

What an RL trainer does: one reward call per batch of ``--batch`` completions,
each with ``--refs`` references; ``--calls`` calls, each on the next batch.
Data: WMT21 en-de (newstest2021): completions are the Online-B system's lines,
references the three human references and the Online-A system's lines (about
30 tokens a line); synthetic text of 30 words when the data is absent.

Tasks (each: truebleu, then the sacreBLEU loop on the same batches):
``bleu``       ``bleu_reward(completions=..., references=...)`` against
               ``[sentence_bleu(c, refs).score / 100 for ...]``;
``chrf``       ``chrf_reward`` against ``sentence_chrf``;
``bleu-groups`` GRPO's shape: each call scores 8 prompts x 8 completions (8 WMT21
               systems' lines for the same source line), every completion of a
               prompt against that prompt's references (equal copies, as a
               dataset yields them: not the same objects);
``bleu-ids``   the token-id path: ``make_bleu_reward(token_ids=True)`` on
               ``completion_ids`` / ``reference_ids`` (whitespace words numbered
               in order of appearance) against ``sentence_bleu`` on the written
               ids with ``tokenize="none"``; and against the text path;
``bleu-ids-groups`` GRPO's shape on token ids: ``bleu-groups``' calls numbered so
               (each prompt's references counted once for its completions).
Every reward is asserted equal to sacreBLEU's. Times are wall and CPU time
(all threads) per call, medians over 5 blocks of calls; ratios are sacreBLEU's
time over truebleu's. Prints a markdown table. Not a test: nothing fails
because a machine is slow.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DEFAULT_DATA = Path(os.environ.get("TRUEBLEU_SHARED") or REPO.parent / "shared") / "data" / "wmt21"


def read_lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines()


def segments(data: Path, n_refs: int) -> tuple[list[str], list[list[str]]]:
    """(completions, references per completion) from WMT21 en-de, or synthetic text."""
    hyp = data / "system-outputs" / "newstest2021.en-de.hyp.Online-B.de"
    if hyp.is_file():
        ref_paths = sorted((data / "references").glob("newstest2021.en-de.ref.*.de"))
        ref_paths.append(data / "system-outputs" / "newstest2021.en-de.hyp.Online-A.de")
        streams = [read_lines(path) for path in ref_paths[:n_refs]]
        return read_lines(hyp), [list(refs) for refs in zip(*streams)]
    print("(WMT21 data not found: synthetic text)", file=sys.stderr)
    rng = random.Random(2026)
    words = [f"w{i}" for i in range(2000)]

    def line() -> str:
        return " ".join(rng.choice(words) for _ in range(30)) + " ."

    return [line() for _ in range(2000)], [[line() for _ in range(n_refs)] for _ in range(2000)]


def grouped(data: Path, n_refs: int, size: int, calls: int, group: int = 8):
    """Calls of ``size // group`` prompts x ``group`` completions: the lines of ``group``
    WMT21 systems for one source line, each with copies of that line's references
    (None when the data is absent)."""
    outputs = sorted((data / "system-outputs").glob("newstest2021.en-de.hyp.*.de"))
    if len(outputs) < group:
        return None
    systems = [read_lines(path) for path in outputs[:group]]
    completions, references = segments(data, n_refs)
    prompts = size // group
    work = []
    for k in range(calls):
        start = (k * prompts) % (len(references) - prompts)
        cs, rs = [], []
        for line in range(start, start + prompts):
            for system in systems:
                cs.append(system[line])
                rs.append([ref.encode().decode() for ref in references[line]])  # equal copies
        work.append((cs, rs))
    return work


def batches(completions, references, size: int, calls: int):
    n = len(completions)
    for k in range(calls):
        start = (k * size) % (n - size)
        yield completions[start:start + size], references[start:start + size]


def timed(function, work) -> tuple[list[float], list[float], list]:
    """Per-call wall and CPU times of 5 consecutive blocks of calls, and the results in order."""
    results, walls, cpus = [], [], []
    size = -(-len(work) // 5)
    for start in range(0, len(work), size):
        block = work[start:start + size]
        wall, cpu = time.perf_counter(), time.process_time()
        for item in block:
            results.append(function(*item))
        walls.append((time.perf_counter() - wall) / len(block))
        cpus.append((time.process_time() - cpu) / len(block))
    return walls, cpus, results


def numbered(lines_per_item, vocabulary: dict[str, int]):
    """Whitespace words as ids (a stand-in for a model tokenizer: same ids, same tokens)."""
    def ids(line: str) -> list[int]:
        return [vocabulary.setdefault(word, len(vocabulary)) for word in line.split()]
    return [[ids(line) for line in lines] for lines in lines_per_item]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--calls", type=int, default=1000)
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--refs", type=int, default=4)
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--quick", action="store_true", help="100 calls")
    args = parser.parse_args()
    calls = 100 if args.quick else args.calls

    import sacrebleu

    from truebleu.rewards import make_bleu_reward, make_chrf_reward

    completions, references = segments(args.data, args.refs)
    work = list(batches(completions, references, args.batch, calls))
    tokens = statistics.mean(len(c.split()) for c, _ in zip(completions, range(5000)))
    bleu = make_bleu_reward(threads=args.threads)
    chrf = make_chrf_reward(threads=args.threads)
    vocabulary: dict[str, int] = {}
    bleu_ids = make_bleu_reward(token_ids=True, threads=args.threads)

    def written(ids: list[int]) -> str:
        return " ".join(map(str, ids))

    def sacrebleu_bleu(cs, rs):
        return [sacrebleu.sentence_bleu(c, r).score / 100 for c, r in zip(cs, rs)]

    def sacrebleu_ids(cs, rs):
        return [sacrebleu.sentence_bleu(written(c), [written(x) for x in r], tokenize="none").score / 100
                for c, r in zip(cs, rs)]

    def as_ids(calls_of_text):
        """Calls of text as calls of token ids (one vocabulary for all)."""
        return [([ids[0] for ids in numbered([[c] for c in cs], vocabulary)], numbered(rs, vocabulary))
                for cs, rs in calls_of_text]

    id_work = as_ids(work)
    tasks = {
        "bleu": (lambda cs, rs: bleu(completions=cs, references=rs), sacrebleu_bleu, work),
        "chrf": (lambda cs, rs: chrf(completions=cs, references=rs),
                 lambda cs, rs: [sacrebleu.sentence_chrf(c, r).score / 100 for c, r in zip(cs, rs)],
                 work),
        "bleu-ids": (lambda cs, rs: bleu_ids(completion_ids=cs, reference_ids=rs), sacrebleu_ids,
                     id_work),
    }
    group_work = grouped(args.data, args.refs, args.batch, calls)
    if group_work:
        tasks["bleu-groups"] = (lambda cs, rs: bleu(completions=cs, references=rs),
                                sacrebleu_bleu, group_work)
        tasks["bleu-ids-groups"] = (lambda cs, rs: bleu_ids(completion_ids=cs, reference_ids=rs),
                                    sacrebleu_ids, as_ids(group_work))
    print(f"{calls} calls of {args.batch} completions x {args.refs} references "
          f"(mean {tokens:.1f} words a completion), threads={args.threads or 'all'}, "
          f"{os.cpu_count()} cores\n")
    print("| task | truebleu ms/call (wall, cpu) | sacreBLEU loop ms/call (wall, cpu) "
          "| ratio wall | ratio cpu |")
    print("|---|---|---|---|---|")
    text_bleu_wall = None
    for name, (ours, theirs, items) in tasks.items():
        ours(*items[0])  # warm up: first-use imports
        our_wall, our_cpu, our_results = timed(ours, items)
        their_wall, their_cpu, their_results = timed(theirs, items)
        assert our_results == their_results, f"{name}: truebleu differs from sacreBLEU"
        ow, oc = statistics.median(our_wall), statistics.median(our_cpu)
        tw, tc = statistics.median(their_wall), statistics.median(their_cpu)
        print(f"| {name} | {ow * 1e3:.3f}, {oc * 1e3:.3f} | {tw * 1e3:.2f}, {tc * 1e3:.2f} "
              f"| {tw / ow:.0f}x | {tc / oc:.0f}x |")
        if name == "bleu":
            text_bleu_wall = ow
        if name == "bleu-ids" and text_bleu_wall:
            print(f"\ntoken ids vs text (BLEU, truebleu): {ow * 1e3:.3f} vs "
                  f"{text_bleu_wall * 1e3:.3f} ms/call")
    print("\nall rewards equal sacreBLEU's sentence scores / 100")


if __name__ == "__main__":
    main()
