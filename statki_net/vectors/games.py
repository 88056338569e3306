"""The logs of protocol/logs/: scripted games between two sessions, honest or not.

Each ``Scenario`` is one log and what it is meant to show.  Honest games are
two ``Session``s wired back to back, and each side's log is what a peer
writes from its session's events (frames, evidence, and notes for people);
dishonest peers are sessions given a ``Behaviour`` that lies in its answers,
commits to an illegal fleet, reveals falsely or stops, or frames signed with
a player's key that its session never sent; tampered logs edit the bytes of
an honest one.  Logs whose names end in ``-host`` and ``-guest`` are the two
sides' logs of one game, to be judged together.
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
from statki_net.game.rules import PRESETS, Ruleset, Touching, Turns
from statki_net.protocol.backtoback import BackToBack
from statki_net.protocol.behaviour import Behaviour
from statki_net.protocol.errors import Code
from statki_net.protocol.events import ConnectionLost, Event, Evidence, Failed, FrameAdded, Resumed
from statki_net.protocol.logformat import (
    MAGIC,
    Note,
    evidence_record,
    frame_record,
    header_record,
    note_record,
    read_log,
    resume_record,
    talk_record,
)
from statki_net.protocol.resume import ResumeFrame
from statki_net.protocol.session import Session, public_key_bytes
from statki_net.protocol.talk import TalkDropped, TalkHeard, TalkSaid
from statki_net.protocol.wire import (
    GENESIS,
    PROTOCOL_VERSION,
    Admit,
    Coin,
    Envelope,
    Error,
    Frame,
    Header,
    Hello,
    Limits,
    Message,
    Reveal,
    Role,
    SayFrame,
    Shot,
    TimeClaim,
    game_tag,
    read_envelope,
    sign,
)
from statki_net.referee.verify import Judgement, NamedLog, judge_log, judge_logs
from statki_net.vectors.encoding import dump
from statki_net.vectors.seeds import INVITE_SECRET, SOFTWARE, START, Drbg, test_key

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
        host_key: bytes | None = None,
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
            admit=Admit.INVITE,
            tag=game_tag(INVITE_SECRET),
        )
        guest_session = Session(
            Role.GUEST,
            test_key(Role.GUEST),
            name="Olek",
            software=SOFTWARE,
            entropy=Drbg(f"statki vectors {seed} guest"),
            behaviour=guest,
            host_key=host_key,
            invite_secret=INVITE_SECRET,
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

    def act(self, role: Role, events: list[Event]) -> None:
        """Keep what a call on ``role``'s session reported, for its log."""
        self.link.record(role, events)

    def open(self, guest_fleet: Fleet | None = None) -> None:
        """Hellos, acceptance, commitments and the coin toss."""
        self.act(Role.HOST, self.host.start(self.now))
        self.pump()
        fleet = guest_fleet or random_fleet(self.rules, self.rng)
        self.act(Role.GUEST, self.guest.accept(fleet, self.now))
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
        self.act(mover.role, mover.shoot(tuple(shots), self.now))
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
        self.act(mover.role, mover.resign(self.now))
        self.pump()

    def wait_out(self, role: Role) -> None:
        """``role``'s clock runs to its deadline, and it acts on the silence (a claim)."""
        side = self.session(role)
        due = side.deadline()
        assert due is not None, f"the {role} waits for nothing"
        self.now = max(self.now, due)
        self.act(role, side.check_time(self.now))
        self.pump()

    def finish_alone(self) -> None:
        """After a lost connection, each side plays on in its own log to its end: its
        player fires when it is to, and its clock runs out when it waits."""
        for _ in range(100):
            open_sides = [s for s in (self.host, self.guest) if not s.closed]
            if not open_sides:
                return
            mover = next((s for s in open_sides if s.my_turn), None)
            if mover is not None:
                self.volley_by(mover)
                continue
            due, role = min((s.deadline() or 0, s.role) for s in open_sides)
            del due
            self.wait_out(role)
        raise UsageError("the game does not end")

    def volley_by(self, mover: Session) -> None:
        assert mover.view is not None
        area = self.rules.size**2
        unknown = [s for s in range(area) if mover.view.cell(s) is Cell.UNKNOWN]
        shots = self.rng.sample(unknown, min(mover.shots_due, len(unknown)))
        self.act(mover.role, mover.shoot(tuple(shots), self.now))
        self.pump()

    def frames(self, role: Role = Role.HOST) -> list[Frame]:
        return list(self.session(role).transcript.frames)

    def log(self, role: Role) -> bytes:
        """The log ``role``'s peer writes from its session's events."""
        return log_of(self.link.events[role], role)


