"""What the suite sends: injected bytes and lying behaviours, built with the wire module.

Every injection starts from a frame a statki session could have sent at the
suite's next place (its header, its key, the message due), encoded by
``wire``; then the map, the frame or the signature is altered as the case
says and signed again where the alteration is meant to be the suite's word.
So a frame that is supposed to fail one check fails that check and no
earlier one: a ``bad-signature`` frame fits the chain, a ``bad-chain`` frame
is well signed.  Pure: the session, the time and the entropy are given.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import msgpack
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from statki_net.conformance.cases import Cheat, Injection
from statki_net.game.battle import Answer, Outcome
from statki_net.game.fleet import Fleet, random_fleet
from statki_net.game.rules import Ruleset
from statki_net.protocol.behaviour import Behaviour
from statki_net.protocol.commitment import Opening
from statki_net.protocol.session import Session, public_key_bytes
from statki_net.protocol.wire import (
    GENESIS,
    MAX_FRAME,
    PROTOCOL_VERSION,
    SIGN_LABEL,
    Accept,
    Admit,
    Coin,
    Commit,
    Frame,
    Header,
    Hello,
    Join,
    Limits,
    Message,
    Refuse,
    Reply,
    Resign,
    Reveal,
    Role,
    Shot,
    TimeClaim,
    Verdict,
    encode_body,
    guest_proof,
    message_hash,
    sign,
    sign_join,
)
from statki_net.vectors.games import (
    PlacesIllegally,
    RevealsAnotherFleet,
    SaysHitForFirstSink,
    SaysMissForFirstHit,
    touching_fleet,
)
from statki_net.version import SOFTWARE

Fields = dict[str, Any]


@dataclass(frozen=True)
class Sent:
    """The bytes of an injection, and the frame they stand for when the suite keeps it in
    its own transcript (an honest message with an unknown key: the game goes on)."""

    data: bytes
    seq: int
    """The place the frame takes (the one an ``error`` answering it must take)."""
    kept: Frame | None = None


# ---------------------------------------------------------------- the suite's next place


def next_header(session: Session, now: int) -> Header:
    t = session.transcript
    return Header(session.role, len(t.frames), t.last_digest, t.game, now)


def _packed(value: Any) -> bytes:
    return bytes(msgpack.packb(value, use_bin_type=True))


def _signed(key: Ed25519PrivateKey, body: bytes) -> bytes:
    return _packed([body, key.sign(SIGN_LABEL + body)])


def _fields_of(header: Header, message: Message) -> Fields:
    value = msgpack.unpackb(encode_body(header, message), raw=False)
    assert isinstance(value, dict)
    return value


def _map_with_repeat(fields: Fields, key: str) -> bytes:
    """A msgpack map holding ``key`` twice: msgpack libraries will not write one."""
    pairs = [*fields.items(), (key, fields[key])]
    assert len(pairs) <= 15, "a fixmap"
    return bytes([0x80 | len(pairs)]) + b"".join(_packed(k) + _packed(v) for k, v in pairs)


def honest_shot(session: Session) -> Shot:
    """A shot of as many squares as are due, at square 0 (a repeat is a miss)."""
    return Shot((0,) * max(1, session.shots_due))


def own_hello(session: Session, nonce: bytes) -> Hello:
    """The hello the suite's side says: a host's with its proposal, a guest's with its proof."""
    host = session.role is Role.HOST
    key = public_key_bytes(session.key)
    proof = None
    if not host and session.invite_secret is not None and session.transcript.frames:
        host_hello = session.transcript.frames[0].body
        proof = guest_proof(session.invite_secret, host_hello, key)
    rules = session.proposed_rules
    return Hello(
        protocol=PROTOCOL_VERSION,
        software=SOFTWARE,
        key=key,
        name=session.name,
        nonce=nonce,
        rules=rules.to_map() if host and rules else None,
        limits=session.proposed_limits.to_map() if host else None,
        admit=Admit.INVITE if host else None,
        proof=proof,
        tag=session.tag if host else None,
    )


# ---------------------------------------------------------------- out of place


