"""Regenerate ``src/truebleu/data/testsets.json`` from the installed sacreBLEU's registry.

The test-set facts (names, language pairs, URLs, md5 checksums, file formats,
reference choices, citations, document subsets) are data, not code: this script
reads them from sacreBLEU 2.6.0 once, and truebleu's runtime reads only the JSON
(it never imports sacreBLEU). Run from the repository root:

    python tools/gen_testsets.py
"""

from __future__ import annotations

import json
import pathlib

import sacrebleu
from sacrebleu.dataset import DATASETS, SUBSETS

# sacreBLEU's processing classes -> truebleu's format names (io/testsets/process.py)
FORMATS = {
    "WMTXMLDataset": "wmt-xml",
    "FakeSGMLDataset": "sgml",
    "WMTAdditionDataset": "sgml-or-text",
    "IWSLTXMLDataset": "iwslt-xml",
    "PlainTextDataset": "text",
    "TSVDataset": "tsv",
}


def main() -> None:
    sets = {}
    for name, dataset in DATASETS.items():
        if name != dataset.name:
            raise SystemExit(f"registry key {name!r} differs from the name {dataset.name!r}")
        entry = {
            "format": FORMATS[type(dataset).__name__],
            "urls": list(dataset.data),
            "md5": list(dataset.md5) if dataset.md5 else None,
            "description": dataset.description,
            "citation": dataset.citation,
            "langpairs": dataset.langpairs,
        }
        if "refs" in dataset.kwargs:
            entry["refs"] = dataset.kwargs["refs"]
        unknown = set(dataset.kwargs) - {"refs"}
        if unknown:
            raise SystemExit(f"{name}: unknown registry keys {sorted(unknown)}")
        sets[name] = entry
    document = {
        "generated_from": f"sacrebleu {sacrebleu.__version__}",
        "testsets": sets,
        "subsets": SUBSETS,
    }
    out = pathlib.Path(__file__).resolve().parents[1] / "src/truebleu/data/testsets.json"
    out.write_text(json.dumps(document, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"{out}: {len(sets)} test sets")


if __name__ == "__main__":
    main()
