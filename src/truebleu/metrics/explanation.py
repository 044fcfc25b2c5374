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
