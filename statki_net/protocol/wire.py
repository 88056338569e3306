"""Every message on the wire: frozen dataclasses, and their encoding in one place.

A frame is a msgpack array ``[body, signature]``: ``body`` is a msgpack bin
holding the message map's exact bytes, ``signature`` the sender's Ed25519
signature over ``SIGN_LABEL || body``.  Signatures and the hash chain are over
these bytes as received, never over a re-encoding (msgpack is not canonical).
SPEC.md ("Messages") lists every key this module reads and writes.

Reading goes in the stages of SPEC.md section 3 ("the order of checks"), since
what a failure means depends on where it comes: ``read_envelope`` takes a
frame through the frame, the body and the header that places it (steps 1-3,
failures there prove nothing of who sent the bytes); the transcript then
checks the fit and the signature; ``Envelope.open`` reads the message itself
(step 5, a failure there is the sender's word breaking the protocol).
"""

from __future__ import annotations

import enum
import functools
import hashlib
import hmac
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, TypeVar

import msgpack
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from statki_net.game.battle import Answer, Outcome
from statki_net.game.english import N_
from statki_net.game.words import Phrase, phrase, printable
from statki_net.protocol.commitment import HASH_SIZE, SECRET_SIZE, Opening
from statki_net.protocol.errors import Check, Code, ProtocolError

_PACKER = msgpack.Packer(use_bin_type=True)
"""The one packer ``packed`` reuses."""


def packed(value: object) -> bytes:
    """``value``'s msgpack bytes (``bin`` for bytes): how the peer encodes msgpack.

    ``msgpack.packb`` makes a packer a call, and a packer allocates a 256 KiB buffer:
    where glibc's mmap threshold is fixed (``statki daemon`` fixes it) every call maps
    and unmaps that memory, some 7 µs instead of under 1 for a frame's few dozen bytes.
    One packer may serve every thread: its ``pack`` is C that holds the GIL from the first
    byte to the last (no ``default`` hook calls back into Python), and resets its buffer
    when it returns or raises.
    """
    return bytes(_PACKER.pack(value))


PROTOCOL_VERSION = 5
MAX_FRAME = 64 * 1024
"""Largest frame in bytes; a peer sending more is cut off."""
READ_SIZE = MAX_FRAME
"""Bytes a peer's stream is read by at a time, and its buffer (``asyncio``'s ``limit``):
the largest frame, a piece, fits; the session refuses what is larger."""
SIGN_LABEL = b"statki/v1/sign\x00"
HASH_LABEL = b"statki/v1/msg\x00"
GAME_LABEL = b"statki/v1/game\x00"
PROOF_LABEL = b"statki/v1/proof\x00"
"""Domain separation of the guest's proof that it holds the invite's secret (SPEC.md, section 3)."""
INVITE_SECRET_SIZE = 16
"""Bytes of the one-time secret an invite carries (32 hex digits)."""
PROOF_SIZE = 32
SAY_LABEL = b"statki/v4/say\x00"
"""What a ``say``'s signature is over, before its body: never a message's ``SIGN_LABEL``,
so no talk can pass for a message of the game, nor a message for talk."""
SAY_TYPE = "say"
TAG_LABEL = b"statki/v5/tag\x00"
"""What the game tag is an HMAC of, under the invite's secret (SPEC.md, section 3, "Admission")."""
TAG_SIZE = 16
"""Bytes of a game tag: the first 16 of that HMAC."""
JOIN_LABEL = b"statki/v5/join\x00"
"""What a ``join``'s signature is over, before its body: never a message's ``SIGN_LABEL``,
so no join can pass for a message of the game, nor a message for a join."""
JOIN_TYPE = "join"
MAX_JOIN = 256
"""Largest ``join`` body in bytes."""
REMATCH_SECRET = "rematch-secret"
"""The capability of a side that admits a rematch by a secret drawn from the game just
played (SPEC.md, section 14): every statki hello lists it."""
CAPS = (REMATCH_SECRET,)
"""The capabilities a statki side lists in its hello."""
REMATCH_LABEL = b"statki/v5/rematch\x00"
"""What a rematch's secret is an HMAC of, before the id of the game just played, under the
invite's secret (or, for a game open to anyone, an HMAC of alone, under that id)."""
GENESIS = bytes(HASH_SIZE)
"""The ``prev`` of the first message: 32 zero bytes."""
MAX_TEXT = 200
"""Characters in any text field."""
MAX_LIST = 1024
"""Items in any array."""
MAX_MAP = 64
"""Entries in any map."""


class Admit(enum.StrEnum):
    """Whom a host admits as its guest: its hello's ``admit``."""

    INVITE = "invite"
    """Only a guest that proves it holds the invite's secret."""
    OPEN = "open"
    """Anyone (``--open``, for a LAN)."""


class Role(enum.StrEnum):
    HOST = "host"
    GUEST = "guest"

    @property
    def other(self) -> Role:
        return Role.GUEST if self is Role.HOST else Role.HOST


def fail(code: Code, detail: Phrase | str, check: Check = Check.DECODE) -> ProtocolError:
    """The error of a failed check; most of this module's are step 5's (``Check.DECODE``)."""
    return ProtocolError(code, detail, check)


# ---------------------------------------------------------------- messages


