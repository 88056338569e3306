"""The logs of protocol/logs/: scripted games between two sessions, honest or not.

Each ``Scenario`` is one log and what it is meant to show.  Honest games are
two ``Session``s wired back to back; dishonest peers are sessions given a
``Behaviour`` that lies in its answers, commits to an illegal fleet or
reveals falsely; tampered logs edit the bytes of an honest one.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace

import msgpack
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from statki_net.game.battle import Answer, Cell, Outcome
from statki_net.game.errors import UsageError
from statki_net.game.fleet import Fleet, fleet_problems, random_fleet
from statki_net.game.rules import PRESETS, Ruleset
from statki_net.protocol.backtoback import BackToBack
from statki_net.protocol.behaviour import Behaviour
from statki_net.protocol.logformat import MAGIC, Note, frame_record, header_record, note_record
from statki_net.protocol.session import Session
from statki_net.protocol.wire import Frame, Header, Message, Reveal, Role, Shot, sign
from statki_net.referee.verify import judge_log
from statki_net.vectors.encoding import dump
from statki_net.vectors.seeds import SOFTWARE, START, Drbg, test_key

# ---------------------------------------------------------------- games


class Game:
    """Two sessions wired back to back, with a clock that ticks once a delivery."""

    def __init__(
        self,
        rules: Ruleset,
        seed: int,
        *,
        host: Behaviour | None = None,
        guest: Behaviour | None = None,
    ) -> None:
        self.rules = rules
        self.rng = random.Random(seed)
        host_session = Session(
            Role.HOST,
            test_key(Role.HOST),
            name="Ala",
            software=SOFTWARE,
            entropy=Drbg(f"statki vectors {seed} host"),
            rules=rules,
            fleet=random_fleet(rules, self.rng),
            behaviour=host,
        )
        guest_session = Session(
            Role.GUEST,
            test_key(Role.GUEST),
            name="Olek",
            software=SOFTWARE,
            entropy=Drbg(f"statki vectors {seed} guest"),
            behaviour=guest,
        )
        self.link = BackToBack(host_session, guest_session, START)
        self.volleys = 0

    @property
    def host(self) -> Session:
        return self.link.host

    @property
    def guest(self) -> Session:
        return self.link.guest

    @property
    def now(self) -> int:
        return self.link.now

    @now.setter
    def now(self, now: int) -> None:
        self.link.now = now

    def session(self, role: Role) -> Session:
        return self.link.session(role)

    def pump(self) -> None:
        """Deliver bytes both ways until both sides are quiet."""
        self.link.pump()

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


class SaysMissForFirstHit(Behaviour):
    """Answers 'miss' for the first shot that hits: its proof shows the lie on the move."""

    lied_at: int | None = None

    def answer(self, session: Session, squares: tuple[int, ...], answer: Answer) -> Answer:
        if self.lied_at is None and answer.outcomes and answer.outcomes[0] is not Outcome.MISS:
            self.lied_at = session.transcript.move
            return Answer((Outcome.MISS,), 0, 0)
        return answer


class SaysHitForFirstSink(Behaviour):
    """Answers 'hit' for the first sinking shot: no proof can show it, the reveal does."""

    lied_at: int | None = None

    def answer(self, session: Session, squares: tuple[int, ...], answer: Answer) -> Answer:
        if self.lied_at is None and answer.outcomes == (Outcome.SUNK,):
            self.lied_at = session.transcript.move
            return Answer((Outcome.HIT,), 1, 0)
        return answer


class PlacesIllegally(Behaviour):
    """Commits to a fleet that breaks the touching rule, and answers honestly from it."""

    checks_own_fleet = False


class RevealsAnotherFleet(Behaviour):
    """Plays honestly, then reveals a different (legal) fleet than the one committed."""

    def __init__(self, decoy: Fleet) -> None:
        self.decoy = decoy

    def say(self, session: Session, message: Message) -> Message | None:
        if isinstance(message, Reveal):
            return replace(message, fleet=self.decoy.ships)
        return message


class NeverReveals(Behaviour):
    """Plays honestly and falls silent when it should reveal."""

    def say(self, session: Session, message: Message) -> Message | None:
        return None if isinstance(message, Reveal) else message


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

    game = Game(PRESETS["classic"], 22, guest=SaysMissForFirstHit())
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

    liar = SaysHitForFirstSink()
    game = Game(PRESETS["classic"], 23, guest=liar)
    game.open()
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

    game = Game(PRESETS["classic"], 24, guest=PlacesIllegally())
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

    decoy = random_fleet(PRESETS["classic"], random.Random(2500))
    game = Game(PRESETS["classic"], 25, guest=RevealsAnotherFleet(decoy))
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

    game = Game(PRESETS["classic"], 28, guest=NeverReveals())
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


# ---------------------------------------------------------------- logs/ and its index


def log_files(all_scenarios: list[Scenario]) -> dict[str, bytes]:
    files: dict[str, bytes] = {}
    index = []
    for scenario in all_scenarios:
        log = f"{scenario.name}.statki"
        judgement = judge_log(scenario.log, log)
        files[f"logs/{log}"] = scenario.log
        files[f"logs/{scenario.name}.json"] = dump(
            {
                "log": log,
                "description": scenario.description,
                "sha256": hashlib.sha256(scenario.log).hexdigest(),
                "expected": judgement.to_json(),
            }
        )
        first = judgement.violations[0].kind.value if judgement.violations else None
        index.append(
            {
                "name": scenario.name,
                "standing": judgement.standing.value,
                "end": judgement.end.value if judgement.end else None,
                "first": first,
            }
        )
    files["logs/index.json"] = dump(index)
    return files
