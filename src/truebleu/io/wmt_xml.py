"""WMT XML (2021 and later): one file holds a test set's source, references and systems.

The format (github.com/wmt-conference/wmt-format-tools)::

    <dataset id="newstest2021">
      <doc id="..." origlang="ru" [domain="..."]>
        <src lang="ru"><p><seg id="1">...</seg>...</p></src>
        <ref lang="en" translator="A">...</ref>          (zero or more)
        <hyp lang="en" system="Online-B">...</hyp>       (zero or more)
      </doc>
    </dataset>

:func:`read_wmt_xml` keeps every source segment in file order (documents in
order, segments by numeric id) and marks with ``None`` the references and
system outputs that lack a segment. sacreBLEU's processing of the official test
sets is narrower; :func:`keep_referenced` and :func:`sacrebleu_fields` reproduce
it exactly (see their docstrings).
"""

from __future__ import annotations

import os
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field, replace

from . import InputError, open_binary
from .lines import decompression_errors

__all__ = ["WMTTestSet", "read_wmt_xml", "keep_referenced", "sacrebleu_fields", "clean"]


@dataclass(frozen=True)
class WMTTestSet:
    """The segments of a WMT XML file, one entry per source segment in every list."""

    name: str                                   # the file name (or the dataset id)
    source: list[str]
    references: dict[str, list[str | None]]     # translator -> text, None where absent
    systems: dict[str, list[str | None]]        # system name -> output, None where absent
    doc_ids: list[str]
    seg_ids: list[int]                          # the segment ids within each document
    origlang: list[str | None]
    domains: list[str | None]                   # None where the document has no domain
    src_lang: str
    trg_lang: str
    dataset_id: str | None = None
    extra: dict[str, list[str | None]] = field(default_factory=dict)  # other <doc> attributes

    def __len__(self) -> int:
        return len(self.source)

    def documents(self) -> dict[str, list[int]]:
        """Document id -> the segment indices it holds, in order."""
        docs: dict[str, list[int]] = {}
        for index, doc_id in enumerate(self.doc_ids):
            docs.setdefault(doc_id, []).append(index)
        return docs

    def select(self, indices: list[int]) -> "WMTTestSet":
        """A test set of the given segments (in the given order)."""
        def pick(values):
            return [values[i] for i in indices]

        return replace(
            self, source=pick(self.source),
            references={k: pick(v) for k, v in self.references.items()},
            systems={k: pick(v) for k, v in self.systems.items()},
            doc_ids=pick(self.doc_ids), seg_ids=pick(self.seg_ids),
            origlang=pick(self.origlang), domains=pick(self.domains),
            extra={k: pick(v) for k, v in self.extra.items()})


def _segments(element: ET.Element, name: str) -> dict[int, str]:
    segments = {}
    for seg in element.iter("seg"):
        raw_id = seg.get("id")
        try:
            seg_id = int(raw_id or "")  # (no id: a ValueError too)
        except (TypeError, ValueError):
            raise InputError(f"{name}: <seg> with id {raw_id!r}, expected a number") from None
        segments[seg_id] = seg.text or ""
    return segments


def _one_language(values: set, what: str, name: str) -> str:
    values.discard(None)
    if len(values) != 1:
        raise InputError(f"{name}: expected one {what} language, found {sorted(values) or 'none'}")
    return values.pop()


