"""One case played over TCP: the suite's side, a statki ``Session``, acts at the case's moment.

The suite plays as statki does (the same session, the same checks) until the
case's moment (``cases.At``): there it sends the case's injection, stops,
resigns, drops the connection or stays silent, and then watches what the
implementation does, frame by frame, until it closes or the wait runs out.
Where the case plays on (a lie, a resignation, a resume, an honest game) the
session plays to the end and the implementation's verdict is kept.  This is
the asyncio shell around ``cases``, ``acts`` and ``judging``.
"""

from __future__ import annotations

import asyncio
import random
import secrets
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import msgpack
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from statki_net.conformance.acts import Sent, behaviour, honest_shot, injected, join_bytes
from statki_net.conformance.cases import Aim, Case, Deed, Injection, Kind
from statki_net.conformance.judging import Observation, Seen
from statki_net.game.battle import Cell
from statki_net.game.errors import UsageError
from statki_net.game.fleet import Fleet, random_fleet
from statki_net.game.rules import ruleset_named
from statki_net.protocol.behaviour import Behaviour
from statki_net.protocol.commitment import Opening
from statki_net.protocol.errors import Code, ProtocolError
from statki_net.protocol.events import Event, Failed, FrameAdded
from statki_net.protocol.phases import Phase, may_resign
from statki_net.protocol.resume import ResumeError, read_resume
from statki_net.protocol.session import Session
from statki_net.protocol.wire import (
    Admit,
    Error,
    FrameReader,
    Hello,
    Limits,
    Message,
    Reply,
    Resign,
    Role,
    TimeClaim,
    Verdict,
    game_tag,
    join_signature_valid,
    proof_holds,
    read_envelope,
    read_join,
    signature_valid,
)

Streams = tuple[asyncio.StreamReader, asyncio.StreamWriter]
Connect = Callable[[], Awaitable[Streams]]
"""A fresh connection to the implementation: the next one it opens to the suite's port, or
one the suite dials to the implementation's."""

LIMITS = Limits(move_ms=60_000, reveal_ms=30_000)
"""What the suite proposes as host: the least the bounds allow, so long cases stay short."""
READ_SECONDS = 20.0
"""The longest the suite waits for the implementation's next message while playing."""
WATCH_SECONDS = 5.0
"""How long the suite watches, after its act, for an answer and the connection's close."""
CLAIM_SLACK_SECONDS = 15.0
"""How long past the move limit the suite waits for a time claim."""
READ_SIZE = 64 * 1024


JOINS = frozenset(
    {
        Injection.JOIN_OWN_GAME,
        Injection.JOIN_WRONG_TAG,
        Injection.JOIN_TWICE,
        Injection.JOIN_ANOTHER_HELLO,
    }
)
"""The joins the suite sends as guest in place of its hello (``CaseRun._join``)."""


def _now() -> int:
    return time.time_ns() // 1_000_000


class AtTheMoment(Behaviour):
    """The suite's behaviour: the case's cheat, and, at the case's moment, the message due
    held back (or let through, for a deed that acts after it)."""

    def __init__(self, case: Case, inner: Behaviour) -> None:
        self.case = case
        self.inner = inner
        self.checks_own_fleet = inner.checks_own_fleet
        self.acted = False
        self.held: Message | None = None
        """The message due at the moment, held back (or sent, for ``SEND_AFTER``)."""
        self.moment = False
        """The moment came in a message the session composed itself: act on it."""

    def due(self, session: Session) -> bool:
        at = self.case.at
        t = session.transcript
        return not self.acted and at is not None and t.phase is at.phase and t.move >= at.moves

    def resigns_first(self, session: Session) -> bool:
        """The moment lies after the battle: the suite resigns to get there, as the loser."""
        at = self.case.at
        return (
            not self.acted
            and at is not None
            and at.phase in (Phase.SECOND_REVEAL, Phase.SECOND_VERDICT)
            and may_resign(session.transcript.phase)
        )

    def fleet(self, session: Session, fleet: Fleet) -> Fleet:
        return self.inner.fleet(session, fleet)

    def answer(self, session: Session, squares: tuple[int, ...], answer: Any) -> Any:
        return self.inner.answer(session, squares, answer)

    def proofs(
        self, session: Session, squares: tuple[int, ...], proofs: tuple[Opening, ...]
    ) -> tuple[Opening, ...]:
        return self.inner.proofs(session, squares, proofs)

    def say(self, session: Session, message: Message) -> Message | None:
        said = self.inner.say(session, message)
        if isinstance(said, Reply) and self.resigns_first(session):
            return Resign()
        if said is None or not self.due(session):
            return said
        at = self.case.at
        if at is not None and at.after_a_hit and not (isinstance(said, Reply) and said.answer.hits):
            return said
        deed = self.case.deed
        self.moment = True
        self.held = said
        if deed is Deed.RESIGN and isinstance(said, Reply):
            return Resign()
        if deed is Deed.STOP:
            # The error ends the game at once: the session says no more, so this is the act.
            self.acted = True
            return Error(self.case.code.value, "the conformance suite stops here")
        if deed in (Deed.SEND_AFTER, Deed.CUT_AFTER, Deed.CUT):
            # Said, into the transcript; a cut keeps it from the wire, and the resume
            # sends it (SPEC.md section 12: written while apart, sent on the resume).
            return said
        return None


