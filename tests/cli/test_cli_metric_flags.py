"""The metric flags of the command line: defined once, by each metric, for every command.

Each registered metric adds its own flags (``add_arguments``), checks them
(``check_args``) and builds itself from them (``from_args``); the scoring command
and ``compare`` take the same flags from the same place, and every metric runs
on the kernel of ``--backend`` with ``--threads`` workers (TER ignored both
before: ``truebleu REF -i SYS -m ter chrf --backend python`` ran TER natively).
"""

from __future__ import annotations

import pytest

from conftest import available_backends
from truebleu.cli import compare, score
from truebleu.cli import main as truebleu_main
from truebleu.core.kernels import KernelLoader
from truebleu.metrics import METRICS

REFS = ["the cat sat on the mat", "a dog barks", "one two three"]
HYPS = ["the cat sat on a mat", "a dog barked", "one two three"]


@pytest.fixture
def files(tmp_path):
    ref, hyp, other = tmp_path / "ref.txt", tmp_path / "hyp.txt", tmp_path / "other.txt"
    ref.write_text("".join(line + "\n" for line in REFS), encoding="utf-8")
    hyp.write_text("".join(line + "\n" for line in HYPS), encoding="utf-8")
    other.write_text("".join(line + "\n" for line in reversed(HYPS)), encoding="utf-8")
    return str(ref), str(hyp), str(other)


@pytest.fixture
def loaded_kernels(monkeypatch):
    """(metric class name, kernel name) of every kernel a metric loads."""
    loads = []
    owners = {METRICS[name].kernels: METRICS[name].__name__ for name in METRICS}
    original = KernelLoader.load

    def recording(loader, backend=None):
        kernel = original(loader, backend)
        loads.append((owners.get(loader, "?"), kernel.name))
        return kernel

    monkeypatch.setattr(KernelLoader, "load", recording)
    return loads


@pytest.mark.parametrize("backend", available_backends())
def test_every_metric_runs_on_the_backend_and_threads_given(files, backend):
    ref, hyp, _ = files
    args = score.build_parser().parse_args(
        [ref, "-i", hyp, "-m", "ter", "chrf", "bleu", "--backend", backend, "--threads", "1"])
    metrics = score.make_metrics(args, [REFS])
    assert {name: (metric.backend, metric.threads) for name, metric in metrics.items()} == {
        "TER": (backend, 1), "CHRF": (backend, 1), "BLEU": (backend, 1)}


def test_ter_and_chrf_on_the_python_backend_load_no_native_kernel(files, loaded_kernels, capsys):
    """The issue's command line, run whole: every kernel loaded is the Python one."""
    ref, hyp, _ = files
    assert truebleu_main([ref, "-i", hyp, "-m", "ter", "chrf", "--backend", "python", "-b"]) == 0
    sacrebleu = pytest.importorskip("sacrebleu")
    chrf, ter = (metric.corpus_score(HYPS, [REFS]).score
                 for metric in (sacrebleu.CHRF(), sacrebleu.TER()))
    assert capsys.readouterr().out.split() == ["[", f"{chrf:.1f},", f"{ter:.1f}", "]"]
    assert {owner for owner, _ in loaded_kernels} == {"TER", "CHRF"}
    assert {kernel for _, kernel in loaded_kernels} == {"python"}


@pytest.mark.parametrize("metric", ["bleu", "chrf", "ter"])
def test_compare_runs_on_the_backend_given(files, loaded_kernels, capsys, metric):
    ref, hyp, other = files
    assert truebleu_main(["compare", ref, "-i", hyp, other, "-m", metric, "-n", "20",
                          "--backend", "python", "--threads", "1"]) == 0
    assert capsys.readouterr().out
    assert {kernel for owner, kernel in loaded_kernels if owner == METRICS[metric].__name__} == {
        "python"}


