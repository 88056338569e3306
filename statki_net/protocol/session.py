"""A peer's side of one game, sans I/O: bytes and calls in, events and bytes out.

``Session`` wraps the shared ``Transcript`` with what only one side knows: its
signing key, its fleet and the secrets of its commitments.  It answers shots
from the committed fleet by itself (a person never answers), commits, tosses
the coin, reveals and states its verdict without being asked.  The caller
feeds received bytes to ``receive_data``, sends what ``data_to_send`` returns,
calls ``shoot``/``accept``/``resign`` for the player, and ``check_time`` when
``deadline`` comes; every time is passed in as milliseconds, never read from a
clock.  What is said when, and who waits on whom, is ``phases``; what this side
sends of its own accord passes through its ``Behaviour``, honest unless a test
builds a cheat (``statki_net.protocol.behaviour``).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from dataclasses import dataclass

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from statki_net.game.battle import Answer, Defence, Sea, tells_cells
from statki_net.game.board import squares_of
from statki_net.game.errors import UsageError
from statki_net.game.fleet import Fleet, fleet_problems
from statki_net.game.rules import Ruleset
from statki_net.protocol.behaviour import Behaviour
from statki_net.protocol.bounds import MAX_FINDINGS
from statki_net.protocol.commitment import (
    SECRET_SIZE,
    FleetCommitment,
    Opening,
    coin_commitment,
    ships_digest,
)
from statki_net.protocol.endings import End, Ending
from statki_net.protocol.errors import Check, Code, ProtocolError
from statki_net.protocol.phases import (
    PHASES,
    Deadline,
    Phase,
    deadline_kind,
    may_resign,
)
from statki_net.protocol.transcript import Finding, Transcript
from statki_net.protocol.wire import (
    MAX_TEXT,
    PROTOCOL_VERSION,
    Accept,
    Coin,
    Commit,
    Envelope,
    Error,
    Frame,
    FrameReader,
    Header,
    Hello,
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
    sign,
)
from statki_net.version import SOFTWARE

CLAIM_SLACK_MS = 2_000
"""How much earlier than our own reckoning a peer's time claim is still honoured."""


Entropy = Callable[[int], bytes]
"""Where secrets come from: ``secrets.token_bytes`` in real use, fixed bytes in tests."""


def public_key_bytes(key: Ed25519PrivateKey) -> bytes:
    return key.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)


# ---------------------------------------------------------------- events


@dataclass(frozen=True)
class FrameAdded:
    """A frame joined the transcript: log it."""

    frame: Frame
    outgoing: bool


@dataclass(frozen=True)
class PeerHello:
    """The other side introduced itself."""

    role: Role
    hello: Hello


@dataclass(frozen=True)
class RulesProposed:
    """The host proposes these rules: the guest must ``accept`` or ``refuse``."""

    rules: Ruleset
    limits: Limits
    first: Role | None = None
    """Who the host proposes shoots first; None leaves it to the coin toss."""


@dataclass(frozen=True)
class GameStarted:
    first: Role


@dataclass(frozen=True)
class YourTurn:
    shots: int
    """How many shots to fire in this volley."""


@dataclass(frozen=True)
class VolleyDone:
    shooter: Role
    move: int
    squares: tuple[int, ...]
    answer: Answer


@dataclass(frozen=True)
class BattleOver:
    """No more shots: the reveals and verdicts follow, which may still change the ending."""

    ending: Ending


@dataclass(frozen=True)
class GameClosed:
    """Nothing more will be said: close the connection."""

    ending: Ending | None
    """How the transcript ended; None when it stopped before it could (see ``Failed``)."""
    findings: tuple[Finding, ...]


@dataclass(frozen=True)
class Failed:
    """The game stopped on a protocol error; ``by_peer`` tells who reported it."""

    code: Code | None
    """Why; None when the peer sent a code this version does not know (see ``unknown_code``)."""
    detail: str
    by_peer: bool
    unknown_code: str = ""
    """The peer's code as it wrote it, when ``code`` is None: shown, never compared."""

    @classmethod
    def reported(cls, error: Error) -> Failed:
        """The peer's ``error`` message as this side's failure."""
        code = Code.received(error.code)
        return cls(code, error.detail, by_peer=True, unknown_code="" if code else error.code)

    @property
    def code_text(self) -> str:
        """The code as it is written in logs and notices."""
        return self.code.value if self.code is not None else self.unknown_code


