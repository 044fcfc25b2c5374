"""mteval-v13a.pl and mteval-v14.pl (NIST): BLEU and the NIST score.

How a line reaches the scorer, reproduced step by step:

1. the plain line is written into an SGML ``<seg>`` with ``&``, ``<`` and ``>``
   escaped (see ``../shared/golden/README.md``);
2. mteval squeezes every run of Perl whitespace in the document to one space;
3. its tokenizer strips ``<skipped>`` (never present: ``<`` was escaped, so a
   literal ``<skipped>`` survives, unlike in sacreBLEU), un-escapes
   ``&quot; &amp; &lt; &gt;`` (a literal ``&lt;`` in the text therefore becomes
   ``<``), lowercases ASCII letters only (``tr/[A-Z]/[a-z]/``) unless ``-c``, and
   applies the v13a punctuation rules; ``--international-tokenization`` uses the
   Unicode rules instead (with Perl ``lc``, which lowercases every letter).

Scoring follows the script: n-gram counts are never clipped per order but per
n-gram; the reference length is the closest (ties to the shorter) or the
shortest; an order with no hypothesis n-grams counts as precision 1 (log 0 added);
an order with no matches gets the "exp" smoothing 1/(2^k * total); BLEU is a
fraction, not a percentage. NIST uses information weights estimated on all
references of the corpus, with Perl's quirk that a one-token context spelled
``0`` is false and so counts as "no context" (the total word count is used).
"""

from __future__ import annotations

import math
from functools import lru_cache
from itertools import chain
from typing import Callable, Optional, Sequence

from ..core.kernels import backend_name
from ..metrics.bleu.spec import max_reference_counts, ngram_counts
from ._base import Dialect, DialectScore, check_bool, references_key
from ._perl import ngram_counts_many, tokenize_intl_perl
from .core_counts import LINE_END, tokenize_13a_perl_core
from .mteval_core import Core13aNumbering, CoreReferences, TokenNumbering, joined_13a_tokens, sgml_escape

BLEU_ORDER = 4
NIST_ORDER = 5
BREVITY_RULES = ("closest", "shortest")


#: :func:`~.mteval_core.sgml_escape` of one line, cached (for the per-line tokenizer)
sgml_text = lru_cache(maxsize=2**17)(sgml_escape)


def _closest(current: int, ref_len: int, hyp_len: int) -> int:
    # brevity_penalty_closest: strictly closer wins; at equal distance the shorter
    if abs(hyp_len - ref_len) < abs(hyp_len - current):
        return ref_len
    if abs(hyp_len - ref_len) == abs(hyp_len - current) and current > ref_len:
        return ref_len
    return current


def _shortest(current: int, ref_len: int, hyp_len: int) -> int:
    return ref_len if ref_len < current else current


def nist_length_penalty(ratio: float) -> float:
    """NIST's brevity factor: 0.5 at a length ratio of 2/3, 1 from ratio 1 on."""
    if ratio >= 1:
        return 1
    if ratio <= 0:
        return 0
    beta = -math.log(0.5) / math.log(1.5) / math.log(1.5)
    return math.exp(-beta * math.log(ratio) * math.log(ratio))


def bleu_from_counts(ref_length: int, matches: Sequence[int], totals: Sequence[int]
                     ) -> tuple[float, list[float], float]:
    """mteval's ``bleu_score``: (BLEU, individual precisions, brevity penalty).

    ``matches[n-1]``/``totals[n-1]`` for n = 1..4.
    """
    exp_len_score = 0.0
    if totals[0] > 0:
        exp_len_score = math.exp(min(0, 1 - ref_length / totals[0]))
    smooth = 1
    score = 0.0
    cumulative = 0.0
    precisions = []
    for j in range(1, BLEU_ORDER + 1):
        if totals[j - 1] == 0:
            iscore = 0.0
        elif matches[j - 1] == 0:
            smooth *= 2
            iscore = math.log(1 / (smooth * totals[j - 1]))
        else:
            iscore = math.log(matches[j - 1] / totals[j - 1])
        precisions.append(math.exp(iscore))
        score += iscore
        cumulative = math.exp(score / j) * exp_len_score
    return cumulative, precisions, exp_len_score


