"""One game over one TCP stream: the asyncio driver around a sans-I/O ``Session``.

In the manner of aioquic's asyncio adapter: ``GameConnection`` feeds the bytes
it reads to the session and writes what the session has to send.  One timer,
scheduled on the loop (``call_later``) no later than the session's own
``deadline()`` and looked at after every batch of events, calls ``check_time``
when the peer is overdue; nothing polls.  The time comes from one ``Clock`` (``net.clock``), which
both reads the time and turns the deadline into the timer's wait.  Every
signed frame goes to the game's own log file, the peer's word that did not
join the transcript as an evidence record, and a note for anything unsigned
(a lost connection, with the bytes that were nobody's word); the game goes
to the history when it starts and ends.

A lost connection does not end the game (SPEC.md, section 12): the driver
hangs up, tells the front ends (``Lost``), and keeps its timer while the
session finishes alone, signing into its log what needs no player, the
player's own moves, and its time claim once the peer's limit has run out.
Given a ``Rejoin`` (``statki_net.net.resume``), it meanwhile gets a new
connection for the game (the guest redials, the host takes back a guest that
resumes), and the game goes on over it (``Reconnecting``, ``Reconnected``).
A session restored after this side's program stopped starts so, apart.

Front ends (the line prompt, the full-screen client, the daemon's control
socket, the computer player) see the game as *notices*, typed values
(``statki_net.net.notices``), from ``listeners`` (called in order,
synchronously), or as the session's own events from ``event_listeners``; they
act with ``accept``/``refuse``/``shoot``/``resign``.  A listener must not act
from inside its call: it schedules the action (``loop.call_soon``), so notices
keep their order.

    conn = GameConnection(session, reader, writer, log_dir=home / "logs",
                          history=History.in_home(home))
    conn.listeners.append(on_notice)
    outcome = await conn.run()      # returns when this side's log ends, whatever happened

``run`` never raises for anything the peer does: every error in the game is
recorded (log note, history, the outcome's ``failure``) and the stream closed.
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from statki_net.game.errors import UsageError
from statki_net.game.fleet import Fleet
from statki_net.game.rules import Ruleset
from statki_net.game.words import N_, SILENCE, Phrase, phrase
from statki_net.net.clock import WALL_CLOCK, Clock
from statki_net.net.notices import (
    Closed,
    Lost,
    Notice,
    Reconnected,
    Reconnecting,
    lost_phrase,
    notice_of,
)
from statki_net.net.resume import Rejoin, Rejoined
from statki_net.protocol.endings import End, Ending, Result
from statki_net.protocol.errors import Code
from statki_net.protocol.events import (
    STOPPED,
    ConnectionLost,
    Event,
    Evidence,
    Failed,
    FrameAdded,
    Resumed,
    RulesProposed,
)
from statki_net.protocol.phases import PHASES, Period
from statki_net.protocol.session import Session
from statki_net.protocol.talk import TalkDropped, TalkHeard, TalkSaid
from statki_net.protocol.wire import READ_SIZE, Admit, Commit, Limits, Role
from statki_net.store.failures import failed
from statki_net.store.history import History
from statki_net.store.recorder import GameRecorder, LogVerdict, ending_of
from statki_net.store.unfinished import SecretKeeper

Listener = Callable[[Notice], None]

CLOSE_WAIT = 5.0
"""Seconds given to the last bytes on their way out before the socket is dropped."""
ADMISSION_GRACE = 0.15
"""Seconds a guest holds the host's rules back from its player while the host that admits
only its invited guest reads the guest's proof.  The host's hello (and so its rules) comes
before the guest's hello, and SPEC has no word that admits: a refused guest's screen
showed the rules question for the ~16 ms before ``not-invited``.  A refusal comes a round
trip after the guest's hello; the rules come this much later, which nobody notices.  (A
round trip longer than this, across oceans, may still show the question before the
refusal; the connection lost meanwhile tells the rules, for the game goes on alone.)
"""
BEFORE_THE_BATTLE = (Period.OPENING, Period.SETUP)
"""The periods a player may leave a game in (``GameConnection.leave``)."""
LEFT_BEFORE_THE_BATTLE = phrase(N_("the player left before the battle"))
"""The detail of the ``error`` a game left before its battle is stopped with."""


def side_session(
    role: Role,
    key: Ed25519PrivateKey,
    name: str,
    *,
    rules: Ruleset | None = None,
    limits: Limits | None = None,
    fleet: Fleet | None = None,
    admit: Admit = Admit.OPEN,
    invite_secret: bytes | None = None,
    first: Role | None = None,
) -> Session:
    """A side this program plays against a peer over the network: the daemon's games and
    a front end's own are all built here, their salts and nonces from the OS (a test or a
    bench that wants them seeded builds its ``Session`` itself)."""
    return Session(
        role,
        key,
        name=name,
        entropy=secrets.token_bytes,
        rules=rules,
        limits=limits,
        fleet=fleet,
        admit=admit,
        invite_secret=invite_secret,
        first=first,
    )


class GameOverError(UsageError):
    """An action on a game that has ended: a front end stops asking for one."""


@dataclass(frozen=True)
class Outcome:
    """How one game ended, as this side saw it."""

    ending: Ending
    role: Role
    """This side."""
    my_shots: int
    their_shots: int
    verdict: LogVerdict | None
    """The referee's judgement of this side's log (None without a log)."""
    log_path: Path | None
    game_id: str
    failure: Failed | None = None
    """Why the game stopped early, if it did."""

    @property
    def result(self) -> Result:
        return self.ending.result(self.role)

    @property
    def failure_text(self) -> str | None:
        """The failure as a person reads it: ``code: detail``."""
        failure = self.failure
        return f"{failure.code_text}: {failure.detail}" if failure else None

    @property
    def judged(self) -> Ending | None:
        """How the game ended by this side's own log, as the referee judges it.

        Without a log, the session's own ending.  None when the log holds no
        ending (it is unfinished, or disputed).
        """
        return self.verdict.ending if self.verdict else self.ending

    def closed(self) -> Closed:
        """The last notice of the game, which says so in the referee's words."""
        judged = self.judged
        return Closed(
            judged.result(self.role) if judged else Result.NONE,
            judged.end if judged else None,
            verdict=self.verdict.headline if self.verdict else None,
            said=self.verdict.said if self.verdict else SILENCE,
            failure=self.failure_text,
            log=self.log_path,
            my_shots=self.my_shots,
            their_shots=self.their_shots,
            standing=self.verdict.standing if self.verdict else None,
        )


