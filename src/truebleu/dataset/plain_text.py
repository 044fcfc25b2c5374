"""sacreBLEU's module path ``sacrebleu.dataset.plain_text``: aligned source and reference files."""

from .base import Dataset

__all__ = ["PlainTextDataset"]


class PlainTextDataset(Dataset):
    FORMAT = "text"
