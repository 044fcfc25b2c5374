"""Test sets and WMT XML: truebleu against sacreBLEU 2.6.0, side by side, one process.

1. Reading the seven WMT21 XML files of ``../shared`` into sacreBLEU's fields
   (sacreBLEU: lxml + its unwrapping + its clean-up; truebleu: the standard
   library's ElementTree + :func:`truebleu.io.wmt_xml.sacrebleu_fields`).
2. ``-t wmt21 -l ru-en`` from a cache holding only the raw download: processing
   the XML into the text files and reading the scored references (each tool
   with its own fresh cache folder, so both do the whole work).

The outputs are checked to be identical before the times are reported.

    python bench/bench_testsets.py [--shared PATH] [--repeat 5]

Prints a markdown table (best of ``--repeat``). Not a test: nothing fails
because a machine is slow.
"""

from __future__ import annotations

import argparse
import importlib
import os
import platform
import shutil
import tempfile
import time
from pathlib import Path

DEFAULT_SHARED = Path(__file__).resolve().parents[1].parent / "shared"


def best_of(fn, repeat: int, setup=None):
    best, result = float("inf"), None
    for _ in range(repeat):
        if setup is not None:
            setup()
        start = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - start)
    return best, result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--shared", default=os.environ.get("TRUEBLEU_SHARED", DEFAULT_SHARED))
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()

    import sacrebleu
    from sacrebleu.dataset.wmt_xml import WMTXMLDataset

    import truebleu
    from truebleu.io.wmt_xml import read_wmt_xml, sacrebleu_fields

    xml_dir = Path(args.shared) / "data" / "wmt21" / "xml"
    files = sorted(xml_dir.glob("*.xml"))
    rows = []

    def theirs_read():
        out = []
        for path in files:
            fields = WMTXMLDataset._unwrap_wmt21_or_later(str(path))
            out.append({k: [WMTXMLDataset._clean(x) for x in v] for k, v in fields.items()})
        return out

    def ours_read():
        return [sacrebleu_fields(read_wmt_xml(path)) for path in files]

    t_sacre, expected = best_of(theirs_read, args.repeat)
    t_true, got = best_of(ours_read, args.repeat)
    assert got == expected, "the fields differ"
    segments = sum(len(f["src"]) for f in got)
    rows.append(("read 7 WMT21 XML files (fields)", segments, t_sacre, t_true))

    work = Path(tempfile.mkdtemp())
    source = xml_dir / "newstest2021.ru-en.all.xml"

    def fresh_cache(folder: Path):
        def setup():
            shutil.rmtree(folder, ignore_errors=True)
            raw = folder / "wmt21" / "raw"
            (raw / "test").mkdir(parents=True)
            shutil.copyfile(source, raw / "test" / "newstest2021.ru-en.xml")
            (raw / "wmt21.test.tgz").write_bytes(b"placeholder: present, so nothing is fetched")
        return setup

    def theirs_testset():
        import sacrebleu.dataset.base as base

        base.SACREBLEU_DIR = str(work / "sacrebleu")
        dataset = WMTXMLDataset("wmt21", data=sacrebleu.DATASETS["wmt21"].data,
                                langpairs=sacrebleu.DATASETS["wmt21"].langpairs, refs=["A"])
        return [open(p, encoding="utf-8").read() for p in dataset.get_reference_files("ru-en")]

    def ours_testset():
        os.environ["SACREBLEU"] = str(work / "truebleu")
        return [open(p, encoding="utf-8").read()
                for p in truebleu.get_reference_files("wmt21", "ru-en")]

    importlib.import_module("truebleu.utils")
    t_sacre, expected = best_of(theirs_testset, args.repeat, fresh_cache(work / "sacrebleu"))
    t_true, got = best_of(ours_testset, args.repeat, fresh_cache(work / "truebleu"))
    assert got == expected, "the reference files differ"
    rows.append(("-t wmt21 -l ru-en: process + references", 1000, t_sacre, t_true))
    shutil.rmtree(work)

    print(f"Python {platform.python_version()}, sacreBLEU {sacrebleu.__version__}, "
          f"truebleu {truebleu.__version__}; best of {args.repeat}\n")
    print("| task | segments | sacreBLEU | truebleu | speed-up |")
    print("|---|---:|---:|---:|---:|")
    for task, n, t_sacre, t_true in rows:
        print(f"| {task} | {n} | {t_sacre:.3f} s | {t_true:.3f} s | {t_sacre / t_true:.1f}x |")


if __name__ == "__main__":
    main()