def nist_from_counts(nrefs: int, info: Sequence[float], totals: Sequence[int],
                     ref_words: int) -> float:
    """mteval's ``nist_score`` (5-gram cumulative): information per order, length factor."""
    if ref_words == 0:
        return math.nan  # the script dies here: "Illegal division by zero"
    score = 0.0
    penalty = nist_length_penalty(totals[0] / (ref_words / nrefs))
    for n in range(NIST_ORDER):
        score += info[n] / max(totals[n], 1)
    return score * penalty


class _PreparedReferences:
    """Reference tokens of a corpus, with the n-gram information weights."""

    __slots__ = ("segments", "info", "nrefs")

    def __init__(self, segments, info, nrefs):
        self.segments = segments  # per segment: (lengths, clip counts, unigram total)
        self.info = info
        self.nrefs = nrefs


class MtevalDialect(Dialect):
    """mteval-v13a.pl / mteval-v14.pl, run on SGML made from plain lines.

    ``lowercase`` (default True) is the script's default; ``lowercase=False`` is ``-c``.
    """

    def __init__(self, version: str = "v13a", lowercase: bool = True,
                 brevity_penalty: str = "closest", international_tokenization: bool = False,
                 nist: bool = True) -> None:
        super().__init__()
        if version not in ("v13a", "v14"):
            raise ValueError(f"mteval version must be 'v13a' or 'v14', got {version!r}")
        if brevity_penalty not in BREVITY_RULES:
            raise ValueError(
                f"brevity_penalty must be 'closest' or 'shortest', got {brevity_penalty!r}")
        self.name = f"mteval-{version}"
        self.version = version
        self.lowercase = check_bool(lowercase, "lowercase")
        self.brevity_penalty = brevity_penalty
        self.international_tokenization = check_bool(
            international_tokenization, "international_tokenization")
        self.compute_nist = check_bool(nist, "nist")
        self._rule: Callable[[int, int, int], int] = (
            _closest if brevity_penalty == "closest" else _shortest)

    def _options(self):
        return [("case", "lc" if self.lowercase else "mixed"),
                ("tok", "intl" if self.international_tokenization else "13a"),
                ("bp", self.brevity_penalty)]

    def tokenize(self, line: str) -> tuple[str, ...]:
        """Tokens of one plain-text line, as this mteval configuration sees them."""
        text = sgml_text(line)
        if self.international_tokenization:
            return tokenize_intl_perl(text, self.lowercase)
        return tokenize_13a_perl_core(text, self.lowercase)

    def _prepare(self, refs: list[list[str]]) -> _PreparedReferences:
        key = ("mteval", self.lowercase, self.international_tokenization, references_key(refs))
        return self._prepared.get(key, lambda: self._build(refs))

    def _build(self, refs: list[list[str]]) -> _PreparedReferences:
        tokenized = [[self.tokenize(ref) for ref in seg_refs] for seg_refs in refs]
        counts = ngram_counts_many(
            (tokens for seg in tokenized for tokens in seg), NIST_ORDER)
        total_words = 0
        segments = []
        for seg_tokens in tokenized:
            lengths = [len(tokens) for tokens in seg_tokens]
            total_words += sum(lengths)
            clip = max_reference_counts(seg_tokens, NIST_ORDER)
            segments.append((lengths, clip, sum(lengths)))
        log2 = math.log(2)
        info = {}
        for ngram, count in counts.items():
            context = ngram[:-1]
            # Perl: `$mgram ? ... : ...` -- the context string "0" is false
            if not context or context == ("0",):
                info[ngram] = -math.log(count / total_words) / log2
            else:
                info[ngram] = -math.log(count / counts[context]) / log2
        return _PreparedReferences(segments, info, len(refs[0]) if refs else 0)

    def counts(self, hypotheses: list[str], refs: list[list[str]]) -> tuple:
        """The corpus sums: from the core (:mod:`.mteval_core`) where it is built, else
        :meth:`python_counts`, the specification, which the tests compare it with."""
        if hypotheses and backend_name() == "native":
            prepared = self._prepared.get(
                ("mteval-core", self.lowercase, self.international_tokenization,
                 references_key(refs)), lambda: self._core_references(refs))
            sums = prepared.sums(hypotheses) if prepared is not None else None
            if sums is not None:
                return sums
        return self.python_counts(hypotheses, refs)

    def _core_references(self, refs: list[list[str]]) -> Optional[CoreReferences]:
        """The references in the core: 13a's token ids from the core itself where it takes
        every line, else numbered from :meth:`flat_tokens`; None when neither takes them."""
        order = max(BLEU_ORDER, NIST_ORDER)
        if not self.international_tokenization:
            prepared = CoreReferences.build(Core13aNumbering(self.lowercase), refs, order)
            if prepared is not None:
                return prepared
        return CoreReferences.build(TokenNumbering(self.flat_tokens), refs, order)

    def flat_tokens(self, lines: list[str]) -> list[str]:
        """Every line's tokens (:meth:`tokenize`), each line's followed by a ``LINE_END``
        token (no line may hold it), for :class:`~.mteval_core.TokenNumbering`."""
        if not self.international_tokenization:
            return joined_13a_tokens(lines, self.lowercase)
        return list(chain.from_iterable(chain(self.tokenize(line), (LINE_END,)) for line in lines))

    def python_counts(self, hypotheses: list[str], refs: list[list[str]]) -> tuple:
        """The corpus sums, segment by segment (the specification of NIST's sums).

        A segment's information is the exact sum of its matched n-grams'
        ``info * matched`` (``math.fsum``, rounded once), so the order in which the
        n-grams are visited (a set's, which follows the string hash seed) cannot
        change a bit; the segments' sums are then added in segment order. mteval
        itself adds in Perl's hash order, so it matches these sums to rounding only.
        """
        prepared = self._prepare(refs)
        info = prepared.info
        order = max(BLEU_ORDER, NIST_ORDER)
        matches = [0] * order
        totals = [0] * order
        info_sums = [0.0] * order
        lengths_by_segment = []
        ref_words = 0
        for hyp, (lengths, clip, seg_ref_words) in zip(hypotheses, prepared.segments):
            tokens = self.tokenize(hyp)
            size = len(tokens)
            counts = ngram_counts(tokens, order)
            terms: list[list[float]] = [[] for _ in range(order)]
            for ngram in counts.keys() & clip.keys():
                n = len(ngram) - 1
                matched = min(counts[ngram], clip[ngram])
                terms[n].append(info[ngram] * matched)
                matches[n] += matched
            for n in range(order):
                if size > n:
                    totals[n] += size - n
                info_sums[n] += math.fsum(terms[n])
            lengths_by_segment.append((size, lengths))
            ref_words += seg_ref_words
        return matches, totals, info_sums, lengths_by_segment, ref_words, prepared.nrefs

    def _corpus(self, hypotheses, refs):
        # (not cached per hypotheses: a key of their text would cost more than the core's
        # sums, hashing every line of each new system)
        matches, totals, info_sums, lengths_by_segment, ref_words, nrefs = \
            self.counts(hypotheses, refs)
        if nrefs == 1:  # (the rule has one length to choose from in each segment)
            ref_length = ref_words
        else:
            ref_length = 0
            for size, lengths in lengths_by_segment:
                if lengths:
                    best = lengths[0]
                    for length in lengths[1:]:
                        best = self._rule(best, length, size)
                    ref_length += best
        bleu, precisions, bp = bleu_from_counts(ref_length, matches, totals)
        nist = (nist_from_counts(nrefs, info_sums, totals, ref_words)
                if self.compute_nist else None)
        return DialectScore(
            dialect=self.name, score=bleu, bleu=100 * bleu, precisions=precisions, bp=bp,
            sys_len=totals[0], ref_len=ref_length, counts=matches[:BLEU_ORDER],
            totals=totals[:BLEU_ORDER], nist=nist)


def nist(hypotheses: Sequence[str], references: Sequence[Sequence[str]], *,
         version: str = "v13a", lowercase: bool = True, brevity_penalty: str = "closest",
         international_tokenization: bool = False) -> float:
    """mteval's NIST score of a corpus (``references``: list of reference streams)."""
    dialect = MtevalDialect(version, lowercase=lowercase, brevity_penalty=brevity_penalty,
                            international_tokenization=international_tokenization)
    score = dialect.corpus_score(hypotheses, references).nist
    assert score is not None  # computed: the dialect's nist=True
    return score