@dataclass(frozen=True)
class Limits:
    """Time limits proposed by the host, in milliseconds (bounded: ``protocol.bounds``)."""

    move_ms: int = 120_000
    """Longest wait for the other side's next message during play."""
    reveal_ms: int = 60_000
    """Longest wait for a message once the battle is over."""

    def to_map(self) -> dict[str, Any]:
        """The limits as the hello's ``limits`` map."""
        return {"move_ms": self.move_ms, "reveal_ms": self.reveal_ms}


@dataclass(frozen=True)
class Hello:
    """The first message of each side."""

    TYPE: ClassVar[str] = "hello"
    protocol: int
    """Protocol version; this is version 5."""
    software: str
    """Implementation name and version, for people: "statki 0.1.0"."""
    key: bytes
    """The sender's Ed25519 public key, 32 bytes; it signs every message, this one included."""
    name: str
    """The display name the player chose; may be empty."""
    nonce: bytes
    """32 fresh random bytes, so every game id is new."""
    caps: tuple[str, ...] = ()
    """Capabilities this side understands beyond this version."""
    rules: Mapping[str, Any] | None = None
    """The host's proposed ruleset, as the map it sent (SPEC.md section 7); absent from the
    guest's hello.  Decoding checks only that it is a map: the transcript reads and bounds
    it with the hello's content, after the signature (``Ruleset.from_map``)."""
    limits: Mapping[str, Any] | None = None
    """The host's time limits, as the map it sent (read with ``read_limits``, like ``rules``)."""
    first: Role | None = None
    """Host only, optional: who shoots first, agreed with the rules instead of left
    to the coin toss (a rematch in which the other player starts)."""
    admit: Admit | None = None
    """Host only: whether it admits only the guest it invited; absent means ``open``."""
    proof: bytes | None = None
    """Guest only: ``guest_proof`` of the invite's secret, for a host that admits by invite."""
    tag: bytes | None = None
    """Host only: the game tag (``game_tag``) of the game this hello is of; None for an open one."""
    join: bool = False
    """Host only: another game waits on this port too, so a guest of another may ``join``."""


@dataclass(frozen=True)
class Accept:
    """The guest agrees to the host's rules and limits."""

    TYPE: ClassVar[str] = "accept"


@dataclass(frozen=True)
class Refuse:
    """The guest declines the host's rules; the game ends before it starts."""

    TYPE: ClassVar[str] = "refuse"
    reason: str


@dataclass(frozen=True)
class Commit:
    """A side's fleet commitment and coin commitment."""

    TYPE: ClassVar[str] = "commit"
    fleet: bytes
    """The Merkle root over the sender's board (SPEC.md, "The fleet commitment")."""
    ships: bytes
    """The digest binding how the board's ship squares split into ships."""
    coin: bytes
    """SHA-256 of the coin label, game id, role and the sender's coin."""


@dataclass(frozen=True)
class Coin:
    """A side opens its coin."""

    TYPE: ClassVar[str] = "coin"
    coin: bytes
    """32 random bytes committed to earlier."""


@dataclass(frozen=True)
class Shot:
    """A volley: the squares fired at, in order."""

    TYPE: ClassVar[str] = "shot"
    squares: tuple[int, ...]


@dataclass(frozen=True)
class Reply:
    """The answer to a volley, with an opening of every square it proves."""

    TYPE: ClassVar[str] = "answer"
    answer: Answer
    proofs: tuple[Opening, ...] = ()
    """Openings of the shot squares and, after a sink, of the squares marked empty."""


@dataclass(frozen=True)
class Resign:
    """The sender gives up; the other side wins."""

    TYPE: ClassVar[str] = "resign"


@dataclass(frozen=True)
class TimeClaim:
    """The sender claims the win: the other side has not spoken in time."""

    TYPE: ClassVar[str] = "timeout"
    waited_ms: int


@dataclass(frozen=True)
class Reveal:
    """The sender's whole fleet and the secret its commitment was made with."""

    TYPE: ClassVar[str] = "reveal"
    fleet: tuple[tuple[int, ...], ...]
    """Ships as lists of squares, in the order of the rules' fleet."""
    secret: bytes


@dataclass(frozen=True)
class Verdict:
    """The sender's judgement of the finished game."""

    TYPE: ClassVar[str] = "verdict"
    winner: Role | None
    """Who won, or None when the game ended without a winner."""
    end: str
    """How it ended: sunk, resigned or cheated, the ends a game reaching the verdicts has."""
    findings: tuple[str, ...] = ()
    """Each thing the sender found wrong with the other side, in words; empty when honest."""


@dataclass(frozen=True)
class Error:
    """The sender stops the game because of a protocol error (SPEC.md, "Errors")."""

    TYPE: ClassVar[str] = "error"
    code: str
    detail: str


Message = (
    Hello
    | Accept
    | Refuse
    | Commit
    | Coin
    | Shot
    | Reply
    | Resign
    | TimeClaim
    | Reveal
    | Verdict
    | Error
)


@dataclass(frozen=True)
class Header:
    """The fields every message body carries besides its own."""

    sender: Role
    """Key ``from``: who sent it."""
    seq: int
    """Position in the game's transcript, from 0."""
    prev: bytes
    """Hash of the previous message (``GENESIS`` for the first)."""
    game: bytes = b""
    """The game id; empty in messages 0 and 1 (it is ignored there), required from message 2."""
    at: int = 0
    """The sender's clock, milliseconds since 1970; not trusted, but a time claim must agree
    with its sender's own (SPEC.md section 12)."""


