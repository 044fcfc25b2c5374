"""The report's fast, compact forms decode to exactly what the slow paths give.

TER runs its search once for a report (statistics and alignments from the same
results, :class:`truebleu.viewer.ter_alignments.AligningTER`) and writes the page's
alignment columns straight from the kernel's record: the oracles are TER's own
``corpus_statistics`` and its public ``alignments`` (one
:class:`~truebleu.metrics.ter.alignment.TERAlignment` per segment, read edit by edit
here). The buckets' vectorised counts are checked against plain per-token loops.
On generated inputs (with shifts, several references, missing ones) and on WMT21.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

np = pytest.importorskip("numpy")


from conftest import needs_wmt21, wmt21_dir  # noqa: E402
from truebleu.io import read_lines  # noqa: E402
from truebleu.metrics import TER  # noqa: E402
from truebleu.viewer.ter_alignments import OPERATION_LETTERS, AligningTER, ter_alignment_payload  # noqa: E402

WORDS = "the a cat dog sat on mat house red blue runs quickly , . is was Über naïve".split()


def generated(seed: int, n: int = 80, n_systems: int = 3):
    """References (the second with gaps) and systems: shuffled, edited copies of them,
    so that TER shifts blocks."""
    rng = random.Random(seed)
    first = [" ".join(rng.choice(WORDS) for _ in range(rng.randint(0, 16))) for _ in range(n)]
    second = [None if rng.random() < 0.3 else " ".join(rng.sample(line.split(), len(line.split())))
              for line in first]

    def edited(line: str) -> str:
        words = line.split()
        if len(words) > 3 and rng.random() < 0.6:  # move a block
            start = rng.randrange(len(words) - 2)
            block = words[start:start + 2]
            del words[start:start + 2]
            at = rng.randrange(len(words) + 1)
            words[at:at] = block
        for k in range(len(words)):
            if rng.random() < 0.15:
                words[k] = rng.choice(WORDS)
        if rng.random() < 0.2:
            words.insert(rng.randrange(len(words) + 1), rng.choice(WORDS))
        return " ".join(words) + (" " if rng.random() < 0.1 else "")

    systems = {f"sys{k}": [edited(line) for line in first] for k in range(n_systems)}
    return [first, second], systems


def slow_alignment_payload(metric: TER, systems, references) -> dict:
    """The page's alignment columns from TER's public alignments, one edit at a time."""
    n = len(references[0])
    present = [[k for k, stream in enumerate(references) if stream[i] is not None]
               for i in range(n)]
    out = []
    for hyps in systems.values():
        found = metric.alignments(hyps, [[references[k][i] for k in present[i]] for i in range(n)])
        entry = {key: [] for key in ("hyp", "ref", "ops", "order", "shifts")}
        for i, alignment in enumerate(found):
            entry["hyp"].append(" ".join(alignment.hypothesis))
            entry["ref"].append(present[i][alignment.reference_index])
            entry["ops"].append("".join(OPERATION_LETTERS[e.operation] for e in alignment.edits))
            entry["order"].append([e.hypothesis_position for e in alignment.edits
                                   if e.hypothesis_position is not None])
            entry["shifts"].append([[list(s.origin), s.start, s.to] for s in alignment.shifts])
        out.append(entry)
    return out


def check_compact_equals_slow(references, systems, backend: str, **options) -> int:
    """Both checks on one corpus; returns the number of shifts seen (the test needs some)."""
    metric = TER(references=references, backend=backend, **options)
    aligning = AligningTER(metric)
    for hyps in systems.values():
        rows = aligning.statistics(hyps)
        assert rows.dtype == np.float64
        assert np.array_equal(rows, metric.corpus_statistics(hyps).to_numpy())
    compact = ter_alignment_payload(aligning, systems, references)
    assert compact["systems"] == slow_alignment_payload(metric, systems, references)
    return sum(len(s) for entry in compact["systems"] for s in entry["shifts"])


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_ter_compact_alignments_equal_the_public_alignments(seed, backend):
    references, systems = generated(seed)
    assert check_compact_equals_slow(references, systems, backend) > 0


def test_ter_compact_alignments_with_options(backend):
    references, systems = generated(4)
    assert check_compact_equals_slow(references, systems, backend, case_sensitive=True,
                                     normalized=True, no_punct=True) >= 0


def test_statistics_the_viewer_asks_for_again_are_searched_again():
    references, systems = generated(5, n=10)
    aligning = AligningTER(TER(references=references))
    hyps = systems["sys0"]
    aligning.statistics(hyps)
    assert aligning.alignments(hyps) is aligning.alignments(hyps)  # kept
    copy = list(hyps)
    assert aligning.alignments(copy) is not aligning.alignments(hyps)  # another list: anew
    assert aligning.alignments(copy) == aligning.alignments(hyps)


@needs_wmt21
def test_ter_compact_alignments_on_wmt21_en_de():
    wmt = Path(wmt21_dir())
    references = [read_lines(wmt / "references" / f"newstest2021.en-de.ref.{r}.de")
                  for r in ("A", "C")]
    paths = sorted((wmt / "system-outputs").glob("newstest2021.en-de.hyp.*.de"))[:3]
    systems = {p.name: read_lines(p) for p in paths}
    assert check_compact_equals_slow(references, systems, "native") > 100


def test_bucket_members_equal_a_loop_over_segments():
    from truebleu.viewer.buckets import LENGTH_BUCKETS, _bucket_members

    values = [0, 1, 9, 10, 11, 19, 20, 29, 30, 39, 40, 49, 50, 51, 1000, 3, 45]
    slow = [[] for _ in LENGTH_BUCKETS]
    for i, value in enumerate(values):
        k = max(b for b, low in enumerate(LENGTH_BUCKETS) if value >= low)
        slow[k].append(i)
    assert [m.tolist() for m in _bucket_members(np.asarray(values), LENGTH_BUCKETS)] == slow


@pytest.mark.parametrize("seed", [1, 2])
def test_frequency_buckets_equal_counting_word_by_word(seed):
    """Each bucket's F-measure from Counters, one word at a time, as the bucket defines it."""
    from collections import Counter

    from truebleu.viewer import report
    from truebleu.viewer.buckets import FREQUENCY_BUCKETS

    references, systems = generated(seed, n=120)
    data = report(references, systems, n_samples=20).data
    ref_tokens = data.reference_tokens[0]
    frequency = Counter(w for t in ref_tokens if t for w in t)

    def bucket(word):
        return max(b for b, low in enumerate(FREQUENCY_BUCKETS) if max(frequency[word], 1) >= low)

    for result, f in zip(data.systems, data.buckets["frequency"]["f"]):
        counts = np.zeros((len(FREQUENCY_BUCKETS), 3), dtype=np.int64)
        for hyp, ref in zip(result.tokens, ref_tokens):
            h, r = Counter(hyp or []), Counter(ref or [])
            for word, c in h.items():
                counts[bucket(word), 0] += min(c, r[word])
                counts[bucket(word), 1] += c
            for word, c in r.items():
                counts[bucket(word), 2] += c
        want = []
        for matched, hyp, ref in counts.tolist():
            if hyp == 0 and ref == 0:
                want.append(None)
            elif matched == 0:
                want.append(0.0)
            else:
                p, r = matched / hyp, matched / ref
                want.append(200.0 * p * r / (p + r))
        assert f == want


