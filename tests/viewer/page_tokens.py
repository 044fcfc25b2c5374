"""What the page makes of a payload's token column (static/js/10-data.js, ``pageTokens``),
in Python for the tests that read a payload: each segment's tokens joined by single spaces."""

from __future__ import annotations

from typing import Optional, Union


def joined_tokens(text: Optional[str], item: Union[None, list, str]) -> Optional[str]:
    """Segment's tokens from the page's column item: None is the text itself, a list the
    UTF-16 offsets into the text before which a space goes, a str the tokens themselves."""
    if not isinstance(item, list):
        return text if item is None else item
    assert text is not None
    units = text.encode("utf-16-le", "surrogatepass")
    pieces, start = [], 0
    for at in item:
        pieces.append(units[2 * start:2 * at].decode("utf-16-le", "surrogatepass"))
        start = at
    pieces.append(units[2 * start:].decode("utf-16-le", "surrogatepass"))
    return " ".join(pieces)