@dataclass(frozen=True)
class Frame:
    """A message as it travels: the body's exact bytes and the signature over them."""

    body: bytes
    signature: bytes
    header: Header = field(compare=False)
    message: Message = field(compare=False)

    @property
    def digest(self) -> bytes:
        """The frame's hash in the chain, computed once: the next message's ``prev`` and
        every look at where a frame fits ask for it again.  Kept by hand, not by
        ``functools.cached_property``, which takes a lock at every first look in 3.11."""
        kept: bytes | None = self.__dict__.get("_digest")
        if kept is None:
            kept = self.__dict__["_digest"] = message_hash(self.body)
        return kept

    @property
    def type(self) -> str:
        """The ``type`` its body names, as ``Envelope.type`` reads it."""
        return self.message.TYPE

    @property
    def hello_key(self) -> bytes | None:
        """The key of a hello (32 bytes, or it would not have been read), as
        ``Envelope.hello_key`` reads it."""
        return self.message.key if isinstance(self.message, Hello) else None

    def encode(self) -> bytes:
        return packed([self.body, self.signature])


@dataclass(frozen=True)
class Say:
    """A player's line of talk (SPEC.md section 6, "say"): no message of the game.

    It has no ``seq`` or ``prev`` and never joins a transcript, so nothing said,
    however it interleaves with the game's messages, can change what the
    transcript says.  It is bound to the game by ``game`` and ordered among its
    sender's talk by ``n``.
    """

    sender: Role
    """Key ``from``."""
    game: bytes
    """The game id (SPEC.md section 4): talk signed in one game is worthless in another."""
    n: int
    """The sender's count of its talk in this game, from 0, rising with every line."""
    seen: int
    """How many messages the sender's transcript held when it spoke: where the line stands."""
    at: int
    """The sender's clock, ms since 1970; for people."""
    text: str


@dataclass(frozen=True)
class SayFrame:
    """A ``say`` as it travels: ``[body, signature]``, the body's exact bytes kept."""

    body: bytes
    signature: bytes
    say: Say

    @property
    def digest(self) -> bytes:
        return message_hash(self.body)

    def encode(self) -> bytes:
        return packed([self.body, self.signature])


def message_hash(body: bytes) -> bytes:
    return hashlib.sha256(HASH_LABEL + body).digest()


def guest_proof(secret: bytes, host_hello: bytes, guest_key: bytes) -> bytes:
    """The guest's proof that it holds the invite's ``secret`` (SPEC.md, section 3).

    Bound to this connection's host hello (its exact body, with its fresh
    nonce) and to the guest's key: the secret never travels, and a proof seen
    on one connection is worth nothing on another.
    """
    message = PROOF_LABEL + message_hash(host_hello) + guest_key
    return hmac.new(secret, message, hashlib.sha256).digest()


def proof_holds(secret: bytes, host_hello: bytes, guest_key: bytes, proof: object) -> bool:
    """Whether ``proof`` is the guest's proof of ``secret``; compared in constant time."""
    if not isinstance(proof, bytes):
        return False
    return hmac.compare_digest(proof, guest_proof(secret, host_hello, guest_key))


def rematch_secret(game: bytes, invite: bytes | None) -> bytes:
    """The secret a rematch admits by, after the game whose id is ``game``, where both
    sides list ``REMATCH_SECRET`` (SPEC.md, section 14): keyed by the ``invite``'s secret,
    which an observer of the hellos does not hold, so that only the two players can prove
    it; for a game open to anyone (``invite`` None) keyed by the game id alone, which names
    the rematch apart from the host's other games but keeps nobody out."""
    if invite is None:
        return hmac.new(game, REMATCH_LABEL, hashlib.sha256).digest()[:INVITE_SECRET_SIZE]
    return hmac.new(invite, REMATCH_LABEL + game, hashlib.sha256).digest()[:INVITE_SECRET_SIZE]


def game_tag(secret: bytes) -> bytes:
    """The public name of the game an invite's ``secret`` admits to (SPEC.md, section 3).

    An HMAC under the secret, so it tells nothing of it, and the same for every
    connection: a guest names its game by it without proving anything yet.
    """
    return hmac.new(secret, TAG_LABEL, hashlib.sha256).digest()[:TAG_SIZE]


@dataclass(frozen=True)
class Join:
    """A guest's ``join``: the game it was invited to, named on a host of several (SPEC.md,
    section 6, "join").  No message of the game: no ``seq``, no ``prev``, never in a log."""

    key: bytes
    """The guest's key: it signs this, and the guest's hello must then carry it."""
    hello: bytes
    """``message_hash`` of the host's hello on this connection: a join is worth nothing on
    another connection."""
    tag: bytes | None
    """The game's tag (``game_tag``), or None for the host's game open to anyone."""
    at: int
    """The guest's clock, ms since 1970; for people."""


@dataclass(frozen=True)
class JoinFrame:
    """A ``join`` as it travels: ``[body, signature]``, the body's exact bytes kept."""

    body: bytes
    signature: bytes
    join: Join

    def encode(self) -> bytes:
        return packed([self.body, self.signature])


def encode_join(join: Join) -> bytes:
    """A join's body: a msgpack map in this key order (any order reads); no ``tag`` names the
    open game."""
    body: dict[str, Any] = {
        "type": JOIN_TYPE,
        "from": Role.GUEST.value,
        "key": join.key,
        "hello": join.hello,
    }
    if join.tag is not None:
        body["tag"] = join.tag
    body["at"] = join.at
    return packed(body)


