"""What a BLEU command loads: nothing of the other metrics.

Every module imported is start-up time each run of ``truebleu REF -i SYS`` pays
(`python -X importtime`: 1-2 ms for each of these here); the chrF and TER specifications are
loaded only by a chrF or TER run.
"""

from __future__ import annotations

import subprocess
import sys

REPORT_MODULES = (
    "import atexit, sys\n"
    "atexit.register(lambda: sys.stderr.write('\\nLOADED ' + ' '.join(sorted(sys.modules)) + '\\n'))\n"
    "from truebleu.cli import main\n"
    "sys.argv[0] = 'truebleu'\n"
    "sys.exit(main())\n")

OTHER_METRICS = ("truebleu._reference_chrf", "truebleu._reference_ter", "truebleu.metrics.chrf",
                 "truebleu.metrics.ter", "truebleu.batch_chrf", "numpy")


def loaded_by_command(args: list[str]) -> set[str]:
    done = subprocess.run([sys.executable, "-c", REPORT_MODULES, *args], capture_output=True,
                          text=True, check=True)
    return set(done.stderr.rsplit("LOADED ", 1)[1].split())


def test_a_bleu_command_loads_no_other_metric(tmp_path):
    ref = tmp_path / "ref.txt"
    ref.write_text("the cat sat on the mat\n", encoding="utf-8")
    loaded = loaded_by_command([str(ref), "-i", str(ref), "-b"])
    assert "truebleu.cli" in loaded  # the report works
    assert not loaded & set(OTHER_METRICS), loaded & set(OTHER_METRICS)


def test_a_chrf_command_loads_chrf_only(tmp_path):
    ref = tmp_path / "ref.txt"
    ref.write_text("the cat sat on the mat\n", encoding="utf-8")
    loaded = loaded_by_command([str(ref), "-i", str(ref), "-m", "chrf", "-b"])
    assert "truebleu._reference_chrf" in loaded
    assert "truebleu._reference_ter" not in loaded