@dataclass
class Watch:
    """What the runner has seen of the implementation so far."""

    sent: list[Seen] = field(default_factory=list)
    verdict: Seen | None = None
    closed: bool = False
    notes: list[str] = field(default_factory=list)


def _seen(envelope_value: Any) -> Seen:
    try:
        envelope = read_envelope(envelope_value)
    except ProtocolError:
        return Seen(None)
    fields = envelope.fields
    kind = envelope.type
    code = fields.get("code")
    winner = fields.get("winner")
    end = fields.get("end")
    waited = fields.get("waited_ms")
    return Seen(
        kind,
        envelope.header.seq,
        code=code if isinstance(code, str) else "",
        winner=winner if isinstance(winner, str) else None,
        end=end if isinstance(end, str) else "",
        waited_ms=waited if isinstance(waited, int) else None,
    )


class CaseRun:
    """One case, from the first connection to the observation."""

    watches_the_close = True
    """Once the game is over, watch the implementation close (a peer playing, as in the
    tests' broken peer, closes at once instead)."""

    def __init__(
        self,
        case: Case,
        session: Session,
        moment: AtTheMoment,
        connect: Connect,
        rng: random.Random,
        *,
        invite_secret: bytes | None = None,
    ) -> None:
        self.case = case
        self.session = session
        self.moment = moment
        self.connect = connect
        self.rng = rng
        self.invite_secret = invite_secret
        """Suite as host: the secret of its invite, to check the guest's proof."""
        if invite_secret is not None and session.role is Role.HOST:
            session.tag = game_tag(invite_secret)  # an invite game's hellos carry its tag
        self.watch = Watch()
        self.place: int | None = None
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None
        self.started = time.monotonic()

    # ------------------------------------------------------------ the run

    async def run(self) -> Observation:
        problem = ""
        try:
            self.reader, self.writer = await self.connect()
            await self._play()
        except (UsageError, OSError, TimeoutError, ProtocolError) as error:
            problem = str(error) or type(error).__name__
        finally:
            self._close()
        return Observation(
            reached=self.moment.acted or self.case.at is None,
            place=self.place,
            sent=tuple(self.watch.sent),
            closed=self.watch.closed,
            verdict=self.watch.verdict,
            ending=self.session.ending,
            seconds=time.monotonic() - self.started,
            problem=problem,
            notes=tuple(self.watch.notes),
        )

    async def _play(self) -> None:
        session = self.session
        if self.case.injection is Injection.JOIN_BEFORE_HELLO:
            self._write(join_bytes(session, b"", session.tag_of_invite, _now()))
            await self._observe(WATCH_SECONDS)
            return
        if self.case.injection is Injection.ANOTHER_GAME:
            await self._hello_of_another_game()
        if session.role is Role.HOST:
            self._events(session.start(_now()))
        while not self.session.closed:
            watching = await self._act_if_due()
            self._flush()
            if watching is not None:
                await self._observe(watching)
                return
            if self.session.closed:
                break
            if self._players_move():
                continue  # still the suite's move (after a resume, say): make it first
            data = await self._read(READ_SECONDS)
            if data is None:
                raise UsageError(f"the implementation said nothing for {READ_SECONDS:g} s")
            if not data:
                self.watch.closed = True
                self._events(self.session.connection_lost(_now()))
                if self.case.deed in (Deed.PLAY, Deed.RESIGN):
                    raise UsageError("the implementation closed the connection during the game")
                return
            self._events(self.session.receive_data(data, _now()))
        self._flush()
        if self.watches_the_close:
            # The game is over for the suite: the implementation must close, and say nothing.
            await self._observe(WATCH_SECONDS, keep=False)

    def _guest_decides(self) -> bool:
        session = self.session
        t = session.transcript
        return (
            session.role is Role.GUEST
            and not session.closed
            and t.phase is Phase.DECISION
            and t.speaker() is Role.GUEST
        )

    def _players_move(self) -> bool:
        """Whether the suite's player is to move: the guest's decision, or a shot."""
        return self._guest_decides() or self.session.my_turn

    async def _act_if_due(self) -> float | None:
        """Make the player's move, or the case's act; the seconds to watch after an act that
        ends the suite's part, else None."""
        session, moment = self.session, self.moment
        guest_decides = self._guest_decides()
        player_turn = guest_decides or session.my_turn
        if moment.moment or (player_turn and moment.due(session)):
            return await self._act()
        if guest_decides:
            assert session.rules is not None
            self._events(session.accept(random_fleet(session.rules, self.rng), _now()))
        elif session.my_turn:
            if moment.resigns_first(session):
                self._events(session.resign(_now()))
            else:
                self._events(session.shoot(self._aim(), _now()))
        return None

    async def _act(self) -> float | None:
        session, moment, case = self.session, self.moment, self.case
        moment.acted = True
        moment.moment = False
        # What the session said before the moment (an answer, say) goes first, in the
        # same write as what follows it: the implementation reads both before it moves.
        said = self.session.data_to_send()
        now = _now()
        deed = case.deed
        if deed not in (Deed.SEND_AFTER, Deed.CUT):
            self._write(said)
        if deed is Deed.STOP:
            if moment.held is None:  # the player's turn: the suite's player stops
                self._events(session.abort(case.code, "the conformance suite stops here", now))
            return WATCH_SECONDS
        if deed is Deed.RESIGN:
            if moment.held is None:
                self._events(session.resign(now))
            return None
        if deed is Deed.WAIT:
            return session.transcript.limit() / 1000 + CLAIM_SLACK_SECONDS
        if deed in (Deed.CUT, Deed.CUT_AFTER):
            if deed is Deed.CUT_AFTER and moment.held is None:
                self._events(session.shoot(self._aim(), now))
            if deed is Deed.CUT_AFTER:
                self._flush()
            await self._cut_and_resume()
            return None
        assert case.injection is not None
        if case.injection in JOINS:
            return await self._join(case.injection, now)
        sent = injected(case.injection, session, now, session.entropy, moment.held)
        self.place = sent.seq
        if case.injection is Injection.UNKNOWN_KEY and sent.kept is not None:
            session.transcript.add(sent.kept, signed_here=True)
            self._write(sent.data)
            return None
        self._write(said + sent.data if deed is Deed.SEND_AFTER else sent.data)
        return WATCH_SECONDS

    async def _join(self, injection: Injection, now: int) -> float | None:
        """A join in place of the suite's hello (SPEC.md section 3, "Naming the game"); the
        seconds to watch, or None when the game goes on from the hello that answers it."""
        session = self.session
        first = session.transcript.frames[0].body
        tag = session.tag_of_invite
        if injection is Injection.JOIN_WRONG_TAG:
            self.place = 1  # the host's not-invited follows its hello
            self._write(join_bytes(session, first, game_tag(session.entropy(16)), now))
            return WATCH_SECONDS
        if injection is Injection.JOIN_ANOTHER_HELLO:
            self._write(join_bytes(session, first + b"\x00", tag, now))
            return WATCH_SECONDS
        self._write(join_bytes(session, first, tag, now))
        value, rest = await self._value("the implementation did not answer the join")
        hello = read_envelope(value)
        if injection is Injection.JOIN_TWICE:
            self._write(join_bytes(session, hello.body, tag, _now()))
            return WATCH_SECONDS
        if hello.type != Hello.TYPE or hello.header.seq != 0:
            self.watch.notes.append("it answered the join with no fresh hello (section 3)")
        # The game begins with the hello that answered the join: a new session reads it.
        self.session = session.anew(rules=None, first=None)
        self._events(self.session.start(now))
        self._events(self.session.receive_data(hello.encode() + rest, _now()))
        return None

    def _another_host(self, tag: bytes | None = None) -> Session:
        """A host session of the suite's own beside this one (same key, rules and limits): the
        hello of another game, or the greeter of a resume."""
        session = self.session
        assert session.proposed_rules is not None
        return Session(
            Role.HOST,
            session.key,
            name=session.name,
            entropy=session.entropy,
            rules=session.proposed_rules,
            limits=session.proposed_limits,
            admit=Admit.INVITE,
            tag=tag,
        )

    async def _hello_of_another_game(self) -> None:
        """As host: first a hello of another game of the suite's, saying ``join``; the
        implementation must answer with a join naming its invite's game, bound and signed."""
        self.moment.acted = True
        other = self._another_host(tag=game_tag(self.session.entropy(16)))
        other.joinable = True
        other.start(_now())
        self._write(other.data_to_send())
        value, _ = await self._value("the implementation did not answer the hello")
        try:
            join = read_join(value)
        except ProtocolError:
            self.watch.notes.append("it answered another game's hello with no join (section 3)")
            return
        if (
            join.join.hello != other.transcript.frames[0].digest
            or not join_signature_valid(join)
            or join.join.tag != self.session.tag
        ):
            self.watch.notes.append("its join does not name its game, bound and signed")

    def _aim(self) -> tuple[int, ...]:
        session = self.session
        if self.case.aim is Aim.IDLE:
            return honest_shot(session).squares
        rules, view = session.rules, session.view
        assert rules is not None and view is not None
        unknown = [s for s in range(rules.size**2) if view.cell(s) is Cell.UNKNOWN]
        due = session.shots_due
        shots = self.rng.sample(unknown, min(due, len(unknown)))
        return tuple(shots + [0] * (due - len(shots)))

    # ------------------------------------------------------------ events and bytes

    def _events(self, events: list[Event]) -> None:
        for event in events:
            if isinstance(event, FrameAdded) and not event.outgoing:
                message = event.frame.message
                if isinstance(message, Hello) and self.invite_secret is not None:
                    self._check_proof(event.frame.body, message)
                if isinstance(message, Verdict):
                    self.watch.verdict = Seen(
                        "verdict",
                        event.frame.header.seq,
                        winner=message.winner.value if message.winner else None,
                        end=message.end,
                    )
                if isinstance(message, TimeClaim):
                    self.watch.sent.append(
                        Seen("timeout", event.frame.header.seq, waited_ms=message.waited_ms)
                    )
            if isinstance(event, Failed) and event.by_peer:
                self.watch.sent.append(Seen("error", None, code=event.code_text))

    def _check_proof(self, host_hello: bytes, hello: Hello) -> None:
        frames = self.session.transcript.frames
        assert self.invite_secret is not None and frames
        if not proof_holds(self.invite_secret, frames[0].body, hello.key, hello.proof):
            self.watch.notes.append("its hello does not prove the invite's secret (section 3)")

    def _flush(self) -> None:
        data = self.session.data_to_send()
        if data:
            self._write(data)

    def _write(self, data: bytes) -> None:
        assert self.writer is not None
        if data and not self.writer.is_closing():
            self.writer.write(data)

    async def _read(self, seconds: float) -> bytes | None:
        """Bytes from the implementation; b"" once it closed, None when it said nothing."""
        assert self.reader is not None and self.writer is not None
        try:
            await self.writer.drain()
            async with asyncio.timeout(seconds):
                return await self.reader.read(READ_SIZE)
        except TimeoutError:
            return None
        except (ConnectionError, OSError):
            return b""

    async def _observe(self, seconds: float, *, keep: bool = True) -> None:
        """Watch the implementation after the act: every frame it sends, until it closes."""
        reader = FrameReader()
        give_up = time.monotonic() + seconds
        while (left := give_up - time.monotonic()) > 0:
            data = await self._read(left)
            if data is None:
                return
            if not data:
                self.watch.closed = True
                return
            try:
                values = list(reader.values(data))
            except ProtocolError:
                self.watch.sent.append(Seen(None))
                continue
            for value in values:
                seen = _seen(value)
                if keep or seen.type != "verdict":
                    self.watch.sent.append(seen)
                if seen.type == "timeout" and self.case.expect.kind is Kind.CLAIMS:
                    # The claim ends the game: watch a moment more for the close.
                    give_up = min(give_up, time.monotonic() + WATCH_SECONDS)

    def _close(self) -> None:
        if self.writer is not None:
            self.writer.close()

    # ------------------------------------------------------------ resuming

    async def _cut_and_resume(self) -> None:
        session = self.session
        assert self.writer is not None
        await asyncio.sleep(0.05)  # what was just written leaves before the close
        self.writer.close()
        self._events(session.connection_lost(_now(), "the conformance suite dropped it"))
        self.reader, self.writer = await self.connect()
        if session.role is Role.GUEST:
            await self._resume_as_guest()
        else:
            await self._resume_as_host()

    async def _resume_as_guest(self) -> None:
        session = self.session
        value, _ = await self._value()
        envelope = read_envelope(value)
        host_key = session.transcript.key(Role.HOST)
        if (
            host_key is None
            or envelope.hello_key != host_key
            or not signature_valid(host_key, envelope)
        ):
            raise UsageError("the implementation's hello on the new connection is not its own")
        nonce = envelope.fields.get("nonce")
        assert isinstance(nonce, bytes)
        self._write(session.resume_frame(nonce, _now()).encode())
        value, rest = await self._value()
        await self._resumed(value, rest, nonce)

    async def _resume_as_host(self) -> None:
        session = self.session
        greeter = self._another_host(tag=session.tag)  # its hello admits by invite: its tag
        greeter.start(_now())
        hello = greeter.transcript.frames[0].message
        assert isinstance(hello, Hello)
        self._write(greeter.data_to_send())
        value, rest = await self._value()
        self._write(session.resume_frame(hello.nonce, _now()).encode())
        await self._resumed(value, rest, hello.nonce)

    async def _resumed(self, value: Any, rest: bytes, nonce: bytes) -> None:
        session = self.session
        try:
            frame = read_resume(value)
            session.check_resume(frame, nonce)
        except ResumeError as error:
            raise UsageError(f"the implementation's resume is refused: {error.detail}") from None
        self._events(session.resume(frame.resume, _now()))
        self._flush()
        if rest:
            self._events(session.receive_data(rest, _now()))

    async def _value(
        self, missing: str = "the implementation did not resume the game"
    ) -> tuple[Any, bytes]:
        """The next msgpack value from the implementation, and the bytes read after it."""
        unpacker = msgpack.Unpacker(raw=False, max_buffer_size=2 * READ_SIZE)
        received = b""
        while True:
            data = await self._read(READ_SECONDS)
            if not data:
                raise UsageError(missing)
            received += data
            unpacker.feed(data)
            try:
                value = next(unpacker)
            except StopIteration:
                continue
            return value, received[unpacker.tell() :]


def suite_session(
    case: Case,
    rng: random.Random,
    key: Ed25519PrivateKey,
    *,
    host_key: bytes | None = None,
    invite_secret: bytes | None = None,
) -> tuple[Session, AtTheMoment]:
    """The suite's side of a case's game: as host, with its proposal and fleet; as guest,
    with the host key and secret of the implementation's invite."""
    rules = ruleset_named(case.rules)
    moment = AtTheMoment(case, behaviour(case.cheat, rules, rng))
    if case.suite is Role.HOST:
        session = Session(
            Role.HOST,
            key,
            name="conformance",
            entropy=secrets.token_bytes,
            rules=rules,
            limits=LIMITS,
            behaviour=moment,
            admit=Admit.INVITE,
        )
        session.set_fleet(random_fleet(rules, rng))
    else:
        session = Session(
            Role.GUEST,
            key,
            name="conformance",
            entropy=secrets.token_bytes,
            behaviour=moment,
            host_key=host_key,
            invite_secret=invite_secret,
        )
    return session, moment


__all__ = ["LIMITS", "CaseRun", "Code", "Connect", "Sent", "suite_session"]
