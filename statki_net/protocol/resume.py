"""The resume handshake: a lost connection's game goes on over a new one (SPEC.md, "Resume").

A ``resume`` is no message of the game: it has no ``seq`` or ``prev`` and
never joins a transcript.  Each side sends one on a new connection to say
which game it is in and how far its transcript goes; each then sends the
other what it lacks (``Session.resume``).  It is signed with the side's key
of that game, under a label of its own, so a resume can never pass for a
message of a game, nor a message for a resume.  Its ``nonce`` is the nonce of
the hello the host sent first on this connection: a resume recorded on one
connection is useless on any other.

This module is pure: the frame's bytes, its signature, and the checks a side
makes of the other's resume (``ResumeRefusal`` says which failed).  A failed
check is answered with nothing: the connection is closed, as for any frame
that is not the peer's word.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any

import msgpack
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from statki_net.game.errors import UsageError
from statki_net.protocol.commitment import HASH_SIZE
from statki_net.protocol.errors import Check, Code, ProtocolError
from statki_net.protocol.wire import Role, packed, read_body

RESUME_LABEL = b"statki/v3/resume\x00"
"""What a resume's signature is over, before its body: never a message's ``SIGN_LABEL``."""
RESUME_TYPE = "resume"
MAX_RESUME = 512
"""Largest resume body in bytes; a resume holds only fixed-size fields and two counts."""
NONCE_SIZE = 32
MAX_RESUMES = 64
"""Resumes a host answers for one game: more are turned away (a guest that redials
without end, or a replaying stranger, cannot keep a host busy for ever)."""
RESUME_WAIT_MS = 10_000
"""How long a side waits for the other's resume on a new connection before closing it."""
REDIAL_BACKOFF_MS = (500, 1_000, 2_000, 4_000, 8_000)
"""The guest's waits between redials, in order; the last repeats."""


class ResumeRefusal(enum.StrEnum):
    """Why a side turned a resume away (closed, nothing sent); for logs and tests."""

    MALFORMED = "malformed"
    """Not a resume: not a frame, not a map, a wrong or missing field, too large."""
    WRONG_SIDE = "wrong-side"
    """Its ``from`` names the receiver's own side."""
    UNKNOWN_GAME = "unknown-game"
    """No unfinished game of the receiver's has that id."""
    WRONG_NONCE = "wrong-nonce"
    """Its nonce is not this connection's: a resume replayed from another."""
    WRONG_KEY = "wrong-key"
    """Its signature does not verify with the sender's key of that game."""
    TOO_MANY = "too-many"
    """The host has answered ``MAX_RESUMES`` resumes for that game already."""


@dataclass(frozen=True)
class Resume:
    """What a resume says."""

    sender: Role
    """Key ``from``."""
    game: bytes
    """The game id (SPEC.md section 4)."""
    nonce: bytes
    """The nonce of the host's hello on this connection."""
    have: int
    """How many messages the sender's transcript holds."""
    last: bytes
    """The hash of the last of them."""
    at: int
    """The sender's clock, ms since 1970; for people."""


@dataclass(frozen=True)
class ResumeFrame:
    """A resume as it travels: ``[body, signature]``, the body's exact bytes kept."""

    body: bytes
    signature: bytes
    resume: Resume

    def encode(self) -> bytes:
        return packed([self.body, self.signature])


class ResumeError(ProtocolError):
    """A resume turned away, and why."""

    def __init__(self, refusal: ResumeRefusal, detail: str) -> None:
        super().__init__(Code.BAD_FIELD, detail, Check.FRAME)
        self.refusal = refusal


class RestoreRefusal(enum.StrEnum):
    """Why a game's log and secrets give no session to pick up (``Session.restore``)."""

    DOES_NOT_REPLAY = "does-not-replay"
    """A frame of the log is no message, or does not fit the chain."""
    NO_GAME = "no-game"
    """The log stops before the game has an id (both hellos)."""
    OVER = "over"
    """The log holds the game's end: nothing is left to play."""
    WRONG_KEY = "wrong-key"
    """This home's key is not that side's key of the game."""
    SECRETS_DO_NOT_FIT = "secrets-do-not-fit"
    """The secrets kept do not open this side's fleet commitment."""
    NO_SECRETS = "no-secrets"
    """This side committed, and its secrets are not given."""


