"""chrF and chrF++ statistics in plain Python: the specification of the compiled core.

chrF (Popović, 2015) compares character n-grams of hypothesis and reference;
chrF++ (Popović, 2017) adds word n-grams. Per segment and per order (the
character orders 1..C first, then the word orders 1..W), the statistics are
three additive counts, laid out as sacreBLEU 2.x lays them out::

    [hyp n-grams, ref n-grams, matched n-grams] * (C + W)

The hypothesis count is 0 when the reference has no n-gram of that order.
With several references, the row of the reference with the highest segment
f-score is kept; on a tie the earlier reference wins.

The f-score (:func:`f_score`) repeats sacreBLEU's float operations in their
order, so the numbers are bit-identical.
"""

from __future__ import annotations

from collections import Counter

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: importing typing costs about 16 M instructions
if TYPE_CHECKING:
    from typing import Sequence

    from .config import ChrfConfig

# string.punctuation: what chrF++ splits off the start or end of a word
PUNCTUATION = frozenset('!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~')

EPS = 1e-16


def char_ngrams(line: str, max_order: int, whitespace: bool) -> list[Counter]:
    """Counters of character n-grams for n = 1..max_order (whitespace removed unless kept)."""
    if not whitespace:
        line = "".join(line.split())
    return [Counter(line[i:i + n] for i in range(len(line) - n + 1))
            for n in range(1, max_order + 1)]


def chrf_words(line: str) -> list[str]:
    """Whitespace-split words, one punctuation mark split off the end, else off the start.

    Only one character is split off, and only from words longer than one
    character: ``(hi)`` becomes ``(hi`` and ``)``, as in the original chrF++.py.
    """
    words: list[str] = []
    for word in line.split():
        if len(word) > 1 and word[-1] in PUNCTUATION:
            words += [word[:-1], word[-1]]
        elif len(word) > 1 and word[0] in PUNCTUATION:
            words += [word[0], word[1:]]
        else:
            words.append(word)
    return words


def word_ngrams(words: Sequence[str], n: int) -> Counter:
    """Counter of word n-grams (tuples of words) of order ``n``."""
    return Counter(tuple(words[i:i + n]) for i in range(len(words) - n + 1))


def ngram_profile(line: str, char_order: int, word_order: int, whitespace: bool) -> list[Counter]:
    """All n-gram counters of a (preprocessed) line: character orders, then word orders."""
    counters = char_ngrams(line, char_order, whitespace)
    if word_order > 0:
        words = chrf_words(line)
        counters += [word_ngrams(words, n) for n in range(1, word_order + 1)]
    return counters


def match_counts(hyp: Counter, ref: Counter) -> list[int]:
    """``[hyp n-grams (0 if the reference has none), ref n-grams, clipped matches]``."""
    hyp_count = sum(hyp.values())
    matches = sum(min(count, ref[ngram]) for ngram, count in hyp.items() if ngram in ref)
    return [hyp_count if ref else 0, sum(ref.values()), matches]


def f_score(row: Sequence, beta: float, eps_smoothing: bool) -> float:
    """chrF in [0, 100] from a (summed) statistics row, as sacreBLEU computes it.

    With ``eps_smoothing`` every order counts, empty ones as 1e-16 (chrF++.py,
    NLTK, Moses); without it precision and recall are averaged over the orders
    where both hypothesis and reference have n-grams (sacreBLEU's default).
    """
    order = len(row) // 3
    factor = beta ** 2
    score = 0.0
    effective_order = 0
    avg_prec = avg_rec = 0.0
    for i in range(order):
        n_hyp, n_ref, n_match = row[3 * i:3 * i + 3]
        prec = n_match / n_hyp if n_hyp > 0 else EPS
        rec = n_match / n_ref if n_ref > 0 else EPS
        denom = factor * prec + rec
        score += ((1 + factor) * prec * rec / denom) if denom > 0 else EPS
        if n_hyp > 0 and n_ref > 0:
            avg_prec += prec
            avg_rec += rec
            effective_order += 1

    if eps_smoothing:
        return 100 * score / order
    if effective_order == 0:
        avg_prec = avg_rec = 0.0
    else:
        avg_prec /= effective_order
        avg_rec /= effective_order
    if avg_prec + avg_rec:
        score = (1 + factor) * avg_prec * avg_rec
        score /= (factor * avg_prec) + avg_rec
        return 100 * score
    return 0.0


def best_reference(hyp_profile: list[Counter], ref_profiles: Sequence[list[Counter]],
                   beta: float, eps_smoothing: bool) -> tuple[int, list[int]]:
    """``(index, statistics row)`` of the reference with the highest f-score (the first
    on ties): the row chrF counts for this hypothesis."""
    best_row: list[int] = []
    best, best_index = -1.0, 0
    for index, ref_profile in enumerate(ref_profiles):
        row: list[int] = []
        for hyp, ref in zip(hyp_profile, ref_profile):
            row += match_counts(hyp, ref)
        score = f_score(row, beta, eps_smoothing)
        if score > best:
            best, best_row, best_index = score, row, index
    return best_index, best_row


def segment_row(hyp_profile: list[Counter], ref_profiles: Sequence[list[Counter]],
                beta: float, eps_smoothing: bool) -> list[int]:
    """The statistics row of one hypothesis against its best reference."""
    return best_reference(hyp_profile, ref_profiles, beta, eps_smoothing)[1]


def prepare_references(segments: Sequence[Sequence[str]], config: ChrfConfig) -> list:
    """The n-gram profiles of every reference of every segment."""
    return [[ngram_profile(config.preprocess(ref), config.char_order, config.word_order,
                           config.whitespace) for ref in refs] for refs in segments]


def matrix_scores(hypotheses: Sequence[str], references: Sequence[str],
                  config: ChrfConfig) -> list[list[float]]:
    """``[[f-score of hyp against [ref] alone for ref in references] for hyp in hypotheses]``:
    the chrF matrix of minimum-Bayes-risk decoding, each line's n-grams counted once."""
    def profile(line: str) -> list[Counter]:
        return ngram_profile(config.preprocess(line), config.char_order, config.word_order,
                             config.whitespace)
    ref_profiles = [profile(ref) for ref in references]
    matrix = []
    for hyp in hypotheses:
        hyp_profile = profile(hyp)
        matrix.append([segment_score(hyp_profile, ref_profile, config)
                       for ref_profile in ref_profiles])
    return matrix


def segment_score(hyp_profile: list[Counter], ref_profile: list[Counter],
                  config: ChrfConfig) -> float:
    """The f-score of one hypothesis against one reference, from their profiles."""
    row: list[int] = []
    for hyp, ref in zip(hyp_profile, ref_profile):
        row += match_counts(hyp, ref)
    return f_score(row, config.beta, config.eps_smoothing)


def statistics_rows(hypotheses: Sequence[str], prepared: Sequence, config: ChrfConfig):
    """One statistics row per hypothesis against its prepared references."""
    for hyp, ref_profiles in zip(hypotheses, prepared):
        profile = ngram_profile(config.preprocess(hyp), config.char_order, config.word_order,
                                config.whitespace)
        yield segment_row(profile, ref_profiles, config.beta, config.eps_smoothing)
