"""The root of statki's errors, and the local caller's mistakes.

``UsageError`` is local misuse (a bad argument, an illegal action for this
side right now).  The remote peer's misbehaviour is ``ProtocolError``, in
``statki_net.protocol.errors``.
"""

from __future__ import annotations


class StatkiError(Exception):
    """Base of every error statki raises on purpose."""


class UsageError(StatkiError):
    """The local caller asked for something that cannot be done."""