def misplaced(injection: Injection, session: Session, entropy: Callable[[int], bytes]) -> Message:
    """A well-formed message of the injection's type, whatever the phase allows."""
    limit = session.transcript.limit() if session.transcript.limits else Limits().move_ms
    fleet = session.fleet.ships if session.fleet else ((0,),)
    made: dict[Injection, Callable[[], Message]] = {
        Injection.HELLO: lambda: own_hello(session, entropy(32)),
        Injection.ACCEPT: Accept,
        Injection.REFUSE: lambda: Refuse("not these rules"),
        Injection.COMMIT: lambda: Commit(entropy(32), entropy(32), entropy(32)),
        Injection.COIN: lambda: Coin(entropy(32)),
        Injection.SHOT: lambda: Shot((0,)),
        Injection.ANSWER: lambda: Reply(Answer((Outcome.MISS,), 0, 0)),
        Injection.RESIGN: Resign,
        Injection.TIMEOUT: lambda: TimeClaim(limit),
        Injection.REVEAL: lambda: Reveal(fleet, session.secret or entropy(32)),
        Injection.VERDICT: lambda: Verdict(None, "sunk"),
    }
    return made[injection]()


MISPLACED = frozenset(
    {
        Injection.HELLO,
        Injection.ACCEPT,
        Injection.REFUSE,
        Injection.COMMIT,
        Injection.COIN,
        Injection.SHOT,
        Injection.ANSWER,
        Injection.RESIGN,
        Injection.TIMEOUT,
        Injection.REVEAL,
        Injection.VERDICT,
    }
)

# ---------------------------------------------------------------- altered frames


def _frame_change(injection: Injection, body: bytes, signature: bytes) -> bytes | None:
    """The frame itself altered around a well-signed body; None for other injections."""
    match injection:
        case Injection.SHORT_SIGNATURE:
            return _packed([body, signature[:63]])
        case Injection.NOT_A_FRAME:
            return _packed([body, signature, b""])
        case Injection.BAD_SIGNATURE:
            return _packed([body, signature[:-1] + bytes([signature[-1] ^ 1])])
    return None


def _field_change(injection: Injection, fields: Fields, session: Session) -> Fields | bytes:
    """The message map altered (or, for what no msgpack writer makes, its bytes)."""
    rules = session.transcript.rules
    size = rules.size if rules else 10
    changed = dict(fields)
    match injection:
        case Injection.OVERSIZED:
            changed["padding"] = bytes(MAX_FRAME)
        case Injection.TRUNCATED_BODY:
            return _packed(fields)[:-3]
        case Injection.REPEATED_KEY:
            return _map_with_repeat(fields, "squares")
        case Injection.EXT_VALUE:
            changed["x-conformance"] = msgpack.ExtType(1, b"x")
        case Injection.INT_KEY:
            return _packed({**fields, 7: 1})
        case Injection.BAD_PREV:
            changed["prev"] = hashlib.sha256(b"not the last message").digest()
        case Injection.SEQ_AHEAD:
            changed["seq"] = fields["seq"] + 1
        case Injection.WRONG_GAME:
            changed["game"] = hashlib.sha256(b"another game").digest()
        case Injection.NO_GAME:
            del changed["game"]
        case Injection.OWN_NAME:
            changed["from"] = session.peer.value
        case Injection.SQUARES_AS_TEXT:
            changed["squares"] = "A1"
        case Injection.FLOAT_SQUARE:
            changed["squares"] = [3.0] * len(fields["squares"])
        case Injection.AT_AS_TEXT:
            changed["at"] = "now"
        case Injection.BIN_KEY:
            changed[b"squares"] = changed.pop("squares")  # type: ignore[index]
        case Injection.UNKNOWN_TYPE:
            changed["type"] = "no-such-type"
        case Injection.TYPE_AS_INT:
            changed["type"] = 7
        case Injection.UNKNOWN_KEY:
            changed["x-conformance"] = "a key no version defines: ignored"
        case Injection.SHOT_OFF_BOARD:
            changed["squares"] = [size * size] * len(fields["squares"])
        case Injection.SHOT_TOO_MANY:
            changed["squares"] = [0] * (len(fields["squares"]) + 1)
        case Injection.ANSWER_TOO_MANY_HITS:
            changed["hits"] = len(fields.get("outcomes", ())) + 1
        case Injection.ANSWER_UNKNOWN_OUTCOME:
            changed["outcomes"] = ["splash"] * len(fields.get("outcomes", ()))
    return changed


