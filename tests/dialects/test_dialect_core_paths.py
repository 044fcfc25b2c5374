"""The dialects' counts from the compiled core equal their Python specification.

multi-bleu, tf-nmt, NLTK and torchmetrics take their clipped n-gram counts from
the core (``dialects/core_counts.py``) where its tokens are provably theirs, and keep
their own arithmetic. Each dialect's ``counts`` (or ``statistics``) must equal its
``python_counts`` (``torchmetrics_statistics``), and the scores must equal those
of the Python path, on generated text full of what tells the tokenizers apart
(Unicode-only whitespace, the escape character the core path uses, trailing
newlines, entities, ``<skipped>``, numbers and punctuation) and on WMT21 with all
references. The oracles themselves (NLTK, torchmetrics, the golden figures)
are checked in the other modules of this folder, on the same code paths.
"""

from __future__ import annotations

import os
import warnings
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import shared_dir  # noqa: E402
from truebleu.dialects import get_dialect
from truebleu.dialects.torchmetrics_bleu import torchmetrics_statistics

WMT21 = shared_dir() / "data" / "wmt21"
needs_wmt21 = pytest.mark.skipif(not (WMT21 / "references").is_dir(),
                                 reason=f"WMT21 data not found at {WMT21} (set TRUEBLEU_SHARED)")

PIECES = ["the", "The", "cat", "CAT", "sat", "a", ".", ",", "1.5", "3,000", "-", "2-3",
          "&quot;", "&amp;", "&QUOT;", "<skipped>", "İ", "Σ", "über", "猫", "z.B.", "0",
          "\ue000", "\ue001", "\ue000\ue001", "x\u00a0y"]
SPACES = [" ", " ", " ", "  ", "\t", "\u00a0", "\x1c", "\x1f", "\x85", "\u2028", "\u3000",
          "\u200a", "\n", "-\n", ""]
