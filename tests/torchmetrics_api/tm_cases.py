"""Inputs shared by the torchmetrics tests: generated corpora in torchmetrics' layout, WMT21 en-de."""

from __future__ import annotations

from hypothesis import strategies as st

from conftest import wmt21_dir
from strategies import segments


@st.composite
def per_prediction(draw, max_segments: int = 5, min_refs: int = 1, max_refs: int = 3):
    """``(preds, target)``: ``target[i]`` holds 1..max_refs references of ``preds[i]``."""
    size = draw(st.integers(1, max_segments))
    preds = [draw(segments(max_pieces=12)) for _ in range(size)]
    target = [[draw(segments(max_pieces=12)) for _ in range(draw(st.integers(min_refs, max_refs)))]
              for _ in range(size)]
    return preds, target


def streams_of(target: list[list[str]]) -> list[list]:
    """torchmetrics' per-prediction references as sacreBLEU's streams (None where missing)."""
    width = max(len(refs) for refs in target)
    return [[refs[k] if k < len(refs) else None for refs in target] for k in range(width)]


def batches(preds: list[str], target: list[list[str]], size: int):
    for start in range(0, len(preds), size):
        yield preds[start:start + size], target[start:start + size]


def wmt21_en_de(system: str = "Facebook-AI") -> tuple[list[str], list[list[str]]]:
    """WMT21 en-de: one system's output and the three references (A, C, D) per segment."""
    root = wmt21_dir()

    def read(path):
        return path.read_text(encoding="utf-8").split("\n")[:-1]

    refs = [read(root / "references" / f"newstest2021.en-de.ref.{k}.de") for k in "ACD"]
    hyps = read(root / "system-outputs" / f"newstest2021.en-de.hyp.{system}.de")
    return hyps, [list(refs_of) for refs_of in zip(*refs)]
