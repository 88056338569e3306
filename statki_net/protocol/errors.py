"""Error codes, in one enum, and the remote peer's misbehaviour as ``ProtocolError``.

``Code`` lists every code a game can stop with (SPEC.md section 13).  Most
travel on the wire in an ``error`` message; the ones in ``LOCAL_CODES`` never
do: they name what happened on this side (a host key that is not the invite's,
a lost connection, no opponent for a rematch), are written to this side's log
and shown to its player, and a peer that receives one treats it as any code it
does not know.  The codes in ``NOT_THE_PEERS_WORD`` are not sent either: they
say a frame proves nothing about who made it, and such a frame is never
answered (SPEC.md section 3, "The peer's word").

``ProtocolError`` says which of the ordered checks of SPEC.md section 3 ("the
order of checks") a frame failed, as a ``Check``: whether the frame was the
peer's word at all follows from it.
"""

from __future__ import annotations

import enum

from statki_net.game.errors import StatkiError
from statki_net.game.words import Phrase, as_is


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
    """This side stops the game itself: from the guest's accept on, its forfeit."""
    INTERNAL = "internal"
    """A failure of this program, not of the peer; sent, and a forfeit like ``closed``."""
    NOT_INVITED = "not-invited"
    """The host's answer to a guest hello without the proof of the invite's secret."""
    # Local only: never sent (see LOCAL_CODES).
    WRONG_KEY = "wrong-key"
    """The host's key is not the one the invite names: the guest says nothing to it."""
    LOST = "lost"
    """The connection was lost: this side finishes the game alone (SPEC.md section 12)."""
    ABSENT = "absent"
    """The opponent did not come back for a rematch: nothing was said, nobody is to blame."""
    NO_INVITE = "no-invite"
    """The host admits only the guest it invited, and this guest holds no invite secret:
    it says nothing to the host."""
    TOO_FAST = "too-fast"
    """Talk over its rate or its total per game (SPEC.md, "say"): dropped, never answered."""

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


LOCAL_CODES = frozenset({Code.WRONG_KEY, Code.LOST, Code.ABSENT, Code.NO_INVITE, Code.TOO_FAST})
"""Codes that name what happened on this side; they never travel on the wire."""

NOT_THE_PEERS_WORD = frozenset({Code.MALFORMED, Code.TOO_LARGE, Code.BAD_SIGNATURE, Code.BAD_CHAIN})
"""Codes of failures that show a frame is nobody's word: reported locally, never sent."""


class Check(enum.IntEnum):
    """The checks a received frame goes through, in SPEC.md section 3's order."""

    FRAME = 1
    """Two bins, a 64-byte signature, a body of at most ``MAX_FRAME`` bytes."""
    BODY = 2
    """The body is one well-formed msgpack map."""
    PLACE = 3
    """The header names a side and fits the chain."""
    SIGNATURE = 4
    """The signature verifies with the key of the side the frame names."""
    DECODE = 5
    """The type and every key of the message."""
    TURN = 6
    """The sender may say this now."""
    CONTENT = 7
    """What the message says fits the game (rules in bounds, a coin that opens, ...)."""

    @property
    def refuses(self) -> bool:
        """A failure here is the peer's word breaking the protocol: a refused frame,
        kept as evidence and answered with an ``error``.  Before it, the frame is
        nobody's word: never answered, never blamed on anyone."""
        return self >= Check.DECODE


class ProtocolError(StatkiError):
    """A frame failed a check; ``code`` says how (SPEC.md's table), ``check`` which one."""

    def __init__(self, code: Code, detail: Phrase | str, check: Check) -> None:
        self.said = detail if isinstance(detail, Phrase) else as_is(detail)
        """The detail as a phrase, for a person's language; ``detail`` is its English, what
        the wire and the logs carry."""
        self.detail = str(self.said)
        super().__init__(f"{code.value}: {self.detail}")
        self.code = code
        self.check = check

    @property
    def refuses(self) -> bool:
        """Whether the frame was the peer's word that breaks the protocol (see ``Check``)."""
        return self.check.refuses
