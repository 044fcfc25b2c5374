"""Run one page's examples in order, as a reader would: the script that tests/docs_examples.py
starts in a fresh interpreter (apart from the test process: its event loops, warning filters
and imported modules), in the folder of the example files.

``python docs_driver.py steps.json PAGE_NAME`` reads a list of steps, in page order:

- ``["python", where, code]``: a Python block, run in the page's one namespace (as pasted into
  one interpreter); an example must not warn;
- ``["script", where, path]``: a block that is a script (``if __name__ == "__main__":``), run
  alone in a subprocess;
- ``["shell", where, command]``: a command line of an ``sh`` block, run by bash (pipefail);
- ``["compare", where, module, theirs, ours]``: a row of a migration table: ``ours``
  (truebleu's call, a Python expression in the page's namespace or a command line) must run
  without a warning, and give the same numbers as ``theirs`` (the other tool's call, with
  ``module`` imported and its top-level name bound) when ``theirs`` is not None.

The first failure ends the run with the step's ``where`` (page and line) and the error.
"""

from __future__ import annotations

import importlib
import json
import math
import re
import subprocess
import sys
import traceback
import warnings
from typing import Any

#: a command line rather than a Python expression (a migration table may hold both)
COMMAND = re.compile(r"^(?:\w+=\S* )*(?:truebleu|sacrebleu|cat|zcat)(?:\s|$)")
#: the version in a signature (``version:2.6.0``) or a JSON field (``"version": "2.6.0"``): the
#: one difference the tools' outputs may have (``truebleu-0.1.0`` there)
VERSION = re.compile(r"(version(?::|\": \"))(?:truebleu-)?[0-9][\w.+-]*")


def run_shell(where: str, command: str) -> str:
    done = subprocess.run(["bash", "-o", "pipefail", "-c", command], capture_output=True,
                          text=True, timeout=600)
    if done.returncode != 0:
        sys.exit(f"{where}: `{command}` exited with status {done.returncode}\n{done.stderr}")
    return done.stdout


def run_python(where: str, code: str, namespace: dict[str, Any], mode: str = "exec",
               strict: bool = True) -> Any:
    """Run (or evaluate) ``code``; an example of truebleu's (``strict``) must not warn."""
    with warnings.catch_warnings():
        if strict:
            warnings.simplefilter("error")
        try:
            compiled = compile(code, where, mode)
            return eval(compiled, namespace) if mode == "eval" else exec(compiled, namespace)
        except BaseException as exc:  # report where, as a reader would meet it
            traceback.print_exc()
            sys.exit(f"{where}: {type(exc).__name__}: {exc}")


def call(where: str, code: str, namespace: dict[str, Any], strict: bool = True) -> Any:
    """A table cell's result: a command's output, or a Python expression's value."""
    if COMMAND.match(code):
        return run_shell(where, code)
    return run_python(where, code, namespace, "eval", strict)


def same(theirs: Any, ours: Any) -> bool:
    """The same numbers: equal floats (NaN equals NaN), equal tensors of the same dtype, score
    objects with the same text and score, and containers of such, key by key."""
    if isinstance(theirs, dict) and isinstance(ours, dict):
        return list(theirs) == list(ours) and all(same(theirs[key], ours[key]) for key in theirs)
    if isinstance(theirs, (list, tuple)) and isinstance(ours, (list, tuple)):
        return len(theirs) == len(ours) and all(map(same, theirs, ours))
    if type(theirs).__module__.startswith("torch") and hasattr(theirs, "dtype"):
        import torch

        return theirs.dtype == ours.dtype and bool(torch.equal(theirs, ours))
    if hasattr(theirs, "score") and hasattr(ours, "score"):
        return str(theirs) == str(ours) and same(theirs.score, ours.score)
    if isinstance(theirs, float) and isinstance(ours, float) and math.isnan(theirs):
        return math.isnan(ours)
    if isinstance(theirs, str) and isinstance(ours, str):
        return VERSION.sub(r"\1*", theirs) == VERSION.sub(r"\1*", ours)
    return bool(theirs == ours)


def use_local_hub(folder: str) -> None:
    """``evaluate.load("sacrebleu")`` loads the hub's script from ``folder`` (a copy of the
    hub's metric scripts): the docs show the hub's call, and the tests never reach the hub."""
    from pathlib import Path

    import evaluate

    hub_load = evaluate.load

    def load(path: str, *args: Any, **kwargs: Any) -> Any:
        local = Path(folder) / path / f"{path}.py"
        return hub_load(str(local) if local.is_file() else path, *args, **kwargs)

    evaluate.load = load


def main(steps_file: str, page: str, hub: str = "") -> None:
    with open(steps_file, encoding="utf-8") as handle:
        steps = json.load(handle)
    if hub:
        use_local_hub(hub)
    namespace: dict[str, Any] = {"__name__": page}
    for kind, where, *payload in steps:
        if kind == "python":
            run_python(where, payload[0], namespace)
        elif kind == "script":
            done = subprocess.run([sys.executable, payload[0]], capture_output=True, text=True,
                                  timeout=600)
            if done.returncode != 0:
                sys.exit(f"{where}:\n{done.stderr}")
        elif kind == "shell":
            run_shell(where, payload[0])
        elif kind == "compare":
            module, theirs_code, ours_code = payload
            ours = call(where, ours_code, namespace)
            if theirs_code is not None:
                importlib.import_module(module)
                top = module.split(".")[0]
                namespace.setdefault(top, sys.modules[top])
                theirs = call(where, theirs_code, namespace, strict=False)
                if not same(theirs, ours):
                    sys.exit(f"{where}: the numbers differ\n  {theirs_code}\n    -> {theirs!r}\n"
                             f"  {ours_code}\n    -> {ours!r}")
        else:
            sys.exit(f"{where}: unknown step {kind!r}")


if __name__ == "__main__":
    main(*sys.argv[1:])
