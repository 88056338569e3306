"""Error codes, in one enum, and the remote peer's misbehaviour as ``ProtocolError``.

``Code`` lists every code a game can stop with.  Most travel on the wire in an
``error`` message (SPEC.md, "Errors"); the ones in ``LOCAL_CODES`` never do:
they name what happened on this side (a bug, a host key that is not the
invite's), are written to this side's log and shown to its player, and a peer
that receives one treats it as any code it does not know.
"""

from __future__ import annotations

import enum

from statki_net.game.errors import StatkiError


class Code(enum.StrEnum):
    """Why a game stopped early (SPEC.md, "Errors"); compare members, never the text."""

    MALFORMED = "malformed"
    TOO_LARGE = "too-large"
    BAD_FIELD = "bad-field"
    UNKNOWN_TYPE = "unknown-type"
    OUT_OF_TURN = "out-of-turn"
    BAD_SIGNATURE = "bad-signature"
    BAD_CHAIN = "bad-chain"
    VERSION = "version"
    BAD_SHOT = "bad-shot"
    BAD_ANSWER = "bad-answer"
    FALSE_ANSWER = "false-answer"
    BAD_REVEAL = "bad-reveal"
    TIMEOUT = "timeout"
    CLOSED = "closed"
    # Local only: never sent (see LOCAL_CODES).
    INTERNAL = "internal"
    """A failure of this program, not of the peer."""
    WRONG_KEY = "wrong-key"
    """The host's key is not the one the invite names: the guest says nothing to it."""
    ABSENT = "absent"
    """The opponent did not come back for a rematch: nothing was said, nobody is to blame."""

    @classmethod
    def of(cls, text: str) -> Code | None:
        """The member a received code names, or None for a code this version does not know."""
        try:
            return cls(text)
        except ValueError:
            return None

    @classmethod
    def received(cls, text: str) -> Code | None:
        """The member a peer's ``error`` names; None for one unknown here or never sent."""
        code = cls.of(text)
        return None if code in LOCAL_CODES else code


LOCAL_CODES = frozenset({Code.INTERNAL, Code.WRONG_KEY, Code.ABSENT})
"""Codes that name what happened on this side; they never travel on the wire."""


class ProtocolError(StatkiError):
    """The remote peer broke the protocol; ``code`` says how (SPEC.md's table)."""

    def __init__(self, code: Code, detail: str) -> None:
        super().__init__(f"{code.value}: {detail}")
        self.code = code
        self.detail = detail