def sign_join(key: Ed25519PrivateKey, join: Join) -> JoinFrame:
    body = encode_join(join)
    return JoinFrame(body, key.sign(JOIN_LABEL + body), join)


def join_signature_valid(frame: JoinFrame) -> bool:
    """Whether the join is signed by the key it carries."""
    try:
        Ed25519PublicKey.from_public_bytes(frame.join.key).verify(
            frame.signature, JOIN_LABEL + frame.body
        )
    except (InvalidSignature, ValueError):
        return False
    return True


def game_id(host_hello: bytes, guest_hello: bytes) -> bytes:
    """The game id: a hash of both hellos' exact bytes."""
    return hashlib.sha256(
        GAME_LABEL + message_hash(host_hello) + message_hash(guest_hello)
    ).digest()


# ---------------------------------------------------------------- encoding


def _opening_to_wire(opening: Opening) -> list[Any]:
    return [opening.square, opening.ship, opening.salt, list(opening.path)]


def _fields(message: Message) -> dict[str, Any]:
    match message:
        case Hello():
            fields: dict[str, Any] = {
                "protocol": message.protocol,
                "software": message.software,
                "key": message.key,
                "name": message.name,
                "nonce": message.nonce,
                "caps": list(message.caps),
            }
            if message.rules is not None:
                fields["rules"] = dict(message.rules)
            if message.limits is not None:
                fields["limits"] = dict(message.limits)
            if message.first is not None:
                fields["first"] = message.first.value
            if message.admit is not None:
                fields["admit"] = message.admit.value
            if message.proof is not None:
                fields["proof"] = message.proof
            if message.tag is not None:
                fields["tag"] = message.tag
            if message.join:
                fields["join"] = True
            return fields
        case Accept() | Resign():
            return {}
        case Refuse():
            return {"reason": message.reason}
        case Commit():
            return {"fleet": message.fleet, "ships": message.ships, "coin": message.coin}
        case Coin():
            return {"coin": message.coin}
        case Shot():
            return {"squares": list(message.squares)}
        case Reply():
            answer = message.answer
            reply: dict[str, Any] = {"hits": answer.hits, "sunk": answer.sunk}
            if answer.outcomes:
                reply["outcomes"] = [o.value for o in answer.outcomes]
            if answer.names:
                reply["names"] = list(answer.names)
            reply["proofs"] = [_opening_to_wire(p) for p in message.proofs]
            return reply
        case TimeClaim():
            return {"waited_ms": message.waited_ms}
        case Reveal():
            return {"fleet": [list(ship) for ship in message.fleet], "secret": message.secret}
        case Verdict():
            return {
                "winner": message.winner.value if message.winner else None,
                "end": message.end,
                "findings": list(message.findings),
            }
        case Error():
            return {"code": message.code, "detail": message.detail}


def encode_body(header: Header, message: Message) -> bytes:
    body: dict[str, Any] = {
        "type": message.TYPE,
        "from": header.sender.value,
        "seq": header.seq,
        "prev": header.prev,
    }
    if header.game:
        body["game"] = header.game
    body["at"] = header.at
    body.update(_fields(message))
    return packed(body)


def _plain_count(value: object) -> bool:
    """An int, exactly (no bool, no subclass), that ``_count`` reads back as itself."""
    return type(value) is int and 0 <= value < 2**32


def _plain_bytes(value: object, size: int) -> bool:
    return type(value) is bytes and len(value) == size


def _plain_texts(values: object) -> bool:
    return (
        type(values) is tuple
        and len(values) <= MAX_LIST
        and all(type(v) is str and len(v) <= MAX_TEXT for v in values)
    )


def _plain_opening(opening: object) -> bool:
    return (
        type(opening) is Opening
        and type(opening.square) is int
        and 0 <= opening.square < 65536
        and type(opening.ship) is bool
        and _plain_bytes(opening.salt, HASH_SIZE)
        and type(opening.path) is tuple
        and len(opening.path) <= 16
        and all(_plain_bytes(p, HASH_SIZE) for p in opening.path)
    )


def reads_back_as_built(header: Header, message: Message) -> bool:
    """Whether ``decode_body(encode_body(header, message))`` is ``(header, message)``, known
    from the values alone, without encoding or reading a byte.

    A side must never send what its peer would refuse, so its own frames were once read
    back from their bytes (``Transcript.check``).  For the battle's two messages, nearly
    every frame of a game, the values say it at once: every field is of exactly the type
    the decoder returns (no bool for an int, no subclass), within the bounds it checks
    (``_count``, ``_square``, ``_short_text``, ``_opening``, the sizes of ``_bytes``),
    and each tuple holds what the decoder builds from its list, so encoding then decoding
    gives back equal values.  False means "not known": the frame is read back as before,
    so anything unusual (a cheat's, a caller's odd values) is judged exactly as it was.
    ``tests/protocol/test_read_back.py`` checks the promise over arbitrary values.
    """
    if not (
        type(header.sender) is Role
        and _plain_count(header.seq)
        and _plain_bytes(header.prev, HASH_SIZE)
        and (_plain_bytes(header.game, HASH_SIZE) if header.seq >= 2 else header.game == b"")
        and type(header.at) is int
        and -(2**63) <= header.at < 2**64
    ):
        return False
    match message:
        case Shot(squares=squares):
            return (
                type(message) is Shot
                and type(squares) is tuple
                and len(squares) <= MAX_LIST
                and all(type(s) is int and 0 <= s < 65536 for s in squares)
            )
        case Reply(answer=answer, proofs=proofs):
            return (
                type(message) is Reply
                and type(answer) is Answer
                and type(answer.outcomes) is tuple
                and len(answer.outcomes) <= MAX_LIST
                and all(type(o) is Outcome for o in answer.outcomes)
                and _plain_count(answer.hits)
                and _plain_count(answer.sunk)
                and _plain_texts(answer.names)
                and type(proofs) is tuple
                and len(proofs) <= MAX_LIST
                and all(_plain_opening(p) for p in proofs)
            )
        case _:
            return False