# TRUEBLEU_DIALECT_EXAMPLES raises it for a long differential run (20,000 inputs and more)
MAX_EXAMPLES = int(os.environ.get("TRUEBLEU_DIALECT_EXAMPLES", "150"))
SETTINGS = settings(max_examples=MAX_EXAMPLES, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


@st.composite
def line(draw) -> str:
    pieces = draw(st.lists(st.sampled_from(PIECES), max_size=9))
    text = "".join(piece + draw(st.sampled_from(SPACES)) for piece in pieces)
    return draw(st.sampled_from(["", " ", "\n", "-\n", "\u00a0"])) + text


@st.composite
def corpus(draw) -> tuple[list[str], list[list[str]]]:
    """Hypotheses and per-segment references (the dialects' internal layout)."""
    size = draw(st.integers(1, 5))
    nrefs = draw(st.integers(1, 3))
    hyps = draw(st.lists(line(), min_size=size, max_size=size))
    refs = [draw(st.lists(line(), min_size=nrefs, max_size=nrefs)) for _ in range(size)]
    return hyps, refs


def streams(refs: list[list[str]]) -> list[list[str]]:
    return [list(stream) for stream in zip(*refs)]


def same_scores(dialect, python_dialect, hyps, refs) -> None:
    """The public score of the core path equals the one of the Python path, field by field;
    where the tool fails (ToolError; NLTK's own exceptions), both paths fail alike."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            ours = dialect.corpus_score(hyps, streams(refs))
        except (ValueError, ZeroDivisionError, IndexError) as exc:
            with pytest.raises(type(exc)):
                python_dialect.corpus_score(hyps, streams(refs))
            return
        spec = python_dialect.corpus_score(hyps, streams(refs))
    assert ours == spec


class PythonOnly:
    """Forces a dialect object's counts onto its Python specification."""

    def __init__(self, dialect, method: str = "counts", spec: str = "python_counts") -> None:
        setattr(dialect, method, getattr(dialect, spec))
        self.dialect = dialect

    def corpus_score(self, hyps, references):
        return self.dialect.corpus_score(hyps, references)


@SETTINGS
@given(corpus(), st.booleans())
def test_multi_bleu_core_counts_are_the_scripts(data, lowercase):
    hyps, refs = data
    dialect = get_dialect("multi-bleu", lowercase=lowercase)
    assert dialect.counts(hyps, refs) == dialect.python_counts(hyps, refs)
    same_scores(dialect, PythonOnly(get_dialect("multi-bleu", lowercase=lowercase)), hyps, refs)


@SETTINGS
@given(corpus(), st.sampled_from(["13a", "whitespace", "intl", "char", "zh"]),
       st.integers(1, 5), st.booleans())
def test_tf_nmt_core_counts_are_tf_nmts(data, tokenize, max_order, smooth):
    hyps, refs = data
    dialect = get_dialect("tf-nmt", tokenize=tokenize, max_order=max_order, smooth=smooth)
    assert dialect.counts(hyps, refs) == dialect.python_counts(hyps, refs)


@SETTINGS
@given(corpus(), st.sampled_from(["whitespace", "13a", "intl"]), st.integers(1, 6),
       st.sampled_from([f"method{i}" for i in range(8)]))
def test_nltk_core_counts_are_nltks(data, tokenize, order, smoothing):
    hyps, refs = data
    weights = (1 / order,) * order
    dialect = get_dialect("nltk", tokenize=tokenize, weights=weights, smoothing=smoothing)
    assert dialect.counts(hyps, refs) == dialect.python_counts(hyps, refs)
    python = PythonOnly(get_dialect("nltk", tokenize=tokenize, weights=weights,
                                    smoothing=smoothing))
    same_scores(dialect, python, hyps, refs)


@SETTINGS
@given(corpus(), st.sampled_from([None, "13a", "intl", "char"]), st.booleans(),
       st.integers(1, 5))
def test_torchmetrics_core_statistics_are_torchmetrics(data, tokenize, lowercase, n_gram):
    hyps, refs = data
    dialect = get_dialect("torchmetrics", tokenize=tokenize, lowercase=lowercase, n_gram=n_gram)
    assert dialect.statistics(hyps, refs) == torchmetrics_statistics(
        hyps, refs, n_gram, dialect.tokens)


def test_torchmetrics_ties_go_to_the_first_reference_on_the_core_path():
    # lengths 4 and 2 for a hypothesis of 3: torchmetrics takes the first (4), sacreBLEU 2
    dialect = get_dialect("torchmetrics")
    hyps, refs = ["a b c"], [["a b c d", "a b"]]
    assert dialect.statistics(hyps, refs)[1] == 4.0
    assert dialect.statistics(["a b c"], [["a b", "a b c d"]])[1] == 2.0


def test_multi_bleu_keeps_non_breaking_spaces_inside_tokens():
    # multi-bleu.perl reads bytes: U+00A0 is not whitespace to it; one token "z.\xa0B." here
    dialect = get_dialect("multi-bleu")
    correct, total, hyp_len, ref_len = dialect.counts(["z.\u00a0B. ok"], [["z. B. ok"]])
    assert (hyp_len, ref_len, correct[0]) == (2, 3, 1)


def _lines(path: Path) -> list[str]:
    lines = path.read_text(encoding="utf-8").split("\n")
    return lines[:-1] if lines and lines[-1] == "" else lines


@needs_wmt21
@pytest.mark.parametrize("name, options", [
    ("multi-bleu", {}), ("multi-bleu", {"lowercase": True}), ("tf-nmt", {}),
    ("tf-nmt", {"tokenize": "whitespace"}), ("nltk", {}), ("nltk", {"smoothing": "method5"}),
    ("torchmetrics", {}), ("torchmetrics", {"tokenize": "13a"}),
    ("mteval-v13a", {}), ("mteval-v14", {"lowercase": False}),
    ("mteval-v13a", {"international_tokenization": True}),
])
def test_wmt21_core_counts_equal_the_specification(name, options):
    refs_paths = sorted((WMT21 / "references").glob("newstest2021.en-de.ref.*.de"))
    hyp_path = sorted((WMT21 / "system-outputs").glob("newstest2021.en-de.hyp.*.de"))[0]
    hyps = _lines(hyp_path)
    refs = [list(seg) for seg in zip(*(_lines(path) for path in refs_paths))]
    dialect = get_dialect(name, **options)
    if name == "torchmetrics":
        assert dialect.statistics(hyps, refs) == torchmetrics_statistics(
            hyps, refs, dialect.n_gram, dialect.tokens)
    elif name.startswith("mteval"):
        assert repr(dialect.counts(hyps, refs)) == repr(dialect.python_counts(hyps, refs))
    else:
        assert dialect.counts(hyps, refs) == dialect.python_counts(hyps, refs)


@settings(max_examples=4 * MAX_EXAMPLES, deadline=None)
@given(line(), st.booleans())
def test_mteval_13a_tokens_from_the_core_are_perls(text, lowercase):
    from truebleu.dialects._perl import tokenize_13a_perl
    from truebleu.dialects.core_counts import tokenize_13a_perl_core
    from truebleu.dialects.mteval import sgml_text

    for variant in (text, sgml_text(text), text.upper()):
        assert tokenize_13a_perl_core(variant, lowercase) == tokenize_13a_perl(variant, lowercase)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from("aZ\u0130\u212a\u00c9 .\x1c"), max_size=12))
def test_ascii_lower_touches_ascii_letters_only(text):
    from truebleu.dialects._perl import ascii_lower

    assert ascii_lower(text) == "".join(chr(ord(c) + 32) if "A" <= c <= "Z" else c for c in text)


# mteval: the core path (dialects/mteval_core.py) against python_counts, bit for bit. Its
# own pieces: the core path's line separator, the "0" context, entities of every kind.
MTEVAL_PIECES = [*PIECES, "\x00", "0", "&lt;", "&gt;", "&amp;quot;", "&amp;amp;", "<", ">", "&"]