# -- the length buckets' intervals, resampled in the core ---------------------------

def test_length_bucket_intervals_run_in_the_core_with_bootstrap_cis_numbers(monkeypatch):
    """The core's draws and sums (significance.native, as -pbs) give every bucket's
    interval; each equals bootstrap_ci of the bucket's rows on NumPy's path."""
    pytest.importorskip("truebleu.metrics.bleu.native")
    from truebleu import BLEU
    from truebleu.significance import bootstrap_ci, native
    from truebleu.viewer import report

    calls = []
    real = native.bootstrap_columns
    monkeypatch.setattr(native, "bootstrap_columns",
                        lambda *a, **k: calls.append(len(a[0])) or real(*a, **k))
    references, systems = generated(6, n=150)
    data = report(references, systems, n_samples=300, seed=9, backend="native").data
    assert calls and set(calls) == {len(systems)}  # every system of a bucket at once
    monkeypatch.setattr(native, "bootstrap_columns", lambda *a, **k: None)  # NumPy's path
    buckets = data.buckets["length"]
    lengths = data.reference_tokens[0].lengths()
    metric = BLEU(references=references, backend="native")
    scorer = metric.batch_scorer()
    bounds = [0, 10, 20, 30, 40, 50, 10**9]
    checked = 0
    for k, hyps in enumerate(systems.values()):
        matrix = metric.corpus_statistics(hyps).to_numpy()
        for b in range(6):
            rows = np.flatnonzero((lengths >= bounds[b]) & (lengths < bounds[b + 1]))
            if len(rows) >= 2:
                assert buckets["ci"][k][b] == bootstrap_ci(matrix[rows], scorer, 300, seed=9).ci
                checked += 1
    assert checked >= 2 * len(systems)


