"""Tokenizers, registered by name (the ``-tok`` values of sacreBLEU).

Modules are imported on first use: MeCab and SentencePiece are heavy and
optional.
"""

from __future__ import annotations

from importlib import import_module

from .tokenizer_base import Tokenizer

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: every command loads this module
if TYPE_CHECKING:
    from collections.abc import Callable

BaseTokenizer = Tokenizer  # sacreBLEU's name (sacrebleu.tokenizers.BaseTokenizer)

# name -> (module, class, extra constructor arguments)
_REGISTRY: dict[str, tuple[str, str, tuple[str, ...]]] = {
    "none": ("tokenizer_none", "TokenizerNone", ()),
    "zh": ("tokenizer_zh", "TokenizerZh", ()),
    "13a": ("tokenizer_13a", "Tokenizer13a", ()),
    "intl": ("tokenizer_intl", "TokenizerIntl", ()),
    "char": ("tokenizer_char", "TokenizerChar", ()),
    "ja-mecab": ("tokenizer_ja_mecab", "TokenizerJaMecab", ()),
    "ko-mecab": ("tokenizer_ko_mecab", "TokenizerKoMecab", ()),
    "spm": ("tokenizer_spm", "TokenizerSPM", ("spm",)),
    "flores101": ("tokenizer_spm", "TokenizerSPM", ("flores101",)),
    "flores200": ("tokenizer_spm", "TokenizerSPM", ("flores200",)),
    "spBLEU-1K": ("tokenizer_spm", "TokenizerSPM", ("spBLEU-1K",)),
}

# Tokenizers of other metrics: found by get_tokenizer, not offered to BLEU's -tok.
_OTHER_METRICS: dict[str, tuple[str, str, tuple[str, ...]]] = {
    "tercom": ("tokenizer_ter", "TercomTokenizer", ()),  # TER's (default options)
}

TOKENIZERS = tuple(_REGISTRY)
DEFAULT_TOKENIZER = "13a"
SPM_TOKENIZERS = ("spm", "flores101", "flores200", "spBLEU-1K")

# sacreBLEU picks these when the target language is known and -tok is not given
LANGUAGE_DEFAULTS = {"zh": "zh", "ja": "ja-mecab", "ko": "ko-mecab"}


def default_tokenizer(trg_lang: str | None) -> str:
    return LANGUAGE_DEFAULTS.get(trg_lang or "", DEFAULT_TOKENIZER)


def target_language(langpair: str | None) -> str:
    """The target of a ``-l src-trg`` language pair ("" when none is given), as sacreBLEU reads it."""
    return langpair.split("-")[1] if langpair and "-" in langpair else ""


def _tokenizer_class(module_name: str, class_name: str) -> Callable[..., Tokenizer]:
    """A registered tokenizer class (their constructors differ: SentencePiece's takes a model)."""
    cls: Callable[..., Tokenizer] = getattr(import_module(f".{module_name}", __name__), class_name)
    return cls


def get_tokenizer(name: str, spm_model: str | None = None) -> Tokenizer:
    """A tokenizer instance by registry name."""
    if isinstance(name, str) and name in _OTHER_METRICS:
        module_name, class_name, args = _OTHER_METRICS[name]
        return _tokenizer_class(module_name, class_name)(*args)
    if not isinstance(name, str) or name not in _REGISTRY:
        raise ValueError(f"unknown tokenizer {name!r}; choose one of: {', '.join(TOKENIZERS)}")
    module_name, class_name, args = _REGISTRY[name]
    cls = _tokenizer_class(module_name, class_name)
    if name in SPM_TOKENIZERS:
        return cls(*args, model_path=spm_model)
    if spm_model is not None:
        raise ValueError(f"spm_model only applies to SentencePiece tokenizers, not {name!r}")
    return cls(*args)


__all__ = ["BaseTokenizer", "Tokenizer", "TOKENIZERS", "DEFAULT_TOKENIZER", "get_tokenizer",
           "default_tokenizer"]