class NotRestored(UsageError):
    """A game that cannot be picked up from its log, and why (``refusal``)."""

    def __init__(self, refusal: RestoreRefusal, detail: str) -> None:
        super().__init__(detail)
        self.refusal = refusal


def encode_resume(resume: Resume) -> bytes:
    """The body: a msgpack map in this key order (any order reads)."""
    return packed(
        {
            "type": RESUME_TYPE,
            "from": resume.sender.value,
            "game": resume.game,
            "nonce": resume.nonce,
            "have": resume.have,
            "last": resume.last,
            "at": resume.at,
        }
    )


def sign_resume(key: Ed25519PrivateKey, resume: Resume) -> ResumeFrame:
    body = encode_resume(resume)
    return ResumeFrame(body, key.sign(RESUME_LABEL + body), resume)


def read_resume(value: Any) -> ResumeFrame:
    """A resume from one unpacked msgpack value ``[body, signature]``; its signature is not
    checked here (``check_resume``).  Raises ``ResumeError`` (``malformed``)."""
    if (
        not isinstance(value, (list, tuple))
        or len(value) != 2
        or not isinstance(value[0], bytes)
        or not isinstance(value[1], bytes)
        or len(value[1]) != 64
    ):
        raise _malformed("a resume is [body, signature], two bins")
    body, signature = value
    if len(body) > MAX_RESUME:
        raise _malformed(f"a resume body is at most {MAX_RESUME} bytes")
    try:
        fields = read_body(body)
    except ProtocolError as error:
        raise _malformed(error.detail) from None
    if fields.get("type") != RESUME_TYPE:
        raise _malformed("not a resume")
    sender = fields.get("from")
    if sender not in ("host", "guest"):
        raise _malformed("'from' must be host or guest")
    return ResumeFrame(
        body,
        signature,
        Resume(
            Role(sender),
            _bin(fields, "game", HASH_SIZE),
            _bin(fields, "nonce", NONCE_SIZE),
            _count(fields, "have"),
            _bin(fields, "last", HASH_SIZE),
            _count(fields, "at", 2**63),
        ),
    )


def decode_resume(data: bytes) -> ResumeFrame:
    """A resume from its bytes on the wire (exactly one msgpack value)."""
    try:
        value = msgpack.unpackb(data, raw=False, max_bin_len=MAX_RESUME + 64, max_array_len=2)
    except Exception:  # msgpack raises several types for garbage
        raise _malformed("not one msgpack value") from None
    return read_resume(value)


def check_resume(
    frame: ResumeFrame, *, sender: Role, game: bytes, key: bytes, nonce: bytes
) -> None:
    """The checks of the other side's resume, in order; raises ``ResumeError``.

    ``sender`` is the side it must come from, ``game`` the receiver's game id,
    ``key`` the sender's key of that game, ``nonce`` this connection's.
    """
    resume = frame.resume
    if resume.sender is not sender:
        raise ResumeError(ResumeRefusal.WRONG_SIDE, f"a resume from the {resume.sender}")
    if resume.game != game:
        raise ResumeError(ResumeRefusal.UNKNOWN_GAME, "a resume of another game")
    if resume.nonce != nonce:
        raise ResumeError(ResumeRefusal.WRONG_NONCE, "a resume with another connection's nonce")
    if not resume_signature_valid(key, frame):
        raise ResumeError(
            ResumeRefusal.WRONG_KEY, f"the {sender}'s resume signature does not verify"
        )


def resume_signature_valid(key: bytes, frame: ResumeFrame) -> bool:
    try:
        Ed25519PublicKey.from_public_bytes(key).verify(frame.signature, RESUME_LABEL + frame.body)
    except Exception:  # InvalidSignature, or a key that is no key
        return False
    return True


def redial_wait_ms(attempt: int) -> int:
    """How long the guest waits before redial number ``attempt`` (from 0)."""
    return REDIAL_BACKOFF_MS[min(attempt, len(REDIAL_BACKOFF_MS) - 1)]


def _malformed(detail: str) -> ResumeError:
    return ResumeError(ResumeRefusal.MALFORMED, detail)


def _bin(fields: dict[Any, Any], key: str, size: int) -> bytes:
    value = fields.get(key)
    if not isinstance(value, bytes) or len(value) != size:
        raise _malformed(f"{key!r} must be {size} bytes")
    return value


def _count(fields: dict[Any, Any], key: str, bound: int = 2**32) -> int:
    value = fields.get(key)
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < bound:
        raise _malformed(f"{key!r} must be a whole number")
    return value
