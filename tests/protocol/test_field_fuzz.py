"""Fuzzing that reaches every field: signed, chained frames whose message is mutated.

Random bytes die at the frame or the signature, so the code that reads each
field of each message is hardly reached by them.  Here every mutated frame is
validly framed, signed again with its sender's real key and placed right at the
end of the receiver's chain: only the message's own keys are wrong.  The
mutations come from the tables of SPEC.md section 6, written out again below
(``SCHEMA``), not from the decoder: a key missing, of another msgpack type, just
out of its range or at its bound, too long, nested, unknown keys added, the type
renamed.  Each is fed to the receiver of an honest game at every kind of point
a frame can arrive (hellos, decision, commits, coins, shots, answers, reveals,
verdicts; under each preset's answer shape), and what SPEC says must follow:

- a frame that breaks a key's type or range is refused with ``bad-field``
  (``unknown-type``, ``version``): kept as signed evidence, answered with an
  ``error`` of that code, and the referee, reading the receiver's log, blames
  the sender;
- a body SPEC calls malformed (an array over 1024 items, a map over 64
  entries, a repeated key, invalid UTF-8, nesting past any reader's stack) is
  nobody's word: the connection is lost, nothing is answered;
- unknown keys are ignored: the frame is accepted;
- anything else is accepted, refused with a code a peer may send, or lost
  with a code that is never sent; never an exception.

Then the game is played out, both sides as real peers (their players move,
their clocks run to their deadlines): each must close, and the receiver's own
log must never blame it.  In process, with the clock passed in: 250 examples
take about 4 s on an idle core.
"""

from __future__ import annotations

import enum
import random
from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import cache
from typing import Any

import msgpack
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from peers import finish, make_pair, player_moves, snapshot

from statki_net.game.rules import PRESETS, Ruleset, Turns
from statki_net.protocol.backtoback import BackToBack
from statki_net.protocol.endings import End, Ending
from statki_net.protocol.errors import LOCAL_CODES, NOT_THE_PEERS_WORD, Code
from statki_net.protocol.events import ConnectionLost, Event, Evidence, Failed, FrameAdded
from statki_net.protocol.logformat import evidence_record, frame_record, header_record, log_file
from statki_net.protocol.phases import VERDICT_PHASES, Phase
from statki_net.protocol.wire import SIGN_LABEL, Error, Role
from statki_net.referee.verify import judge_log

# ---------------------------------------------------------------- SPEC.md section 6, as tables


class Kind(enum.Enum):
    """What a key holds, as SPEC.md section 6's tables say."""

    COUNT = "int, count"
    TEXT = "str, text"
    BIN16 = "bin, 16"
    BIN32 = "bin, 32"
    BOOL = "bool"
    MAP = "map"
    ROLE = "host or guest"
    ADMIT = "invite or open"
    WINNER = "host, guest or nil"
    TEXTS = "array of text"
    SQUARES = "array of squares"
    OUTCOMES = "array of miss, hit, sunk"
    OPENINGS = "array of openings"
    SHIPS = "array of ships"


@dataclass(frozen=True)
class Key:
    name: str
    kind: Kind
    required: bool


SCHEMA: dict[str, tuple[Key, ...]] = {
    "hello": (
        Key("protocol", Kind.COUNT, True),
        Key("software", Kind.TEXT, True),
        Key("key", Kind.BIN32, True),
        Key("name", Kind.TEXT, True),
        Key("nonce", Kind.BIN32, True),
        Key("caps", Kind.TEXTS, False),
        Key("rules", Kind.MAP, False),
        Key("limits", Kind.MAP, False),
        Key("first", Kind.ROLE, False),
        Key("admit", Kind.ADMIT, False),
        Key("proof", Kind.BIN32, False),
        Key("tag", Kind.BIN16, False),
        Key("join", Kind.BOOL, False),
    ),
    "accept": (),
    "refuse": (Key("reason", Kind.TEXT, True),),
    "commit": (
        Key("fleet", Kind.BIN32, True),
        Key("ships", Kind.BIN32, True),
        Key("coin", Kind.BIN32, True),
    ),
    "coin": (Key("coin", Kind.BIN32, True),),
    "shot": (Key("squares", Kind.SQUARES, True),),
    "answer": (
        Key("hits", Kind.COUNT, True),
        Key("sunk", Kind.COUNT, True),
        Key("outcomes", Kind.OUTCOMES, False),
        Key("names", Kind.TEXTS, False),
        Key("proofs", Kind.OPENINGS, False),
    ),
    "resign": (),
    "timeout": (Key("waited_ms", Kind.COUNT, True),),
    "reveal": (Key("fleet", Kind.SHIPS, True), Key("secret", Kind.BIN32, True)),
    "verdict": (
        Key("winner", Kind.WINNER, False),
        Key("end", Kind.TEXT, True),
        Key("findings", Kind.TEXTS, False),
    ),
    "error": (Key("code", Kind.TEXT, True), Key("detail", Kind.TEXT, True)),
}
HEADER_KEYS = frozenset({"type", "from", "seq", "prev", "game", "at"})

