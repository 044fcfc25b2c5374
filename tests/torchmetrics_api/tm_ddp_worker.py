"""Run by test_tm_distributed.py: two gloo processes on CPU score WMT21 en-de, each an uneven
share, and save what the synced ``compute`` returns (``python tm_ddp_worker.py OUT_DIR``)."""

from __future__ import annotations

import sys
from pathlib import Path

import torch
import torch.distributed as dist
import torch.multiprocessing as mp

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent)]

from tm_cases import batches, wmt21_en_de  # noqa: E402

import truebleu.torchmetrics as tb  # noqa: E402

WORLD = 2
SIZE = 400  # the first 400 segments of WMT21 en-de
SHARE = 280  # rank 0 scores the first 280 of them, rank 1 the other 120

#: every class, with options that exercise its states (sentence lists: "cat"), on segments
#: of one or three references ("mixed") or of one ("single"): TER's reference length is an
#: average, an integer only in the second case (see test_tm_distributed.py)
CASES = {
    "BLEUScore": ("BLEUScore", {}, "mixed"),
    "SacreBLEUScore": ("SacreBLEUScore", {"smooth": True}, "mixed"),
    "CHRFScore": ("CHRFScore", {"return_sentence_level_score": True}, "mixed"),
    "TranslationEditRate": ("TranslationEditRate", {"return_sentence_level_score": True}, "single"),
    "BLEU": ("BLEU", {}, "mixed"),
    "CHRF": ("CHRF", {"word_order": 2, "return_sentence_level_score": True}, "mixed"),
    "TER": ("TER", {"return_sentence_level_score": True}, "single"),
    "TranslationEditRate-mixed": ("TranslationEditRate", {}, "mixed"),
    "TER-mixed": ("TER", {}, "mixed"),
}


def data(references: str) -> tuple[list[str], list[list[str]]]:
    preds, target = wmt21_en_de()
    preds, target = preds[:SIZE], target[:SIZE]
    if references == "single":
        return preds, [refs[:1] for refs in target]
    return preds, [refs[:1] if i % 3 else refs for i, refs in enumerate(target)]


def metric(key: str):
    name, options, _ = CASES[key]
    return getattr(tb, name)(**options)


def updated(key: str, share: slice = slice(None)):
    """The metric of ``key`` after its data's ``share``, in batches of 64."""
    preds, target = data(CASES[key][2])
    scored = metric(key)
    for batch in batches(preds[share], target[share], 64):
        scored.update(*batch)
    return scored


def worker(rank: int, out: str) -> None:
    dist.init_process_group("gloo", init_method=f"file://{out}/rendezvous", rank=rank,
                            world_size=WORLD)
    share = slice(0, SHARE) if rank == 0 else slice(SHARE, None)
    torch.save({key: updated(key, share).compute() for key in CASES}, f"{out}/rank{rank}.pt")
    dist.destroy_process_group()


if __name__ == "__main__":
    for name, _, _ in CASES.values():
        getattr(tb, name)  # import once, before the processes fork: they start in no time
    mp.start_processes(worker, args=(sys.argv[1],), nprocs=WORLD, join=True, start_method="fork")
