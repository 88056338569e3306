"""The two kinds of trouble: our caller's mistakes, and the remote peer's.

``UsageError`` is local misuse (a bad argument, an illegal action for this
side right now).  ``ProtocolError`` is the remote peer's misbehaviour and
carries a code from the table in SPEC.md, which is sent back on the wire.
"""

from __future__ import annotations


class StatkiError(Exception):
    """Base of every error statki raises on purpose."""


class UsageError(StatkiError):
    """The local caller asked for something that cannot be done."""


class ProtocolError(StatkiError):
    """The remote peer broke the protocol; ``code`` is from SPEC.md's table."""

    def __init__(self, code: str, detail: str) -> None:
        super().__init__(f"{code}: {detail}")
        self.code = code
        self.detail = detail
