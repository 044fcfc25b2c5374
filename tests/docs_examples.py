"""Run the examples of a Markdown page as a reader would paste them.

What runs, in page order (tests/docs_driver.py runs it, in a fresh interpreter):

- every ``python`` block, in one namespace; a block with ``if __name__ == "__main__":`` is a
  script and runs alone in a subprocess;
- every command line of every ``sh`` block: each must be a ``truebleu`` or ``sacrebleu``
  command (pipes and redirections allowed), run by bash in a folder of example files
  (:func:`write_example_files`), with no network (proxies point at a closed port);
- every row of a migration table, a Markdown table after ``<!-- compare: MODULE -->`` whose
  first column is the other tool's call and whose second is truebleu's, each a code span (a
  Python expression or a command line): truebleu's call runs, and where ``MODULE`` is installed
  the other tool's call runs too (with ``MODULE`` imported) and must give the same numbers. A
  cell without code (``—``) is a call the other tool does not have. A table whose own calls
  need packages says so, ``<!-- compare: torchmetrics.text; requires: torch, torchmetrics -->``,
  and runs only where they are installed.

A block preceded by ``<!-- not run: reason -->`` is skipped, and the reason must name the test
that makes the same calls (``tests/...``); the README's quick start (``<!-- ci:begin -->``) is
run by ``.ci/run``. A page that needs optional packages says so once,
``<!-- requires: torch, torchmetrics -->``, and its examples skip (with that reason) without
them. Usage synopses with placeholders belong in ``text`` blocks, which never run.
"""

from __future__ import annotations

import gzip
import importlib.util
import json
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from conftest import REPO, shared_dir, wmt21_dir

FENCE = re.compile(r"(?:<!-- (?:not run: (?P<reason>[^>]*)|(?P<ci>ci:begin)) -->\n)?"
                   r"```(?P<lang>python|sh|bash|shell|console)\n(?P<code>.*?)```", re.S)
REQUIRES = re.compile(r"<!-- requires: (?P<names>[^>]*) -->")
COMPARE = re.compile(r"<!-- compare: (?P<module>[\w.]+)(?:; requires: (?P<requires>[^>]*))? -->\n+"
                     r"(?P<table>(?:\|.*\n)+)")
CODE_SPAN = re.compile(r"`([^`]+)`")
#: a command line that the docs may show: truebleu's or sacreBLEU's, after environment
#: variables or `cat FILE |`
TOOL_COMMAND = re.compile(r"^(?:\w+=\S* )*(?:(?:cat|zcat) [^|]+\| *)?(?:truebleu|sacrebleu)(?:\s|$)")
DRIVER = Path(__file__).with_name("docs_driver.py")
HUB_SCRIPTS = shared_dir() / "oracles" / "evaluate"


@dataclass(frozen=True)
class Block:
    line: int       # of the block's first line of code
    lang: str       # "python" or "sh"
    code: str
    reason: str | None  # why it is not run, or None


@dataclass(frozen=True)
class Row:
    line: int
    module: str            # the other tool's module
    requires: tuple[str, ...]  # what truebleu's calls of the table need
    theirs: str | None     # the other tool's call, or None where it has none
    ours: str


def blocks(page: Path) -> list[Block]:
    """The ``python`` and ``sh`` blocks of a page, in order."""
    text = page.read_text(encoding="utf-8")
    found = []
    for match in FENCE.finditer(text):
        reason = match.group("reason")
        if match.group("ci"):
            reason = "the README's quick start, run by .ci/run"
        lang = "python" if match.group("lang") == "python" else "sh"
        found.append(Block(text.count("\n", 0, match.start("code")) + 1, lang,
                           match.group("code"), reason))
    return found


def python_blocks(page: Path) -> list[tuple[int, str, str | None]]:
    """(line, code, reason it is not run or None) of each ``python`` block of the page."""
    return [(block.line, block.code, block.reason) for block in blocks(page) if block.lang == "python"]


def command_lines(code: str) -> list[str]:
    """The command lines of an ``sh`` block: continuations joined, comment lines left out."""
    joined = re.sub(r"\\\n\s*", " ", code)
    return [line.strip() for line in joined.splitlines()
            if line.strip() and not line.lstrip().startswith("#")]


