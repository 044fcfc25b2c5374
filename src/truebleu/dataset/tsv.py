"""sacreBLEU's module path ``sacrebleu.dataset.tsv``: columns of one tab-separated file."""

from .base import Dataset

__all__ = ["TSVDataset"]


class TSVDataset(Dataset):
    FORMAT = "tsv"
