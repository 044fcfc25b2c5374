"""sacreBLEU's module path ``sacrebleu.dataset.fake_sgml`` (thin; see :mod:`truebleu.io.sgml`)."""

from .base import Dataset

__all__ = ["FakeSGMLDataset", "WMTAdditionDataset"]


class FakeSGMLDataset(Dataset):
    """The line-based "SGML" of WMT test sets before 2021."""

    FORMAT = "sgml"


class WMTAdditionDataset(FakeSGMLDataset):
    """WMT19's additional references: ``.sgm`` files or plain text."""

    FORMAT = "sgml-or-text"
