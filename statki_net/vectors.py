"""Test vectors for other implementations: every file of protocol/ except its README.

``python -m statki_net.vectors protocol/`` writes them; tests/test_vectors.py
generates them again in memory and compares byte for byte, so they cannot
drift from the code.  Nothing here reads a clock or the OS's randomness: the
keys, secrets, coins and nonces come from fixed seeds through a SHA-256
counter (``Drbg``), fleets from seeded ``random.Random``, and time is a
counter that starts at ``START``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgpack
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from .battle import Answer, Cell, Outcome
from .board import square_name
from .commitment import (
    COIN_LABEL,
    LEAF_LABEL,
    PAD,
    SALT_LABEL,
    SHIPS_LABEL,
    TOSS_LABEL,
    FleetCommitment,
    coin_commitment,
    leaf,
    node,
    salt,
    ships_digest,
    toss,
    tree_width,
)
from .errors import UsageError
from .fleet import Fleet, fleet_problems, random_fleet
from .gamelog import MAGIC, Note, frame_record, header_record, note_record
from .rules import PRESETS, Ruleset
from .session import Session, public_key_bytes
from .transcript import Phase
from .verify import judge_log
from .wire import (
    GAME_LABEL,
    GENESIS,
    HASH_LABEL,
    MAX_FRAME,
    SIGN_LABEL,
    Frame,
    Header,
    Role,
    Shot,
    game_id,
    message_hash,
    sign,
)

START = 1_700_000_000_000
"""The clock of every generated game starts here (ms) and ticks once a delivery."""
SOFTWARE = "statki vectors"
README = "README.md"
"""The one file of protocol/ written by hand, not by this module."""


def test_seed(role: Role) -> bytes:
    """The fixed Ed25519 private key seed of each test player."""
    return hashlib.sha256(b"statki test key: " + role.value.encode()).digest()


def test_key(role: Role) -> Ed25519PrivateKey:
    return Ed25519PrivateKey.from_private_bytes(test_seed(role))


class Drbg:
    """Deterministic bytes: SHA-256(seed || u32be(counter)) blocks, counter from 0."""

    def __init__(self, seed: str) -> None:
        self.seed = seed.encode()
        self.counter = 0

    def __call__(self, size: int) -> bytes:
        out = b""
        while len(out) < size:
            out += hashlib.sha256(self.seed + self.counter.to_bytes(4, "big")).digest()
            self.counter += 1
        return out[:size]


# ---------------------------------------------------------------- JSON helpers


def as_json(value: Any) -> Any:
    """A msgpack value as JSON: a bin becomes ``{"bin": "<hex>"}``, the rest maps directly."""
    if isinstance(value, bytes):
        return {"bin": value.hex()}
    if isinstance(value, dict):
        return {key: as_json(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [as_json(item) for item in value]
    return value


def dump(value: Any) -> bytes:
    return (json.dumps(value, indent=2, ensure_ascii=False) + "\n").encode()


# ---------------------------------------------------------------- games


class Game:
    """Two sessions wired back to back, with a clock that ticks once a delivery."""

    def __init__(
        self,
        rules: Ruleset,
        seed: int,
        host_cls: type[Session] = Session,
        guest_cls: type[Session] = Session,
    ) -> None:
        self.rules = rules
        self.rng = random.Random(seed)
        self.now = START
        self.host = host_cls(
            Role.HOST,
            test_key(Role.HOST),
            name="Ala",
            software=SOFTWARE,
            entropy=Drbg(f"statki vectors {seed} host"),
            rules=rules,
            fleet=random_fleet(rules, self.rng),
        )
        self.guest = guest_cls(
            Role.GUEST,
            test_key(Role.GUEST),
            name="Olek",
            software=SOFTWARE,
            entropy=Drbg(f"statki vectors {seed} guest"),
        )
        self.volleys = 0

    def session(self, role: Role) -> Session:
        return self.host if role is Role.HOST else self.guest

    def pump(self) -> None:
        """Deliver bytes both ways until both sides are quiet."""
        moved = True
        while moved:
            moved = False
            for sender in (self.host, self.guest):
                data = sender.data_to_send()
                if data:
                    moved = True
                    self.now += 1
                    self.session(sender.role.other).receive_data(data, self.now)

    def open(self, guest_fleet: Fleet | None = None) -> None:
        """Hellos, acceptance, commitments and the coin toss."""
        self.host.start(self.now)
        self.pump()
        fleet = guest_fleet or random_fleet(self.rules, self.rng)
        self.guest.accept(fleet, self.now)
        self.pump()

    def mover(self) -> Session | None:
        return next((s for s in (self.host, self.guest) if s.my_turn), None)

    def volley(self) -> None:
        """The side to move fires at squares it knows nothing of, chosen at random."""
        mover = self.mover()
        assert mover is not None and mover.view is not None
        area = self.rules.size**2
        unknown = [s for s in range(area) if mover.view.cell(s) is Cell.UNKNOWN]
        due = mover.shots_due
        shots = self.rng.sample(unknown, min(due, len(unknown)))
        shots += self.rng.sample(range(area), due - len(shots))
        self.volleys += 1
        mover.shoot(tuple(shots), self.now)
        self.pump()

    def play(self, *, until: Callable[[Game], bool] = lambda game: False) -> None:
        """Fire volleys until nobody can shoot or ``until`` says stop."""
        while self.mover() is not None and not until(self):
            self.volley()
            if self.volleys > 3000:
                raise UsageError("the game does not end")

    def resign(self) -> None:
        mover = self.mover()
        assert mover is not None
        mover.resign(self.now)
        self.pump()

    def frames(self, role: Role = Role.HOST) -> list[Frame]:
        return list(self.session(role).transcript.frames)


def log_file(frames: list[Frame], role: Role = Role.HOST, notes: tuple[Note, ...] = ()) -> bytes:
    """The log file a peer in ``role`` writes for these frames, notes last."""
    header = header_record(role.value, SOFTWARE, START)
    data = MAGIC + bytes(msgpack.packb(header, use_bin_type=True))
    data += b"".join(frame_record(frame) for frame in frames)
    return data + b"".join(note_record(note) for note in notes)


def resign_after(volleys: int) -> Callable[[Game], bool]:
    return lambda game: game.volleys >= volleys


# ---------------------------------------------------------------- dishonest peers


class SaysMissForFirstHit(Session):
    """Answers 'miss' for the first shot that hits: its proof shows the lie on the move."""

    lied_at: int | None = None

    def falsify(self, squares: tuple[int, ...], answer: Answer) -> Answer:
        if self.lied_at is None and answer.outcomes and answer.outcomes[0] is not Outcome.MISS:
            self.lied_at = self.transcript.move
            return Answer((Outcome.MISS,), 0, 0)
        return answer


class SaysHitForFirstSink(Session):
    """Answers 'hit' for the first sinking shot: no proof can show it, the reveal does."""

    lied_at: int | None = None

    def falsify(self, squares: tuple[int, ...], answer: Answer) -> Answer:
        if self.lied_at is None and answer.outcomes == (Outcome.SUNK,):
            self.lied_at = self.transcript.move
            return Answer((Outcome.HIT,), 1, 0)
        return answer


class PlacesIllegally(Session):
    """Commits to a fleet that breaks the touching rule, and answers honestly from it."""

    def set_fleet(self, fleet: Fleet) -> None:
        rules = self.rules
        assert rules is not None
        from .battle import Defence

        self.fleet, self.defence = fleet, Defence(rules, fleet)


class RevealsAnotherFleet(Session):
    """Plays honestly, then reveals a different (legal) fleet than the one committed."""

    decoy: Fleet | None = None

    def _speak(self, now: int) -> None:
        if self.transcript.phase in (Phase.FIRST_REVEAL, Phase.SECOND_REVEAL):
            self.fleet = self.decoy
        super()._speak(now)


class NeverReveals(Session):
    """Plays honestly and falls silent when it should reveal."""

    def _speak(self, now: int) -> None:
        if self.transcript.phase not in (Phase.FIRST_REVEAL, Phase.SECOND_REVEAL):
            super()._speak(now)


def touching_fleet(rules: Ruleset, rng: random.Random) -> Fleet:
    """A fleet legal but for one pair of ships touching at a corner."""
    fleet = random_fleet(rules, rng)
    rest = fleet.ships[:-1]
    for square in range(rules.size**2):
        candidate = Fleet((*rest, (square,)))
        problems = fleet_problems(rules, candidate)
        if len(problems) == 1 and problems[0].kind == "touching":
            return candidate
    raise UsageError("no touching placement found")


def forged(key: Ed25519PrivateKey, sender: Role, after: list[Frame], message: Shot) -> Frame:
    """A frame correctly chained after ``after`` and signed, for tampered logs."""
    last = after[-1]
    header = Header(sender, len(after), last.digest, last.header.game, last.header.at + 1)
    return sign(key, header, message)


# ---------------------------------------------------------------- scenarios


@dataclass
class Scenario:
    """One game log of protocol/logs/ and what it is meant to show."""

    name: str
    description: str
    log: bytes
    frames: list[Frame] = field(default_factory=list)
    """The frames of the log, for frames.json."""


def honest(preset: str, seed: int) -> Scenario:
    game = Game(PRESETS[preset], seed)
    game.open()
    game.play()
    return Scenario(
        f"honest-{preset}",
        f"An honest game under the {preset} preset, played until a fleet sank.",
        log_file(game.frames()),
        game.frames(),
    )


def scenarios() -> Iterator[Scenario]:
    for seed, preset in enumerate(PRESETS, start=1):
        yield honest(preset, seed)

    game = Game(PRESETS["classic"], 20)
    game.open()
    game.play(until=resign_after(9))
    game.resign()
    yield Scenario(
        "honest-resigned",
        "An honest classic game in which the side to move resigns at the tenth volley; "
        "both fleets are still revealed.",
        log_file(game.frames()),
        game.frames(),
    )

    game = Game(PRESETS["classic"], 21)
    game.host.start(game.now)
    game.pump()
    game.guest.refuse("I play salvo only", game.now)
    game.pump()
    yield Scenario(
        "refused",
        "The guest refuses the host's rules: no game is played (verdict: unfinished).",
        log_file(game.frames()),
        game.frames(),
    )

    game = Game(PRESETS["classic"], 22, guest_cls=SaysMissForFirstHit)
    game.open()
    game.play()
    yield Scenario(
        "false-answer-on-move",
        "The guest answers 'miss' to the first shot that hits one of its ships; the opening "
        "it must send with the answer shows a ship, so the lie is caught on that move and "
        "play stops (no reveal is needed).",
        log_file(game.frames()),
        game.frames(),
    )

    game = Game(PRESETS["classic"], 23, guest_cls=SaysHitForFirstSink)
    game.open()
    liar = game.guest
    assert isinstance(liar, SaysHitForFirstSink)
    game.play(until=lambda g: liar.lied_at is not None and g.volleys >= liar.lied_at + 4)
    game.resign()
    yield Scenario(
        "false-answer-at-reveal",
        "The guest answers 'hit' where its ship sank.  The opening proves only that the "
        "square holds a ship, so the lie is found at the reveal by replaying every answer "
        "against the revealed fleet.  The game ends by resignation a few volleys later.",
        log_file(game.frames()),
        game.frames(),
    )

    game = Game(PRESETS["classic"], 24, guest_cls=PlacesIllegally)
    game.open(touching_fleet(game.rules, random.Random(24)))
    game.play(until=resign_after(12))
    game.resign()
    yield Scenario(
        "illegal-fleet",
        "The guest committed to a fleet in which two ships touch at a corner and answered "
        "truthfully from it; the reveal shows the illegal fleet.",
        log_file(game.frames()),
        game.frames(),
    )

    game = Game(PRESETS["classic"], 25, guest_cls=RevealsAnotherFleet)
    decoy = random_fleet(game.rules, random.Random(2500))
    assert isinstance(game.guest, RevealsAnotherFleet)
    game.guest.decoy = decoy
    game.open()
    game.play(until=resign_after(12))
    game.resign()
    yield Scenario(
        "bad-reveal",
        "The guest reveals a legal fleet other than the one it committed to: the revealed "
        "fleet and secret do not give the committed Merkle root.",
        log_file(game.frames()),
        game.frames(),
    )

    base = Game(PRESETS["classic"], 26)
    base.open()
    base.play(until=resign_after(12))
    base.resign()
    frames = base.frames()
    yield Scenario(
        "honest-short",
        "An honest classic game resigned at the thirteenth volley: the untouched original "
        "of the tampered logs below.",
        log_file(frames),
        frames,
    )

    record = frame_record(frames[9])
    spoiled = bytearray(record)
    spoiled[-1] ^= 0x01  # the last byte of the record is the last byte of the signature
    intact = log_file(frames)
    yield Scenario(
        "bad-signature",
        "honest-short with one bit of message 9's signature flipped.",
        intact.replace(record, bytes(spoiled)),
    )

    yield Scenario(
        "reordered",
        "honest-short with messages 10 and 11 swapped.",
        log_file([*frames[:10], frames[11], frames[10], *frames[12:]]),
    )

    other = Game(PRESETS["classic"], 27)
    other.open()
    other.play(until=resign_after(12))
    other.resign()
    yield Scenario(
        "spliced",
        "The first 12 messages of honest-short followed by the rest of another game between "
        "the same two keys: every message is well signed, but the chain breaks at the joint.",
        log_file(frames[:12] + other.frames()[12:]),
    )

    whole = log_file(frames[:20])
    yield Scenario(
        "truncated",
        "honest-short cut in the middle of message 20's record, as a crash would leave it.",
        whole + frame_record(frames[20])[:40],
    )

    yield Scenario(
        "unfinished",
        "honest-short cut cleanly after message 20, in the middle of the battle.",
        whole,
    )

    at = next(i for i in range(14, len(frames)) if isinstance(frames[i].message, Shot))
    turn = frames[at].header.sender  # the shooter
    intruder = turn.other
    forgery = forged(test_key(intruder), intruder, frames[:at], Shot((0,)))
    yield Scenario(
        "out-of-turn",
        f"honest-short up to message {at - 1}, then a shot signed by the {intruder}, "
        f"correctly chained, while it is the {turn}'s turn to shoot.",
        log_file([*frames[:at], forgery]),
        [*frames[:at], forgery],
    )

    game = Game(PRESETS["classic"], 28, guest_cls=NeverReveals)
    game.open()
    game.play(until=resign_after(8))
    if game.mover() is game.guest:
        game.play(until=resign_after(9))
    game.resign()  # the host resigns, so the guest wins and must reveal first
    silent = game.frames()
    yield Scenario(
        "missing-reveal",
        "The host resigns; the guest, who won and must reveal first, never does. "
        "The log stops there.",
        log_file(silent),
    )
    game.now += game.host.transcript.limits.reveal_ms
    game.host.check_time(game.now)
    yield Scenario(
        "timeout-at-reveal",
        "missing-reveal, then the host claims the game on time: the guest forfeits.",
        log_file(game.frames()),
        game.frames(),
    )

    game = Game(PRESETS["classic"], 29)
    game.open()
    game.play(until=resign_after(6))
    mover = game.mover()
    assert mover is not None
    waiter = game.session(mover.role.other)
    game.now += game.host.transcript.limits.move_ms
    waiter.check_time(game.now)
    yield Scenario(
        "timeout-in-battle",
        "The side to shoot falls silent; the other claims the game on time.",
        log_file(game.frames(waiter.role), waiter.role),
        game.frames(waiter.role),
    )

    game = Game(PRESETS["classic"], 30)
    game.open()
    game.play(until=resign_after(4))
    mover = game.mover()
    assert mover is not None
    defender = game.session(mover.role.other)
    bad = forged(test_key(mover.role), mover.role, game.frames(), Shot((1, 2)))
    raw = bad.encode()
    game.now += 1
    defender.receive_data(raw, game.now)
    game.pump()
    note = Note("rejected a frame: bad-shot", game.now, raw)
    yield Scenario(
        "aborted",
        f"The {mover.role} fires two shots where one is due; the {defender.role} rejects the "
        "frame (kept as a note record, unsigned evidence) and stops the game with a signed "
        "error message.",
        log_file(game.frames(defender.role), defender.role, (note,)),
        game.frames(defender.role),
    )


# ---------------------------------------------------------------- the files


def log_files(all_scenarios: list[Scenario]) -> dict[str, bytes]:
    files: dict[str, bytes] = {}
    index = []
    for scenario in all_scenarios:
        judgement = judge_log(scenario.log)
        files[f"logs/{scenario.name}.statki"] = scenario.log
        files[f"logs/{scenario.name}.json"] = dump(
            {
                "log": f"{scenario.name}.statki",
                "description": scenario.description,
                "sha256": hashlib.sha256(scenario.log).hexdigest(),
                "expected": judgement.to_json(),
            }
        )
        first = judgement.violations[0].kind if judgement.violations else None
        index.append({"name": scenario.name, "status": judgement.status, "first": first})
    files["logs/index.json"] = dump(index)
    return files


def frame_entry(name: str, note: str, frame: Frame) -> dict[str, Any]:
    return {
        "name": name,
        "note": note,
        "frame": frame.encode().hex(),
        "body": frame.body.hex(),
        "signature": frame.signature.hex(),
        "hash": frame.digest.hex(),
        "map": as_json(msgpack.unpackb(frame.body, raw=False)),
    }


def frames_file(by_name: dict[str, Scenario]) -> bytes:
    picks: list[tuple[str, str, str, Callable[[Frame], bool]]] = []

    def pick(name: str, log: str, note: str, test: Callable[[Frame], bool]) -> None:
        picks.append((name, log, note, test))

    def kind(
        type_: str, extra: Callable[[dict[str, Any]], bool] = lambda m: True
    ) -> Callable[[Frame], bool]:
        def test(frame: Frame) -> bool:
            body = msgpack.unpackb(frame.body, raw=False)
            return bool(body["type"] == type_ and extra(body))

        return test

    classic = "honest-classic"
    pick("hello-host", classic, "The host's hello: it proposes rules and limits.", kind("hello"))
    pick(
        "hello-guest",
        classic,
        "The guest's hello: no rules, no limits.",
        kind("hello", lambda m: m["from"] == "guest"),
    )
    pick("accept", classic, "The guest accepts; the first message with a game id.", kind("accept"))
    pick("commit", classic, "The host's fleet root and coin commitment.", kind("commit"))
    pick("coin", classic, "The host opens its coin.", kind("coin"))
    pick("shot", classic, "One shot: square numbers, row * size + column.", kind("shot"))

    def outcomes(*want: str) -> Callable[[dict[str, Any]], bool]:
        return lambda m: m.get("outcomes") == list(want)

    pick(
        "answer-miss",
        classic,
        "A miss, with the opening of the shot square.",
        kind("answer", outcomes("miss")),
    )
    pick(
        "answer-hit",
        classic,
        "A hit, with the opening of the shot square.",
        kind("answer", outcomes("hit")),
    )
    pick(
        "answer-sunk",
        classic,
        "A sink under classic rules: openings of the shot square and of every square newly "
        "marked empty around the ship.",
        kind("answer", outcomes("sunk")),
    )
    pick(
        "reveal",
        classic,
        "The winner's reveal: ships in fleet order, and the secret.",
        kind("reveal"),
    )
    pick("verdict", classic, "The winner's verdict on an honest game.", kind("verdict"))
    pick(
        "shot-salvo",
        "honest-salvo",
        "A salvo: one shot per ship the shooter has afloat.",
        kind("shot", lambda m: len(m["squares"]) > 1),
    )
    pick(
        "answer-salvo",
        "honest-salvo",
        "A salvo answered shot by shot.",
        kind("answer", lambda m: m["hits"] > 0),
    )
    pick(
        "answer-salvo-count",
        "honest-salvo-count",
        "A salvo answered with the number of hits only: no outcomes, no proofs.",
        kind("answer", lambda m: m["hits"] > 0),
    )
    pick(
        "answer-named-sink",
        "honest-five-ships",
        "A sink under five-ships: the ship is named; ships may touch, so nothing is marked.",
        kind("answer", lambda m: bool(m.get("names"))),
    )
    pick("refuse", "refused", "The guest refuses the rules.", kind("refuse"))
    pick("resign", "honest-resigned", "A resignation.", kind("resign"))
    pick("timeout", "timeout-in-battle", "A claim of the game on time.", kind("timeout"))
    pick("error", "aborted", "A protocol error that stops the game.", kind("error"))
    pick(
        "verdict-cheated",
        "false-answer-on-move",
        "The host's verdict after catching a false answer: findings in words.",
        kind("verdict"),
    )

    entries = []
    for name, log, note, test in picks:
        frame = next(f for f in by_name[log].frames if test(f))
        entries.append(frame_entry(name, f"{note} (from logs/{log}.statki)", frame))
    classic_frames = by_name[classic].frames
    host_hello, guest_hello = classic_frames[0].body, classic_frames[1].body
    return dump(
        {
            "about": "Frames as sent on the wire: frame = msgpack [body bin, signature bin]. "
            "'map' is the body decoded, with every bin written as {\"bin\": hex}. "
            "'hash' is SHA-256(HASH_LABEL || body). Signatures are by the test keys of "
            "signing.json (the 'from' key tells which).",
            "max_frame": MAX_FRAME,
            "labels": {
                "SIGN_LABEL": SIGN_LABEL.hex(),
                "HASH_LABEL": HASH_LABEL.hex(),
                "GAME_LABEL": GAME_LABEL.hex(),
                "GENESIS": GENESIS.hex(),
            },
            "game_id": {
                "host_hello_body": host_hello.hex(),
                "guest_hello_body": guest_hello.hex(),
                "host_hello_hash": message_hash(host_hello).hex(),
                "guest_hello_hash": message_hash(guest_hello).hex(),
                "game": game_id(host_hello, guest_hello).hex(),
            },
            "frames": entries,
        }
    )


def signing_file(by_name: dict[str, Scenario]) -> bytes:
    # RFC 8032, section 7.1, TEST 1 and TEST 2: plain Ed25519, to check the primitive.
    rfc = [
        (
            "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60",
            "",
        ),
        (
            "4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb",
            "72",
        ),
    ]
    keys = {
        role.value: {
            "seed": test_seed(role).hex(),
            "public": public_key_bytes(test_key(role)).hex(),
            "derivation": f'SHA-256("statki test key: {role.value}")',
        }
        for role in Role
    }
    vectors = []
    for seed_hex, message_hex in rfc:
        key = Ed25519PrivateKey.from_private_bytes(bytes.fromhex(seed_hex))
        message = bytes.fromhex(message_hex)
        vectors.append(
            {
                "name": "RFC 8032 7.1 TEST " + ("1" if not message else "2"),
                "seed": seed_hex,
                "public": public_key_bytes(key).hex(),
                "message": message_hex,
                "signature": key.sign(message).hex(),
            }
        )
    for frame in by_name["honest-classic"].frames[:3]:
        role = frame.header.sender
        signed = SIGN_LABEL + frame.body
        vectors.append(
            {
                "name": f"statki {frame.message.TYPE} from the {role}",
                "seed": test_seed(role).hex(),
                "public": public_key_bytes(test_key(role)).hex(),
                "body": frame.body.hex(),
                "message": signed.hex(),
                "signature": frame.signature.hex(),
            }
        )
    return dump(
        {
            "about": "Ed25519 (RFC 8032, pure).  A statki signature is over "
            "SIGN_LABEL || body; 'message' is exactly the bytes signed.",
            "SIGN_LABEL": SIGN_LABEL.hex(),
            "keys": keys,
            "vectors": vectors,
        }
    )


def commitment_example(
    name: str, size: int, ships: list[list[int]], seed: str, openings: list[int], *, levels: bool
) -> dict[str, Any]:
    entropy = Drbg(seed)
    game, secret = entropy(32), entropy(32)
    area = size * size
    fleet = Fleet(tuple(tuple(ship) for ship in ships))
    tree = FleetCommitment(game, secret, fleet.board, area)
    salts = [salt(secret, game, i) for i in range(area)]
    leaves = [leaf(game, i, bool(fleet.board >> i & 1), salts[i]) for i in range(area)]
    padded = leaves + [PAD] * (tree_width(area) - area)
    example: dict[str, Any] = {
        "name": name,
        "size": size,
        "squares": area,
        "ships": ships,
        "ship_squares": sorted(s for ship in ships for s in ship),
        "game": game.hex(),
        "secret": secret.hex(),
        "width": tree_width(area),
        "salts": [s.hex() for s in salts],
        "leaves": [h.hex() for h in padded],
    }
    if levels:
        tiers = [padded]
        while len(tiers[-1]) > 1:
            below = tiers[-1]
            tiers.append([node(below[j], below[j + 1]) for j in range(0, len(below), 2)])
        example["levels"] = [[h.hex() for h in tier] for tier in tiers[1:]]
    example["root"] = tree.root.hex()
    # commit.ships: the ships in the listed order, each its length then its squares ascending.
    example["ships_digest"] = ships_digest(game, secret, ships).hex()
    example["openings"] = []
    for square in openings:
        opening = tree.open(square)
        example["openings"].append(
            {
                "square": square,
                "name": square_name(square, size),
                "ship": opening.ship,
                "salt": opening.salt.hex(),
                "path": [p.hex() for p in opening.path],
                "wire": as_json([opening.square, opening.ship, opening.salt, list(opening.path)]),
            }
        )
    return example


def commitment_file() -> bytes:
    classic = random_fleet(PRESETS["classic"], random.Random(5))
    return dump(
        {
            "about": "salt_i = HMAC-SHA256(secret, SALT_LABEL || game || u16be(i)); "
            "leaf_i = SHA-256(00 || LEAF_LABEL || game || u16be(i) || u8(ship) || salt_i); "
            "node = SHA-256(01 || left || right); leaves in square order, padded with "
            "32 zero bytes to 'width'; 'levels' are the tree's rows above the leaves, "
            "the last being the root.  An opening is [square, ship, salt, path], path "
            "from the leaf's sibling upward.",
            "ships_digest": "SHA-256(SHIPS_LABEL || game || secret || for each ship in "
            "order: u8(length) || its squares ascending, u16be each)",
            "labels": {
                "SALT_LABEL": SALT_LABEL.hex(),
                "LEAF_LABEL": LEAF_LABEL.hex(),
                "SHIPS_LABEL": SHIPS_LABEL.hex(),
            },
            "examples": [
                commitment_example(
                    "3x3 board, ships A1-B1 and C3",
                    3,
                    [[0, 1], [8]],
                    "statki vectors commitment 3x3",
                    list(range(9)),
                    levels=True,
                ),
                commitment_example(
                    "classic 10x10 board",
                    10,
                    classic.to_lists(),
                    "statki vectors commitment 10x10",
                    [0, classic.ships[0][0], 55, 99],
                    levels=False,
                ),
            ],
        }
    )


def coin_file() -> bytes:
    examples: list[dict[str, str]] = []
    entropy = Drbg("statki vectors coin")
    while len(examples) < 4:
        game, host_coin, guest_coin = entropy(32), entropy(32), entropy(32)
        first = toss(game, host_coin, guest_coin)
        if sum(e["first"] == first for e in examples) >= 2:
            continue  # two examples of each outcome
        digest = hashlib.sha256(TOSS_LABEL + game + host_coin + guest_coin).digest()
        examples.append(
            {
                "game": game.hex(),
                "host_coin": host_coin.hex(),
                "guest_coin": guest_coin.hex(),
                "host_commitment": coin_commitment(game, "host", host_coin).hex(),
                "guest_commitment": coin_commitment(game, "guest", guest_coin).hex(),
                "toss_hash": digest.hex(),
                "first": first,
            }
        )
    return dump(
        {
            "about": "commitment = SHA-256(COIN_LABEL || game || role || coin), role the ASCII "
            "'host' or 'guest'; toss_hash = SHA-256(TOSS_LABEL || game || host_coin || "
            "guest_coin); the host starts when the last byte of toss_hash is even.",
            "labels": {"COIN_LABEL": COIN_LABEL.hex(), "TOSS_LABEL": TOSS_LABEL.hex()},
            "examples": examples,
        }
    )


def generate() -> dict[str, bytes]:
    """Every generated file of protocol/, by path relative to it."""
    all_scenarios = list(scenarios())
    by_name = {s.name: s for s in all_scenarios}
    files = {
        "signing.json": signing_file(by_name),
        "commitment.json": commitment_file(),
        "coin.json": coin_file(),
        "frames.json": frames_file(by_name),
    }
    files.update(log_files(all_scenarios))
    return files


def write(directory: Path) -> list[str]:
    """Write the vectors into ``directory``, removing stale generated files; the paths written."""
    files = generate()
    for stale in sorted(directory.glob("**/*")):
        relative = stale.relative_to(directory).as_posix()
        if stale.is_file() and relative != README and relative not in files:
            stale.unlink()
    for relative, data in files.items():
        path = directory / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    return sorted(files)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m statki_net.vectors", description="Write protocol/'s test vectors."
    )
    parser.add_argument("directory", type=Path, help="where to write them, usually protocol/")
    args = parser.parse_args(argv)
    written = write(args.directory)
    print(f"wrote {len(written)} files to {args.directory}")
    return 0


if __name__ == "__main__":
    sys.exit(main())


__all__ = ["Drbg", "as_json", "generate", "test_key", "test_seed", "write"]