MSGPACK_TYPES: dict[str, Callable[[], Any]] = {
    "nil": lambda: None,
    "bool": lambda: True,
    "int": lambda: 7,
    "negative int": lambda: -7,
    "float": lambda: 3.0,
    "str": lambda: "x",
    "bin": lambda: bytes(32),
    "array": lambda: [1],
    "map": lambda: {"a": 1},
}
ACCEPTED_TYPES: dict[Kind, frozenset[str]] = {
    Kind.COUNT: frozenset({"int", "negative int"}),  # a negative one is out of range instead
    Kind.TEXT: frozenset({"str"}),
    Kind.BIN16: frozenset({"bin"}),  # 32 bytes is the wrong size: bad-field all the same
    Kind.BIN32: frozenset({"bin"}),
    Kind.BOOL: frozenset({"bool"}),
    Kind.MAP: frozenset({"map"}),
    Kind.ROLE: frozenset(),  # "x" is no role: every type is wrong
    Kind.ADMIT: frozenset(),
    Kind.WINNER: frozenset({"nil"}),
    Kind.TEXTS: frozenset({"array"}),  # [1] is an array of no text: wrong all the same
    Kind.SQUARES: frozenset({"array"}),
    Kind.OUTCOMES: frozenset({"array"}),
    Kind.OPENINGS: frozenset({"array"}),
    Kind.SHIPS: frozenset({"array"}),
}
"""The msgpack types a key of each kind may hold; the others are bad-field.  (Kinds whose
sample value of that type is wrong anyway leave the type out, so it counts as wrong.)"""
LISTS = frozenset({Kind.TEXTS, Kind.SQUARES, Kind.OUTCOMES, Kind.OPENINGS, Kind.SHIPS})


class Raw(bytes):
    """Bytes written into a body as they are: what msgpack's packer refuses to make."""


def pack(value: Any) -> bytes:
    if isinstance(value, Raw):
        return bytes(value)
    if isinstance(value, list):
        return _array_header(len(value)) + b"".join(pack(v) for v in value)
    if isinstance(value, dict):
        return _map_header(len(value)) + b"".join(pack(k) + pack(v) for k, v in value.items())
    return bytes(msgpack.packb(value, use_bin_type=True))


def pack_pairs(pairs: list[tuple[Any, Any]]) -> bytes:
    """A map of ``pairs`` in order, repeats and raw values as given."""
    return _map_header(len(pairs)) + b"".join(pack(k) + pack(v) for k, v in pairs)


def _array_header(n: int) -> bytes:
    return bytes([0x90 | n]) if n < 16 else b"\xdc" + n.to_bytes(2, "big")


def _map_header(n: int) -> bytes:
    return bytes([0x80 | n]) if n < 16 else b"\xde" + n.to_bytes(2, "big")


# ---------------------------------------------------------------- what must follow


class Outcome(enum.Enum):
    ACCEPTED = "accepted"
    REFUSED = "refused"
    LOST = "lost"
    TALK = "talk"
    DECLINED = "declined"
    """A guest's own refusal to play with this host (its key, its admission): no game."""