_HELLO_CHANGES: dict[Injection, Callable[[Fields], None]] = {
    Injection.VERSION_NEWER: lambda f: f.update(protocol=PROTOCOL_VERSION + 1),
    Injection.VERSION_OLDER: lambda f: f.update(protocol=PROTOCOL_VERSION - 1),
    Injection.NO_PROOF: lambda f: f.pop("proof", None),
    Injection.PROOF_WRONG_SIZE: lambda f: f.update(proof=bytes(16)),
    Injection.BOARD_TOO_SMALL: lambda f: f["rules"].update(size=4, fleet=[2, 1]),
    Injection.BOARD_TOO_LARGE: lambda f: f["rules"].update(size=27),
    Injection.TOO_MANY_SHIPS: lambda f: f["rules"].update(fleet=[1] * 13),
    Injection.HALF_THE_BOARD: lambda f: f["rules"].update(size=5, fleet=[5, 4, 4]),
    Injection.FLEET_NOT_SORTED: lambda f: f["rules"].update(fleet=[1, 2, 3, 4]),
    Injection.MOVE_LIMIT_TOO_SHORT: lambda f: f["limits"].update(move_ms=59_999),
    Injection.REVEAL_LIMIT_TOO_SHORT: lambda f: f["limits"].update(reveal_ms=29_999),
    Injection.LIMIT_TOO_LONG: lambda f: f["limits"].update(move_ms=86_400_001),
    Injection.NO_RULES: lambda f: f.pop("rules"),
    Injection.NO_LIMITS: lambda f: f.pop("limits"),
    Injection.FIRST_INVALID: lambda f: f.update(first="both"),
    Injection.ADMIT_INVALID: lambda f: f.update(admit="friends"),
    Injection.NO_TAG: lambda f: f.pop("tag", None),
    Injection.TAG_WHEN_OPEN: lambda f: f.update(admit="open"),
}
"""How each hello injection changes the suite's own hello."""


def _hello_bytes(
    injection: Injection, session: Session, now: int, entropy: Callable[[int], bytes]
) -> Sent:
    header = next_header(session, now)
    hello = own_hello(session, entropy(32))
    key = session.key
    if injection is Injection.WRONG_HOST_KEY:
        key = Ed25519PrivateKey.from_private_bytes(entropy(32))
        hello = replace(hello, key=public_key_bytes(key))
    elif injection is Injection.WRONG_PROOF and session.transcript.frames:
        wrong = bytes(b ^ 0xFF for b in session.invite_secret or bytes(16))
        proof = guest_proof(wrong, session.transcript.frames[0].body, hello.key)
        hello = replace(hello, proof=proof)
    fields = _fields_of(header, hello)
    change = _HELLO_CHANGES.get(injection)
    if change is not None:
        change(fields)
    return Sent(_signed(key, _packed(fields)), header.seq)


HELLO_INJECTIONS = frozenset({*_HELLO_CHANGES, Injection.WRONG_HOST_KEY, Injection.WRONG_PROOF})


def injected(
    injection: Injection,
    session: Session,
    now: int,
    entropy: Callable[[int], bytes],
    due: Message | None = None,
) -> Sent:
    """The bytes of ``injection`` at the suite's next place; ``due`` is what the suite
    would have said there (a shot is made up when it is not given)."""
    if injection in HELLO_INJECTIONS:
        return _hello_bytes(injection, session, now, entropy)
    header = next_header(session, now)
    if injection in MISPLACED:
        frame = sign(session.key, header, misplaced(injection, session, entropy))
        return Sent(frame.encode(), header.seq)
    if injection in CLAIMS:
        return _claim(injection, session, now)
    if injection is Injection.COIN_NOT_OPENING:
        due = Coin(entropy(32))
    message = due or honest_shot(session)
    if injection is Injection.ANSWER_TOO_MANY_HITS or injection is Injection.ANSWER_UNKNOWN_OUTCOME:
        message = message if isinstance(message, Reply) else Reply(Answer((Outcome.MISS,), 0, 0))
    honest = sign(session.key, header, message)
    framed = _frame_change(injection, honest.body, honest.signature)
    if framed is not None:
        return Sent(framed, header.seq)
    changed = _field_change(injection, _fields_of(header, message), session)
    body = changed if isinstance(changed, bytes) else _packed(changed)
    if injection is Injection.UNKNOWN_KEY:
        kept = Frame(body, session.key.sign(SIGN_LABEL + body), header, message)
        return Sent(kept.encode(), header.seq, kept)
    return Sent(_signed(session.key, body), header.seq)


def join_bytes(session: Session, hello: bytes, tag: bytes | None, now: int) -> bytes:
    """The suite's ``join`` as guest: bound to the host hello whose body is ``hello``, naming
    the game of ``tag`` (None: a game open to anyone), signed by the suite's key."""
    join = Join(public_key_bytes(session.key), message_hash(hello), tag, now)
    return sign_join(session.key, join).encode()


# ---------------------------------------------------------------- time claims


CLAIMS = frozenset(
    {Injection.EARLY_CLAIM, Injection.FORGED_CLAIM, Injection.CLAIM_TOO_EARLY_BY_CLOCK}
)


