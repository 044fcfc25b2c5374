"""One resource check for every option that resamples (issue 26, item 7: "A flag can exhaust memory").

``report``/``serve --n-samples 1000000`` on a large test set ran for minutes and then died
with NumPy's ``MemoryError`` (the length buckets drew a samples x segments index matrix)
or took gigabytes; ``compare``, ``-pbs``, ``-par``, ``-ci`` and the API checked only part
of what they allocate. Now every command and API function estimates the memory and the
resampled rows of what it will run, from its sizes alone, and refuses in one line naming
the flag (or the API argument), the estimate and the limit, before any statistic is
computed (the tests make computing one an error).
"""

from __future__ import annotations

import random

import pytest

np = pytest.importorskip("numpy")

from resampling_calls import NAMES, resampling_calls  # noqa: E402

from truebleu import BLEU  # noqa: E402
from truebleu.cli import main as truebleu_main  # noqa: E402
from truebleu.core import resources  # noqa: E402
from truebleu.core.resources import ResourceLimitError  # noqa: E402
from truebleu.metrics.base import Metric  # noqa: E402
from truebleu.viewer import report as make_report  # noqa: E402


def lines(n: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    words = [f"w{i}" for i in range(3000)]
    return [" ".join(rng.choices(words, k=rng.randint(3, 12))) for _ in range(n)]


@pytest.fixture(scope="module")
def large(tmp_path_factory):
    """A large test set: 100,000 segments, a reference and two systems."""
    folder = tmp_path_factory.mktemp("large")
    paths = {}
    for name, seed in (("ref", 0), ("a", 1), ("b", 2)):
        paths[name] = folder / f"{name}.txt"
        paths[name].write_text("\n".join(lines(100_000, seed)) + "\n", encoding="utf-8")
    return {k: str(v) for k, v in paths.items()}


@pytest.fixture
def no_work(monkeypatch):
    """Computing any statistic, preparing references or serving is an error from here on."""
    def refuse(*args, **kwargs):
        raise AssertionError("work started before the resource check")

    monkeypatch.setattr(Metric, "corpus_statistics", refuse)
    monkeypatch.setattr(Metric, "_prepare", refuse)
    import truebleu.viewer.server as server

    monkeypatch.setattr(server, "serve", refuse)


def run(argv, capsys):
    status = truebleu_main(argv)
    captured = capsys.readouterr()
    return status, captured.out, captured.err


@pytest.mark.parametrize("command", ["report", "serve"])
def test_the_reproducer_refuses_before_any_work(large, tmp_path, capsys, no_work, command):
    out = tmp_path / "report.html"
    argv = [command, large["ref"], "-i", large["a"], large["b"], "--n-samples", "1000000"]
    status, stdout, err = run(argv + (["-o", str(out)] if command == "report" else []), capsys)
    assert status == 1 and stdout == ""
    assert err.startswith(f"truebleu {command}: error: --n-samples 1,000,000: the report's "
                          "bootstrap over 100,000 segments and 2 systems would "), err
    assert "more than the limit of" in err and err.count("\n") == 1
    assert not out.exists()


@pytest.fixture
def small(tmp_path):
    paths = {}
    for name, seed in (("ref", 0), ("a", 1), ("b", 2), ("c", 3)):
        paths[name] = tmp_path / f"{name}.txt"
        paths[name].write_text("\n".join(lines(200, seed)) + "\n", encoding="utf-8")
    return {k: str(v) for k, v in paths.items()}


#: (command line, the flag its error must name); 200 segments, limits lowered below
COMMANDS = [
    (["compare", "{ref}", "-i", "{a}", "{b}", "-n", "5000"], "-n/--samples 5,000"),
    (["compare", "{ref}", "-i", "{a}", "{b}", "{c}", "--test", "ar", "-n", "5000"],
     "-n/--samples 5,000"),
    (["{ref}", "-i", "{a}", "{b}", "-pbs", "-pbsn", "5000"], "-pbsn/--paired-bs-n 5,000"),
    (["{ref}", "-i", "{a}", "{b}", "-par", "-parn", "5000"], "-parn/--paired-ar-n 5,000"),
    (["{ref}", "-i", "{a}", "-ci", "-cin", "5000", "-m", "bleu", "chrf"],
     "-cin/--confidence-n 5,000"),
    (["report", "{ref}", "-i", "{a}", "{b}", "--n-samples", "5000", "-o", "{out}"],
     "--n-samples 5,000"),
    (["serve", "{ref}", "-i", "{a}", "--n-samples", "5000"], "--n-samples 5,000"),
]


@pytest.mark.parametrize("limit", ["rows", "memory"])
@pytest.mark.parametrize("argv,flag", COMMANDS, ids=[" ".join(c[0][:1] + c[0][-2:]) for c in COMMANDS])
def test_every_command_names_its_flag_before_any_work(small, tmp_path, capsys, monkeypatch,
                                                      no_work, argv, flag, limit):
    if limit == "rows":  # 5,000 samples x 200 segments is 1,000,000 rows a system
        monkeypatch.setenv("TRUEBLEU_MAX_RESAMPLED_ROWS", "900000")
        wanted = "more than the limit of 900,000; use fewer"
    else:
        monkeypatch.setenv("TRUEBLEU_MAX_MEMORY", "50k")
        wanted = "of memory, more than the limit of 51.2 kB; use fewer"
    status, stdout, err = run([a.format(out=tmp_path / "r.html", **small) for a in argv], capsys)
    assert status == 1 and stdout == ""
    assert f"error: {flag}: " in err and wanted in err, err
    assert err.count("\n") == 1 and "Traceback" not in err


def test_within_the_limits_the_commands_run(small, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("TRUEBLEU_MAX_RESAMPLED_ROWS", "1000000")
    status, stdout, err = run(["compare", small["ref"], "-i", small["a"], small["b"], "-n", "2500"],
                              capsys)
    assert status == 0 and "Pairwise comparisons" in stdout


@pytest.fixture
def calls():
    references = lines(200, 0)
    metric = BLEU(references=[references])
    return resampling_calls(metric, references, {name: lines(200, seed) for name, seed in
                                                 (("a", 1), ("b", 2), ("c", 3))})


def test_the_names_list_every_call(calls):
    assert sorted(calls) == sorted(NAMES)


@pytest.mark.parametrize("name", NAMES)
def test_every_api_function_names_its_argument(calls, monkeypatch, name):
    option, call = calls[name]
    monkeypatch.setenv("TRUEBLEU_MAX_RESAMPLED_ROWS", "900000")
    with pytest.raises(ResourceLimitError, match=rf"^{option} 5,000: .* more than the limit of "
                                                 r"900,000; use fewer") as caught:
        call(5000)
    assert (caught.value.option, caught.value.value) == (option, 5000)
    call(2)  # a small number runs


def test_report_paired_test_is_checked():
    rep = make_report([lines(200, 0)], {"a": lines(200, 1), "b": lines(200, 2)}, n_samples=20)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("TRUEBLEU_MAX_MEMORY", "1M")
        with pytest.raises(ResourceLimitError, match=r"^n_samples 100,000: the paired bootstrap"):
            rep.paired_test(0, 1, n_samples=100_000)


def test_limits_default_and_override(monkeypatch):
    monkeypatch.delenv("TRUEBLEU_MAX_MEMORY", raising=False)
    monkeypatch.delenv("TRUEBLEU_MAX_RESAMPLED_ROWS", raising=False)
    machine = resources._machine_memory()
    assert resources.memory_limit() == (resources.FALLBACK_MEMORY if machine is None
                                        else machine // 2)
    assert resources.resampling_limit() == resources.DEFAULT_RESAMPLED_ROWS == 10 ** 11
    for text, value in [("8G", 8 * 2 ** 30), ("512m", 512 * 2 ** 20), ("1.5K", 1536),
                        ("123456", 123456), ("none", None), ("NONE", None)]:
        monkeypatch.setenv("TRUEBLEU_MAX_MEMORY", text)
        assert resources.memory_limit() == value
    monkeypatch.setenv("TRUEBLEU_MAX_RESAMPLED_ROWS", "5e10")
    assert resources.resampling_limit() == 5 * 10 ** 10
    for bad in ["lots", "-1", "0", "inf", "nan", "8X"]:
        monkeypatch.setenv("TRUEBLEU_MAX_MEMORY", bad)
        with pytest.raises(ValueError, match=r"^\$TRUEBLEU_MAX_MEMORY must be a positive amount"):
            resources.memory_limit()