@dataclass(frozen=True)
class Expect:
    """What SPEC says the receiver does with a mutated frame: ``outcomes`` allowed, and
    for a refusal or a loss, the one code (None: any code allowed for it)."""

    outcomes: frozenset[Outcome]
    code: Code | None = None

    @classmethod
    def refused(cls, code: Code) -> Expect:
        return cls(frozenset({Outcome.REFUSED}), code)

    @classmethod
    def lost(cls, code: Code | None = None) -> Expect:
        return cls(frozenset({Outcome.LOST}), code)


BAD_FIELD = Expect.refused(Code.BAD_FIELD)
MALFORMED = Expect.lost(Code.MALFORMED)
ACCEPTED = Expect(frozenset({Outcome.ACCEPTED}))
ANYTHING = Expect(frozenset({Outcome.ACCEPTED, Outcome.REFUSED, Outcome.LOST, Outcome.DECLINED}))


@dataclass(frozen=True)
class Mutation:
    what: str
    pairs: tuple[tuple[Any, Any], ...]
    expect: Expect


# ---------------------------------------------------------------- mutations, by SPEC's tables


def odd_values(kind: Kind) -> list[tuple[str, Any, Expect]]:
    """Values at and past the bounds of ``kind``, each with what it must lead to."""
    text200, text201 = "ż" * 200, "ż" * 201  # counted in code points, not bytes
    out: list[tuple[str, Any, Expect]] = [
        (f"a {name}", make(), BAD_FIELD)
        for name, make in MSGPACK_TYPES.items()
        if name not in ACCEPTED_TYPES[kind]
    ]
    out.append(("nested 60 deep", _nested(60), BAD_FIELD))
    out.append(("nested past any stack", Raw(b"\x91" * 5000 + b"\xc0"), MALFORMED))
    out.append(("invalid UTF-8", Raw(b"\xa2\xff\xfe"), MALFORMED))
    out.append(("an array of 1025", Raw(b"\xdc\x04\x01" + b"\x00" * 1025), MALFORMED))
    out.append(("an ext", Raw(b"\xd4\x01\x00"), MALFORMED))
    match kind:
        case Kind.COUNT:
            out += [
                ("-1", -1, BAD_FIELD),
                ("2**32", 2**32, BAD_FIELD),
                ("2**64 - 1", 2**64 - 1, BAD_FIELD),
                ("-(2**63)", -(2**63), BAD_FIELD),
                ("0", 0, ANYTHING),
                ("2**32 - 1", 2**32 - 1, ANYTHING),
            ]
        case Kind.TEXT:
            out += [("201 code points", text201, BAD_FIELD), ("200", text200, ANYTHING)]
            out += [("empty", "", ANYTHING)]
        case Kind.BIN16 | Kind.BIN32:
            size = 16 if kind is Kind.BIN16 else 32
            out += [(f"{n} bytes", bytes(n), BAD_FIELD) for n in (0, size - 1, size + 1)]
            out += [(f"{size} other bytes", b"\x5a" * size, ANYTHING)]
        case Kind.BOOL:
            out += [("1", 1, BAD_FIELD), ("false", False, ANYTHING)]
        case Kind.MAP:
            out += [("{}", {}, ANYTHING), ("a map of maps", {"a": {"b": [1]}}, ANYTHING)]
            out += [("65 entries", {f"k{i}": i for i in range(65)}, MALFORMED)]
        case Kind.ROLE | Kind.ADMIT | Kind.WINNER:
            out += [("another word", "Host", BAD_FIELD), ("empty", "", BAD_FIELD)]
            out += [("host", "host", ANYTHING), ("guest", "guest", ANYTHING)]
            if kind is Kind.ADMIT:
                out += [("open", "open", ANYTHING), ("invite", "invite", ANYTHING)]
        case _:
            out += _odd_lists(kind)
    return out


