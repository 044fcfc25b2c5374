"""`ja-mecab`: Japanese segmented by MeCab with the IPA dictionary (``truebleu[ja]``)."""

from __future__ import annotations

from ._mecab import MecabTokenizer


class TokenizerJaMecab(MecabTokenizer):
    name = "ja-mecab"
    _module, _dic_module, _dic_size, _dic_label, _extra = "MeCab", "ipadic", 392126, "IPA", "ja"