def comparison_rows(page: Path) -> list[Row]:
    """The rows of the page's migration tables (see the module's docstring)."""
    text = page.read_text(encoding="utf-8")
    rows = []
    for match in COMPARE.finditer(text):
        first = text.count("\n", 0, match.start("table")) + 1
        for offset, line in enumerate(match.group("table").splitlines()[2:], start=2):
            # cells split at unescaped pipes; in a cell, \| is a pipe (as GitHub renders it)
            cells = [cell.strip().replace("\\|", "|")
                     for cell in re.split(r"(?<!\\)\|", line.strip().strip("|"))]
            theirs, ours = (CODE_SPAN.search(cell) for cell in cells[:2])
            if ours is None:
                raise ValueError(f"{page.name} line {first + offset}: truebleu's cell has no code")
            requires = tuple(name.strip() for name in (match.group("requires") or "").split(",")
                             if name.strip())
            rows.append(Row(first + offset, match.group("module"), requires,
                            None if theirs is None else theirs.group(1), ours.group(1)))
    return rows


def required_modules(page: Path) -> list[str]:
    found = REQUIRES.search(page.read_text(encoding="utf-8"))
    return [] if found is None else [name.strip() for name in found.group("names").split(",")]


def unnamed_tests(page: Path) -> list[str]:
    """What breaks the rules: a skipped block whose reason names no existing test file, and a
    run ``sh`` block with a line that is not a truebleu or sacreBLEU command."""
    wrong = []
    for block in blocks(page):
        if block.reason is not None:
            named = re.search(r"tests/(?:\w+/)*test_\w+\.py|\.ci/run", block.reason)
            if not named or not (REPO / named.group()).is_file():
                wrong.append(f"{page.name} line {block.line}: say which test covers it")
        elif block.lang == "sh":
            wrong += [f"{page.name} line {block.line}: `{line}` is not a truebleu command "
                      "(mark the block not run, naming its test)"
                      for line in command_lines(block.code) if not TOOL_COMMAND.match(line)]
    return wrong


# -- the example files ---------------------------------------------------------------------

#: the WMT21 file the example files are cut from, and the systems that become sys1..sys3
EXAMPLE_SOURCE = "newstest2021.ru-en.all.xml"
EXAMPLE_SYSTEMS = ("Facebook-AI", "Online-B", "NiuTrans")
#: the number of segments: whole documents, at least this many
EXAMPLE_SEGMENTS = 100
#: every file the docs' examples may name, so a page that names one needs them
EXAMPLE_FILES = ("src.ru", "ref.A.en", "ref.B.en", "sys1.en", "sys2.en", "sys3.en", "docids",
                 "refs.tsv", "sys1.en.gz", "data.jsonl", "ref.sgm", "hyp.sgm", "output.en",
                 EXAMPLE_SOURCE)

needs_example_data = pytest.mark.skipif(
    not (wmt21_dir() / "xml" / EXAMPLE_SOURCE).is_file(),
    reason=f"the docs' example files are cut from {wmt21_dir() / 'xml' / EXAMPLE_SOURCE}, "
           "absent: set TRUEBLEU_SHARED to the shared folder (CONTRIBUTING.md says where its "
           "data comes from)")