def _odd_lists(kind: Kind) -> list[tuple[str, Any, Expect]]:
    out: list[tuple[str, Any, Expect]] = [("[]", [], ANYTHING)]
    out.append(("1024 items", Raw(b"\xdc\x04\x00" + _one_item(kind) * 1024), ANYTHING))
    match kind:
        case Kind.TEXTS:
            out += [("an item of 201", ["ż" * 201], BAD_FIELD), ("an int item", [1], BAD_FIELD)]
        case Kind.SQUARES:
            out += [(f"square {v!r}", [v], BAD_FIELD) for v in (-1, 65536, True, 1.0, "A1")]
            out += [("square 65535", [65535], ANYTHING), ("square 0", [0], ANYTHING)]
        case Kind.OUTCOMES:
            out += [("outcome 'boom'", ["boom"], BAD_FIELD), ("outcome 1", [1], BAD_FIELD)]
            out += [("'sunk'", ["sunk"], ANYTHING)]
        case Kind.OPENINGS:
            good = [0, True, bytes(32), []]
            out += [
                ("an opening of 3", [good[:3]], BAD_FIELD),
                ("an opening of 5", [[*good, 1]], BAD_FIELD),
                ("an opening's ship 1", [[0, 1, bytes(32), []]], BAD_FIELD),
                ("an opening's salt of 31", [[0, True, bytes(31), []]], BAD_FIELD),
                ("an opening's square 65536", [[65536, True, bytes(32), []]], BAD_FIELD),
                ("a path of 17", [[0, True, bytes(32), [bytes(32)] * 17]], BAD_FIELD),
                ("a path item of 33", [[0, True, bytes(32), [bytes(33)]]], BAD_FIELD),
                ("an opening as a map", [{"square": 0}], BAD_FIELD),
                ("a path of 16", [[0, True, bytes(32), [bytes(32)] * 16]], ANYTHING),
            ]
        case Kind.SHIPS:
            out += [
                ("an empty ship", [[]], BAD_FIELD),
                ("a ship of 27", [list(range(27))], BAD_FIELD),
                ("a ship's square -1", [[-1]], BAD_FIELD),
                ("a ship as an int", [5], BAD_FIELD),
                ("a ship of 26", [list(range(26))], ANYTHING),
            ]
    return out


def _one_item(kind: Kind) -> bytes:
    """One valid item of a list of ``kind``, packed."""
    item: Any = {
        Kind.TEXTS: "a",
        Kind.SQUARES: 0,
        Kind.OUTCOMES: "miss",
        Kind.OPENINGS: [0, False, bytes(32), []],
        Kind.SHIPS: [0],
    }[kind]
    return pack(item)


def _nested(depth: int) -> Any:
    value: Any = None
    for n in range(depth):
        value = [value] if n % 2 else {"a": value}
    return value


def key_values(message: str, key: Key) -> list[tuple[str, Any, Expect]]:
    """What replacing (or adding) ``key`` of ``message`` may lead to, hello's two keys apart."""
    values = odd_values(key.kind)
    if message == "hello" and key.name == "key":
        # The hello's key is what its signature is checked with (step 4): any other
        # key, or none, and the frame is nobody's word.
        return [(what, value, Expect.lost()) for what, value, _ in values]
    if message == "hello" and key.name == "protocol":
        # Read first, before every other key: any other count is version.
        return [
            (what, value, Expect.refused(Code.VERSION) if expect == ANYTHING else expect)
            for what, value, expect in values
        ] + [("protocol 4", 4, Expect.refused(Code.VERSION))]
    return values


def mutations(message: str, pairs: list[tuple[Any, Any]]) -> list[Mutation]:
    """Every mutation of the message's keys by SPEC's tables, each with what must follow."""
    found = dict(pairs)
    out: list[Mutation] = []
    for key in SCHEMA[message]:
        present = key.name in found
        if present and key.required:
            expect = Expect.lost() if message == "hello" and key.name == "key" else BAD_FIELD
            kept = [(k, v) for k, v in pairs if k != key.name]
            out.append(Mutation(f"{key.name} missing", tuple(kept), expect))
            out.append(
                Mutation(f"{key.name} as a bin key", tuple(_renamed(pairs, key.name)), expect)
            )
        for what, value, expect in key_values(message, key):
            replaced = _replaced(pairs, key.name, value)
            out.append(Mutation(f"{key.name}: {what}", tuple(replaced), expect))
    out += _header_mutations(pairs, first=message == "hello")
    return out


