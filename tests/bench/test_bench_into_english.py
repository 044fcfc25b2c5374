"""The benches read only the WMT21 files of the systems they keep.

``bench_chrf_ter.into_english(data, limit)`` and ``bench_hf.into_english(data, limit)`` read
every X-en output and sliced afterwards, so a one-system run (``--callgrind-only --systems 1``)
counted reading all 100 files in its instructions, and its peak RSS held them all; chrF's
``sentence`` task read everything for its first N segments, and bench_speed's ``sentence``
and ``matrix`` tasks everything for 20,000 segments and for one system. Here every
``Path.read_text`` is recorded: a run may read the reference and the outputs of the systems
it keeps, nothing else, and must choose exactly the systems the old slicing chose, in the
same order, each pair's reference one object shared by its outputs (the cached tasks make
one metric per reference object). On a small made-up tree, and (the choice only) on the
shared WMT21 data. (Before the fix every read-count test failed: one system read all 7 files
of the tree.)
"""

from __future__ import annotations

from pathlib import Path

import pytest
from bench_support import bench_module

from conftest import needs_wmt21, wmt21_dir

#: pair -> its systems, in name order (an en-de pair and a reference B are never read)
FAKE = {"aa-en": ["S1", "S2"], "bb-en": ["S1"], "cc-en": ["S1", "S2", "S3"]}


def fake_wmt21(folder: Path) -> Path:
    (folder / "references").mkdir(parents=True)
    (folder / "system-outputs").mkdir()
    for pair, systems in FAKE.items():
        (folder / "references" / f"newstest2021.{pair}.ref.A.en").write_text(
            f"{pair} ref line 1\n{pair} ref line 2\n", encoding="utf-8")
        (folder / "references" / f"newstest2021.{pair}.ref.B.en").write_text("B\nB\n", encoding="utf-8")
        for system in reversed(systems):  # (creation order is not the order read)
            (folder / "system-outputs" / f"newstest2021.{pair}.hyp.{system}.en").write_text(
                f"{pair} {system} 1\n{pair} {system} 2\n", encoding="utf-8")
    (folder / "references" / "newstest2021.en-de.ref.A.de").write_text("x\ny\n", encoding="utf-8")
    (folder / "system-outputs" / "newstest2021.en-de.hyp.S1.de").write_text("x\ny\n", encoding="utf-8")
    return folder


def sliced_the_old_way(data: Path, limit: int | None) -> list[tuple[Path, Path]]:
    """The (output, reference) files of the systems the benches chose before: every X-en
    output, pairs in reference name order, outputs in name order, then the first ``limit``."""
    chosen = []
    for ref in sorted((data / "references").glob("*-en.ref.A.en")):
        prefix = ref.name.split(".ref.")[0]
        chosen += [(hyp, ref) for hyp in sorted((data / "system-outputs").glob(f"{prefix}.hyp.*"))]
    return chosen[:limit] if limit else chosen


def lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines()


@pytest.fixture
def reads(monkeypatch) -> list[str]:
    """The names of the files read through ``Path.read_text`` (how the benches read)."""
    names: list[str] = []
    real = Path.read_text

    def recorded(self, *args, **kwargs):
        names.append(self.name)
        return real(self, *args, **kwargs)

    monkeypatch.setattr(Path, "read_text", recorded)
    return names


def files_of(chosen: list[tuple[Path, Path]]) -> set[str]:
    return {path.name for pair in chosen for path in pair}


@pytest.mark.parametrize("bench", ["bench_chrf_ter", "bench_hf"])
@pytest.mark.parametrize("limit", [1, 2, 3, 5, 6, 9])
def test_a_limited_run_reads_only_the_systems_it_keeps(tmp_path, reads, bench, limit):
    data = fake_wmt21(tmp_path)
    got = bench_module(bench).into_english(data, limit)
    chosen = sliced_the_old_way(data, limit)
    assert set(reads) == files_of(chosen) and len(reads) == len(set(reads)), reads
    as_hf = bench == "bench_hf"
    assert got == [(lines(hyp), [[r] for r in lines(ref)] if as_hf else lines(ref))
                   for hyp, ref in chosen]
    for (_, ref), (_, next_ref), (_, path), (_, next_path) in zip(got, got[1:], chosen, chosen[1:]):
        assert (ref is next_ref) == (path == next_path)  # one object per reference


def test_bench_chrf_ter_without_a_limit_keeps_every_system(tmp_path, reads):
    data = fake_wmt21(tmp_path)
    assert len(bench_module("bench_chrf_ter").into_english(data)) == 6
    assert set(reads) == files_of(sliced_the_old_way(data, None))


@pytest.mark.parametrize("segments, files", [(1, 2), (2, 2), (3, 3), (5, 5)])
def test_bench_chrf_ter_sentence_task_reads_only_its_first_segments(tmp_path, reads, monkeypatch,
                                                                    segments, files):
    """2 segments per file: the first ``segments`` pairs come from the first systems only."""
    bench = bench_module("bench_chrf_ter")
    monkeypatch.setattr(bench, "N_SENTENCES", segments)
    result = bench.worker("chrf", "sentence", "truebleu", fake_wmt21(tmp_path), 0, 1)
    assert result["segments"] == segments
    assert len(reads) == files, reads


def test_bench_speed_matrix_task_reads_only_its_first_system(tmp_path, reads):
    data = fake_wmt21(tmp_path)
    result = bench_module("bench_speed").worker("matrix", "truebleu", data, 1)
    assert result["segments"] == 4
    assert set(reads) == files_of(sliced_the_old_way(data, 1)), reads


@pytest.fixture(scope="module")
def old_choice() -> list[tuple[Path, Path]]:
    return sliced_the_old_way(wmt21_dir(), None)


@needs_wmt21
@pytest.mark.parametrize("limit", [1, 7, 20, 55, 0])
def test_on_wmt21_the_chosen_systems_are_the_old_slicings(old_choice, limit):
    chosen = old_choice[:limit] if limit else old_choice
    assert len(chosen) == (limit or 100)
    got = bench_module("bench_chrf_ter").into_english(wmt21_dir(), limit)
    assert got == [(lines(hyp), lines(ref)) for hyp, ref in chosen]


@needs_wmt21
@pytest.mark.parametrize("limit", [2, 10])
def test_on_wmt21_bench_hf_chooses_the_old_slicings(old_choice, limit):
    got = bench_module("bench_hf").into_english(wmt21_dir(), limit)
    assert got == [(lines(hyp), [[r] for r in lines(ref)]) for hyp, ref in old_choice[:limit]]