def write_example_files(folder: Path) -> None:
    """The files the docs' commands name (getting-started.md lists them): the first documents
    of WMT21 ru-en (about 100 segments) as plain text, one segment per line, and in the other
    input formats; the first system's whole output (``output.en``, for ``-t wmt21 -l ru-en``); the
    whole WMT XML file; and a test-set cache that holds WMT21 ru-en."""
    from truebleu.io.wmt_xml import keep_referenced, read_wmt_xml

    xml = wmt21_dir() / "xml" / EXAMPLE_SOURCE
    test_set = keep_referenced(read_wmt_xml(xml))
    n = EXAMPLE_SEGMENTS
    while n < len(test_set.doc_ids) and test_set.doc_ids[n] == test_set.doc_ids[n - 1]:
        n += 1
    columns = {"src.ru": test_set.source, "ref.A.en": test_set.references["A"],
               "ref.B.en": test_set.references["B"], "docids": test_set.doc_ids}
    for number, system in enumerate(EXAMPLE_SYSTEMS, start=1):
        columns[f"sys{number}.en"] = test_set.systems[system]
    lines = {name: [str(value) for value in values[:n]] for name, values in columns.items()}
    for name, values in lines.items():
        (folder / name).write_text("".join(f"{value}\n" for value in values), encoding="utf-8")
    (folder / "refs.tsv").write_text("".join(f"{a}\t{b}\n" for a, b in
                                             zip(lines["ref.A.en"], lines["ref.B.en"])),
                                     encoding="utf-8")
    (folder / "output.en").write_text("".join(f"{line}\n" for line in test_set.systems[EXAMPLE_SYSTEMS[0]]),
                                      encoding="utf-8")
    (folder / "sys1.en.gz").write_bytes(gzip.compress((folder / "sys1.en").read_bytes()))
    (folder / "data.jsonl").write_text("".join(
        json.dumps({"hyp": hyp, "ref": [a, b]}, ensure_ascii=False) + "\n"
        for hyp, a, b in zip(lines["sys1.en"], lines["ref.A.en"], lines["ref.B.en"])),
        encoding="utf-8")
    for name, system, column in (("ref.sgm", "ref", "ref.A.en"), ("hyp.sgm", "sys1", "sys1.en")):
        (folder / name).write_text(_fake_sgml(system, lines["docids"], lines[column]),
                                   encoding="utf-8")
    (folder / EXAMPLE_SOURCE).write_bytes(xml.read_bytes())
    _seed_test_set_cache(folder / ".sacrebleu", xml)


def _seed_test_set_cache(cache: Path, xml: Path) -> None:
    """The test-set cache (sacreBLEU's layout, testsets.md) as a download of WMT21 leaves it,
    for ru-en only, so that ``-t wmt21 -l ru-en`` runs offline as it does for a reader who
    downloaded it once. The archive is never opened again once unpacked: an empty-free
    stand-in marks it downloaded."""
    from truebleu.io.testsets.registry import get_testset

    wmt21 = get_testset("wmt21")
    raw = cache / "wmt21" / "raw"
    unpacked = raw / wmt21.raw_files("ru-en")[0]
    unpacked.parent.mkdir(parents=True, exist_ok=True)
    unpacked.write_bytes(xml.read_bytes())
    (raw / f"wmt21.{wmt21.urls[0].rsplit('/', 1)[-1]}").write_text("stand-in\n", encoding="utf-8")


def _fake_sgml(system: str, doc_ids: list[str], segments: list[str]) -> str:
    """WMT's line-based SGML (one ``<doc>`` line per document, one ``<seg>`` line per segment)."""
    out = ['<refset setid="newstest2021" srclang="ru" trglang="en">']
    for index, (doc_id, segment) in enumerate(zip(doc_ids, segments)):
        if index == 0 or doc_ids[index - 1] != doc_id:
            out += ["</doc>"] if index else []
            out.append(f'<doc sysid="{system}" docid="{doc_id}" origlang="ru">')
        out.append(f'<seg id="{index + 1}">{segment}</seg>')
    return "\n".join(out + ["</doc>", "</refset>", ""])


def _needs_example_files(steps: list[list]) -> bool:
    """Whether the steps use the example files: every command does, Python code that names one."""
    def uses(step: list) -> bool:
        kind, _, *payload = step
        if kind == "shell":
            return True
        if kind == "compare":
            return any(code is not None and TOOL_COMMAND.match(code) for code in payload[1:])
        return kind == "python" and any(name in payload[0] for name in EXAMPLE_FILES)
    return any(uses(step) for step in steps)


def other_tool_available(module: str) -> bool:
    """Whether a migration table's other tool can run here: installed, and for Hugging Face
    ``evaluate`` the hub's scripts present (loaded from the shared folder, never the hub)."""
    if importlib.util.find_spec(module.split(".")[0]) is None:  # the package, not imported
        return False
    return module != "evaluate" or HUB_SCRIPTS.is_dir()


# -- running -------------------------------------------------------------------------------