def _header_mutations(pairs: list[tuple[Any, Any]], *, first: bool) -> list[Mutation]:
    """Mutations of the keys every message has, and unknown keys.  ``first``: a side's
    first frame, its hello, whose signature is checked with the key it carries: renamed
    to another type it has no key to be checked with, and is nobody's word."""
    unknown_type, no_type = (Expect.lost(), Expect.lost()) if first else (UNKNOWN_TYPE, BAD_FIELD)
    out = [
        Mutation("an unknown key", (*pairs, ("colour", "red")), ACCEPTED),
        Mutation("an unknown nested key", (*pairs, ("x", _nested(40))), ACCEPTED),
        Mutation("an unknown bin key", (*pairs, (b"type", "chat")), ACCEPTED),
        Mutation("a key repeated", (*pairs, pairs[-1]), MALFORMED),
        Mutation(
            "65 entries",
            (*pairs, *((f"pad{i}", i) for i in range(65 - len(pairs)))),
            MALFORMED,
        ),
        Mutation("a key of int type", (*pairs, (Raw(b"\x05"), 1)), MALFORMED),
        Mutation("at: a float", tuple(_replaced(pairs, "at", 1.5)), BAD_FIELD),
        Mutation("at: a bool", tuple(_replaced(pairs, "at", True)), BAD_FIELD),
        Mutation("at: a str", tuple(_replaced(pairs, "at", "now")), BAD_FIELD),
        Mutation("at: -1", tuple(_replaced(pairs, "at", -1)), ANYTHING),
        Mutation("at missing", tuple((k, v) for k, v in pairs if k != "at"), ANYTHING),
        Mutation("type: 'chat'", tuple(_replaced(pairs, "type", "chat")), unknown_type),
        Mutation("type: 'join'", tuple(_replaced(pairs, "type", "join")), unknown_type),
        Mutation("type: 'Shot'", tuple(_replaced(pairs, "type", "Shot")), unknown_type),
        Mutation("type: ''", tuple(_replaced(pairs, "type", "")), unknown_type),
        Mutation("type: 5000 chars", tuple(_replaced(pairs, "type", "x" * 5000)), unknown_type),
        Mutation("type: an int", tuple(_replaced(pairs, "type", 1)), no_type),
        Mutation("type: a bin", tuple(_replaced(pairs, "type", b"shot")), no_type),
        Mutation("type missing", tuple((k, v) for k, v in pairs if k != "type"), no_type),
        Mutation("type: 'say'", tuple(_replaced(pairs, "type", "say")), TALK),
    ]
    out += [
        Mutation(f"type: {name!r}", tuple(_replaced(pairs, "type", name)), ANYTHING)
        for name in SCHEMA
    ]
    return out


UNKNOWN_TYPE = Expect.refused(Code.UNKNOWN_TYPE)
TALK = Expect(frozenset({Outcome.TALK}))


def _replaced(pairs: list[tuple[Any, Any]], name: str, value: Any) -> list[tuple[Any, Any]]:
    """``pairs`` with ``name``'s value replaced in place, or added at the end."""
    if any(k == name for k, _ in pairs):
        return [(k, value if k == name else v) for k, v in pairs]
    return [*pairs, (name, value)]


def _renamed(pairs: list[tuple[Any, Any]], name: str) -> list[tuple[Any, Any]]:
    """``name`` written as a bin key: never equal to the str key SPEC defines."""
    return [(k.encode() if k == name else k, v) for k, v in pairs]


# ---------------------------------------------------------------- honest games, every point


@dataclass(frozen=True)
class Point:
    """A moment of an honest game: ``sender`` has just sent ``frames``, not yet delivered."""

    pair: BackToBack
    events: dict[Role, tuple[Event, ...]]
    sender: Role
    frames: tuple[bytes, ...]


RULES_PLAYED: dict[str, Ruleset] = {
    "salvo": PRESETS["salvo"],
    "salvo-count": PRESETS["salvo-count"],
    "five-ships salvo": replace(PRESETS["five-ships"], turns=Turns.SALVO),
}
"""The three answer shapes (an outcome a shot, a count, the sunk ships' names), in games
short enough that a referee judges their logs quickly: salvos."""


