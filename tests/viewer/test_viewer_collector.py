"""The cyclic collector is held off while the page's data are made (viewer/collector.py):
its walks over a large report's millions of objects were most of that time."""

from __future__ import annotations

import gc

import pytest

pytest.importorskip("numpy")

from truebleu.viewer import report  # noqa: E402
from truebleu.viewer.collector import collector_paused  # noqa: E402


def collections_during(action) -> int:
    """How many automatic collections ``action()`` went through."""
    started = []
    callback = lambda phase, info: started.append(phase) if phase == "start" else None  # noqa: E731
    gc.callbacks.append(callback)
    try:
        action()
    finally:
        gc.callbacks.remove(callback)
    return len(started)


def test_the_payload_is_made_without_a_collection():
    # 3,000 segments whose tokens differ from their texts: a list of offsets each,
    # thousands of new containers (the collector's first generation runs every 700),
    # made by the payload where the tokens are Python's (the core's come with their column)
    lines = [f"word{k}, and more{k % 7}." for k in range(3000)]
    rep = report([lines], {"a": lines, "b": lines[::-1]}, n_samples=20, backend="python")
    assert gc.isenabled()
    assert collections_during(rep.data.payload) > 0  # (what the pause is for)
    assert collections_during(rep.payload_bytes) == 0
    assert gc.isenabled()


def test_the_pause_leaves_the_collector_as_it_was():
    with collector_paused():
        assert not gc.isenabled()
    assert gc.isenabled()
    gc.disable()
    try:
        with collector_paused():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()
    with pytest.raises(KeyError), collector_paused():
        raise KeyError("x")
    assert gc.isenabled()


def test_the_report_command_builds_and_saves_with_the_collector_off(tmp_path, monkeypatch):
    from truebleu.cli import viewer as cli
    from truebleu.viewer import Report

    seen = []

    def spied(function):
        def call(*args, **kwargs):
            seen.append((function.__name__, gc.isenabled()))
            return function(*args, **kwargs)
        return call

    monkeypatch.setattr(cli, "build_report", spied(cli.build_report))
    monkeypatch.setattr(Report, "save", spied(Report.save))
    lines = [f"word{k}, and more{k % 7}." for k in range(300)]
    for name, text in (("ref", lines), ("a", lines), ("b", lines[::-1])):
        (tmp_path / name).write_text("\n".join(text) + "\n", encoding="utf-8")
    args = ["report", str(tmp_path / "ref"), "-i", str(tmp_path / "a"), str(tmp_path / "b"),
            "-o", str(tmp_path / "r.html"), "--n-samples", "20", "--quiet"]
    assert cli.main(args) == 0
    assert seen == [("build_report", False), ("save", False)]
    assert gc.isenabled() and (tmp_path / "r.html").stat().st_size > 0