def _claim(injection: Injection, session: Session, now: int) -> Sent:
    """A claim against the implementation, dated from the suite's own last message: the
    suite forges its timestamps instead of waiting out the limit."""
    t = session.transcript
    limit = t.limit()
    last = t.last_at(session.role) or now
    waited, at = {
        Injection.EARLY_CLAIM: (limit - 1, last + limit),
        Injection.FORGED_CLAIM: (limit, last + limit - 1),
        Injection.CLAIM_TOO_EARLY_BY_CLOCK: (limit, last + limit),
    }[injection]
    header = Header(session.role, len(t.frames), t.last_digest, t.game, at)
    return Sent(sign(session.key, header, TimeClaim(waited)).encode(), header.seq)


# ---------------------------------------------------------------- lies


class SaysHitForFirstMiss(Behaviour):
    """Answers 'hit' for the first shot into the water: its proof shows the water."""

    lied = False

    def answer(self, session: Session, squares: tuple[int, ...], answer: Answer) -> Answer:
        if not self.lied and answer.outcomes == (Outcome.MISS,):
            self.lied = True
            return Answer((Outcome.HIT,), 1, 0)
        return answer


class SaysSunkForFirstHit(Behaviour):
    """Answers 'sunk' for the first shot that hits a ship it does not sink: the squares
    marked water around the 'sunk' ship include the rest of it, and their openings say so."""

    lied = False

    def answer(self, session: Session, squares: tuple[int, ...], answer: Answer) -> Answer:
        if not self.lied and answer.outcomes == (Outcome.HIT,):
            self.lied = True
            return Answer((Outcome.SUNK,), 1, 1)
        return answer


class ListsShipsShortestFirst(PlacesIllegally):
    """Commits to a legal placement listed shortest ship first: not the rules' order."""

    def fleet(self, session: Session, fleet: Fleet) -> Fleet:
        return Fleet(tuple(reversed(fleet.ships)))


class WithholdsFirstProof(Behaviour):
    """Answers its first volley truly, without the openings it needs."""

    withheld = False

    def proofs(
        self, session: Session, squares: tuple[int, ...], proofs: tuple[Opening, ...]
    ) -> tuple[Opening, ...]:
        if not self.withheld and proofs:
            self.withheld = True
            return ()
        return proofs


class SpoilsFirstProof(Behaviour):
    """Answers its first volley truly, with an opening whose salt is not the square's."""

    spoiled = False

    def proofs(
        self, session: Session, squares: tuple[int, ...], proofs: tuple[Opening, ...]
    ) -> tuple[Opening, ...]:
        if not self.spoiled and proofs:
            self.spoiled = True
            first = proofs[0]
            salt = bytes(b ^ 0xFF for b in first.salt)
            return (replace(first, salt=salt), *proofs[1:])
        return proofs


class RevealsWrongSecret(Behaviour):
    """Plays honestly and reveals its fleet with a secret that is not its commitment's."""

    def say(self, session: Session, message: Message) -> Message | None:
        if isinstance(message, Reveal):
            return replace(message, secret=bytes(b ^ 0xFF for b in message.secret))
        return message


class PlacesTouching(PlacesIllegally):
    """Commits to a fleet two of whose ships touch at a corner."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def fleet(self, session: Session, fleet: Fleet) -> Fleet:
        rules = session.rules
        assert rules is not None
        return touching_fleet(rules, self.rng)


def behaviour(cheat: Cheat | None, rules: Ruleset, rng: random.Random) -> Behaviour:
    """The suite's side for a case: honest, or lying as ``cheat`` says."""
    match cheat:
        case None:
            return Behaviour()
        case Cheat.MISS_FOR_HIT:
            return SaysMissForFirstHit()
        case Cheat.HIT_FOR_MISS:
            return SaysHitForFirstMiss()
        case Cheat.NO_PROOF:
            return WithholdsFirstProof()
        case Cheat.PROOF_NOT_OPENING:
            return SpoilsFirstProof()
        case Cheat.SUNK_FOR_HIT:
            return SaysSunkForFirstHit()
        case Cheat.HIT_FOR_SINK:
            return SaysHitForFirstSink()
        case Cheat.SHIPS_OUT_OF_ORDER:
            return ListsShipsShortestFirst()
        case Cheat.TOUCHING_FLEET:
            return PlacesTouching(rng)
        case Cheat.ANOTHER_FLEET:
            return RevealsAnotherFleet(random_fleet(rules, rng))
        case Cheat.WRONG_SECRET:
            return RevealsWrongSecret()


__all__ = ["GENESIS", "Sent", "behaviour", "injected", "next_header", "own_hello"]