def log_file(frames: list[Frame], role: Role = Role.HOST, notes: tuple[Note, ...] = ()) -> bytes:
    """The log file a peer in ``role`` writes for these frames, notes last."""
    return log_records(role, [frame_record(frame) for frame in frames], notes)


def log_records(role: Role, records: list[bytes], notes: tuple[Note, ...] = ()) -> bytes:
    """A log file of these records, as written, notes last."""
    header = header_record(role.value, SOFTWARE, START)
    data = MAGIC + bytes(msgpack.packb(header, use_bin_type=True)) + b"".join(records)
    return data + b"".join(note_record(note) for note in notes)


def log_of(events: list[Event], role: Role) -> bytes:
    """The log a peer writes from its session's events, as the connection driver does:
    a frame record for each frame, an evidence record for each piece of evidence, and a
    note (for people only) for a lost connection and for an error that stopped the game."""
    return log_records(role, records_of(events))


def records_of(events: list[Event]) -> list[bytes]:
    """The records ``log_of`` writes for these events, in order."""
    records = []
    for event in events:
        match event:
            case FrameAdded(frame=frame, got=got):
                records.append(frame_record(frame, got))
            case Evidence(frame=frame, code=code, at=at):
                records.append(evidence_record(frame, code, at))
            case ConnectionLost(code=code, detail=detail, data=data):
                note = Note(f"connection lost: {code.value}: {detail}", START, data)
                records.append(note_record(note))
            case Failed(by_peer=by_peer, detail=detail):
                who = "the peer stopped the game" if by_peer else "stopped the game"
                records.append(note_record(Note(f"{who}: {event.code_text}: {detail}", START)))
            case Resumed(have=have, sent=sent):
                note = Note(f"resumed: the peer had {have} messages; {sent} sent again", START)
                records.append(note_record(note))
            case TalkHeard(frame=frame) | TalkSaid(frame=frame):
                records.append(talk_record(frame))
            case TalkDropped(code=code, detail=detail, data=data, noted=True):
                note = Note(f"talk dropped: {code.value}: {detail}", START, data)
                records.append(note_record(note))
            case _:
                pass
    return records


def resign_after(volleys: int) -> Callable[[Game], bool]:
    return lambda game: game.volleys >= volleys


def into_the_battle(rules: Ruleset, seed: int, volleys: int) -> tuple[Game, Session]:
    """A game ``volleys`` into the battle, and the side to move: where disruptions start."""
    game = Game(rules, seed)
    game.open()
    game.play(until=resign_after(volleys))
    mover = game.mover()
    assert mover is not None
    return game, mover


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


class StopsAtTheCoin(Behaviour):
    """Sees the other side's coin, and stops the game instead of opening its own."""

    def say(self, session: Session, message: Message) -> Message | None:
        if isinstance(message, Coin) and session.transcript.sides[session.peer].coin:
            return Error(Code.CLOSED.value, "not playing on: I have seen your coin")
        return message


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


def forged(
    key: Ed25519PrivateKey, sender: Role, after: list[Frame], message: Message, at: int = 0
) -> Frame:
    """A frame correctly chained after ``after`` and signed, for tampered logs and for
    peers that send what no statki session would; dated 1 ms after the last one unless
    ``at`` says otherwise."""
    last = after[-1]
    header = Header(sender, len(after), last.digest, last.header.game, at or last.header.at + 1)
    return sign(key, header, message)


def envelope_of(frame: Frame) -> Envelope:
    return read_envelope([frame.body, frame.signature])


# ---------------------------------------------------------------- scenarios


