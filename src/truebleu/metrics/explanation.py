"""What every metric's explanation of one sentence shares (``truebleu explain``).

An explanation is a dataclass with ``hypothesis``, ``references``, ``to_dict()`` (its
plain values, ``metric`` naming the metric) and ``body_lines()`` (everything but the
sentences). This mixin writes the sentences and the body as text, and the dict as JSON,
the same way for BLEU, chrF and TER.
"""

from __future__ import annotations

import json
from typing import Any, Sequence


class SentenceExplanation:
    """``to_text`` and ``to_json`` of a metric's explanation of one sentence."""

    hypothesis: str
    references: Sequence[str]

    def to_dict(self) -> dict[str, Any]:  # pragma: no cover - each metric's own
        raise NotImplementedError

    def body_lines(self) -> list[str]:  # pragma: no cover - each metric's own
        raise NotImplementedError

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=1, ensure_ascii=False)

    def to_text(self) -> str:
        """The hypothesis and the references, then the metric's own lines."""
        out = [f"Hypothesis:  {self.hypothesis}"]
        out += [f"Reference {k}: {ref}" for k, ref in enumerate(self.references, 1)]
        return "\n".join([*out, *self.body_lines()])


def check_sentence(hypothesis: object, references: Sequence[str]) -> None:
    """One sentence and its references, as every ``explain`` takes them: a string and a
    non-empty sequence of strings (TypeError or ValueError otherwise)."""
    if not isinstance(hypothesis, str):
        raise TypeError("hypothesis must be a string")
    if isinstance(references, str) or not all(isinstance(r, str) for r in references):
        raise TypeError("references must be a sequence of strings")
    if not references:
        raise ValueError("at least one reference is needed")
