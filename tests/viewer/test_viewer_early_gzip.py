"""The page's texts deflated while the report is computed (viewer/early_gzip.py): the
stream, and so the page, are byte for byte those written without it, whatever the thread
had done when the payload took over, and a report that fails leaves no thread behind."""

from __future__ import annotations

import gzip
import random
import threading
import zlib

import pytest

from truebleu.viewer import parallel_gzip, report
from truebleu.viewer.early_gzip import texts_deflated_early

PIECES = ["Hello,", "world.", "x\U0001d11e,", "\ud800", "(été)", "東京。", "\ufeffbom", "a\nb", "the"]


def line(rng: random.Random) -> str:
    return " ".join(rng.choice(PIECES) for _ in range(rng.randint(0, 12)))


def inputs(n: int = 240):
    rng = random.Random(44)
    refs = [[line(rng) for _ in range(n)], [line(rng) if i % 4 else None for i in range(n)]]
    systems = {"A": [line(rng) for _ in range(n)], "B": [line(rng) for _ in range(n)]}
    source = [line(rng) for _ in range(n)]
    return refs, systems, source


@pytest.fixture
def small_blocks(monkeypatch):
    """Blocks of 1000 bytes: the texts are many blocks and a tail."""
    monkeypatch.setattr(parallel_gzip, "BLOCK", 1000)


def early_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == "truebleu-early-gzip"]


def page(rep, path) -> bytes:
    rep.save(path)
    return path.read_bytes()


@pytest.mark.parametrize("done", [0, 1, 7, None])
def test_a_head_partly_deflated_gives_the_stream_written_whole(done, small_blocks, deflater):
    """gzip_compress after a DeflatedHead (the first ``done`` blocks deflated, the rest of
    its whole blocks pending, a tail) is gzip_compress of all the bytes."""
    rng = random.Random(done)
    head_bytes = bytes(rng.randrange(97, 123) for _ in range(9500))
    rest = [bytes(rng.randrange(256) for _ in range(rng.randint(0, 1500))) for _ in range(5)]
    blocks = [head_bytes[at:at + 1000] for at in range(0, 9000, 1000)]
    done = len(blocks) if done is None else done
    deflated, history, crc = [], b"", 0
    for block in blocks[:done]:
        deflated.append(parallel_gzip.deflate_block(block, history))
        history, crc = block[-parallel_gzip.WINDOW:], zlib.crc32(block, crc)
    head = parallel_gzip.DeflatedHead(deflated=deflated, crc=crc, size=1000 * done,
                                      history=history, pending=blocks[done:],
                                      tail=head_bytes[9000:])
    for threads in (1, 2):
        out = parallel_gzip.gzip_compress(rest, threads=threads, head=head)
        assert out == parallel_gzip.gzip_compress([head_bytes, *rest], threads=threads)
        assert gzip.decompress(out) == head_bytes + b"".join(rest)


def test_the_page_is_the_same_with_its_texts_deflated_early(tmp_path, small_blocks, deflater):
    refs, systems, source = inputs()
    plain = page(report(refs, systems, source=source, n_samples=20), tmp_path / "plain.html")
    with texts_deflated_early():
        rep = report(refs, systems, source=source, n_samples=20)
    assert rep._early is not None and rep._early.written.placed  # (it did start)
    head = []
    take = rep._early.take
    rep._early.take = lambda columns: head.append(take(columns)) or head[0]
    assert page(rep, tmp_path / "early.html") == plain
    assert head[0] is not None and head[0].deflated  # (and was used)
    assert early_threads() == []


def test_without_the_command_no_texts_are_deflated_early():
    refs, systems, source = inputs(30)
    assert report(refs, systems, source=source, n_samples=20)._early is None


def test_texts_changed_after_the_report_are_written_anew(tmp_path, small_blocks):
    """The early blocks are used only for the very lists the payload holds: a report whose
    texts were replaced writes every column itself (and its page shows the new ones)."""
    refs, systems, source = inputs()
    with texts_deflated_early():
        rep = report(refs, systems, source=source, n_samples=20)
    changed = [text.upper() if text else text for text in rep.data.inputs.systems[1]]
    rep.data.inputs.systems[1] = changed
    want = report(refs, systems, source=source, n_samples=20)
    want.data.inputs.systems[1] = changed
    assert page(rep, tmp_path / "early.html") == page(want, tmp_path / "want.html")
    assert early_threads() == []


def test_a_failed_report_stops_its_early_thread(monkeypatch, small_blocks):
    from truebleu import viewer

    def fail(*args, **kwargs):
        raise RuntimeError("scoring failed")

    monkeypatch.setattr(viewer, "build_report_data", fail)
    refs, systems, source = inputs()
    with texts_deflated_early(), pytest.raises(RuntimeError, match="scoring failed"):
        report(refs, systems, source=source, n_samples=20)
    assert early_threads() == []
