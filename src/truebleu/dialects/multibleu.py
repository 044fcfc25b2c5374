"""Moses ``multi-bleu.perl`` and ``multi-bleu-detok.perl``.

``multi-bleu.perl`` reads bytes: tokens are runs of non-(ASCII-)whitespace of the
line as given (no tokenizer: the user was supposed to tokenize), and ``-lc``
lowercases ASCII letters only. ``multi-bleu-detok.perl`` decodes UTF-8, applies
mteval-v13a's tokenizer (case-sensitive, no SGML step) and lowercases with
Perl's ``lc`` -- the hypothesis before tokenizing, the references after (so an
upper-case entity such as ``&QUOT;`` is un-escaped only in the hypothesis).

Both: closest reference length, ties to the shorter; the score is printed as a
percentage; an order without matches contributes ``log = -9999999999`` (score
0); an empty reference corpus prints ``BLEU = 0``; an empty hypothesis corpus
with a non-empty reference makes Perl die (division by zero).
"""

from __future__ import annotations

import math

from ..metrics.bleu.spec import max_reference_counts, ngram_counts
from ._base import Dialect, DialectScore, Segments, ToolError, check_bool, references_key
from ._perl import ascii_lower, perl_lc, split_bytes_awk, split_perl
from .core_counts import core_rows, flat_lines, hide_unicode_only_spaces, tokenize_13a_perl_core

ORDER = 4
_NO_LENGTH = 9999  # the script's initial "closest" distance and length


def _my_log(value: float) -> float:
    return math.log(value) if value else -9999999999


class MultiBleuDialect(Dialect):
    """``multi-bleu.perl [-lc]`` (``detok=False``) or ``multi-bleu-detok.perl [-lc]``."""

    def __init__(self, lowercase: bool = False, detok: bool = False) -> None:
        super().__init__()
        self.lowercase = check_bool(lowercase, "lowercase")
        self.detok = check_bool(detok, "detok")
        self.name = "multi-bleu-detok" if detok else "multi-bleu"

    def _options(self):
        return [("case", "lc" if self.lowercase else "mixed"),
                ("tok", "13a-perl" if self.detok else "none")]

    def tokenize_hypothesis(self, line: str) -> tuple[str, ...]:
        if self.detok:
            if self.lowercase:
                line = perl_lc(line)
            return tokenize_13a_perl_core(line, lowercase=False)
        if self.lowercase:
            line = ascii_lower(line)
        return tuple(split_bytes_awk(line))

    def tokenize_reference(self, line: str) -> tuple[str, ...]:
        if self.detok:
            text = " ".join(tokenize_13a_perl_core(line, lowercase=False))
            if self.lowercase:
                text = perl_lc(text)
            return tuple(split_perl(text))
        if self.lowercase:
            line = ascii_lower(line)
        return tuple(split_bytes_awk(line))

    def _prepare(self, refs):
        key = (self.name, self.lowercase, references_key(refs))
        return self._prepared.get(key, lambda: self._build(refs))

    def _build(self, refs):
        prepared = []
        for seg_refs in refs:
            token_lists = [self.tokenize_reference(ref) for ref in seg_refs]
            clip = max_reference_counts(token_lists, ORDER)
            prepared.append(([len(tokens) for tokens in token_lists], clip))
        return prepared

    def _corpus(self, hypotheses, refs):
        correct, total, hyp_len, ref_len = self.counts(hypotheses, refs)
        precisions = [correct[n] / total[n] if total[n] else 0 for n in range(ORDER)]
        if ref_len == 0:
            # the script prints "BLEU = 0, 0/0/0/0 (BP=0, ...)" and exits with status 1
            return DialectScore(self.name, 0.0, 0.0, [0.0] * ORDER, 0.0, hyp_len, 0,
                                correct, total)
        bp: float = 1
        if hyp_len < ref_len:
            if hyp_len == 0:
                raise ToolError(f"{self.name}.perl dies on this input: Illegal division by "
                                "zero (empty hypotheses, non-empty references)")
            bp = math.exp(1 - ref_len / hyp_len)
        bleu = bp * math.exp((_my_log(precisions[0]) + _my_log(precisions[1])
                              + _my_log(precisions[2]) + _my_log(precisions[3])) / 4)
        return DialectScore(
            dialect=self.name, score=100 * bleu, bleu=100 * bleu,
            precisions=[100 * p for p in precisions], bp=float(bp), sys_len=hyp_len,
            ref_len=ref_len, counts=correct, totals=total)

    def counts(self, hypotheses: list[str], refs: list[list[str]]) -> tuple:
        """``(correct, total, hyp_len, ref_len)``: from the core where its tokens are the
        script's, else :meth:`python_counts`.

        multi-bleu.perl's tokens are runs of non-ASCII-whitespace, the core's ``none``
        splits on Python's whitespace: the few characters only Python takes for
        whitespace are hidden from it first (:class:`~.core_counts.SpaceHider`). ``-lc``
        lowercases ASCII letters only, here before the core sees the line. The script's closest
        reference starts from a distance of 9999: only when no reference comes closer
        does it differ from sacreBLEU's closest, and then the Python path decides.
        """
        if self.detok or not hypotheses:
            return self.python_counts(hypotheses, refs)
        def as_core_reads(lines: list[str]) -> list[str]:
            return hide_unicode_only_spaces(
                [ascii_lower(line) for line in lines] if self.lowercase else lines)
        def references_as_core_reads() -> tuple[Segments, int]:
            """The references as the core reads them, and their longest line's length."""
            width = len(refs[0])  # (corpus_score gives every segment the same number)
            lines = flat_lines(refs)
            flat = iter(as_core_reads(lines))  # one scan, not one per segment
            return Segments([next(flat) for _ in range(width)] for _ in refs), max(map(len, lines))
        hyps = as_core_reads(hypotheses)
        segs, longest_reference = self._prepared.get(
            ("core reads", self.lowercase, references_key(refs)), references_as_core_reads)
        rows = core_rows(self._prepared, hyps, segs, "none", ORDER)
        # 9999 tokens take at least 19,997 characters: shorter lines need no look at the rows
        longest = max(max(map(len, hyps)), longest_reference, 0)
        if longest >= 2 * _NO_LENGTH - 1 and any(
                abs(row[0] - row[1]) >= _NO_LENGTH for row in rows.rows()):
            return self.python_counts(hypotheses, refs)
        sums = [int(x) for x in rows.sum()]
        return sums[2:2 + ORDER], sums[2 + ORDER:], sums[0], sums[1]

    def python_counts(self, hypotheses: list[str], refs: list[list[str]]) -> tuple:
        """The counts as the script makes them (the specification)."""
        prepared = self._prepare(refs)
        correct = [0] * ORDER
        total = [0] * ORDER
        hyp_len = ref_len = 0
        for hyp, (lengths, clip) in zip(hypotheses, prepared):
            tokens = self.tokenize_hypothesis(hyp)
            size = len(tokens)
            closest_diff, closest_length = _NO_LENGTH, _NO_LENGTH
            for length in lengths:
                diff = abs(size - length)
                if diff < closest_diff:
                    closest_diff, closest_length = diff, length
                elif diff == closest_diff and length < closest_length:
                    closest_length = length
            hyp_len += size
            ref_len += closest_length
            counts = ngram_counts(tokens, ORDER)
            for n in range(min(size, ORDER)):
                total[n] += size - n
            for ngram in counts.keys() & clip.keys():
                correct[len(ngram) - 1] += min(counts[ngram], clip[ngram])
        return correct, total, hyp_len, ref_len
