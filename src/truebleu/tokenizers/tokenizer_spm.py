"""`flores101`, `flores200`, `spBLEU-1K` (and the old alias `spm`): SentencePiece.

spBLEU tokenizes with a fixed SentencePiece model. truebleu never downloads
it: the model is given by path (``spm_model=`` / ``--spm-model``) or found by
its file name in a cache folder: ``$TRUEBLEU_CACHE`` (default
``~/.cache/truebleu``), then sacreBLEU's ``$SACREBLEU/models`` (default
``~/.sacrebleu/models``), so a model sacreBLEU already fetched is reused.
The signature names the model family, as sacreBLEU's does.
"""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path

from ..core.log import logger
from .tokenizer_base import Tokenizer

# registry name -> (signature, model file name, where the file is published)
MODEL_FILES = {
    "spm": ("flores101", "sacrebleu_tokenizer_spm.model",
            "https://dl.fbaipublicfiles.com/fairseq/models/flores/sacrebleu_tokenizer_spm.model"),
    "flores101": ("flores101", "sacrebleu_tokenizer_spm.model",
                  "https://dl.fbaipublicfiles.com/fairseq/models/flores/sacrebleu_tokenizer_spm.model"),
    "flores200": ("flores200", "flores200sacrebleuspm",
                  "https://tinyurl.com/flores200sacrebleuspm"),
    "spBLEU-1K": ("spBLEU-1K", "spbleu-1k_tokenizer_spm.model",
                  "https://www.dlnlp.ai/spBLEU-1K/spbleu-1k_tokenizer_spm.model"),
}


def cache_folders() -> list[Path]:
    """Folders searched for a model file, in order."""
    home = Path.home()
    truebleu = Path(os.environ.get("TRUEBLEU_CACHE", home / ".cache" / "truebleu"))
    sacrebleu = Path(os.environ.get("SACREBLEU", home / ".sacrebleu")) / "models"
    return [truebleu, sacrebleu]


def find_model(key: str, model_path: str | os.PathLike | None = None) -> Path:
    """The model file for tokenizer ``key``: the given path, else the cache."""
    if model_path is not None:
        path = Path(model_path)
        if not path.is_file():
            raise FileNotFoundError(f"SentencePiece model not found: {path}")
        return path
    _, filename, url = MODEL_FILES[key]
    for folder in cache_folders():
        candidate = folder / filename
        if candidate.is_file():
            return candidate
    searched = ", ".join(str(folder / filename) for folder in cache_folders())
    raise FileNotFoundError(
        f"the {key!r} tokenizer needs the SentencePiece model {filename!r}; "
        f"looked in: {searched}. Download it from {url} into one of these "
        f"places, or pass its path with spm_model= (CLI: --spm-model)."
    )


class TokenizerSPM(Tokenizer):
    def __init__(self, key: str = "flores101", model_path: str | os.PathLike | None = None) -> None:
        if key not in MODEL_FILES:
            raise ValueError(f"unknown SentencePiece tokenizer {key!r}")
        try:
            import sentencepiece
        except ImportError as exc:
            raise ImportError(
                f"the {key!r} tokenizer needs sentencepiece: pip install 'truebleu[spm]'"
            ) from exc
        if key == "spm":
            logger.warning(
                "Tokenizer 'spm' is the old name of 'flores101' (its signature says flores101).")
        self.name = key
        self._signature = MODEL_FILES[key][0]
        self.model_path = find_model(key, model_path)
        self._processor = sentencepiece.SentencePieceProcessor()
        try:
            self._processor.Load(str(self.model_path))
        except (RuntimeError, OSError) as exc:  # "could not parse ModelProto", unreadable file
            raise ValueError(f"{self.model_path}: not a SentencePiece model "
                             f"(sentencepiece says: {exc})") from None

    def __reduce__(self) -> tuple:
        """Pickled by name and model path: the model is loaded again where it is unpickled."""
        return (TokenizerSPM, (self.name, self.model_path))

    def signature(self) -> str:
        return self._signature

    @lru_cache(maxsize=2**16)
    def __call__(self, line: str) -> str:
        return " ".join(self._processor.EncodeAsPieces(line))


# sacreBLEU's shape of the table: key -> {"url": ..., "signature": ...}
SPM_MODELS = {key: {"url": url, "signature": signature}
              for key, (signature, _filename, url) in MODEL_FILES.items()}



class Flores200Tokenizer(TokenizerSPM):
    def __init__(self) -> None:
        super().__init__("flores200")


class Flores101Tokenizer(TokenizerSPM):
    def __init__(self) -> None:
        super().__init__("flores101")


class spBLEU1KTokenizer(TokenizerSPM):  # noqa: N801 - sacreBLEU's name
    def __init__(self) -> None:
        super().__init__("spBLEU-1K")