def test_compare_checks_threads_as_the_scoring_command(files, capsys):
    ref, hyp, other = files
    assert truebleu_main(["compare", ref, "-i", hyp, other, "--threads", "0"]) == 1
    assert capsys.readouterr().err == ("truebleu compare: error: --threads must be between 1 and "
                                       "1024, got 0\n")


def _sections(help_text: str) -> dict[str, str]:
    """The sections of a ``--help`` text, by their title line."""
    return {section.split("\n", 1)[0]: section for section in help_text.split("\n\n")}


def test_compare_shows_the_metric_flags_of_the_scoring_command(monkeypatch):
    monkeypatch.setenv("COLUMNS", "100")
    ours, theirs = (_sections(parser.format_help())
                    for parser in (compare.build_parser(), score.build_parser()))
    titles = ["BLEU related arguments:", "chrF related arguments:",
              "TER related arguments (the defaults replicate TERCOM):"]
    for title in titles:
        assert ours[title] == theirs[title]
    for line in ours["Statistics backend:"].splitlines()[1:]:
        assert line in theirs["Reporting related arguments:"]


def test_compare_keeps_its_own_defaults(files):
    """compare's -w is 2 (the scoring command's is 1), and its BLEU never warns about
    tokenized-looking output (BLEU's --force), as before the flags were shared."""
    ref, hyp, other = files
    args = compare.build_parser().parse_args([ref, "-i", hyp, other])
    assert (args.width, args.force, args.metrics) == (2, True, ["bleu"])
    args = score.build_parser().parse_args([ref, "-i", hyp])
    assert (args.width, args.force, args.metrics) == (1, False, ["bleu"])


@pytest.mark.parametrize("flags,message", [
    (["-m", "bleu", "-s", "floor", "-sv", "-1"], "--smooth-value for --smooth-method 'floor'"),
    (["-m", "bleu", "--max-ngram-order", "0"], "--max-ngram-order must be between 1 and"),
    (["-m", "chrf", "-cc", "0", "-cw", "0"], "--chrf-char-order + --chrf-word-order must be at"),
    (["-m", "ter", "chrf", "-cc", "-1"], "--chrf-char-order must be an integer from 0 to 1000, got -1"),
])
def test_each_metric_checks_its_flags_by_their_names(files, capsys, flags, message):
    ref, hyp, _ = files
    assert truebleu_main([ref, "-i", hyp, *flags]) == 1
    assert message in capsys.readouterr().err


def test_the_flags_of_a_metric_not_run_stay_unchecked(files, capsys):
    """As in sacreBLEU: -cc 0 -cw 0 is no error when chrF does not run."""
    ref, hyp, _ = files
    assert truebleu_main([ref, "-i", hyp, "-m", "bleu", "-cc", "0", "-cw", "0", "-b"]) == 0


def test_importing_a_metric_loads_no_argument_parsing():
    import subprocess
    import sys

    code = ("import sys; from truebleu.metrics import BLEU, CHRF, TER; "
            "print(' '.join(m for m in ('argparse', 'truebleu.metrics.bleu.cli', "
            "'truebleu.metrics.chrf.cli', 'truebleu.metrics.ter.cli') if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == ""


def test_the_parser_reads_the_flags_of_metrics_it_does_not_load():
    """METRICS.command_line gives a registered-by-path metric's cli module (its package
    loads nothing else), and a registered class itself."""
    import subprocess
    import sys

    code = ("import sys; from truebleu.metrics import METRICS; "
            "flags = METRICS.command_line('ter'); "
            "print(flags.__name__, 'truebleu.metrics.ter.metric' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["truebleu.metrics.ter.cli", "False"]


def test_a_metric_registered_as_a_class_gives_its_own_flags(monkeypatch):
    from truebleu.metrics.chrf import CHRF

    class Quiet(CHRF):
        pass

    monkeypatch.setitem(METRICS, "quiet", Quiet)
    assert METRICS.command_line("quiet") is Quiet
