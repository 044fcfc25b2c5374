"""The BLEU dialects against the default BLEU path, side by side, one process.

Issue 25 asks for every dialect (``mteval-v13a``, ``mteval-v14``, ``multi-bleu``,
``tf-nmt``, ``torchmetrics``, ``nltk``) within 2x of the default path on 9 systems
of one language pair. The issue measured WMT22 en-de; this machine has WMT21 only,
so the 9 systems are the first 9 WMT21 en-de outputs (name order) against
reference A, from ``../shared/data/wmt21``.

Every path is called once untimed on ten lines first (imports, first-use set-up:
the command rows include them). For each dialect, one fresh dialect object scores
the 9 systems in turn (so the references are prepared once, as for the default
path, where one fresh ``truebleu.BLEU`` scores them), and the time is compared
with the default path's
on the same lines. Beside it: the peer tool where it is installed (sacreBLEU for
the default, NLTK's ``corpus_bleu`` for ``nltk``, torchmetrics' ``BLEUScore`` for
``torchmetrics``), and the whole command (``truebleu REF -i SYS... --dialect
NAME``, a fresh process) against the default command. Before any time is
reported the numbers are checked: default == sacreBLEU, nltk == NLTK, torchmetrics
== torchmetrics, and mteval/multi-bleu/tf-nmt == the golden figures of the
original tools (``../shared/golden``) for the systems that have a row, and mteval's scores
== its Python specification's (``TRUEBLEU_BACKEND=python``), bit for bit.

    python bench/bench_dialects.py [--shared PATH] [--repeat 5] [--quick]
    python bench/bench_dialects.py --worker NAME [--systems N]   # one dialect, for callgrind

Prints a markdown table (best of ``--repeat``). Not a test: nothing fails
because a machine is slow (but it stops if a number differs).
"""

from __future__ import annotations

import argparse
import csv
import functools
import math
import os
import platform
import subprocess
import sys
from pathlib import Path

from timing import best_of

DEFAULT_SHARED = Path(__file__).resolve().parents[1].parent / "shared"
SRC = Path(__file__).resolve().parents[1] / "src"
PAIR = "en-de"
DIALECTS = ("mteval-v13a", "mteval-v14", "multi-bleu", "tf-nmt", "torchmetrics", "nltk")
# the golden files name the tools as their command lines did
GOLDEN_TOOL = {"mteval-v13a": "mteval-v13a", "mteval-v14": "mteval-v14",
               "multi-bleu": "multi-bleu.perl",
               "tf-nmt": "tf-nmt compute_bleu tokens=13a smooth=False"}
GOLDEN_REL_TOLERANCE = 1e-12  # mteval sums in Perl's hash order (tests/dialects says why)


def read_lines(path: Path) -> list[str]:
    lines = path.read_text(encoding="utf-8").split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def system_paths(shared: Path, count: int) -> tuple[Path, list[Path]]:
    data = shared / "data" / "wmt21"
    target = PAIR.split("-")[1]
    ref = data / "references" / f"newstest2021.{PAIR}.ref.A.{target}"
    systems = sorted((data / "system-outputs").glob(f"newstest2021.{PAIR}.hyp.*.{target}"))
    if not ref.is_file() or len(systems) < count:
        raise SystemExit(f"WMT21 {PAIR} data not found under {data}")
    return ref, systems[:count]


def system_name(path: Path) -> str:
    return path.name.split(".hyp.")[1].rsplit(".", 1)[0]


def default_path(hyps: list[list[str]], ref: list[str]) -> list[float]:
    from truebleu import BLEU

    bleu = BLEU()
    return [bleu.corpus_score(hyp, [ref]).score for hyp in hyps]


def dialect_path(name: str, hyps: list[list[str]], ref: list[str]) -> list[float]:
    from truebleu.dialects import get_dialect

    dialect = get_dialect(name)
    return [dialect.corpus_score(hyp, [ref]).score for hyp in hyps]


def specification_path(name: str, hyps: list[list[str]], ref: list[str]) -> list[float]:
    """The dialect's scores on its Python path (``TRUEBLEU_BACKEND=python``: mteval's
    ``python_counts``, the specification its core path must equal bit for bit)."""
    saved = os.environ.get("TRUEBLEU_BACKEND")
    os.environ["TRUEBLEU_BACKEND"] = "python"
    try:
        return dialect_path(name, hyps, ref)
    finally:
        if saved is None:
            del os.environ["TRUEBLEU_BACKEND"]
        else:
            os.environ["TRUEBLEU_BACKEND"] = saved


def sacrebleu_path(hyps, ref) -> list[float]:
    from sacrebleu.metrics import BLEU

    bleu = BLEU()
    return [bleu.corpus_score(hyp, [ref]).score for hyp in hyps]


def nltk_path(hyps, ref) -> list[float]:
    import warnings

    from nltk.translate.bleu_score import corpus_bleu

    refs = [[line.split()] for line in ref]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return [corpus_bleu(refs, [line.split() for line in hyp]) for hyp in hyps]


def torchmetrics_path(hyps, ref) -> list[float]:
    from torchmetrics.text import BLEUScore

    targets = [[line] for line in ref]
    return [float(BLEUScore()(hyp, targets)) for hyp in hyps]