def page_steps(page: Path, folder: Path) -> list[list]:
    """The page's examples as the driver's steps, in page order (scripts written to ``folder``)."""
    placed: list[tuple[int, list]] = []
    for block in blocks(page):
        if block.reason is not None:
            continue
        where = f"{page.name} line {block.line}"
        if block.lang == "sh":
            placed += [(block.line, ["shell", where, line]) for line in command_lines(block.code)]
        elif 'if __name__ == "__main__":' in block.code:
            script = folder / f"{page.stem}_line_{block.line}.py"
            script.write_text(block.code, encoding="utf-8")
            placed.append((block.line, ["script", where, str(script)]))
        else:
            placed.append((block.line, ["python", where, block.code]))
    for row in comparison_rows(page):
        if not all(importlib.util.find_spec(name) for name in row.requires):
            continue  # run_examples says so
        theirs = row.theirs if other_tool_available(row.module) else None
        placed.append((row.line, ["compare", f"{page.name} line {row.line}", row.module, theirs,
                                  row.ours]))
    return [step for _, step in sorted(placed, key=lambda item: item[0])]


def example_environment(folder: Path) -> dict[str, str]:
    """The commands' environment: ``truebleu`` and ``sacrebleu`` are this interpreter's (and
    truebleu the package under test), the test-set cache is the folder's, and any download
    fails at once (no network)."""
    bin_dir = folder / ".bin"
    bin_dir.mkdir(exist_ok=True)
    for command, module in (("truebleu", "truebleu"), ("sacrebleu", "sacrebleu")):
        shim = bin_dir / command
        shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m {module} "$@"\n', encoding="utf-8")
        shim.chmod(0o755)
    closed_port = "http://127.0.0.1:9"
    import truebleu  # the commands and examples import this truebleu, wherever it is

    package_root = str(Path(truebleu.__file__).resolve().parents[1])
    python_path = os.pathsep.join(filter(None, [package_root, os.environ.get("PYTHONPATH")]))
    env = dict(os.environ, PATH=f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}",
               PYTHONPATH=python_path,
               SACREBLEU=str(folder / ".sacrebleu"), TRUEBLEU_CACHE=str(folder / ".cache"),
               HF_HOME=str(folder / ".hf"), HF_HUB_OFFLINE="1", HF_EVALUATE_OFFLINE="1",
               HF_DATASETS_OFFLINE="1", http_proxy=closed_port, https_proxy=closed_port,
               HTTP_PROXY=closed_port, HTTPS_PROXY=closed_port, no_proxy="", NO_PROXY="")
    env.pop("SACREBLEU_SEED", None)
    return env


def run_examples(page: Path, folder: Path) -> int:
    """Run the page's examples in ``folder``; returns how many steps ran. Skips (with the
    reason) without the page's required modules, or without the data of the example files
    when the page uses them; and, after running truebleu's side, when a migration table's
    other tool is not installed (its numbers were then not compared)."""
    missing = [name for name in required_modules(page) if importlib.util.find_spec(name) is None]
    if missing:
        pytest.skip(f"{page.name} needs {', '.join(missing)}")
    steps = page_steps(page, folder)
    if _needs_example_files(steps):
        if not (wmt21_dir() / "xml" / EXAMPLE_SOURCE).is_file():
            pytest.skip(needs_example_data.kwargs["reason"])
        write_example_files(folder)
    (folder / ".steps.json").write_text(json.dumps(steps), encoding="utf-8")
    hub = str(HUB_SCRIPTS) if any(step[0] == "compare" and step[3] and "evaluate.load" in step[3]
                                  for step in steps) else ""
    done = subprocess.run([sys.executable, str(DRIVER), ".steps.json", page.stem, hub], cwd=folder,
                          env=example_environment(folder), capture_output=True, text=True,
                          timeout=1800)
    if done.returncode != 0:
        pytest.fail(done.stderr)
    rows = comparison_rows(page)
    unrun = sorted({name for row in rows for name in row.requires
                    if importlib.util.find_spec(name) is None})
    if unrun:
        pytest.skip(f"{page.name}: the migration tables that need {', '.join(unrun)} did not run")
    uncompared = sorted({row.module for row in rows
                         if row.theirs is not None and not other_tool_available(row.module)})
    if uncompared:
        pytest.skip(f"{page.name}: truebleu's calls ran; the numbers were not compared with "
                    f"{', '.join(uncompared)}: not installed (or, for evaluate, the hub's scripts "
                    f"not at {HUB_SCRIPTS})")
    return len(steps)