def test_frequency_bucket_intervals_run_in_the_core_with_numpys_numbers(monkeypatch):
    """The core's exact int64 sums of the bootstrap samples give the frequency buckets'
    intervals, in the significance test's pass (two systems or more: its draws, shared;
    tests/viewer/test_viewer_shared_draws.py) or in their own; NumPy's path (sample counts
    times the rows) gives the same ones."""
    pytest.importorskip("truebleu.metrics.bleu.native")
    from truebleu.viewer import buckets, report

    calls = []
    real = buckets._core_sums
    monkeypatch.setattr(buckets, "_core_sums", lambda *a: calls.append(1) or real(*a))
    references, systems = generated(8, n=150)
    # words seen once, a few times and often, so that several buckets have intervals
    references[0] = [f"{line} r{i} q{i % 40} s{i % 9}" for i, line in enumerate(references[0])]
    systems = {name: [f"{line} r{i} q{i % 40}" if i % 3 else f"{line} s{i % 9}"
                      for i, line in enumerate(hyps)] for name, hyps in systems.items()}
    shared = report(references, systems, n_samples=300, seed=4).data.buckets["frequency"]
    assert not calls  # (summed in the test's pass)
    monkeypatch.setattr(buckets.FrequencyCounts, "shared_columns", lambda self, seed: None)
    fast = report(references, systems, n_samples=300, seed=4).data.buckets["frequency"]
    assert calls and real(np.ones((3, 2), dtype=np.int64), 4, 5, _Bar()) is not None
    monkeypatch.setattr(buckets, "_core_sums", lambda *a: None)
    slow = report(references, systems, n_samples=300, seed=4).data.buckets["frequency"]
    assert shared == fast == slow
    assert sum(v is not None for row in fast["ci"] for v in row) >= 3 * len(systems)


def test_frequency_sums_run_in_the_core_beyond_float32s_bound():
    """The buckets' sums are exact int64 (the NumPy path's are float64), so float32's bound
    does not apply: values with segments * largest >= 2**24, and sums of 2**24 or more,
    still run in the core (significance.native.exact_sum_chunks, float32=False), and its
    sums are NumPy's exactly; columns of zeros are not resampled (their sums are 0)."""
    pytest.importorskip("truebleu.metrics.bleu.native")
    from truebleu.viewer import buckets

    rng = np.random.default_rng(3)
    table = rng.integers(0, 40, size=(3000, 6)).astype(np.int64)
    table[:, 1] = 0
    table[17, 3] = 9000  # 3000 * 9000 >= 2**24
    table[:, 5] = rng.integers(5000, 7000, size=3000)  # every sum above 2**24
    core = buckets._core_sums(table[:, [0, 2, 3, 4, 5]], 11, 64, _Bar())
    assert core is not None
    sums = buckets._resampled_sums(table, 11, 64, _Bar())
    assert (sums[:, 1] == 0).all() and (sums[:, [0, 2, 3, 4, 5]] == core).all()
    assert (sums[:, 5] >= 2 ** 24).all()
    draws = np.random.default_rng(11).choice(3000, size=(64, 3000))
    assert (sums == np.stack([table[row].sum(axis=0) for row in draws])).all()
    table[0, 0] = 2 ** 31 // 3000 + 1  # segments * largest >= 2**31: the NumPy path
    assert buckets._core_sums(table[:, [0, 2]], 11, 64, _Bar()) is None


class _Bar:
    def update(self, n: int) -> None:
        pass
