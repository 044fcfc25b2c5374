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
import threading
from functools import lru_cache
from pathlib import Path
from typing import Any

from ..core.log import logger
from .tokenizer_base import CACHED_LINES, Tokenizer

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


#: One loaded model per model file (by its resolved path), shared by every tokenizer that uses
#: it: a model per tokenizer object kept each one in memory as long as the object lived.
_MODELS: dict[str, Any] = {}
_MODELS_LOCK = threading.Lock()


def _load(sentencepiece: Any, path: Path) -> Any:
    """The model in ``path``, loaded (a clear error for a file that is not one)."""
    processor = sentencepiece.SentencePieceProcessor()
    try:
        processor.Load(str(path))
    except (RuntimeError, OSError) as exc:  # "could not parse ModelProto", unreadable file
        raise ValueError(f"{path}: not a SentencePiece model "
                         f"(sentencepiece says: {exc})") from None
    return processor


@lru_cache(maxsize=CACHED_LINES)
def encode(model: str, line: str) -> str:
    """``line`` as the pieces of the shared model ``model`` (a key of ``_MODELS``)."""
    return " ".join(_MODELS[model].EncodeAsPieces(line))


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
        # the file's identity: a model file replaced during the process is loaded again
        stat = Path(self.model_path).stat()
        self._model = f"{Path(self.model_path).resolve()}|{stat.st_size}|{stat.st_mtime_ns}"
        with _MODELS_LOCK:
            if self._model not in _MODELS:
                _MODELS[self._model] = _load(sentencepiece, self.model_path)

    def __reduce__(self) -> tuple:
        """Pickled by name and model path: the model is loaded again where it is unpickled."""
        return (TokenizerSPM, (self.name, self.model_path))

    def signature(self) -> str:
        return self._signature

    def __call__(self, line: str) -> str:
        return encode(self._model, line)


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
