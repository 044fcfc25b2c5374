"""What each module says about itself (``evaluate``'s ``MetricInfo``): truebleu's own words.

The input features are the hub modules' (a fact of their interface: one string per
prediction; a list of reference strings, or one string, per prediction), so that
``evaluate`` accepts and refuses the same inputs.
"""

from __future__ import annotations

from typing import Any

from .names import import_optional

PAPERS = {
    "bleu": "Papineni, Roukos, Ward and Zhu (2002): BLEU, a method for automatic evaluation of "
            "machine translation. ACL.",
    "sacrebleu": "Post (2018): A call for clarity in reporting BLEU scores. WMT.",
    "smoothing": "Lin and Och (2004): ORANGE, a method for evaluating automatic evaluation metrics "
                 "for machine translation. COLING.",
    "chrf": "Popovic (2015): chrF, character n-gram F-score for automatic MT evaluation. WMT. "
            "Popovic (2017): chrF++, words helping character n-grams. WMT.",
    "ter": "Snover, Dorr, Schwartz, Micciulla and Makhoul (2006): A study of translation edit rate "
           "with targeted human annotation. AMTA.",
}

DESCRIPTIONS = {
    "sacrebleu": "Corpus BLEU exactly as sacreBLEU 2.6 computes it (its tokenizers, smoothing "
                 "methods and signature settings), computed by truebleu's compiled core.",
    "bleu": "Corpus BLEU as tensorflow/nmt's compute_bleu computes it: the shortest reference's "
            "length, optional add-one smoothing of every order, a score in [0, 1]; tokens from "
            "sacreBLEU's 13a tokenizer unless another tokenizer is given. Computed by truebleu.",
    "chrf": "Character n-gram F-score (chrF, and chrF++ with word n-grams) exactly as sacreBLEU "
            "2.6 computes it, by truebleu's compiled core.",
    "ter": "Translation edit rate exactly as sacreBLEU 2.6 computes it (tercom's shifts and "
           "edits), by truebleu's compiled core.",
}

USAGE = {
    "sacrebleu": """
predictions: one string per segment.
references: per prediction, a list of reference strings (every prediction the same number)
    or one string.
smooth_method: "exp" (default), "floor", "add-k" or "none".
smooth_value: the value of "floor" (default 0.1) or "add-k" (default 1).
force: score text that looks tokenized without warning (default False).
lowercase: case-insensitive (default False).
tokenize: sacreBLEU's tokenizer name; None means "13a".
use_effective_order: leave out the orders without n-grams (for single sentences).
Returns score (0-100), counts, totals, precisions, bp, sys_len, ref_len.
""",
    "bleu": """
predictions: one string per segment.
references: per prediction, a list of one or more reference strings, or one string.
tokenizer: a function from a string to its tokens (default: sacreBLEU's 13a).
max_order: the largest n-gram order (default 4).
smooth: add one to the matches and totals of every order (default False).
Returns bleu (0-1), precisions, brevity_penalty, length_ratio, translation_length,
reference_length.
""",
    "chrf": """
predictions: one string per segment.
references: per prediction, a list of reference strings (every prediction the same number)
    or one string.
char_order: character n-gram order (default 6).
word_order: word n-gram order (default 0; 2 gives chrF++).
beta: the weight of recall against precision (default 2).
lowercase: case-insensitive (default False).
whitespace: keep whitespace in character n-grams (default False).
eps_smoothing: smooth as chrF++.py, NLTK and Moses do (default False: sacreBLEU's effective order).
Returns score (0-100), char_order, word_order, beta.
""",
    "ter": """
predictions: one string per segment.
references: per prediction, a list of reference strings (every prediction the same number)
    or one string.
normalized: tercom's normalization and tokenization (default False).
ignore_punct: remove punctuation first (default False).
support_zh_ja_chars: treat Chinese and Japanese characters in normalization (default False).
case_sensitive: do not lowercase (default False).
Returns score (edits per 100 reference words), num_edits, ref_length.
""",
}

CITATIONS = {
    "sacrebleu": PAPERS["bleu"] + "\n" + PAPERS["sacrebleu"],
    "bleu": PAPERS["bleu"] + "\n" + PAPERS["smoothing"],
    "chrf": PAPERS["chrf"] + "\n" + PAPERS["sacrebleu"],
    "ter": PAPERS["ter"] + "\n" + PAPERS["sacrebleu"],
}


def features() -> list[Any]:
    """The two input forms ``evaluate`` accepts: a list of references per prediction, or one."""
    datasets = import_optional("datasets")
    text = datasets.Value("string", id="sequence")
    return [
        datasets.Features({"predictions": text,
                           "references": datasets.Sequence(text, id="references")}),
        datasets.Features({"predictions": text, "references": text}),
    ]


def metric_info(name: str) -> Any:
    """The ``evaluate.MetricInfo`` of module ``name``."""
    evaluate = import_optional("evaluate")
    return evaluate.MetricInfo(
        description=DESCRIPTIONS[name], citation=CITATIONS[name], inputs_description=USAGE[name],
        features=features())