PEERS = {"default": ("sacreBLEU", sacrebleu_path), "nltk": ("NLTK corpus_bleu", nltk_path),
         "torchmetrics": ("torchmetrics BLEUScore", torchmetrics_path)}


def golden_scores(shared: Path, name: str) -> dict[str, float]:
    path = shared / "golden" / ("wmt21-tfnmt.tsv" if name == "tf-nmt" else "wmt21-perl-tools.tsv")
    if name not in GOLDEN_TOOL or not path.is_file():
        return {}
    with open(path, encoding="utf-8", newline="") as handle:
        return {row["system"]: float(row["bleu"]) for row in csv.DictReader(handle, delimiter="\t")
                if row["tool_and_flags"] == GOLDEN_TOOL[name] and row["pair"] == PAIR
                and row["references"] == "A"}


def check_equal(label: str, ours: list[float], theirs: list[float], rel: float = 0.0) -> None:
    for i, (a, b) in enumerate(zip(ours, theirs)):
        if not (a == b or (rel and math.isclose(a, b, rel_tol=rel, abs_tol=0.0))):
            raise SystemExit(f"{label}: system {i + 1} differs: {a!r} != {b!r}")


def command(ref: Path, systems: list[Path], dialect: str | None) -> list[str]:
    argv = [sys.executable, "-m", "truebleu", str(ref), "-i", *map(str, systems)]
    return argv + (["--dialect", dialect] if dialect else [])


def run_command(argv: list[str], repeat: int) -> float:
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    subprocess.run(argv, stdout=subprocess.DEVNULL, env=env, check=True)  # bytecode caches

    def once():
        subprocess.run(argv, stdout=subprocess.DEVNULL, env=env, check=True)
    return best_of(once, repeat)[0]


def worker(name: str, shared: Path, count: int) -> None:
    """Score ``count`` systems with one dialect (``default``: truebleu.BLEU), for callgrind."""
    ref_path, paths = system_paths(shared, count)
    ref, hyps = read_lines(ref_path), [read_lines(p) for p in paths]
    scores = default_path(hyps, ref) if name == "default" else dialect_path(name, hyps, ref)
    print(" ".join(repr(s) for s in scores))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--shared", type=Path, default=DEFAULT_SHARED)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="one run each (a sanity check)")
    parser.add_argument("--systems", type=int, default=9)
    parser.add_argument("--no-commands", action="store_true", help="skip the whole commands")
    parser.add_argument("--dialects", nargs="+", default=list(DIALECTS), choices=DIALECTS)
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        worker(args.worker, args.shared, args.systems)
        return 0
    repeat = 1 if args.quick else args.repeat
    ref_path, paths = system_paths(args.shared, args.systems)
    ref, hyps = read_lines(ref_path), [read_lines(p) for p in paths]
    names = [system_name(p) for p in paths]

    tiny_hyps, tiny_ref = [hyps[0][:10]], ref[:10]  # for the warm-up calls

    def time_path(path):
        return best_of(lambda: path(hyps, ref), repeat, lambda: path(tiny_hyps, tiny_ref))

    default_time, default_scores = time_path(default_path)
    peer_label, peer = PEERS["default"]
    peer_time, peer_scores = time_path(peer)
    check_equal("default vs sacreBLEU", default_scores, peer_scores)
    default_cmd = None if args.no_commands else run_command(command(ref_path, paths, None), repeat)

    print(f"{args.systems} WMT21 {PAIR} systems x {len(ref)} segments, reference A "
          f"(WMT22 is not on this machine); best of {repeat}; Python {platform.python_version()}")
    print("\n| path | API s | / default | peer tool | peer s | command s | / default command |")
    print("|---|---|---|---|---|---|---|")
    cmd_cell = "-" if default_cmd is None else f"{default_cmd:.3f}"
    print(f"| default BLEU | {default_time:.3f} | 1.00x | {peer_label} | {peer_time:.3f} | "
          f"{cmd_cell} | 1.00x |")
    for name in args.dialects:
        elapsed, scores = time_path(functools.partial(dialect_path, name))
        checked = []
        golden = golden_scores(args.shared, name)
        pairs = [(s, golden[n]) for s, n in zip(scores, names) if n in golden]
        if pairs:
            check_equal(f"{name} vs golden", *map(list, zip(*pairs)),
                        rel=GOLDEN_REL_TOLERANCE if name.startswith("mteval") else 0.0)
            checked.append(f"golden x{len(pairs)}")
        if name.startswith("mteval"):
            check_equal(f"{name} vs its Python specification", scores,
                        specification_path(name, hyps, ref))
            checked.append("spec")
        peer_cells = "- | -"
        if name in PEERS:
            label, peer = PEERS[name]
            peer_time, peer_scores = time_path(peer)
            check_equal(f"{name} vs {label}", scores, peer_scores)
            peer_cells = f"{label} | {peer_time:.3f}"
            checked.append(label)
        cmd_cells = "- | -"
        if default_cmd is not None:
            cmd = run_command(command(ref_path, paths, name), repeat)
            cmd_cells = f"{cmd:.3f} | {cmd / default_cmd:.2f}x"
        print(f"| {name} ({', '.join(checked) or 'unchecked'}) | {elapsed:.3f} | "
              f"{elapsed / default_time:.2f}x | {peer_cells} | {cmd_cells} |")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