Event = (
    FrameAdded
    | PeerHello
    | RulesProposed
    | GameStarted
    | YourTurn
    | VolleyDone
    | BattleOver
    | GameClosed
    | Failed
)


# ---------------------------------------------------------------- the session


class Session:
    """One side of one game; see the module docstring."""

    def __init__(
        self,
        role: Role,
        key: Ed25519PrivateKey,
        *,
        name: str,
        entropy: Entropy,
        software: str = SOFTWARE,
        rules: Ruleset | None = None,
        limits: Limits | None = None,
        fleet: Fleet | None = None,
        caps: tuple[str, ...] = (),
        first: Role | None = None,
        behaviour: Behaviour | None = None,
    ) -> None:
        if role is Role.HOST and rules is None:
            raise UsageError("the host must propose rules")
        self.role = role
        self.key = key
        self.name = name
        self.software = software
        self.entropy = entropy
        self.caps = caps
        self.proposed_rules = rules
        self.proposed_limits = limits or Limits()
        self.proposed_first = first
        """Host only: who starts, when agreed instead of tossed (a rematch)."""
        self.behaviour = behaviour or Behaviour()
        """Whether this side plays honestly; see ``statki_net.protocol.behaviour``."""
        self.transcript = Transcript()
        self.fleet: Fleet | None = None
        self.defence: Defence | None = None
        self.commitment: FleetCommitment | None = None
        self._secret = b""
        self._coin = entropy(32)
        self._reader = FrameReader()
        self._outbox = bytearray()
        self._events: list[Event] = []
        self.closed = False
        """Nothing more will be said or read: the transcript is complete, or the game
        stopped (an error, a dropped connection) before it could be."""
        self.resigning = False
        """The player resigned while the peer was shooting: resign instead of the next answer."""
        self.failure: Failed | None = None
        self.last_heard = 0
        """When the peer last spoke (or the session started), in ms."""
        self.waiting_since = 0
        """When the peer's turn to speak began: the later of our last message and theirs."""
        if fleet is not None:
            self.set_fleet(fleet)

    # ------------------------------------------------------------ state

    @property
    def rules(self) -> Ruleset | None:
        return self.transcript.rules or self.proposed_rules

    @property
    def peer(self) -> Role:
        return self.role.other

    @property
    def my_turn(self) -> bool:
        return self.transcript.phase is Phase.SHOOT and self.transcript.speaker() is self.role

    @property
    def shots_due(self) -> int:
        score = self.transcript.score
        return score.shots_due() if score and self.my_turn else 0

    @property
    def view(self) -> Sea | None:
        """My view of the peer's sea."""
        return self.transcript.sides[self.role].sea

    @property
    def ending(self) -> Ending | None:
        """How this side's game ended; None while it goes on.

        The transcript's ending, or, when the session stopped before the
        transcript could end (the connection dropped, an error could not be
        sent), one made from the failure: nobody won, and the reason is the
        failure's code and detail.
        """
        ending = self.transcript.ending
        if ending is not None or self.failure is None:
            return ending
        failure = self.failure
        return Ending(End.NO_GAME, reason=f"{failure.code_text}: {failure.detail}")

    @property
    def secret(self) -> bytes:
        """The secret of this side's fleet commitment; empty until it commits."""
        return self._secret

    def anew(self, *, rules: Ruleset | None, first: Role | None) -> Session:
        """A new game's session for this side: same key, name, entropy, limits, caps, behaviour.

        For a host that changes its proposal before saying hello, or a rematch.
        """
        return Session(
            self.role,
            self.key,
            name=self.name,
            entropy=self.entropy,
            software=self.software,
            rules=rules,
            limits=self.proposed_limits,
            caps=self.caps,
            first=first,
            behaviour=self.behaviour,
        )

    def set_fleet(self, fleet: Fleet) -> None:
        rules = self.rules
        if rules is None:
            raise UsageError("the rules are not known yet")
        if self.commitment is not None:
            raise UsageError("the fleet is committed and cannot change")
        fleet = self.behaviour.fleet(self, fleet)
        problems = fleet_problems(rules, fleet) if self.behaviour.checks_own_fleet else []
        if problems:
            raise UsageError("illegal fleet: " + "; ".join(p.message for p in problems))
        self.fleet = fleet
        self.defence = Defence(rules, fleet)

    # ------------------------------------------------------------ I/O surface

    def start(self, now: int) -> list[Event]:
        """Begin: the host says hello; the guest waits for the host's."""
        self.last_heard = now
        if self.role is Role.HOST:
            self._speak(now)
        return self._take_events()

    def receive_data(self, data: bytes, now: int) -> list[Event]:
        if self.closed:
            return []
        try:
            for envelope in self._reader.feed(data):
                if envelope.header.sender is self.role:
                    raise ProtocolError(
                        Code.OUT_OF_TURN, f"the peer signed as {self.role}", Check.PLACE
                    )
                if self._unchained_error(envelope):
                    break
                frame = self.transcript.check(envelope)
                if (
                    isinstance(frame.message, TimeClaim)
                    and self.transcript.early_claim(frame) is None
                    and now < self._claim_allowed_at()
                ):
                    raise ProtocolError(
                        Code.OUT_OF_TURN, "a time claim before this side's time ran out", Check.TURN
                    )
                self.transcript.append(frame)
                # Only a whole accepted message counts as speaking: a peer that
                # trickles bytes never reaches one, and its time runs out.
                self.last_heard = now
                self._events.append(FrameAdded(frame, outgoing=False))
                self._after(frame, now)
                if self.closed:
                    break
        except ProtocolError as error:
            self._fail(error.code, error.detail, now)
        return self._take_events()

    def _unchained_error(self, envelope: Envelope) -> bool:
        """Honour an error that does not fit the chain, and stop.

        A peer that refuses one of our frames drops it from its transcript and
        so numbers its error in that frame's place: the error cannot join our
        chain, yet it is the peer's last word and must end the game all the same.
        """
        t = self.transcript
        if envelope.type != Error.TYPE or (
            envelope.header.seq == len(t.frames) and envelope.header.prev == t.last_digest
        ):
            return False
        message = envelope.open().message
        assert isinstance(message, Error)
        self.failure = Failed.reported(message)
        self.closed = True
        self._events += [self.failure, self._closed_event()]
        return True

    def data_to_send(self) -> bytes:
        data = bytes(self._outbox)
        self._outbox.clear()
        return data

    def connection_lost(self, now: int) -> list[Event]:
        """The transport closed; the game ends here if it had not already."""
        if not self.closed:
            self.closed = True
            self.failure = Failed(Code.CLOSED, "the connection closed", by_peer=True)
            self._events += [self.failure, self._closed_event()]
        return self._take_events()

    # ------------------------------------------------------------ the player's actions

    def accept(self, fleet: Fleet, now: int) -> list[Event]:
        """The guest accepts the proposed rules and commits to ``fleet``."""
        self._expect(Phase.DECISION)
        self.set_fleet(fleet)
        self._send(Accept(), now)
        return self._take_events()

    def refuse(self, reason: str, now: int) -> list[Event]:
        self._expect(Phase.DECISION)
        self._send(Refuse(reason[:200]), now)
        return self._take_events()

    def shoot(self, squares: tuple[int, ...], now: int) -> list[Event]:
        if not self.my_turn:
            raise UsageError("it is not your turn to shoot")
        self._send(Shot(tuple(squares)), now)
        return self._take_events()

    def resign(self, now: int) -> list[Event]:
        """Give up the battle.

        The protocol lets a side speak only in its turn, so while the peer is
        shooting the resignation waits and replaces this side's next answer.
        """
        t = self.transcript
        if not may_resign(t.phase) or self.closed:
            raise UsageError("there is no battle to resign")
        if t.speaker() is self.role:
            self._send(Resign(), now)
        else:
            self.resigning = True
        return self._take_events()

    def _claim_allowed_at(self) -> int:
        """When the peer may claim this side has been silent too long.

        This side's turn began at the last message either side said; network
        delays and clocks that run at slightly different speeds are allowed for.
        """
        limits = self.transcript.limits
        kind = deadline_kind(self.transcript.phase)
        # The game's limits, even before they are agreed: a claim then is refused anyway.
        wait = limits.reveal_ms if kind is Deadline.REVEAL else limits.move_ms
        return max(self.last_heard, self.waiting_since) + wait - CLAIM_SLACK_MS

    def deadline(self) -> int | None:
        """When the peer will have kept us waiting too long, in ms; None if we are not waiting."""
        speaker = self.transcript.speaker()
        kind = deadline_kind(self.transcript.phase)
        if self.closed or speaker is None or speaker is self.role or kind is None:
            return None
        limits = self.transcript.limits
        wait = {
            Deadline.HELLO: self.proposed_limits.move_ms,
            Deadline.MOVE: limits.move_ms,
            Deadline.REVEAL: limits.reveal_ms,
        }[kind]
        return max(self.last_heard, self.waiting_since) + wait

    def check_time(self, now: int) -> list[Event]:
        """Claim the win on time if the peer is overdue (or give up before a game exists)."""
        due = self.deadline()
        if due is None or now < due:
            return []
        if PHASES[self.transcript.phase].claim is None:  # the hellos: no game to claim yet
            self._fail(Code.TIMEOUT, "no hello in time", now)
        else:
            self._send(TimeClaim(now - max(self.last_heard, self.waiting_since)), now)
        return self._take_events()

    def abort(self, code: Code, detail: str, now: int) -> list[Event]:
        """Stop the game with an error message, for local failures."""
        self._fail(code, detail, now)
        return self._take_events()

    # ------------------------------------------------------------ internals

    def _expect(self, phase: Phase) -> None:
        if self.transcript.phase is not phase or self.transcript.speaker() is not self.role:
            raise UsageError(f"not now: the game is at {self.transcript.phase}")

    def _take_events(self) -> list[Event]:
        events, self._events = self._events, []
        return events

    def _hello(self) -> Hello:
        host = self.role is Role.HOST
        return Hello(
            protocol=PROTOCOL_VERSION,
            software=self.software[:200],
            key=public_key_bytes(self.key),
            name=self.name[:200],
            nonce=self.entropy(32),
            caps=self.caps,
            rules=self.proposed_rules.to_map() if host and self.proposed_rules else None,
            limits=self.proposed_limits.to_map() if host else None,
            first=self.proposed_first if host else None,
        )

    def _send(self, message: Message, now: int) -> None:
        transcript = self.transcript
        header = Header(
            self.role, len(transcript.frames), transcript.last_digest, transcript.game, now
        )
        frame = sign(self.key, header, message)
        try:
            frame = transcript.add(frame, signed_here=True)
        except ProtocolError as error:
            raise UsageError(f"cannot send {message.TYPE}: {error.detail}") from None
        self._outbox += frame.encode()
        self.waiting_since = now
        self._events.append(FrameAdded(frame, outgoing=True))
        self._after(frame, now)

    def _fail(self, code: Code, detail: str, now: int) -> None:
        """Report a protocol error to the peer and stop; the offending frame is not kept."""
        if self.closed:
            return
        self.failure = Failed(code, detail, by_peer=False)
        if not self.transcript.complete:
            with contextlib.suppress(UsageError):
                self._send(Error(code.value, detail[:200]), now)
        self._events.append(self.failure)
        if not self.closed:
            self.closed = True
            self._events.append(self._closed_event())

    def _closed_event(self) -> GameClosed:
        t = self.transcript
        return GameClosed(t.ending, tuple(t.findings))

    def _after(self, frame: Frame, now: int) -> None:
        """Announce what the frame changed, then say whatever this side must say next."""
        self._announce(frame)
        if self.closed:
            return
        if self.transcript.complete:
            self.closed = True
            self._events.append(self._closed_event())
            return
        if self.transcript.speaker() is self.role:
            self._speak(now)

    def _announce(self, frame: Frame) -> None:
        message, sender, t = frame.message, frame.header.sender, self.transcript
        if isinstance(message, Hello) and sender is self.peer:
            self._events.append(PeerHello(sender, message))
        if isinstance(message, Coin) and t.phase is Phase.SHOOT and t.move == 0:
            assert t.score is not None
            self._events.append(GameStarted(Role.HOST if t.score.to_move == 0 else Role.GUEST))
        if isinstance(message, Reply):
            shooter = sender.other
            volley = t.sides[shooter].volleys[-1]
            self._events.append(VolleyDone(shooter, volley.move, volley.shots, volley.answer))
        ending = t.ending
        if isinstance(message, Reply | Resign | TimeClaim) and ending is not None:
            self._events.append(BattleOver(ending))
        if isinstance(message, Error) and sender is self.peer:
            self.failure = Failed.reported(message)
            self._events.append(self.failure)

    def _speak(self, now: int) -> None:
        """Say what the protocol makes this side say without the player, or ask the player."""
        phase = self.transcript.phase
        own_word = PHASES[phase].own_word
        if own_word is None:
            self._ask_player(phase)
            return
        composers: dict[type[Message], Callable[[], Message]] = {
            Hello: self._hello,
            Commit: self._commit,
            Coin: lambda: Coin(self._coin),
            # A resignation asked for in the peer's turn takes the answer's place.
            Reply: lambda: Resign() if self.resigning else self._reply(),
            Reveal: self._reveal,
            Verdict: self._verdict,
        }
        message = self.behaviour.say(self, composers[own_word]())
        if message is not None:
            self._send(message, now)

    def _ask_player(self, phase: Phase) -> None:
        t = self.transcript
        if phase is Phase.DECISION:
            assert t.rules is not None
            proposal = t.sides[Role.HOST].hello
            first = proposal.first if proposal is not None else None
            self._events.append(RulesProposed(t.rules, t.limits, first))
        elif phase is Phase.SHOOT:
            self._events.append(YourTurn(self.shots_due))

    def _commit(self) -> Commit:
        if self.fleet is None:
            raise UsageError("set the fleet before the game starts")
        rules = self.transcript.rules
        assert rules is not None
        self._secret = self.entropy(SECRET_SIZE)
        self.commitment = FleetCommitment(
            self.transcript.game, self._secret, self.fleet.board, rules.size**2
        )
        game = self.transcript.game
        return Commit(
            self.commitment.root,
            ships_digest(game, self._secret, self.fleet.ships),
            coin_commitment(game, self.role.value, self._coin),
        )

    def _reply(self) -> Reply:
        pending = self.transcript.pending
        assert pending is not None and self.defence is not None
        squares = pending.squares
        answer, self.defence = self.defence.answer(squares)
        answer = self.behaviour.answer(self, squares, answer)
        proofs = self.behaviour.proofs(self, squares, tuple(self._proofs(squares, answer)))
        return Reply(answer, proofs)

    def _proofs(self, squares: tuple[int, ...], answer: Answer) -> list[Opening]:
        rules = self.transcript.rules
        sea = self.transcript.sides[self.peer].sea
        assert rules is not None and sea is not None and self.commitment is not None
        if not tells_cells(rules):
            return []
        try:
            marked = sea.apply(squares, answer).marked & ~sea.marked
        except UsageError:
            marked = 0
        opened = self.transcript.sides[self.role].opened
        wanted = dict.fromkeys([*squares, *squares_of(marked)])
        return [self.commitment.open(s) for s in wanted if s not in opened]

    def _reveal(self) -> Reveal:
        assert self.fleet is not None
        return Reveal(self.fleet.ships, self._secret)

    def _verdict(self) -> Verdict:
        t = self.transcript
        # A cheat's findings can be many and long; the verdict must stay decodable.
        findings = tuple(f.detail[:MAX_TEXT] for f in t.findings_against(self.peer))[:MAX_FINDINGS]
        return Verdict(t.winner, (t.end or End.NO_GAME).value, findings)
