"""The page written in pieces (page.page_pieces, what Report.save writes) is the page
made whole: the payload's base64 a piece at a time joins to its whole base64."""

from __future__ import annotations

import base64
import random

import pytest

from truebleu.viewer import page


@pytest.mark.parametrize("piece", [3, 6, 3 << 20])
def test_the_page_in_pieces_is_the_page_whole(piece, monkeypatch):
    monkeypatch.setattr(page, "_BASE64_PIECE", piece)
    payload = bytes(random.Random(piece).randrange(256) for _ in range(1000))
    text = page.render_page(payload, title="<t>", generator="g")
    encoded = base64.b64encode(payload).decode("ascii")
    assert f'id="truebleu-payload">{encoded}</script>' in text
    assert "{payload}" not in text and "{script}" not in text and "&lt;t&gt;" in text
    assert 'id="truebleu-payload"></script>' in page.render_page(payload, title="t", mode="serve")


def test_a_saved_report_is_its_html(tmp_path):
    pytest.importorskip("numpy")
    from truebleu.viewer import report

    rng = random.Random(3)
    words = "the a cat dog sat on mat , . Über naïve 𝄞 日本".split()
    line = lambda: " ".join(rng.choice(words) for _ in range(rng.randint(0, 12)))  # noqa: E731
    made = report([[line() for _ in range(60)]], {"A": [line() for _ in range(60)]}, n_samples=20)
    path = made.save(tmp_path / "page.html")
    assert path.read_bytes() == made.html().encode("utf-8")
