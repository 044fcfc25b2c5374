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


# -- the page's data: texts in UTF-8 blocks, then JSON, in one gzip stream ------------

HOSTILE_PAYLOAD = {
    "title": "t\ud800", "n": 3, "empty": [], "none": None, "nested": {},
    "systems": [{"name": "A\udfff", "text": ["a", "b\ud83d", "\u00e9", "\ufeffbom", "x\ny"],
                 "stats": [1, 2, 3], "sentence_bleu": [0.1 + 0.2, 1e-300, -0.0, 5e-324, 100.0],
                 "corpus": {"score": 1.5, "k\ud800": [[1, "x\udc00"], []]}},
                {"name": "B", "text": [], "stats": [], "bleu_without": [2.5]}],
    "references": [{"text": ["\U0001f600 x", None, "", "\ud800", "z\U0001f600"]}],
    "metrics": {"list": [{"sentence": [[0.5, None], [1e-300, -0.0]], "alignment": None}]},
    "source": ["s\ud800", None, "t", "", "u v", "\u00e9", "w", "x"],
    "bleu": [0.25, None, 1e300, -0.0, 7],
}


@pytest.mark.parametrize("piece", [1, 2, 3, 4096])
def test_the_payload_comes_back_whole_from_its_blocks_and_json(piece, monkeypatch):
    """decode_payload(encode_payload(p)) is p (with format 3), whatever the size of the
    pieces a column is cut into: None, empty texts, characters beyond U+FFFF, a leading
    BOM, a newline inside a text, lone surrogates (JSON strings, UTF-8 has none), the
    number columns' doubles bit for bit; the texts and numbers are not in the JSON, the
    payload given is not modified."""
    import copy
    import gzip
    import json
    import struct

    from truebleu.viewer import page
    from truebleu.viewer.page import decode_payload, encode_payload

    monkeypatch.setattr(page, "_SLICE", piece)
    given = copy.deepcopy(HOSTILE_PAYLOAD)
    data = encode_payload(given)
    assert given == HOSTILE_PAYLOAD
    back = decode_payload(data)
    assert back == {**HOSTILE_PAYLOAD, "format": 3}
    bits = [struct.pack("<d", x) for x in back["systems"][0]["sentence_bleu"]]
    assert bits == [struct.pack("<d", x) for x in HOSTILE_PAYLOAD["systems"][0]["sentence_bleu"]]
    raw = gzip.decompress(data)
    document = json.loads(raw[raw.rindex(b"\n") + 1:])
    assert document["source"] is None and document["systems"][0]["text"] is None
    assert document["systems"][0]["stats"] is None and document["systems"][0]["sentence_bleu"] is None
    types = [block["type"] for block in document["blocks"] if block["kind"] == "numbers"]
    assert types == ["uint16", "float64", "uint16", "float64"]
    assert raw.startswith("tu v\u00e9wx".encode())  # the source's block first, its UTF-8 texts
    assert "bom" not in json.dumps(document)  # the texts are not in the JSON


def test_payload_refuses_what_json_cannot_say():
    from truebleu.viewer.page import encode_payload

    with pytest.raises(ValueError):
        encode_payload({"systems": [{"score": float("nan")}]})
    with pytest.raises(ValueError):  # in a later piece of a column
        encode_payload({"systems": [{"sentence": [0.5] * 5 + [float("nan")]}]})
    for bad in (float("nan"), float("inf"), None, "1"):  # a number column's block
        with pytest.raises(ValueError, match="systems.0.bleu_without"):
            encode_payload({"systems": [{"bleu_without": [0.5, bad]}]})
    with pytest.raises(ValueError, match="systems.0.stats holds an integer beyond 64 bits"):
        encode_payload({"systems": [{"stats": [0, 2**63]}]})


@pytest.mark.parametrize("values, kind", [
    ([], "uint16"), ([0, 65535], "uint16"), ([-1, 3], "int32"), ([65536], "int32"),
    ([2**31 - 1, -2**31], "int32"), ([2**31], "float64"), ([2**53, -7], "float64"),
    ([1, 0.5], "float64"), ([True, 2], "uint16")])
def test_number_columns_take_the_narrowest_type_that_holds_them(values, kind):
    """Integers as uint16 or int32 where they fit, else (and any float) as doubles: the
    page reads doubles either way, and the payload comes back equal."""
    import gzip
    import json

    from truebleu.viewer.page import decode_payload, encode_payload

    payload = {"systems": [{"stats": values}]}
    data = encode_payload(payload)
    raw = gzip.decompress(data)
    assert json.loads(raw[raw.rindex(b"\n") + 1:])["blocks"][0]["type"] == kind
    assert decode_payload(data) == {**payload, "format": 3}


@pytest.mark.parametrize("size", [0, 1, 999, 1000, 1001, 4321])
def test_parallel_gzip_is_one_gzip_stream_whatever_the_threads_and_pieces(size, monkeypatch):
    """The bytes back from gzip.decompress, the same output on 1, 2 and 3 threads and
    whatever the pieces' cuts (blocks of 1000 bytes here, so that several are joined)."""
    import gzip
    import random

    from truebleu.viewer import parallel_gzip

    monkeypatch.setattr(parallel_gzip, "BLOCK", 1000)
    rng = random.Random(size)
    words = [b"alpha ", b"beta ", b"gamma\n", b"\xc3\xa9t\xc3\xa9 ", bytes([rng.randrange(256)])]
    data = b"".join(rng.choice(words) for _ in range(size))[:size * 3]
    outputs = set()
    for threads in (1, 2, 3):
        for cut in (1, 7, 1000, 10**6):
            pieces = [data[k:k + cut] for k in range(0, len(data), cut)]
            out = parallel_gzip.gzip_compress(pieces, threads=threads)
            assert gzip.decompress(out) == data
            outputs.add(out)
    assert len(outputs) == 1


def test_parallel_gzip_keeps_gzips_ratio():
    """Each block is primed with the 32 KiB before it: the stream is as small as gzip's own
    at level 1 within 0.05% (4.5 MB of text in 5 blocks; unprimed blocks lose about 0.3%)."""
    import gzip
    import random

    from truebleu.viewer.parallel_gzip import gzip_compress

    rng = random.Random(25)
    vocabulary = ["".join(rng.choice("abcdefghijklmnoprstu") for _ in range(rng.randint(1, 9)))
                  for _ in range(3000)]
    lines = (" ".join(rng.choice(vocabulary) for _ in range(rng.randint(5, 30))) for _ in range(50000))
    data = "\n".join(lines).encode()[:4_500_000]
    assert len(data) == 4_500_000
    assert len(gzip_compress([data])) <= len(gzip.compress(data, 1)) * 1.0005


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
    intervals; NumPy's path (sample counts times the rows) gives the same ones."""
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
    fast = report(references, systems, n_samples=300, seed=4).data.buckets["frequency"]
    assert calls and real(np.ones((3, 2), dtype=np.int64), 4, 5, _Bar()) is not None
    monkeypatch.setattr(buckets, "_core_sums", lambda *a: None)
    slow = report(references, systems, n_samples=300, seed=4).data.buckets["frequency"]
    assert fast == slow
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
