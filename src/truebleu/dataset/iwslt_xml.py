"""sacreBLEU's module path ``sacrebleu.dataset.iwslt_xml`` (processed as the WMT "SGML")."""

from .fake_sgml import FakeSGMLDataset

__all__ = ["IWSLTXMLDataset"]


class IWSLTXMLDataset(FakeSGMLDataset):
    FORMAT = "iwslt-xml"