@st.composite
def mteval_corpus(draw) -> tuple[list[str], list[list[str]]]:
    """Hypotheses made of their references' words (many matched n-grams per segment, so
    that NIST's sums have many terms) or drawn freely, 1-3 references per segment."""
    size = draw(st.integers(1, 5))
    nrefs = draw(st.integers(1, 3))
    words = st.lists(st.sampled_from(MTEVAL_PIECES), max_size=14)
    separator = st.sampled_from([" ", " ", " ", "  ", "\t", "\u00a0", "\x1c", "\u3000", "\n"])
    hyps, refs = [], []
    for _ in range(size):
        seg = [draw(words) for _ in range(nrefs)]
        refs.append([draw(separator).join(ref) for ref in seg])
        if draw(st.booleans()):
            hyp = draw(st.permutations(seg[0] * 2))[:draw(st.integers(0, 2 * len(seg[0])))]
        else:
            hyp = draw(words)
        hyps.append(" ".join(hyp))
    return hyps, refs


@SETTINGS
@given(mteval_corpus(), st.booleans(), st.booleans())
def test_mteval_core_counts_are_the_specifications(data, lowercase, international):
    hyps, refs = data
    dialect = get_dialect("mteval-v13a", lowercase=lowercase,
                          international_tokenization=international)
    assert repr(dialect.counts(hyps, refs)) == repr(dialect.python_counts(hyps, refs))
    assert repr(dialect.counts(hyps[::-1], refs[::-1])) == repr(
        dialect.python_counts(hyps[::-1], refs[::-1]))  # a second system, prepared references


def test_mteval_core_path_is_taken():
    from truebleu.dialects import mteval_core

    dialect = get_dialect("mteval-v13a")
    hyps, refs = ["a b c 0 d", "x"], [["a b c 0 d e"], ["y x"]]
    dialect.counts(hyps, refs)
    prepared = [value for value in dialect._prepared._items.values()
                if isinstance(value, mteval_core.CoreReferences)]
    assert len(prepared) == 1 and prepared[0].ref_words == 8


@settings(max_examples=2 * MAX_EXAMPLES, deadline=None)
@given(st.lists(line(), max_size=6), st.booleans())
def test_mteval_13a_tokens_of_many_lines_are_each_lines(lines, lowercase):
    """One core call for many lines (mteval's SGML text, lines that go to Python among them)
    gives each line's tokens, each line's followed by LINE_END."""
    from truebleu.dialects._perl import tokenize_13a_perl
    from truebleu.dialects.core_counts import LINE_END, tokenize_13a_perl_lines
    from truebleu.dialects.mteval import sgml_text

    texts = [sgml_text(text) for text in lines if LINE_END not in text]
    expected = [token for text in texts for token in (*tokenize_13a_perl(text, lowercase), LINE_END)]
    assert tokenize_13a_perl_lines(texts, lowercase) == expected


@settings(max_examples=4 * MAX_EXAMPLES, deadline=None)
@given(st.text(alphabet=st.sampled_from("&;quotamplgt<skiped>\x1c\x1d\x1e\x1f x0"), max_size=30)
       | line())
def test_core_13a_pre_check_never_hides_a_line_for_python(text):
    """The substring pre-check that spares mteval the regular expression says "may
    differ" whenever the expression finds a line the core must not tokenize (else that
    line would get the core's tokens, not Perl's)."""
    from truebleu.dialects.core_counts import _NOT_FOR_CORE_13A, core_13a_may_differ

    if _NOT_FOR_CORE_13A.search(text):
        assert core_13a_may_differ(text)


@settings(max_examples=max(20, MAX_EXAMPLES // 5), deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.lists(mteval_corpus(), min_size=20, max_size=60), st.booleans())
def test_mteval_core_sums_are_the_same_on_any_number_of_threads(parts, international):
    """The core gathers the references' clip counts and counts a system's segments in the
    runtime's pool, each segment into a place of its own (the rows added in segment order):
    with the references and the hypotheses on 1, 2, 3 or 7 threads (a corpus of 20 to 300
    segments: several chunks per thread) the sums are python_counts' bit for bit."""
    from truebleu.dialects import mteval, mteval_core

    hyps = [hyp for part_hyps, _ in parts for hyp in part_hyps]
    refs = [ref[:1] for _, part_refs in parts for ref in part_refs]  # one reference each
    dialect = get_dialect("mteval-v13a", international_tokenization=international)
    dialect.counts(hyps, refs)
    prepared = [value for value in dialect._prepared._items.values()
                if isinstance(value, mteval_core.CoreReferences)]
    if not prepared:  # (every line refused by the core: nothing threaded to compare)
        return
    if prepared[0].sums(hyps, 1) is None:  # (a hypothesis the core refuses: python_counts then)
        assert all(prepared[0].sums(hyps, threads) is None for threads in (2, 3, 7))
        return
    expected = repr(dialect.python_counts(hyps, refs))
    for threads in (1, 2, 3, 7):
        assert repr(prepared[0].sums(hyps, threads)) == expected
    numbering, order = prepared[0]._numbering, max(mteval.BLEU_ORDER, mteval.NIST_ORDER)
    for threads in (1, 2, 3, 7):
        references = mteval_core.CoreReferences.build(numbering, refs, order, threads)
        assert references is not None
        assert repr(references.sums(hyps, 1)) == expected
    with pytest.raises(ValueError, match="threads"):
        mteval_core.CoreReferences.build(numbering, refs, order, 0)