@cache
def points(rules: str) -> tuple[Point, ...]:
    """Every delivery of one honest game by ``rules``, each as a point to mutate at."""
    pair = make_pair(RULES_PLAYED[rules], seed=11)
    rng = random.Random(12)
    pair.record(Role.HOST, pair.host.start(pair.now))
    out: list[Point] = []
    for _ in range(2000):
        sender = next((s for s in (pair.host, pair.guest) if s._outbox), None)
        if sender is None:
            if player_moves(pair, rng):
                continue
            break
        data = sender.data_to_send()
        out.append(
            Point(
                snapshot(pair),
                {role: tuple(pair.events[role]) for role in Role},
                sender.role,
                tuple(bytes(msgpack.packb(f, use_bin_type=True)) for f in _frames(data)),
            )
        )
        receiver = pair.session(sender.role.other)
        pair.now += 1
        pair.record(receiver.role, receiver.receive_data(data, pair.now))
    assert pair.host.closed and pair.guest.closed
    return tuple(out)


def _frames(data: bytes) -> list[Any]:
    unpacker = msgpack.Unpacker(raw=False)
    unpacker.feed(data)
    return list(unpacker)


def body_pairs(frame: bytes) -> list[tuple[Any, Any]]:
    """The body's keys and values in their order (the maps inside stay maps)."""
    body, _signature = msgpack.unpackb(frame, raw=False)
    return list(msgpack.unpackb(body, raw=False).items())


def signed(pair: BackToBack, sender: Role, pairs: tuple[tuple[Any, Any], ...]) -> bytes:
    body = pack_pairs(list(pairs))
    signature = pair.session(sender).key.sign(SIGN_LABEL + body)
    return pack([body, signature])


# ---------------------------------------------------------------- the check


def outcome_of(events: list[Event], body: bytes) -> Outcome:
    if any(isinstance(e, FrameAdded) and e.frame.body == body for e in events):
        return Outcome.ACCEPTED
    if any(isinstance(e, Evidence) and e.frame.body == body for e in events):
        refused = any(isinstance(e, Failed) and not e.by_peer for e in events)
        return Outcome.REFUSED if refused else Outcome.LOST
    if any(isinstance(e, ConnectionLost) for e in events):
        return Outcome.LOST
    if any(isinstance(e, Failed) and e.code in LOCAL_CODES for e in events):
        return Outcome.DECLINED
    return Outcome.TALK


def code_of(events: list[Event], outcome: Outcome) -> Code | None:
    if outcome is Outcome.REFUSED:
        return next(e.code for e in events if isinstance(e, Failed))
    if outcome is Outcome.LOST:
        return next(e.code for e in events if isinstance(e, ConnectionLost))
    return None


def receiver_log(point: Point, probe: BackToBack, role: Role) -> bytes:
    """The log the receiver writes: what it recorded before the point, then since."""
    records = []
    for event in (*point.events[role], *probe.events[role]):
        if isinstance(event, FrameAdded):
            records.append(frame_record(event.frame))
        elif isinstance(event, Evidence):
            records.append(evidence_record(event.frame, event.code, event.at))
    return log_file(header_record(role.value, "statki test", 0), records)


class Depth(enum.IntEnum):
    """How far ``check`` follows a mutated frame: each step costs more than the last."""

    ANSWER = 1
    """The receiver's answer to it: about 5 ms."""
    PLAYED = 2
    """And the game played out to both sides' ends: about 15 ms."""
    JUDGED = 3
    """And a refused frame's log judged by the referee: about 55 ms."""


