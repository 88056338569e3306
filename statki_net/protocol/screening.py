"""Screening a connection to a host, sans I/O: the host says hello, the first frame back decides.

A host says a fresh hello on every connection it screens (its nonce is that
connection's challenge).  What comes back first is one of:

- the guest's hello, signed, fitting after that hello, of this version, and,
  when the host admits by invite, carrying the proof of the invite's secret
  (``wire.guest_proof``): ``GuestProven``, and the candidate becomes the game;
- a guest's hello that is the guest's word but proves nothing (no proof, a
  wrong one) or names another version: ``NotAdmitted``, which the host
  answers with that ``error`` before it closes; the hosting goes on;
- a ``resume`` frame naming a game: ``ResumeAsked``, routed to that game if
  the host has it (the resume handshake checks the rest);
- a ``join`` naming a game by its tag, the connection's first, bound to this
  hello and signed by the key it carries (protocol 5): ``JoinAsked``; the host
  then says the hello of the game named (a new ``Screening``, ``joined`` by
  that key: only a guest's hello with that key is admitted there), or answers
  ``not-invited`` when no game waiting has that tag;
- anything else (bytes that are no frame, a frame that is no guest hello, one
  that fits nowhere or is badly signed): ``Unwanted``, closed without a word.

The asyncio side (``statki_net.net.admission``) bounds the wait and the
number of connections; here are only values.  SPEC.md, section 3
("Admission") is the definition.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any

from statki_net.protocol.commitment import HASH_SIZE
from statki_net.protocol.errors import Code, ProtocolError
from statki_net.protocol.wire import (
    PROTOCOL_VERSION,
    Frame,
    FrameReader,
    Hello,
    Role,
    is_join,
    join_signature_valid,
    proof_holds,
    read_body,
    read_envelope,
    read_join,
    signature_valid,
)

RESUME_TYPE = "resume"
"""The ``type`` of the message a guest that resumes a game answers the hello with."""


class Refusal(enum.StrEnum):
    """Why a connection was turned away: the counts a daemon's status reports."""

    CLOSED = "closed"
    """It closed before the host could speak: a port scan, most likely."""
    SPOKE_FIRST = "spoke-first"
    """It spoke before the host: a client of another protocol."""
    NO_GAME = "no-game"
    """No game is waiting for a guest (or it was taken meanwhile)."""
    TOO_MANY = "too-many"
    """Too many connections are being screened from its address, or it was the oldest of the
    address screened most when all were taken (a newcomer needed its room)."""
    SILENT = "silent"
    """It said nothing whole within the admission wait after the host's hello."""
    GARBAGE = "garbage"
    """What it sent after the host's hello is no frame at all."""
    NOT_A_GUEST = "not-a-guest"
    """A frame, but no guest's hello that fits this connection's host hello and is signed."""
    NOT_INVITED = "not-invited"
    """A guest's hello without the proof of the invite's secret (answered, then closed)."""
    VERSION = "version"
    """A guest's hello of another protocol version (answered, then closed)."""
    NO_RESUME = "no-resume"
    """A resume for a game this host does not wait to resume."""
    BAD_JOIN = "bad-join"
    """A join that is not this connection's (another hello's, badly signed, ill-formed) or
    not its first."""


@dataclass(frozen=True)
class GuestProven:
    """The guest is admitted: the candidate becomes the game."""

    received: bytes
    """Every byte read after the host's hello, the guest's hello first: the game reads them."""


@dataclass(frozen=True)
class NotAdmitted:
    """The guest's word, but not admitted: answer with this ``error``, then close."""

    code: Code
    detail: str
    refusal: Refusal


@dataclass(frozen=True)
class ResumeAsked:
    """A ``resume`` frame: the game it names, if the host has it, takes the connection."""

    game: bytes
    frame: bytes
    """The frame, ``[body, signature]`` with both exactly as received."""
    rest: bytes
    """Whatever followed it in the same reads."""


@dataclass(frozen=True)
class JoinAsked:
    """A guest names the game it was invited to: the host says that game's hello next."""

    tag: bytes | None
    """The game's tag; None names the game open to anyone."""
    key: bytes
    """The guest's key: its hello, after the named game's, must carry it."""
    rest: bytes
    """Whatever followed the join in the same reads."""


@dataclass(frozen=True)
class Unwanted:
    """Not a guest: closed without a word."""

    refusal: Refusal


Decision = GuestProven | NotAdmitted | ResumeAsked | JoinAsked | Unwanted


