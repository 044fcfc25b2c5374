"""What a trainer hands a reward function, turned into what a metric scores.

Completions come as plain strings or, for conversational datasets, as chat
messages (a list of ``{"role": ..., "content": ...}`` dicts); references as
one list of strings per completion, or one string. Every check names the
completion at fault, because a reward function fails inside a training step,
far from the data that caused it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

_STR_ONLY = frozenset({str})


def _content_text(content: object, where: str) -> str:
    """A message's content: a string, or the text parts of a multimodal content list."""
    if isinstance(content, str):
        return content
    if content is None:  # an assistant turn that only calls tools
        return ""
    if isinstance(content, Sequence):
        texts = []
        for part in content:
            if isinstance(part, Mapping) and part.get("type") == "text":
                text = part.get("text")
                if not isinstance(text, str):
                    raise TypeError(f"{where}: a text part's 'text' must be a string")
                texts.append(text)
        return "".join(texts)
    raise TypeError(f"{where}: a message's content must be a string or a list of parts, "
                    f"got {type(content).__name__}")


def completion_text(completion: object, index: int) -> str:
    """The text of one completion: the string itself, or the content of the first assistant
    message (TRL puts the generated turn first in a conversational completion)."""
    if isinstance(completion, str):
        return completion
    where = f"completions[{index}]"
    if isinstance(completion, Mapping):
        completion = [completion]
    if isinstance(completion, Sequence) and not isinstance(completion, bytes):
        for message in completion:
            if not isinstance(message, Mapping):
                raise TypeError(f"{where} must be a string or a list of chat messages (dicts), "
                                f"got a list holding {type(message).__name__}")
            if message.get("role", "assistant") == "assistant":
                return _content_text(message.get("content"), where)
        raise ValueError(f"{where} holds no assistant message")
    raise TypeError(f"{where} must be a string or a list of chat messages, "
                    f"got {type(completion).__name__}")


def completion_texts(completions: object) -> list[str]:
    """The text of every completion (plain strings pass through unchanged)."""
    if completions is None:
        raise ValueError("no completions given (TRL passes them as completions=...)")
    if isinstance(completions, (str, bytes)) or not hasattr(completions, "__len__"):
        raise TypeError(f"completions must be a list, got {type(completions).__name__}")
    items: list[Any] = list(completions)  # type: ignore[call-overload]
    if all(type(item) is str for item in items):
        return items
    return [completion_text(item, i) for i, item in enumerate(items)]


def reference_lists(references: object, n: int, column: str) -> list[list[str]]:
    """Each completion's references as a non-empty list of strings.

    ``references[i]`` is one string or a sequence of strings (a list, a tuple,
    a NumPy array of str as verl's batches hold them); ``None`` entries are
    dropped, as sacreBLEU drops missing references.
    """
    if references is None:
        raise ValueError(f"missing the {column!r} column: each completion's reference strings "
                         f"(TRL passes every dataset column as a keyword argument; name the "
                         f"column {column!r}, or make the reward with column=...)")
    if isinstance(references, (str, bytes)) or not hasattr(references, "__len__"):
        raise TypeError(f"{column} must be a list with one entry per completion, "
                        f"got {type(references).__name__}")
    entries: list[Any] = list(references)  # type: ignore[call-overload]
    if len(entries) != n:
        raise ValueError(f"{n} completions but {len(entries)} entries in {column!r}")
    out: list[list[str]] = []
    for i, entry in enumerate(entries):
        if type(entry) is list and entry and _STR_ONLY.issuperset(map(type, entry)):
            out.append(entry)  # the common case, checked at C speed; scored, never modified
            continue
        if isinstance(entry, str):
            out.append([entry])
            continue
        if isinstance(entry, bytes) or not hasattr(entry, "__iter__"):
            raise TypeError(f"{column}[{i}] must be a string or a list of strings, "
                            f"got {type(entry).__name__}")
        refs = [ref for ref in entry if ref is not None]
        for k, ref in enumerate(refs):
            if not isinstance(ref, str):
                raise TypeError(f"{column}[{i}][{k}] must be a string, got {type(ref).__name__}")
        if not refs:
            raise ValueError(f"{column}[{i}] is empty: completion {i} has no reference")
        out.append(refs)
    return out