@dataclass
class Scenario:
    """One game log of protocol/logs/ and what it is meant to show."""

    name: str
    description: str
    log: bytes
    frames: list[Frame] = field(default_factory=list)
    """The frames of the log, for frames.json."""
    resumes: list[ResumeFrame] = field(default_factory=list)
    """The resumes of the log, the writer's peer's first, for frames.json."""
    talk: list[SayFrame] = field(default_factory=list)
    """The lines of talk the log holds, for frames.json."""


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

    # A damaged copy voids nothing another log proves (SPEC.md section 16, "The standing").
    yield Scenario(
        "damaged-copy-host",
        "The host's log of honest-short, whole: judged with damaged-copy-guest, it proves "
        "the game by itself.",
        log_file(frames),
    )
    yield Scenario(
        "damaged-copy-guest",
        "The guest's log of honest-short, cut in the middle of message 20's record: alone, "
        "damaged; judged with damaged-copy-host, its damage is listed and set aside.",
        log_file(frames[:20], Role.GUEST) + frame_record(frames[20])[:40],
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

    game, mover = into_the_battle(PRESETS["classic"], 29, 6)
    waiter = game.session(mover.role.other)
    game.now += game.host.transcript.limits.move_ms
    waiter.check_time(game.now)
    yield Scenario(
        "timeout-in-battle",
        "The side to shoot falls silent; the other claims the game on time.",
        log_file(game.frames(waiter.role), waiter.role),
        game.frames(waiter.role),
    )

    game, mover = into_the_battle(PRESETS["classic"], 30, 4)
    defender = game.session(mover.role.other)
    bad = forged(test_key(mover.role), mover.role, game.frames(), Shot((1, 2)))
    game.now += 1
    game.act(defender.role, defender.receive_data(bad.encode(), game.now))
    yield Scenario(
        "aborted",
        f"The {mover.role} fires two shots where one is due; the {defender.role} keeps the "
        "signed frame as evidence and answers it with an error at its place: the "
        f"{mover.role} forfeits.",
        game.log(defender.role),
        game.frames(defender.role),
    )

    yield from version_2_scenarios()
    yield from resumed_scenarios()
    yield from talk_scenarios()


def version_2_scenarios() -> Iterator[Scenario]:
    """The sample logs of SPEC.md section 18, item 36, that two sessions can produce."""
    classic = PRESETS["classic"]

    game, mover = into_the_battle(classic, 31, 6)
    game.act(mover.role, mover.abort(Code.CLOSED, "the player quit", game.now))
    game.pump()
    other = mover.role.other
    yield Scenario(
        "forfeit-by-error",
        f"The {mover.role}, to shoot, stops the game with an error (closed) instead: it "
        f"forfeits, and the {other} wins.  The {other}'s log.",
        game.log(other),
        game.frames(other),
    )

    game, mover = into_the_battle(classic, 32, 6)
    defender = game.session(mover.role.other)
    sent = game.frames(mover.role)
    bad = forged(test_key(mover.role), mover.role, sent, Shot((1, 2)), at=game.now)
    game.now += 1
    game.act(defender.role, defender.receive_data(bad.encode(), game.now))
    [answer] = [envelope_of(f) for f in defender.transcript.frames[-1:]]
    # The sender's log, as a peer that signed and sent that frame writes it: the frame
    # is its own last one, and the error that answers it crossed it (evidence).
    sender_log = log_records(
        mover.role,
        [frame_record(f) for f in sent]
        + [frame_record(bad), evidence_record(answer, Code.BAD_CHAIN, game.now + 1)],
    )
    for role, log, frames in (
        (defender.role, game.log(defender.role), game.frames(defender.role)),
        (mover.role, sender_log, [*sent, bad]),
    ):
        yield Scenario(
            f"forfeit-by-bad-frame-{role}",
            f"The {mover.role} signs a shot of two squares where one is due: the "
            f"{defender.role} keeps it as evidence and answers it with an error, and the "
            f"{mover.role} forfeits.  The {role}'s log"
            + (
                " (the refused frame is its own last frame; the error is evidence)."
                if role is mover.role
                else " (the refused frame is an evidence record before its error)."
            ),
            log,
            frames,
        )

    game = Game(classic, 33, guest=StopsAtTheCoin())
    game.open()
    yield Scenario(
        "coin-phase-stop",
        "The guest sees the host's coin, works out the toss, and stops the game with an "
        "error instead of opening its own coin: stopping loses the game, not only the toss. "
        "The host's log.",
        game.log(Role.HOST),
        game.frames(Role.HOST),
    )

    game, mover = into_the_battle(classic, 34, 4)
    waiting = game.session(mover.role.other)
    own = waiting.transcript.last_at(waiting.role)
    assert own is not None
    early = forged(
        test_key(waiting.role),
        waiting.role,
        game.frames(waiting.role),
        TimeClaim(waiting.transcript.limits.move_ms),
        at=own + 1,
    )
    game.now += 1
    game.act(mover.role, mover.receive_data(early.encode(), game.now))
    game.pump()
    yield Scenario(
        "early-claim",
        f"The {waiting.role} claims the game on time 1 ms after its own answer, saying it "
        f"waited the whole limit: its own timestamps contradict the claim, which joins the "
        f"{mover.role}'s transcript as an early-claim finding against the {waiting.role}. "
        f"The {mover.role}'s log.",
        game.log(mover.role),
        game.frames(mover.role),
    )

    base, mover = into_the_battle(classic, 35, 8)
    forger = mover.role.other
    honest = base.frames(forger)
    claim = forged(test_key(forger), forger, honest, TimeClaim(1))
    yield Scenario(
        "forged-claim",
        f"An honest log cut where the {mover.role} must shoot, with the {forger}'s own "
        "signed claim appended, saying it waited 1 ms and dated 1 ms after the last message: "
        f"the log itself shows the claim early (a finding against the {forger}).",
        log_file([*honest, claim], forger),
        [*honest, claim],
    )

    game, mover = into_the_battle(classic, 43, 5)
    claimant = game.session(mover.role.other)
    t = claimant.transcript
    own = t.last_at(claimant.role)
    assert own is not None
    careful = forged(
        test_key(claimant.role),
        claimant.role,
        game.frames(claimant.role),
        TimeClaim(t.limits.move_ms),
        at=own + t.limits.move_ms,
    )
    claimant_log = log_file([*game.frames(claimant.role), careful], claimant.role)
    game.now += 1_000
    game.act(mover.role, mover.receive_data(careful.encode(), game.now))
    game.finish_alone()
    for role, log, frames in (
        (claimant.role, claimant_log, [*game.frames(claimant.role), careful]),
        (mover.role, game.log(mover.role), game.frames(mover.role)),
    ):
        yield Scenario(
            f"early-by-the-clock-{role}",
            f"The {claimant.role} claims the game a second into the {mover.role}'s turn, "
            "with timestamps of its own that agree with the claim (its clock ran a minute "
            f"ahead).  Only the {mover.role}'s clock shows the claim early: it keeps the claim "
            "as evidence, answers nothing, finishes the game alone and claims in its turn.  "
            f"The {role}'s log; the two make a dispute.",
            log,
            frames,
        )

    game, mover = into_the_battle(classic, 37, 6)
    game.act(mover.role, mover.shoot((game.rules.size**2 - 1,), game.now))
    game.link.cut()
    game.finish_alone()
    for role in Role:
        yield Scenario(
            f"lost-connection-{role}",
            f"The connection drops while the {mover.role}'s shot is on its way.  Each side "
            "finishes the game alone: the side that never got the shot waits out the "
            f"{mover.role}'s limit and claims; the {mover.role}, kept waiting for the answer, "
            f"claims too.  The {role}'s log; the two make a dispute.",
            game.log(role),
            game.frames(role),
        )

    game, mover = into_the_battle(classic, 38, 6)
    claimant = game.session(mover.role.other)
    due = claimant.deadline()
    assert due is not None
    game.now = due
    game.act(claimant.role, claimant.check_time(due))
    game.act(mover.role, mover.shoot((0,), due))
    game.pump()
    game.finish_alone()
    for role in Role:
        yield Scenario(
            f"crossed-claim-{role}",
            f"The {claimant.role} claims the game on time just as the {mover.role} shoots: "
            "the two frames cross.  The claim ends the game for the "
            f"{claimant.role}; the {mover.role} keeps the claim as evidence (it crossed its "
            "shot), finishes alone and claims in its turn.  The "
            f"{role}'s log; the two make a dispute.",
            game.log(role),
            game.frames(role),
        )

    stranger = public_key_bytes(test_key(Role.GUEST))  # any key but the host's
    game = Game(classic, 39, host_key=stranger)
    game.act(Role.HOST, game.host.start(game.now))
    game.pump()
    yield Scenario(
        "refused-host-key",
        "The guest's invite names another key than the host's hello carries: the guest "
        "says nothing, keeps nothing of that hello, and closes; no game, nobody to blame. "
        "The guest's log.",
        game.log(Role.GUEST),
    )

    game = Game(classic, 40)
    hello = Hello(
        PROTOCOL_VERSION,
        SOFTWARE,
        public_key_bytes(test_key(Role.HOST)),
        "Ala",
        bytes(32),
        rules={"size": 1, "fleet": [1]},
        limits=Limits(move_ms=1_000, reveal_ms=1_000).to_map(),
        first=Role.HOST,
    )
    weapon = sign(test_key(Role.HOST), Header(Role.HOST, 0, GENESIS, b"", START), hello)
    game.act(Role.GUEST, game.guest.receive_data(weapon.encode(), game.now))
    yield Scenario(
        "hello-out-of-bounds",
        "The host proposes a 1 x 1 board with one ship, the first shot its own, and 1 s to "
        "move: out of bounds.  The guest keeps the hello as evidence and answers it with "
        "bad-field as message 0: no game, with the host named.  The guest's log.",
        game.log(Role.GUEST),
        game.frames(Role.GUEST),
    )

    custom = Ruleset(
        size=8, fleet=(4, 3, 2, 2, 1), touching=Touching.CORNERS, turns=Turns.ALTERNATE
    )
    game = Game(custom, 41)
    game.open()
    game.play()
    yield Scenario(
        "custom-rules",
        "An honest game under rules that are no preset: 8 x 8, ships 4, 3, 2, 2, 1, touching "
        "at corners, alternate turns.",
        game.log(Role.HOST),
        game.frames(),
    )


def resumed_scenarios() -> Iterator[Scenario]:
    """The resumed game of SPEC.md section 12, "Resume": both sides' logs."""
    game, mover = into_the_battle(PRESETS["classic"], 42, 6)
    game.act(mover.role, mover.shoot((game.rules.size**2 - 1,), game.now))
    game.link.cut()  # the shot is lost on its way
    apart = {role: len(game.link.events[role]) for role in Role}
    challenge = Drbg("statki vectors 42 challenge")(32)
    asked, answered = game.link.rejoin(challenge)
    game.play()
    assert game.host.closed and game.guest.closed
    said = {Role.HOST: [asked, answered], Role.GUEST: [answered, asked]}
    for role in Role:
        events = game.link.events[role]
        records = records_of(events[: apart[role]])
        records += [resume_record(frame) for frame in said[role]]
        records += records_of(events[apart[role] :])
        yield Scenario(
            f"resumed-{role}",
            f"The connection drops while the {mover.role}'s shot is on its way.  A new "
            "connection resumes the game: the host's hello there carries a fresh nonce, the "
            "guest answers with a resume and the host with its own (resume records), the "
            f"{mover.role} sends its shot again, and the game is played out as one transcript.  "
            f"The {role}'s log.",
            log_records(role, records),
            game.frames(role),
            said[role],
        )


TALK = (
    (Role.GUEST, 0, "Cześć! Gramy?"),
    (Role.HOST, 0, "Gramy. Powodzenia!"),
    (Role.GUEST, 4, "pudło, pudło..."),
    (Role.HOST, 9, "Trafiony zatopiony, ha!"),
    (Role.GUEST, 9, "Dobra, dobra."),
)
"""Who says what after how many volleys in the talk's sample game."""


def talk_scenarios() -> Iterator[Scenario]:
    """A game with talk both ways (SPEC.md section 6, "say"): both sides' logs, and one with
    a line tampered with, which a referee finds but which changes nothing."""
    game = Game(PRESETS["classic"], 44)
    game.act(Role.HOST, game.host.start(game.now))
    game.pump()
    lines = list(TALK)

    def talk(volleys: int) -> None:
        while lines and lines[0][1] <= volleys:
            role, _, text = lines.pop(0)
            game.now += 1_000
            game.act(role, game.session(role).say(text, game.now))
            # Before the game's next message is delivered, or in between: it does not matter.
            game.pump()

    talk(0)
    game.act(Role.GUEST, game.guest.accept(random_fleet(game.rules, game.rng), game.now))
    game.pump()
    while game.mover() is not None:
        game.volley()
        talk(game.volleys)
    assert not lines and game.host.closed and game.guest.closed
    for role in Role:
        events = game.link.events[role]
        said = [e.frame for e in events if isinstance(e, TalkHeard | TalkSaid)]
        yield Scenario(
            f"talk-{role}",
            "An honest game in which the players talk: five lines, both ways, kept as talk "
            "records among the frames.  The talk is no message of the game: the transcript "
            f"is the one silence would give.  The {role}'s log.",
            game.log(role),
            game.frames(role),
            talk=said,
        )
    records = records_of(game.link.events[Role.HOST])
    yield Scenario(
        "talk-tampered",
        "The host's log of the talking game, with the guest's first line altered after it was "
        "signed: its signature no longer verifies.  A referee lists it (bad-talk) and leaves "
        "it out of the talk, but the talk is no part of the game: result and standing stand.",
        log_records(Role.HOST, _tampered_talk(records)),
        game.frames(),
    )


def _tampered_talk(records: list[bytes]) -> list[bytes]:
    """``records`` with the words of the first talk record changed, its signature kept."""
    out, done = [], False
    for record in records:
        fields = msgpack.unpackb(record, raw=False)
        if "say" in fields and not done:
            body = fields["say"].replace(b"Gramy?", b"Grasz?")
            record = bytes(msgpack.packb({"say": body, "sig": fields["sig"]}, use_bin_type=True))
            done = True
        out.append(record)
    return out


# ---------------------------------------------------------------- logs/ and its index


def log_files(all_scenarios: list[Scenario]) -> dict[str, bytes]:
    """Each log with the report it must get alone (``NAME.json``), and each pair of logs
    named ``BASE-host`` and ``BASE-guest`` with the reports they must get together
    (``BASE.pair.json``: what ``statki verify --json`` prints for the two)."""
    files: dict[str, bytes] = {}
    index = []
    for scenario in all_scenarios:
        log = f"{scenario.name}.statki"
        # The reports of a referee that checks every signature: SPEC.md section 16.
        judgement = judge_log(scenario.log, log, every_signature=True)
        files[f"logs/{log}"] = scenario.log
        files[f"logs/{scenario.name}.json"] = dump(
            {
                "log": log,
                "description": scenario.description,
                "sha256": hashlib.sha256(scenario.log).hexdigest(),
                "expected": judgement.to_json(),
            }
        )
        index.append(_summary(scenario.name, judgement))
    by_name = {s.name: s for s in all_scenarios}
    for name in by_name:
        base = name.removesuffix("-host")
        if base == name or f"{base}-guest" not in by_name:
            continue
        pair = [by_name[name], by_name[f"{base}-guest"]]
        logs = [f"{s.name}.statki" for s in pair]
        games = judge_logs(
            [NamedLog(f"{s.name}.statki", read_log(s.log)) for s in pair], every_signature=True
        )
        files[f"logs/{base}.pair.json"] = dump(
            {
                "logs": logs,
                "description": "Both sides' logs of one game, judged together.",
                "expected": [game.to_json() for game in games],
            }
        )
        index.append(_summary(f"{base}.pair", games[0]))
    files["logs/index.json"] = dump(index)
    return files


def _summary(name: str, judgement: Judgement) -> dict[str, str | None]:
    first = judgement.violations[0].kind.value if judgement.violations else None
    return {
        "name": name,
        "standing": judgement.standing.value,
        "end": judgement.end.value if judgement.end else None,
        "first": first,
    }
