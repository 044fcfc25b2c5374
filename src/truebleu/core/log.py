"""truebleu's logger, with :mod:`logging` imported only when it is first used.

Most runs of the command line send no message at all, and importing ``logging``
(with ``traceback``, ``string``, ...) costs a noticeable part of a short run's start-up.
The modules on the command's path therefore hold :data:`logger`, a stand-in whose
every attribute (``warning``, ``info``, ``setLevel``, ...) is that of the real
``logging.getLogger("truebleu")``, fetched at the moment of use.

:func:`configure` is ``logging.basicConfig`` deferred the same way: the command line
records its handler setup, and it is applied just before the first message (or any
other use of :data:`logger`), so the output is what calling ``basicConfig`` up front
gives. Code that sends truebleu's messages goes through :data:`logger` so that the
setup is never skipped.
"""

from __future__ import annotations

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: this module is on every command's path
if TYPE_CHECKING:
    from typing import Any

_pending_config: dict[str, Any] | None = None


def configure(**basic_config: Any) -> None:
    """``logging.basicConfig(**basic_config)``, applied when :data:`logger` is first used."""
    global _pending_config
    _pending_config = basic_config


class _DeferredLogger:
    """``logging.getLogger("truebleu")``, looked up (and configured) on each use."""

    def __getattr__(self, name: str) -> Any:
        global _pending_config
        import logging

        if _pending_config is not None:
            config, _pending_config = _pending_config, None
            logging.basicConfig(**config)
        return getattr(logging.getLogger("truebleu"), name)

    def __repr__(self) -> str:
        return "<deferred logger 'truebleu'>"


logger = _DeferredLogger()