def read_wmt_xml(path: str | os.PathLike) -> WMTTestSet:
    """Read a WMT XML file (plain, .gz, .bz2 or .xz); documents marked ``testsuite`` are skipped."""
    name = os.fspath(path)
    with open_binary(name) as handle:
        try:
            root = ET.parse(handle).getroot()
        except ET.ParseError as exc:
            line, column = exc.position
            raise InputError(f"{name}, line {line}, column {column}: invalid XML: {exc}") from None
        except decompression_errors() as exc:  # corrupt or truncated .gz/.bz2/.xz, read errors
            raise InputError(f"{name}: cannot read: {exc}") from None
        except (LookupError, ValueError) as exc:  # encoding="bogus" in the XML declaration
            raise InputError(f"{name}: invalid XML: {exc}") from None

    src_langs = {e.get("lang") for e in root.iter("src")}
    trg_langs = {e.get("lang") for tag in ("ref", "hyp") for e in root.iter(tag)}
    src_lang = _one_language(src_langs, "source", name)
    trg_lang = _one_language(trg_langs, "target", name) if trg_langs - {None} else ""
    translators = list(dict.fromkeys(e.get("translator") or "" for e in root.iter("ref")))
    system_names = list(dict.fromkeys(e.get("system") or "" for e in root.iter("hyp")))

    source: list[str] = []
    references: dict[str, list] = {t: [] for t in translators}
    systems: dict[str, list] = {s: [] for s in system_names}
    doc_ids, seg_ids, origlang, domains = [], [], [], []
    extra_keys = sorted({key for doc in root.iter("doc") for key in doc.attrib}
                        - {"id", "origlang", "domain", "testsuite"})
    extra: dict[str, list] = {key: [] for key in extra_keys}
    for doc in root.iter("doc"):
        if "testsuite" in doc.attrib:
            continue
        doc_id = doc.get("id")
        if doc_id is None:
            raise InputError(f"{name}: a <doc> without an id")
        src = doc.find("src")
        src_segments = _segments(src, name) if src is not None else {}
        doc_refs = {r.get("translator") or "": _segments(r, name) for r in doc.findall("ref")}
        doc_hyps = {h.get("system") or "": _segments(h, name) for h in doc.findall("hyp")}
        for seg_id in sorted(src_segments):
            source.append(src_segments[seg_id])
            for translator, values in references.items():
                values.append(doc_refs.get(translator, {}).get(seg_id))
            for system, values in systems.items():
                values.append(doc_hyps.get(system, {}).get(seg_id))
            doc_ids.append(doc_id)
            seg_ids.append(seg_id)
            origlang.append(doc.get("origlang"))
            domains.append(doc.get("domain"))
            for key in extra_keys:
                extra[key].append(doc.get(key))
    return WMTTestSet(name=name, source=source, references=references, systems=systems,
                      doc_ids=doc_ids, seg_ids=seg_ids, origlang=origlang, domains=domains,
                      src_lang=src_lang, trg_lang=trg_lang, dataset_id=root.get("id"),
                      extra=extra)


def keep_referenced(testset: WMTTestSet, translators: list[str] | None = None,
                    require: str = "any") -> WMTTestSet:
    """Only the segments that have references, as sacreBLEU keeps them for a test set.

    sacreBLEU drops a segment when no reference of the file has non-empty text
    for it (``require="any"``, the default, over every translator of the file).
    (For WMT21 ru-en, the file's 1,843 source segments include 843 of test
    suites, which :func:`read_wmt_xml` already skips; both references cover
    the remaining 1,000.) ``require="all"`` keeps only the segments
    that every chosen reference covers with non-empty text. ``translators``
    chooses the references that count (default: all of the file's).
    """
    if require not in ("any", "all"):
        raise ValueError(f"require must be 'any' or 'all', not {require!r}")
    chosen = list(testset.references) if translators is None else list(translators)
    unknown = [t for t in chosen if t not in testset.references]
    if unknown:
        raise ValueError(f"{testset.name}: no reference by {unknown}; "
                         f"the file has {sorted(testset.references)}")
    test = all if require == "all" else any
    keep = [i for i in range(len(testset))
            if test(bool(testset.references[t][i]) for t in chosen)]
    return testset.select(keep)


def clean(text: str) -> str:
    """sacreBLEU's clean-up of test-set text: strip, and collapse whitespace runs to one space.

    (sacreBLEU substitutes ``\\s+``; ``str.split`` splits on the same Unicode
    whitespace, faster.)
    """
    return " ".join(text.split())


def _ref_field(translator: str) -> str:
    return f"ref:{translator}" if translator else "ref"


def sacrebleu_fields(testset: WMTTestSet) -> dict[str, list[str]]:
    """The text files sacreBLEU writes for a WMT XML test set: field name -> lines.

    Fields, in sacreBLEU's order: ``src``, ``ref:<translator>`` (``ref`` for an
    unnamed one), ``docid``, ``origlang``, one field per system, and ``domain``
    when the file's last document has one. Segments without any reference are
    dropped; a missing reference or system output is an empty line; every line
    is :func:`clean`-ed. (sacreBLEU orders the reference fields as a Python set
    does, which varies between runs; truebleu uses file order.)
    """
    kept = keep_referenced(testset)
    fields: dict[str, list[str]] = {"src": kept.source}
    for translator, values in kept.references.items():
        fields[_ref_field(translator)] = [v or "" for v in values]
    fields["docid"] = kept.doc_ids
    fields["origlang"] = [v or "" for v in kept.origlang]
    for system, values in kept.systems.items():
        fields[system] = [v or "" for v in values]
    if kept.domains and kept.domains[-1] is not None:
        fields["domain"] = [v or "" for v in kept.domains]
    return {key: [clean(line) for line in lines] for key, lines in fields.items()}