def wants_join(hello: Hello, tag: bytes | None) -> bool:
    """Whether a guest holding the invite of ``tag`` (None: no secret) answers the host's
    ``hello`` with a ``join`` rather than its own hello (SPEC.md, section 3, "Admission").

    Only where the host says other games wait (``join``) and this hello is of
    another game than the invite's; elsewhere the guest goes on as a version 4
    guest did.  A guest joins once a connection: this is asked of its first hello.
    """
    return hello.join and hello.tag != tag


class Screening:
    """One connection after the host's ``hello``: feed what comes back until it decides."""

    def __init__(
        self,
        host_hello: Frame,
        secret: bytes | None,
        joined: bytes | None = None,
        *,
        only: bytes | None = None,
    ) -> None:
        self.host_hello = host_hello
        self.secret = secret
        """The invite's secret, or None for a host open to anyone."""
        self.only = only
        """A rematch's: the one guest key admitted (the last game's opponent); None: any."""
        self.joined = joined
        """The key of the connection's ``join``, once it has sent one: this hello answers it,
        and only a guest's hello with that key may follow (no second join, no resume)."""
        self._reader = FrameReader()
        self._received = bytearray()

    @property
    def challenge(self) -> bytes:
        """The nonce of this connection's host hello: what a resume must name."""
        hello = self.host_hello.message
        assert isinstance(hello, Hello)
        return hello.nonce

    def feed(self, data: bytes) -> Decision | None:
        """None until the first whole frame (or bytes that cannot become one) has come."""
        self._received += data
        try:
            for value in self._reader.values(data):
                return self._decide(value)
        except ProtocolError:
            return Unwanted(Refusal.GARBAGE)
        return None

    def _decide(self, value: Any) -> Decision:
        game = _resume_game(value)
        if game is not None:
            if self.joined is not None:  # a resume names its game by id, on a first frame
                return Unwanted(Refusal.NOT_A_GUEST)
            end = self._reader.consumed
            return ResumeAsked(game, bytes(self._received[:end]), bytes(self._received[end:]))
        if is_join(value):
            return self._join(value)
        try:
            envelope = read_envelope(value)
        except ProtocolError:
            return Unwanted(Refusal.GARBAGE)
        header = envelope.header
        key = envelope.hello_key
        if (
            header.sender is not Role.GUEST
            or header.seq != 1
            or header.prev != self.host_hello.digest
            or key is None
            or (self.joined is not None and key != self.joined)
            or not signature_valid(key, envelope)
        ):
            return Unwanted(Refusal.NOT_A_GUEST)
        protocol = envelope.fields.get("protocol")
        if type(protocol) is not int or protocol != PROTOCOL_VERSION:  # not 3.0, nor True
            detail = f"protocol {str(protocol)[:20]} is not supported (this is {PROTOCOL_VERSION})"
            return NotAdmitted(Code.VERSION, detail, Refusal.VERSION)
        proof = envelope.fields.get("proof")
        invited = self.secret is None or proof_holds(self.secret, self.host_hello.body, key, proof)
        if self.only is not None and (key != self.only or not invited):
            # One detail for a wrong key and a wrong secret: a stranger learns neither
            # whether the secret it tried was right nor which half of it failed.
            detail = "this game is a rematch: it admits only the last game's opponent"
            return NotAdmitted(Code.NOT_INVITED, detail, Refusal.NOT_INVITED)
        if not invited:
            detail = "this host admits only the guest it invited: the hello proves no invite"
            return NotAdmitted(Code.NOT_INVITED, detail, Refusal.NOT_INVITED)
        return GuestProven(bytes(self._received))

    def _join(self, value: Any) -> JoinAsked | Unwanted:
        """A join, checked in SPEC.md's order: its shape, the first of the connection, bound
        to this hello, signed; which game it names is the host's to look up."""
        try:
            frame = read_join(value)
        except ProtocolError:
            return Unwanted(Refusal.BAD_JOIN)
        if (
            self.joined is not None
            or frame.join.hello != self.host_hello.digest
            or not join_signature_valid(frame)
        ):
            return Unwanted(Refusal.BAD_JOIN)
        rest = bytes(self._received[self._reader.consumed :])
        return JoinAsked(frame.join.tag, frame.join.key, rest)


def _resume_game(value: Any) -> bytes | None:
    """The game a ``resume`` frame names, or None for any other value.

    Read only so far as to route it: ``[body, signature]`` whose body is a map
    of ``type`` ``resume`` with a 32-byte ``game``.  The resume handshake
    checks the signature and everything else.
    """
    if not (
        isinstance(value, list)
        and len(value) == 2
        and isinstance(value[0], bytes)
        and isinstance(value[1], bytes)
    ):
        return None
    try:
        fields = read_body(value[0])
    except ProtocolError:
        return None
    game = fields.get("game")
    if fields.get("type") != RESUME_TYPE or not isinstance(game, bytes) or len(game) != HASH_SIZE:
        return None
    return game