class GameConnection:
    """One game over one stream; see the module docstring."""

    def __init__(
        self,
        session: Session,
        reader: asyncio.StreamReader | None,
        writer: asyncio.StreamWriter | None,
        *,
        log_dir: Path | None,
        history: History | None = None,
        clock: Clock = WALL_CLOCK,
        expect_key: bytes | None = None,
        peer_address: str = "",
        received: bytes = b"",
        rejoin: Rejoin | None = None,
        keeper: SecretKeeper | None = None,
        recorder: GameRecorder | None = None,
    ) -> None:
        self.session = session
        self.reader = reader
        self.writer = writer
        """The stream; None while apart (a session restored after its program stopped)."""
        self.recorder = recorder or GameRecorder(log_dir, history, peer=peer_address)
        """The log file, the history row and the verdict: shared with local games."""
        self.clock = clock
        """All the game's time: every ``now`` the session is given, and the timer's wait."""
        if expect_key is not None:
            # The guest's session refuses, in silence, a host with any other key.
            session.host_key = expect_key
        self.peer_address = peer_address
        self._received = received
        """What the peer said before this game was made: the guest's hello, which the
        host's admission read to admit it (the host's hello is already said)."""
        self.listeners: list[Listener] = []
        self.event_listeners: list[Callable[[list[Event]], None]] = []
        """Called with each batch of the session's own events (no frames), for front ends
        that keep their own state (the full-screen client); same rule as ``listeners``."""
        self.outcome: Outcome | None = None
        self._timer: asyncio.TimerHandle | None = None
        self._timer_due = 0
        """The deadline (ms, the clock's) the timer was set for, while it is set."""
        self._winding_up: asyncio.Future[None] | None = None
        self._done = asyncio.Event()
        """Set once the outcome is recorded."""
        self._over = asyncio.Event()
        """Set once the session is closed: nothing more will be said or written."""
        self.lost = not session.connected
        """The connection is lost: this side finishes the game alone (SPEC.md, section 12)."""
        self.rejoin = rejoin
        """How a new connection for the game comes, if one can (``statki_net.net.resume``)."""
        self.keeper = keeper
        """Where this side's secrets are kept while the game may be resumed after a crash."""
        self._held: list[tuple[list[tuple[Event, Notice]], list[Event]]] | None = None
        """What the front ends are not told yet, while a guest waits for its admission."""
        self._release_timer: asyncio.TimerHandle | None = None
        """Ends the hold at ``ADMISSION_GRACE`` on the game's clock; cancelled by an earlier
        release (the game over, the connection lost)."""
        self._admission_awaited = False
        """Once: a resumed game's rules, or the second batch of held ones, are not held."""

    # ------------------------------------------------------------ for front ends

    def now(self) -> int:
        return self.clock.now()

    @property
    def game_id(self) -> str:
        return self.session.transcript.game.hex()

    @property
    def log_path(self) -> Path | None:
        return self.recorder.log_path

    def accept(self, fleet: Fleet) -> None:
        self._act(lambda now: self.session.accept(fleet, now))

    def refuse(self, reason: str) -> None:
        self._act(lambda now: self.session.refuse(reason, now))

    def shoot(self, squares: tuple[int, ...]) -> None:
        self._act(lambda now: self.session.shoot(squares, now))

    def resign(self) -> None:
        self._act(lambda now: self.session.resign(now))

    def say(self, text: str) -> None:
        """Say a line to the opponent; raises ``TalkRefused`` when it may not be said."""
        self._act(lambda now: self.session.say(text, now))

    def stop(self, said: Phrase) -> None:
        """This side stops the game itself (``error``, code ``closed``); ``run`` then returns.

        From the guest's accept on that is this side's forfeit (SPEC.md,
        section 8): the daemon told to stop, a player who quits.  Nothing
        happens to a game already over.
        """
        if not self.session.closed:
            self._stop_locally(Code.CLOSED, said)

    def leave(self) -> End:
        """The player leaves before the battle: this side stops the game at once, rather
        than leave the opponent to claim it on time.  How it ends is section 8's: no game
        before the guest's accept, this side's forfeit after it.  Refused once the battle
        has begun (a player leaves it by resigning) or the game is over."""
        session = self.session
        if session.closed:
            raise GameOverError(phrase(N_("the game is over")))
        if PHASES[session.transcript.phase].period not in BEFORE_THE_BATTLE:
            raise UsageError(phrase(N_("the battle has begun: a player leaves it by resigning")))
        self.stop(LEFT_BEFORE_THE_BATTLE)
        ending = session.transcript.ending
        return ending.end if ending is not None else End.NO_GAME

    # ------------------------------------------------------------ the game, start to end

    async def run(self) -> Outcome:
        """Play the game to its end; never raises for the peer's doing."""
        try:
            self.recorder.open(self.session, self.now())
            restored = self.lost
            if restored:
                self._note("picked up again after this side's program stopped")
            self._handle(self.session.start(self.now()))
            if restored and not self.session.closed:
                self._tell_lost([], just_lost=True)
            if self._received:
                self._handle(self.session.receive_data(self._received, self.now()))
                self._received = b""
            await self._flush()
            await self._carry_on()
        except (asyncio.CancelledError, KeyboardInterrupt):
            self._stop_locally(Code.CLOSED, phrase(STOPPED))
            raise
        except Exception as error:  # a bug or a local failure must not lose the log
            self._stop_locally(Code.INTERNAL, failed(N_("playing the game"), error))
        finally:
            self._disarm()
            await self._wind_up_to_the_end()
        assert self.outcome is not None
        return self.outcome

    async def _wind_up_to_the_end(self) -> None:
        """Close the stream, judge the log and record the end, even when cancelled meanwhile.

        A task of its own, shielded, so a cancellation cannot cut the record short; and
        waited for to its end (bounded: the close's two waits of ``CLOSE_WAIT``, then the
        judging of the log), so that whoever cancelled the game finds it recorded once
        this returns: a front end closes the history next (a player who stopped the full
        screen with SIGTERM found the game's end missing from it).  The cancellation
        itself then goes on, up."""
        self._winding_up = asyncio.ensure_future(self._wind_up())
        cancelled = False
        while not self._winding_up.done():
            try:
                await asyncio.shield(self._winding_up)
            except asyncio.CancelledError:
                cancelled = True
        if cancelled:
            raise asyncio.CancelledError

    async def _wind_up(self) -> None:
        verdict: LogVerdict | None = None
        try:
            await self._close_stream()
            # Judging reads the whole log: off the event loop, so other games go on.
            verdict = await asyncio.to_thread(self.recorder.judge, self.session.transcript)
        finally:
            # Even cancelled itself (a runner that cancels every task at its end): the end
            # is recorded, without the referee's line if the judging did not finish.
            self._finish(verdict)

    async def wait(self) -> Outcome:
        """The outcome, once the game has ended (for whoever did not call ``run``)."""
        await self._done.wait()
        assert self.outcome is not None
        return self.outcome

    async def _carry_on(self) -> None:
        """Read the peer until the game is over; alone, once the connection is lost, the
        timer and the player finish the game, unless a new connection carries it on."""
        if self.rejoin is None:  # no new connection will come: one task, the game's own
            if self.session.connected:
                await self._read_until_lost()
            await self._over.wait()
            return
        over = asyncio.ensure_future(self._over.wait())
        back: asyncio.Future[Rejoined] | None = None
        read: asyncio.Future[None] | None = None
        try:
            while not self.session.closed:
                if read is None and self.session.connected:
                    read = asyncio.ensure_future(self._read_until_lost())
                rejoin = self.rejoin
                if (
                    back is None
                    and rejoin is not None
                    and self.session.resumable
                    and (rejoin.while_connected or self.lost)
                ):
                    back = asyncio.ensure_future(rejoin(self.session, self.clock, self._retried))
                waits: set[asyncio.Future[Any]] = {over}
                waits.update(f for f in (read, back) if f is not None)
                await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
                if back is not None and back.done():
                    rejoined, back = back.result(), None
                    if read is not None:
                        read.cancel()
                        with contextlib.suppress(asyncio.CancelledError):
                            await read
                        read = None
                    await self._rejoined(rejoined)
                elif read is not None and read.done():
                    read.result()
                    read = None
        finally:
            for waiting in (over, back, read):
                if waiting is not None:
                    waiting.cancel()

    def _retried(self, attempt: int, why: str) -> None:
        """A new connection that did not carry the game on: tell the front ends."""
        self._note(f"no resume on attempt {attempt}: {why}")
        if self.lost and not self.session.closed:
            self._publish(self._reconnecting(attempt, why))

    def _reconnecting(self, attempt: int, why: str = "") -> Reconnecting:
        due = self.session.deadline()
        left = None if due is None else max(0, due - self.now())
        host = self.rejoin is not None and self.rejoin.while_connected
        return Reconnecting(attempt, left, why, waiting_for_guest=host)

    async def _rejoined(self, rejoined: Rejoined) -> None:
        """The game goes on over a new connection: both resumes are said."""
        if self.session.connected:
            # The peer lost the old connection before this side saw it go.
            self._transport_gone("the peer came back on a new connection")
        if self.session.closed:  # the game ended meanwhile: nothing to carry on
            rejoined.writer.close()
            return
        self.reader, self.writer = rejoined.reader, rejoined.writer
        self.recorder.resume(rejoined.peer, rejoined.own)
        self.lost = False
        self._handle(self.session.resume(rejoined.peer.resume, self.now()))
        if rejoined.leftover:
            self._handle(self.session.receive_data(rejoined.leftover, self.now()))
        await self._flush()

    async def _read_until_lost(self) -> None:
        """Feed the session what the peer sends until the game ends or the connection is lost.

        The session itself may find the connection lost (bytes that are nobody's
        word, a crossed frame): it says so with ``ConnectionLost``, and reading stops.
        """
        reader = self.reader
        assert reader is not None, "a connected session has a stream"
        while self.session.connected:
            try:
                data = await reader.read(READ_SIZE)
            except (ConnectionError, OSError) as error:
                self._transport_gone(error.strerror or type(error).__name__)
                return
            if not self.session.connected:  # the timer or the player ended it meanwhile
                return
            if not data:
                speaker = self.session.transcript.speaker()
                self._transport_gone(f"the peer closed the connection while {speaker} was to speak")
                return
            self._handle(self.session.receive_data(data, self.now()))  # and writes the answer
            await self._drain()

    def _transport_gone(self, why: str) -> None:
        """The stream closed or failed before the game was over: the session plays on alone.

        It signs at once what needs no player, and waits out the peer's limit
        before it claims (SPEC.md, section 12); its ``ConnectionLost`` is noted
        and the front ends are told (``Lost``) in ``_handle``.
        """
        self._handle(self.session.connection_lost(self.now(), why))

    # ------------------------------------------------------------ the one timer

    def _arm(self) -> None:
        """Have the one timer go off no later than the session's own deadline.

        Called after every batch of events, since any message moves the deadline,
        almost always later: a timer set for an earlier deadline is kept, and when
        it goes off it looks at the deadline then and sets itself again (a timer
        cancelled and made anew at every message cost more than the rest of this).
        A timer left set while nobody is awaited finds no deadline and does nothing.
        """
        due = self.session.deadline()
        if due is None or (self._timer is not None and self._timer_due <= due):
            return
        self._disarm()
        self._timer_due = due
        delay = self.clock.delay(due)
        self._timer = asyncio.get_running_loop().call_later(delay, self._deadline_passed)

    def _disarm(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _deadline_passed(self) -> None:
        """Claim on time once the session's deadline has passed; before it (the deadline
        moved on since the timer was set, or the loop's clock runs a hair ahead of ours),
        wait on."""
        self._timer = None
        due = self.session.deadline()
        if self.session.closed or due is None:
            return
        if self.now() < due:
            self._arm()
            return
        waited = (self.now() - self.session.last_heard) / 1000
        self._note(f"the peer was silent for {waited:.1f} s: claiming the game on time")
        try:
            self._handle(self.session.check_time(self.now()))
        except Exception as error:  # a callback's error would reach no one: stop the game
            self._stop_locally(Code.INTERNAL, failed(N_("playing the game"), error))

    def _act(self, action: Callable[[int], list[Event]]) -> None:
        if self.session.closed:
            raise GameOverError(phrase(N_("the game is over")))
        self._handle(action(self.now()))  # which writes what the action has to send

    # ------------------------------------------------------------ events

    def _handle(self, events: list[Event]) -> None:
        just_lost = False
        notices: list[tuple[Event, Notice]] = []
        for event in events:
            if isinstance(event, FrameAdded):
                if event.outgoing and isinstance(event.frame.message, Commit) and self.keeper:
                    # Kept before the commit is sent: a side that commits must be able
                    # to reveal, even after its program stopped.
                    self.keeper.keep(self.session, self.log_path)
                self.recorder.frame(event.frame, event.got)
                continue
            if isinstance(event, Resumed):
                self._note(f"resumed: the peer had {event.have} messages; {event.sent} sent again")
                self._publish(Reconnected(event.have, event.sent))
                continue
            if isinstance(event, Evidence):  # the peer's word that did not join the transcript
                self.recorder.evidence(event.frame, event.code, event.at)
                continue
            if isinstance(event, ConnectionLost):
                just_lost = True
                self._hang_up(event)
                continue
            if isinstance(event, TalkHeard | TalkSaid):
                self.recorder.talk(event.frame)
            if isinstance(event, TalkDropped):
                if event.noted:  # the first few only: a flood must not bloat the log
                    self._note(f"talk dropped: {event.code.value}: {event.detail}", event.data)
                continue
            if isinstance(event, Failed):
                self._note_failure(event)
            if self.listeners:  # nobody to tell (bots alone): no notice to make
                notice = notice_of(event, self.session, self.peer_address)
                if notice is not None:
                    notices.append((event, notice))
        self._tell(notices, [event for event in events if not isinstance(event, FrameAdded)])
        self.recorder.started(self.session, self.now())
        self._write()
        self._settle()
        if self.lost and not self.session.closed:
            self._release()
            self._tell_lost(events, just_lost)

    def _tell(self, notices: list[tuple[Event, Notice]], told: list[Event]) -> None:
        """Tell the front ends a batch, unless it proposes rules its guest may yet be refused
        (``ADMISSION_GRACE``): then it waits, and what follows it, until the grace is over
        or the game is (refused: the rules were never the player's question)."""
        if not self._admission_awaited and self._awaits_admission(told):
            self._admission_awaited = True
            self._held = []
            # On the game's clock, as every wait of the game: a hurried one hurries it too.
            wait = self.clock.delay(self.now() + int(ADMISSION_GRACE * 1000))
            self._release_timer = asyncio.get_running_loop().call_later(wait, self._grace_over)
        if self._held is not None:
            self._held.append((notices, told))
            if self.session.closed:
                self._release()
            return
        for _event, notice in notices:
            self._publish(notice)
        if self.event_listeners:
            for event_listener in list(self.event_listeners):
                event_listener(told)

    def _awaits_admission(self, told: list[Event]) -> bool:
        host_hello = self.session.transcript.sides[Role.HOST].hello
        return (
            self.session.role is Role.GUEST
            and host_hello is not None
            and host_hello.admit is Admit.INVITE
            and not self.session.closed
            and any(isinstance(event, RulesProposed) for event in told)
        )

    def _grace_over(self) -> None:
        self._release_timer = None
        try:
            self._release()
        except Exception as error:  # a callback's error would reach no one: stop the game
            self._stop_locally(Code.INTERNAL, failed(N_("playing the game"), error))

    def _release(self) -> None:
        """Tell what was held, in its order; the rules no longer, if the game ended."""
        held, self._held = self._held, None
        if self._release_timer is not None:
            self._release_timer.cancel()
            self._release_timer = None
        refused = self.session.closed
        for notices, told in held or []:
            if refused:
                notices = [(e, n) for e, n in notices if not isinstance(e, RulesProposed)]
                told = [event for event in told if not isinstance(event, RulesProposed)]
            self._tell(notices, told)

    def _settle(self) -> None:
        """After events: re-arm the timer, or, once the game is closed, end the stream.

        Closing sends what is written (a claim, an error) and then ends the read
        the reader may be waiting in on a silent peer.  (Feeding the reader an
        end of its own would race with data still arriving.)
        """
        if self.session.closed:
            self._disarm()
            if self.writer is not None:
                self.writer.close()
            self._over.set()
        else:
            self._arm()

    def _tell_lost(self, events: list[Event], just_lost: bool) -> None:
        """Tell the front ends, once lost and after each move made alone, what happens now."""
        since = next((i for i, e in enumerate(events) if isinstance(e, ConnectionLost)), 0)
        recorded = tuple(
            e.frame.message.TYPE for e in events[since:] if isinstance(e, FrameAdded) and e.outgoing
        )
        if not just_lost and not recorded:
            return
        due = self.session.deadline()
        wait_ms = None if due is None else max(0, due - self.now())
        then = PHASES[self.session.transcript.phase].claim if due is not None else None

        said = lost_phrase(
            wait_ms,
            then,
            recorded,
            resigning=self.session.resigning,
            reconnecting=self.rejoin is not None,
        )
        self._publish(Lost(str(said), wait_ms, then, recorded, said=said))

    def _hang_up(self, lost: ConnectionLost) -> None:
        """The connection is lost: note why (with the bytes that were nobody's word), close it.

        Nothing more goes out: what this side says from now on goes to its log.
        """
        why = lost.detail if lost.code is Code.LOST else f"{lost.code.value}: {lost.detail}"
        self._note(f"connection lost: {why}", lost.data)
        self.lost = True
        if self.writer is not None:
            self.writer.close()

    def _publish(self, notice: Notice) -> None:
        for listener in list(self.listeners):
            listener(notice)

    def _note_failure(self, failure: Failed) -> None:
        if failure.by_peer:
            self._note(f"the peer stopped the game: {failure.code_text}: {failure.detail}")
        else:
            # A frame this side refused is in the log already, as an evidence record.
            self._note(f"stopped the game: {failure.code_text}: {failure.detail}")

    def _note(self, text: str, data: bytes = b"") -> None:
        self.recorder.note(text, self.now(), data)

    def _stop_locally(self, code: Code, said: Phrase) -> None:
        """End the game from this side (stopped, a local failure); never raises.

        An ``error`` message, sent, or written alone once the connection is
        lost; from the guest's accept on it is this side's forfeit.  Its detail
        is ``said`` in English on the wire and in the log; this side's player
        reads it in their own language.
        """
        if not self.session.closed:
            with contextlib.suppress(Exception):
                self._handle(self.session.abort(code, str(said), self.now(), said=said))
        self._settle()

    # ------------------------------------------------------------ I/O

    def _write(self) -> None:
        data = self.session.data_to_send()
        if data and self.writer is not None and not self.writer.is_closing():
            self.recorder.sync()  # what the peer will hold is in our log, on disk, first
            self.writer.write(data)

    async def _flush(self) -> None:
        self._write()
        await self._drain()

    async def _drain(self) -> None:
        """Wait while the socket's buffer is too full to take more (a peer slow to read).

        With nothing buffered (the kernel took every byte written, as nearly always)
        there is nothing to wait for: no coroutine to go through at every message."""
        writer = self.writer
        if writer is None or not writer.transport.get_write_buffer_size():
            return
        with contextlib.suppress(ConnectionError, OSError):
            await writer.drain()

    async def _close_stream(self) -> None:
        # asyncio.timeout, not wait_for: in 3.11 wait_for can lose a cancellation.
        self._write()
        if self.writer is None:
            return
        # A peer gone or slow to read: its last bytes are lost, the log has them.
        with contextlib.suppress(OSError, TimeoutError):
            async with asyncio.timeout(CLOSE_WAIT):
                await self.writer.drain()
        self.writer.close()
        with contextlib.suppress(OSError, TimeoutError):
            async with asyncio.timeout(CLOSE_WAIT):
                await self.writer.wait_closed()

    def _finish(self, verdict: LogVerdict | None) -> None:
        """Record the end and tell whoever listens; idempotent."""
        if self.outcome is not None:
            return
        t, me = self.session.transcript, self.session.role
        ending = ending_of(self.session)
        self.outcome = Outcome(
            ending,
            me,
            my_shots=t.shots_by(me),
            their_shots=t.shots_by(me.other),
            verdict=verdict,
            log_path=self.log_path,
            game_id=self.game_id,
            failure=self.session.failure,
        )
        try:
            self.recorder.ended(self.session, ending, verdict, self.now())
        finally:  # a bug in recording (raised) must not leave every waiter waiting
            if self.keeper is not None:
                self.keeper.forget()
            self._release()
            self._publish(self.outcome.closed())
            self._done.set()