def sign(key: Ed25519PrivateKey, header: Header, message: Message) -> Frame:
    body = encode_body(header, message)
    return Frame(body, key.sign(SIGN_LABEL + body), header, message)


@functools.lru_cache(maxsize=64)
def _verifier(public_key: bytes) -> Ed25519PublicKey:
    """A key loaded once for all the frames it signs (a pure function of its bytes): a
    game's two keys, not one load a frame."""
    return Ed25519PublicKey.from_public_bytes(public_key)


def signature_valid(public_key: bytes, frame: Frame | Envelope) -> bool:
    try:
        _verifier(public_key).verify(frame.signature, SIGN_LABEL + frame.body)
    except (InvalidSignature, ValueError):
        return False
    return True


def encode_say(say: Say) -> bytes:
    """A say's body: a msgpack map in this key order (any order reads)."""
    return packed(
        {
            "type": SAY_TYPE,
            "from": say.sender.value,
            "game": say.game,
            "n": say.n,
            "seen": say.seen,
            "at": say.at,
            "text": say.text,
        }
    )


def sign_say(key: Ed25519PrivateKey, say: Say) -> SayFrame:
    body = encode_say(say)
    return SayFrame(body, key.sign(SAY_LABEL + body), say)


def say_signature_valid(public_key: bytes, frame: SayFrame) -> bool:
    try:
        Ed25519PublicKey.from_public_bytes(public_key).verify(
            frame.signature, SAY_LABEL + frame.body
        )
    except (InvalidSignature, ValueError):
        return False
    return True


# ---------------------------------------------------------------- decoding

T = TypeVar("T")


def _need(
    body: Mapping[str, Any], key: str, kind: type[T], what: str, check: Check = Check.DECODE
) -> T:
    if key not in body:
        raise fail(Code.BAD_FIELD, f"missing {key!r}", check)
    value = body[key]
    # A bool is no int, and neither is a float, even a whole one (SPEC.md section 2).
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise fail(Code.BAD_FIELD, f"{key!r} must be {what}", check)
    return value


def _text(body: Mapping[str, Any], key: str) -> str:
    value = _need(body, key, str, "a string")
    if len(value) > MAX_TEXT:
        raise fail(Code.BAD_FIELD, f"{key!r} is longer than {MAX_TEXT} characters")
    return value


def _bytes(body: Mapping[str, Any], key: str, size: int, check: Check = Check.DECODE) -> bytes:
    value = _need(body, key, bytes, f"{size} bytes", check)
    if len(value) != size:
        raise fail(Code.BAD_FIELD, f"{key!r} must be {size} bytes, not {len(value)}", check)
    return value


def _count(body: Mapping[str, Any], key: str, check: Check = Check.DECODE) -> int:
    value = _need(body, key, int, "a whole number", check)
    if not 0 <= value < 2**32:
        raise fail(Code.BAD_FIELD, f"{key!r} is out of range", check)
    return value


def _list(body: Mapping[str, Any], key: str, item: Callable[[Any], T]) -> tuple[T, ...]:
    value = _need(body, key, list, "a list")
    if len(value) > MAX_LIST:
        raise fail(Code.BAD_FIELD, f"{key!r} is too long")
    return tuple(item(v) for v in value)