def check(point: Point, index: int, mutation: Mutation, seed: int, depth: Depth) -> None:
    """Deliver the mutated frame at ``point`` and check what follows, as deep as ``depth``."""
    probe = snapshot(point.pair)
    sender, receiver = probe.session(point.sender), probe.session(point.sender.other)
    for frame in point.frames[:index]:  # the frames before the mutated one arrive as sent
        probe.now += 1
        probe.record(receiver.role, receiver.receive_data(frame, probe.now))
    if not receiver.connected:
        return
    decided = receiver.transcript.phase in (*VERDICT_PHASES, Phase.DONE)
    data = signed(probe, point.sender, mutation.pairs)
    body = msgpack.unpackb(data, raw=False)[0]
    before = len(probe.events[receiver.role])
    probe.now += 1
    probe.record(receiver.role, receiver.receive_data(data, probe.now))
    events = probe.events[receiver.role][before:]

    outcome = outcome_of(events, body)
    code = code_of(events, outcome)
    assert outcome in mutation.expect.outcomes, (mutation.what, outcome, code, events)
    if mutation.expect.code is not None:
        assert code is mutation.expect.code, (mutation.what, outcome, code, events)
    if outcome is Outcome.REFUSED:
        assert code is not None and code not in LOCAL_CODES | NOT_THE_PEERS_WORD, code
        answer = receiver.transcript.frames[-1]
        assert answer.header.sender is receiver.role and isinstance(answer.message, Error)
        assert answer.message.code == code.value, "the error names the refused frame's code"
    if outcome is Outcome.LOST:
        # Not the peer's word: steps 1-4 (a header's bad-field, a hello with no key to
        # check its signature with), or a time claim too early by this side's clock.
        assert code in NOT_THE_PEERS_WORD | {Code.BAD_FIELD, Code.OUT_OF_TURN}, code
        assert not receiver.data_to_send(), "nobody's word is never answered"
    if outcome is Outcome.TALK:
        assert receiver.connected, "talk never touches the game"
    if outcome is Outcome.DECLINED:
        assert receiver.role is Role.GUEST and not receiver.transcript.frames, "before any game"

    if depth < Depth.PLAYED:
        return
    # Played out as real peers: the game must end on both sides, whatever it came to.
    sender.data_to_send()  # what the sender still had queued was sent past the mutation
    finish(probe, random.Random(seed))
    ending = receiver.ending
    assert ending is not None and not ending.blames(receiver.role), (mutation.what, ending)
    if outcome is Outcome.REFUSED and code is not Code.VERSION and not decided:
        assert ending.blames(sender.role), (mutation.what, ending)
    if outcome is Outcome.REFUSED and depth >= Depth.JUDGED:
        # The signed evidence in the receiver's log proves it: the referee agrees.
        judged = judge_log(receiver_log(point, probe, receiver.role))
        assert judged.ending is not None, (mutation.what, judged.reason)
        assert _result(judged.ending) == _result(ending), (mutation.what, judged.ending, ending)


def _result(ending: Ending) -> tuple[End, Role | None, frozenset[Role]]:
    return ending.end, ending.winner, ending.culprits


@settings(
    max_examples=80,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    derandomize=True,
)
@given(rules=st.sampled_from(tuple(RULES_PLAYED)), where=st.floats(0, 1), data=st.data())
def test_a_mutated_field_of_any_message_is_refused_as_spec_says(
    rules: str, where: float, data: st.DataObject
) -> None:
    played = points(rules)
    point = played[min(len(played) - 1, int(where * len(played)))]
    index = data.draw(st.integers(0, len(point.frames) - 1), label="frame")
    pairs = body_pairs(point.frames[index])
    message = dict(pairs)["type"]
    mutation = data.draw(st.sampled_from(mutations(message, pairs)), label="mutation")
    check(point, index, mutation, seed=index, depth=Depth.JUDGED)


@pytest.mark.parametrize("rules", tuple(RULES_PLAYED))
def test_every_mutation_of_every_message_type_is_reached(rules: str) -> None:
    """The honest games hold every message type but the ones only a quitter or a refusal
    sends, each at a point where it can arrive.  Each mutation of each type is checked
    once over the three games, a third in each, to the receiver's answer (about 1.5 s a
    game)."""
    seen: dict[str, tuple[Point, int]] = {}
    for point in points(rules):
        for index, frame in enumerate(point.frames):
            seen.setdefault(dict(body_pairs(frame))["type"], (point, index))
    assert set(seen) == set(SCHEMA) - {"refuse", "resign", "timeout", "error"}, sorted(seen)
    part = tuple(RULES_PLAYED).index(rules)
    for message, (point, index) in sorted(seen.items()):
        every = mutations(message, body_pairs(point.frames[index]))
        for n, mutation in enumerate(every[part :: len(RULES_PLAYED)]):
            check(point, index, mutation, seed=n, depth=Depth.PLAYED)
