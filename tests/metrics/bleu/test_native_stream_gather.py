"""BLEU's reference streams gathered in one pass (bleu/segments.c tb_gather_streams): the
strings read in place, borrowed from the tuples the call holds, and the hypotheses from
theirs (runtime/gather.h TB_GATHER_BORROWED). Whatever the caller's lists do meanwhile,
the rows are the specification's; a fault is reported as the count pass once did: a
segment without any reference first, wherever it lies."""

from __future__ import annotations

import pytest

pytest.importorskip("truebleu._native_core", reason="compiled core not built")

from truebleu.metrics.bleu.kernels import PythonKernel  # noqa: E402
from truebleu.metrics.bleu.native import NativeKernel  # noqa: E402
from truebleu.tokenizers import get_tokenizer  # noqa: E402

NATIVE, PYTHON = NativeKernel(), PythonKernel()
TOK = get_tokenizer("13a")


class Clearing(str):
    """A str whose lower() empties the lists in its ``victims`` (Python code run while
    the core gathers: a list read in place would lose its strings)."""

    victims: list[list] = []

    def lower(self) -> str:  # type: ignore[override]
        for victim in self.victims:
            victim.clear()
        return str.lower(self)


def clearing(text: str, victims: list[list]) -> Clearing:
    c = Clearing(text)
    c.victims = victims
    return c


def fresh(text: str) -> str:
    """An equal str that only its list holds (no interned or shared copy)."""
    return "".join(list(text))


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("lowercase", [False, True])
def test_strings_only_the_callers_lists_hold(threads, lowercase):
    lines = ["The Cat sat on the mat .", "Ünïcode ÉTÉ — und so weiter.", "", "a b c", "Straße 𝒜𝒷𝒸 ."]
    hyps = [fresh(lines[(k * 2) % 5]) for k in range(40)]
    streams = [[fresh(lines[k % 5]) for k in range(40)], [fresh(lines[(k + 1) % 5]) if k % 3 else None
                                                          for k in range(40)]]
    refs = [[s[k] for s in streams if s[k] is not None] for k in range(40)]
    want = PYTHON.sentence_statistics(hyps, refs, TOK, lowercase, 4)
    got, _ = NATIVE.stream_statistics(hyps, streams, TOK, lowercase, 4, threads=threads)
    assert got == want


@pytest.mark.parametrize("threads", [1, 2])
def test_lists_emptied_while_gathering(threads):
    """str.lower() of a subclass empties the hypotheses' and the streams' lists while
    the core gathers them: it reads the tuples it copied them into, never the lists."""
    plain_a = [f"Ünïcode line number {k}" for k in range(30)]
    plain_b = [f"ÉTÉ {k}" for k in range(30)]
    plain_h = [f"ünïcode line {k % 7}" for k in range(30)]
    want = PYTHON.sentence_statistics(plain_h, [[a, b] for a, b in zip(plain_a, plain_b)], TOK, True, 4)
    refs_a = [fresh(x) for x in plain_a]
    refs_b: list = []
    hyps: list = []
    refs_b += [clearing(fresh(x), [refs_a]) for x in plain_b]  # emptied while streams gather
    hyps += [clearing(fresh(x), [refs_a, refs_b, hyps]) for x in plain_h]  # ... hypotheses gather
    got, _ = NATIVE.stream_statistics(hyps, [refs_a, refs_b], TOK, True, 4, threads=threads)
    assert got == want
    assert not refs_a and not refs_b and not hyps  # (the lists were emptied)


def test_a_segment_without_references_is_the_error_reported():
    from truebleu._native_core import stream_statistics

    def call(streams):
        return stream_statistics(["x"] * len(streams[0]), streams, 0, False, 4, 1, None, None)

    with pytest.raises(ValueError, match="segment 2 has no reference"):  # after a bad string
        call([["x", 3, None], ["x", "y", None]])
    with pytest.raises(ValueError, match="segment 1 has no reference"):  # before one
        call([["x", None, 3], ["x", None, "y"]])
    with pytest.raises(TypeError, match=r"references\[1\]\[1\] must be a string or None, got int"):
        call([["x", "y", "z"], ["x", 3, None]])
    with pytest.raises(ValueError, match="segment 0 has no reference"):
        call([[None]])