def _square(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < 65536:
        raise fail(Code.BAD_FIELD, "a square must be a whole number")
    return value


def _words(body: Mapping[str, Any], key: str) -> str:
    """A text for people (a name, a reason, a detail), as a screen may show it: the signed
    bytes keep what the sender wrote; what is read, told and recorded holds no control
    character (``printable``; SPEC.md section 2, "Text")."""
    return printable(_text(body, key))


def _finding(value: Any) -> str:
    return printable(_short_text(value))


def _short_text(value: Any) -> str:
    if not isinstance(value, str) or len(value) > MAX_TEXT:
        raise fail(Code.BAD_FIELD, "expected a short string")
    return value


def _hash(value: Any) -> bytes:
    if not isinstance(value, bytes) or len(value) != HASH_SIZE:
        raise fail(Code.BAD_FIELD, f"expected {HASH_SIZE} bytes")
    return value


def _opening(value: Any) -> Opening:
    if not isinstance(value, list) or len(value) != 4:
        raise fail(Code.BAD_FIELD, "a proof is [square, ship, salt, path]")
    square, ship, salt, path = value
    if not isinstance(ship, bool) or not isinstance(path, list) or len(path) > 16:
        raise fail(Code.BAD_FIELD, "a proof is [square, ship, salt, path]")
    return Opening(_square(square), ship, _hash(salt), tuple(_hash(p) for p in path))


def _ship(value: Any) -> tuple[int, ...]:
    # An empty ship is refused here, not found at the reveal (SPEC.md section 6, "reveal").
    if not isinstance(value, list) or not value or len(value) > 26:
        raise fail(Code.BAD_FIELD, "a ship is a list of 1 to 26 squares")
    return tuple(_square(v) for v in value)


_OUTCOMES = {outcome.value: outcome for outcome in Outcome}
"""Each outcome by its wire name: a dict's look-up, not the enum's call (an outcome a shot
in every answer read)."""


def _outcome(value: Any) -> Outcome:
    outcome = _OUTCOMES.get(value) if isinstance(value, str) else None
    if outcome is None:
        raise fail(Code.BAD_FIELD, f"unknown outcome {value!r}")
    return outcome


def _map(body: Mapping[str, Any], key: str) -> Mapping[str, Any] | None:
    """An optional map, taken as it is: what it holds is checked elsewhere, if at all."""
    return _need(body, key, dict, "a map") if key in body else None


def _hello(body: Mapping[str, Any]) -> Hello:
    # ``protocol`` was read first, by ``Envelope.open``: a hello of another version
    # gets ``version`` whatever else it holds.
    return Hello(
        protocol=_count(body, "protocol"),
        software=_words(body, "software"),
        key=_bytes(body, "key", 32),
        name=_words(body, "name"),
        nonce=_bytes(body, "nonce", 32),
        caps=_list(body, "caps", _short_text) if "caps" in body else (),
        rules=_map(body, "rules"),
        limits=_map(body, "limits"),
        first=_role(body["first"]) if "first" in body else None,
        admit=_admit(body["admit"]) if "admit" in body else None,
        proof=_bytes(body, "proof", PROOF_SIZE) if "proof" in body else None,
        tag=_bytes(body, "tag", TAG_SIZE) if "tag" in body else None,
        join=_need(body, "join", bool, "true or false") if "join" in body else False,
    )


def _admit(value: Any) -> Admit:
    if value not in ("invite", "open"):
        raise fail(Code.BAD_FIELD, "'admit' is invite or open")
    return Admit(value)


def _role(value: Any) -> Role:
    if value not in ("host", "guest"):
        raise fail(Code.BAD_FIELD, "a role is host or guest")
    return Role(value)


def _reply(body: Mapping[str, Any]) -> Reply:
    outcomes = _list(body, "outcomes", _outcome) if "outcomes" in body else ()
    names = _list(body, "names", _short_text) if "names" in body else ()
    answer = Answer(outcomes, hits=_count(body, "hits"), sunk=_count(body, "sunk"), names=names)
    return Reply(answer, _list(body, "proofs", _opening) if "proofs" in body else ())


def _verdict(body: Mapping[str, Any]) -> Verdict:
    winner = body.get("winner")
    if winner is not None and winner not in ("host", "guest"):
        raise fail(Code.BAD_FIELD, "'winner' must be host, guest or nil")
    return Verdict(
        Role(winner) if winner else None,
        _text(body, "end"),
        _list(body, "findings", _finding) if "findings" in body else (),
    )


DECODERS: dict[str, Callable[[Mapping[str, Any]], Message]] = {
    "hello": _hello,
    "accept": lambda body: Accept(),
    "refuse": lambda body: Refuse(_words(body, "reason")),
    "commit": lambda body: Commit(
        _bytes(body, "fleet", HASH_SIZE),
        _bytes(body, "ships", HASH_SIZE),
        _bytes(body, "coin", HASH_SIZE),
    ),
    "coin": lambda body: Coin(_bytes(body, "coin", 32)),
    "shot": lambda body: Shot(_list(body, "squares", _square)),
    "answer": _reply,
    "resign": lambda body: Resign(),
    "timeout": lambda body: TimeClaim(_count(body, "waited_ms")),
    "reveal": lambda body: Reveal(_list(body, "fleet", _ship), _bytes(body, "secret", SECRET_SIZE)),
    "verdict": _verdict,
    "error": lambda body: Error(_text(body, "code"), _words(body, "detail")),
}


def read_limits(limits: Mapping[str, Any]) -> Limits:
    """The host's ``limits`` map as ``Limits``: two counts, else ``bad-field``.

    A failure here is the hello's content (SPEC.md section 6), checked after its
    signature: the host's word, refused.
    """
    return Limits(
        _count(limits, "move_ms", Check.CONTENT), _count(limits, "reveal_ms", Check.CONTENT)
    )


def _map_without_repeats(pairs: list[tuple[Any, Any]]) -> dict[Any, Any]:
    """A map with each key once: two readers must never take different values from one body."""
    result = dict(pairs)
    if len(result) != len(pairs):
        raise ValueError("a key is repeated in a map")
    return result


def read_body(body: bytes) -> dict[Any, Any]:
    """Step 2: the body is one well-formed msgpack map (SPEC.md section 2), else ``malformed``.

    Keys are ``str`` or ``bin``; a ``bin`` key never equals a ``str`` one, so it
    is ignored like any unknown key.
    """
    try:
        value = msgpack.unpackb(
            body,
            raw=False,
            strict_map_key=True,
            max_bin_len=MAX_FRAME,
            max_str_len=MAX_FRAME,
            max_array_len=MAX_LIST,
            max_map_len=MAX_MAP,
            max_ext_len=0,
            object_pairs_hook=_map_without_repeats,
        )
    except (
        ValueError,
        TypeError,
        msgpack.ExtraData,
        msgpack.FormatError,
        msgpack.StackError,
    ):
        # Not the exception's name: the words reach a person, in a verdict or an error message.
        raise fail(
            Code.MALFORMED, phrase(N_("body is not one msgpack value")), Check.BODY
        ) from None
    if not isinstance(value, dict):
        raise fail(Code.MALFORMED, phrase(N_("body must be a map")), Check.BODY)
    return value


_ROLES = {role.value: role for role in Role}
"""Each role by its wire name, looked up (every frame's ``from``) instead of the enum's call."""


def read_header(fields: Mapping[str, Any]) -> Header:
    """Step 3, but the fit: the keys that place a frame (``bad-field``, not the peer's word).

    ``game`` is read from message 2 on and ignored before (``Envelope.open`` still
    checks its type there).  ``at`` is taken when it is an int; whether it is one
    is step 5's check, of the sender's word.
    """
    place = Check.PLACE
    sender = _ROLES.get(_need(fields, "from", str, "host or guest", place))
    if sender is None:
        raise fail(Code.BAD_FIELD, "'from' must be host or guest", place)
    seq = _count(fields, "seq", place)
    at = fields.get("at", 0)
    return Header(
        sender=sender,
        seq=seq,
        prev=_bytes(fields, "prev", HASH_SIZE, place),
        game=_bytes(fields, "game", HASH_SIZE, place) if seq >= 2 else b"",
        at=at if isinstance(at, int) and not isinstance(at, bool) else 0,
    )


@dataclass(frozen=True)
class Envelope:
    """A frame read as far as its header: steps 1-3 of SPEC.md section 3, but the fit.

    Its bytes are kept exactly, and its message is read only by ``open``, once
    the transcript has placed the frame and checked its signature.
    """

    body: bytes
    signature: bytes
    header: Header
    fields: Mapping[Any, Any] = field(compare=False, repr=False)
    """The body's map, as read."""

    @functools.cached_property
    def digest(self) -> bytes:
        return message_hash(self.body)

    @property
    def type(self) -> str | None:
        """The ``type`` the body names, if it names one as a string."""
        kind = self.fields.get("type")
        return kind if isinstance(kind, str) else None

    @property
    def hello_key(self) -> bytes | None:
        """The ``key`` of a hello, when it is 32 bytes: what a hello is signed with."""
        key = self.fields.get("key")
        return (
            key if self.type == Hello.TYPE and isinstance(key, bytes) and len(key) == 32 else None
        )

    def encode(self) -> bytes:
        return packed([self.body, self.signature])

    def open(self) -> Frame:
        """Step 5: the message itself (``bad-field``, ``unknown-type``, ``version``)."""
        fields = self.fields
        kind = _need(fields, "type", str, "a string")
        decoder = DECODERS.get(kind)
        if decoder is None:
            raise fail(Code.UNKNOWN_TYPE, f"unknown message type {kind[:40]!r}")
        if kind == Hello.TYPE:
            protocol = _count(fields, "protocol")
            if protocol != PROTOCOL_VERSION:
                raise fail(
                    Code.VERSION,
                    f"protocol {protocol} is not supported (this is {PROTOCOL_VERSION})",
                )
        if "at" in fields:
            _need(fields, "at", int, "a whole number")
        if self.header.seq < 2 and "game" in fields:
            _bytes(fields, "game", HASH_SIZE)  # ignored here, but it must be one
        return Frame(self.body, self.signature, self.header, decoder(fields))


AnyFrame = Envelope | Frame
"""A frame read at least as far as its header: what placing a frame and checking its
signature need (a frame read in full stands in for its envelope, unread again)."""


def read_envelope(value: Any) -> Envelope:
    """Steps 1-3 of a frame from one unpacked msgpack value ``[body, signature]``.

    Raises ``ProtocolError`` with ``Check.FRAME``, ``BODY`` or ``PLACE``: bytes that
    fail here are nobody's word.
    """
    body, signature, fields = _framed(value)
    return Envelope(body, signature, read_header(fields), fields)


def _framed(value: Any) -> tuple[bytes, bytes, dict[Any, Any]]:
    """Steps 1-2, the same for a frame of the game and a line of talk: ``[body,
    signature]`` as two bins of the right sizes, and the body's map."""
    if (
        not isinstance(value, (list, tuple))
        or len(value) != 2
        or not isinstance(value[0], bytes)
        or not isinstance(value[1], bytes)
    ):
        raise fail(
            Code.MALFORMED, phrase(N_("a frame is [body, signature], two bins")), Check.FRAME
        )
    body, signature = value
    if len(signature) != 64:
        raise fail(Code.MALFORMED, phrase(N_("a signature is 64 bytes")), Check.FRAME)
    if len(body) > MAX_FRAME:
        raise fail(Code.TOO_LARGE, f"body larger than {MAX_FRAME} bytes", Check.FRAME)
    fields = read_body(body)
    return body, signature, fields


def decode_frame(value: Any) -> Frame:
    """A whole frame, read without a transcript: every step but the fit, the signature,
    the turn and the content.  Raises ``ProtocolError``."""
    return read_envelope(value).open()


def decode_body(body: bytes) -> tuple[Header, Message]:
    """Read a message body, checking every field's type; raises ProtocolError."""
    fields = read_body(body)
    frame = Envelope(body, bytes(64), read_header(fields), fields).open()
    return frame.header, frame.message


def is_say(fields: Mapping[Any, Any]) -> bool:
    """Whether a body read as a map names itself a ``say``: talk, outside the chain."""
    return fields.get("type") == SAY_TYPE


class BadSay(ProtocolError):
    """A ``say`` whose fields are not of their types: talk to drop, never the game's
    business (the connection and the game go on)."""

    def __init__(self, error: ProtocolError, size: int) -> None:
        super().__init__(error.code, error.detail, error.check)
        self.size = size
        """The body's length: a body over the say's bound is dropped as too large first."""


def read_say(body: bytes, signature: bytes, fields: Mapping[Any, Any]) -> SayFrame:
    """A say's fields, each of its type (``BadSay``, ``bad-field``, otherwise); its bounds,
    its place and its signature are the talk's checks (``statki_net.protocol.talk``)."""
    try:
        sender = _need(fields, "from", str, "host or guest")
        if sender not in ("host", "guest"):
            raise fail(Code.BAD_FIELD, "'from' must be host or guest")
        say = Say(
            Role(sender),
            _bytes(fields, "game", HASH_SIZE),
            _count(fields, "n"),
            _count(fields, "seen"),
            _need(fields, "at", int, "a whole number"),
            _need(fields, "text", str, "a string"),
        )
    except ProtocolError as error:
        raise BadSay(error, len(body)) from None
    return SayFrame(body, signature, say)


def read_incoming(value: Any) -> Envelope | SayFrame:
    """Steps 1-3 of whatever the peer sends: a frame of the game read to its header, or a
    line of talk read whole (it has no header that places it: it is outside the chain).

    Raises ``ProtocolError`` at steps 1-3 for a frame of the game (nobody's word), and
    ``BadSay`` for talk whose fields are wrong (its size bound is the talk's check).
    """
    body, signature, fields = _framed(value)
    if is_say(fields):
        return read_say(body, signature, fields)
    return Envelope(body, signature, read_header(fields), fields)


def is_join(value: Any) -> bool:
    """Whether an unpacked value is ``[body, signature]`` whose body names itself a ``join``:
    read no further, so that whatever else is wrong with it is the join's to find."""
    if not (isinstance(value, list) and len(value) == 2 and isinstance(value[0], bytes)):
        return False
    try:
        return read_body(value[0]).get("type") == JOIN_TYPE
    except ProtocolError:
        return False


def read_join(value: Any) -> JoinFrame:
    """A join's frame and fields, each of its type (SPEC.md section 6, "join"), its signature
    unchecked (``join_signature_valid``).  Raises ``ProtocolError``."""
    body, signature, fields = _framed(value)
    if len(body) > MAX_JOIN:
        raise fail(Code.TOO_LARGE, f"a join is at most {MAX_JOIN} bytes", Check.FRAME)
    if fields.get("type") != JOIN_TYPE:
        raise fail(Code.BAD_FIELD, "not a join")
    if fields.get("from") != Role.GUEST.value:
        raise fail(Code.BAD_FIELD, "a join is the guest's")
    join = Join(
        _bytes(fields, "key", 32),
        _bytes(fields, "hello", HASH_SIZE),
        _bytes(fields, "tag", TAG_SIZE) if "tag" in fields else None,
        _need(fields, "at", int, "a whole number"),
    )
    return JoinFrame(body, signature, join)


class FrameReader:
    """Splits a byte stream into frames, refusing anything over ``MAX_FRAME``."""

    BUFFER = MAX_FRAME + 1024
    PIECE = 512
    """Bytes fed to the unpacker at a time: with whole frames drained between
    pieces, the buffer holds at most one unfinished frame and a piece, so many
    frames arriving in one read are never mistaken for one large frame."""

    def __init__(self) -> None:
        self._unpacker = msgpack.Unpacker(
            raw=False,
            max_buffer_size=self.BUFFER,
            # As large as the buffer, so an oversized body shows as a full buffer
            # (too-large), never as msgpack's ValueError (malformed).
            max_bin_len=self.BUFFER,
            max_str_len=1024,
            max_array_len=2,
            max_map_len=0,
            max_ext_len=0,
        )

    def feed(self, data: bytes) -> Iterator[Envelope]:
        """The frames completed by ``data``, read to their header (``read_envelope``);
        raises ProtocolError on the first that is not even that (never the peer's word)."""
        for value in self.values(data):
            yield read_envelope(value)

    @property
    def consumed(self) -> int:
        """Bytes of the stream taken by the values read so far."""
        return int(self._unpacker.tell())

    def values(self, data: bytes) -> Iterator[Any]:
        """The msgpack values completed by ``data``, unread: for a reader that decides
        itself what a value is (the admission, which meets frames outside any transcript)."""
        for start in range(0, len(data), self.PIECE):
            try:
                self._unpacker.feed(data[start : start + self.PIECE])
            except msgpack.BufferFull:
                raise fail(
                    Code.TOO_LARGE, f"frame larger than {MAX_FRAME} bytes", Check.FRAME
                ) from None
            yield from self._drain()

    def _drain(self) -> Iterator[Any]:
        while True:
            try:
                value = next(self._unpacker)
            except StopIteration:
                return
            except msgpack.BufferFull:
                raise fail(
                    Code.TOO_LARGE, f"frame larger than {MAX_FRAME} bytes", Check.FRAME
                ) from None
            except (ValueError, TypeError, msgpack.FormatError, msgpack.StackError):
                raise fail(Code.MALFORMED, phrase(N_("not a msgpack frame")), Check.FRAME) from None
            yield value
