"""The model's ``Link`` through a running daemon: the daemon plays the game, this follows it.

With ``statki daemon`` running in the home, ``statki host`` and ``statki
join`` hand the game to the daemon (it keeps the port, admits the guest,
keeps the log and the history, and plays on when the terminal closes), and
the player still gets the full screen: ``DaemonLink`` follows the game over
the control socket (SPEC.md, "The control socket", ``follow``).  For each
batch of the daemon's session events it is sent the frames the batch added
and the events (``statki_net.net.event_maps``); its own ``Session`` replays
them (``Session.follow``) and the model is told exactly the events it is told
in-process, then the notices ``Lost``, ``Reconnecting``, ``Reconnected`` and
``Closed`` as ``ConnectionLink`` passes them on.  The player's actions are
control requests.

A host's proposal is its own until its fleet is committed: the rules
screen and the placement work on the link's session (``propose`` makes it
anew, as over a connection), and ``begin`` sends the daemon the rules, the
limits and the fleet (``propose``), which its hello says from then on.

A rematch (``r`` at the end) is the next game's link (``rematch``, on the
terms of ``statki_net.protocol.rematch``), which asks the daemon for it once
this game's last notice came (``meet``, the control request ``rematch``: the
daemon hosts again with the same invite, or dials the same host again);
``follow_games`` follows one game after another on the same screen.  A
screen closed on a game the daemon plays on can be opened on it again
(``attach``).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine, Sequence
from pathlib import Path
from typing import Any

from statki_net.game.errors import StatkiError, UsageError
from statki_net.game.fleet import Fleet
from statki_net.game.rules import Ruleset, preset_name
from statki_net.game.words import N_, Phrase, as_is, phrase
from statki_net.net.clock import WALL_CLOCK, Clock
from statki_net.net.control import (
    REPLY_TIMEOUT,
    ControlClient,
    ControlError,
    Message,
    notice_from_map,
)
from statki_net.net.event_maps import event_from_map, frame_from_bytes
from statki_net.net.notices import Closed, Lost, Reconnected, Reconnecting
from statki_net.protocol.endings import End, Ending
from statki_net.protocol.errors import Code
from statki_net.protocol.events import Event, Failed, GameClosed
from statki_net.protocol.rematch import next_session, rematch_of
from statki_net.protocol.session import Session
from statki_net.protocol.wire import Limits, Role
from statki_net.store.language import words

from .kinds import ABSENT, GuestAtTheDoor, Told

FOLLOWED_NOTICES = (Lost, Reconnecting, Reconnected, Closed)
"""The connection's notices the model is told (``ConnectionLink`` passes the same)."""


class DaemonLink:
    """A ``Link`` for the model over the daemon's control socket; see the module docstring."""

    def __init__(
        self,
        session: Session,
        client: ControlClient,
        game: int | None,
        *,
        clock: Clock = WALL_CLOCK,
    ) -> None:
        self._session = session
        self.client = client
        self.game = game
        """The daemon's number for the game; None for a rematch until the daemon gives it."""
        self.clock = clock
        self.on_change: Callable[[], None] = lambda: None
        self.on_trouble: Callable[[str], None] = lambda text: None
        """Told the daemon's words when it refuses an action (a line too long, say)."""
        self.proposed = False
        """The host's proposal is the daemon's: its rules and fleet are settled."""
        self.closed: Closed | None = None
        """The game's last notice, once it came: its log and the referee's line."""
        self._log: Path | None = None
        self._listener: Callable[[Sequence[Told]], None] | None = None
        self._closed_seen = False
        self._requests: set[asyncio.Task[None]] = set()
        self._known = 0
        """Frames of the daemon's first push this session has already (``attach``)."""
        self.successor: DaemonLink | None = None
        """The rematch's link, once the player asked for it."""
        self.rematch_asked = asyncio.Event()
        self.over = asyncio.Event()
        """Set once the game's last notice came (or it ended without one)."""
        self.is_rematch = False
        self.leaving = False
        """The player left before the battle (``leave``): the game ends soon, its last
        notice on the way."""
        self._numbered = asyncio.Event()
        """Set once the daemon numbered the game (or refused the rematch): requests wait."""
        if game is not None:
            self._numbered.set()

    @classmethod
    async def attach(
        cls, session: Session, client: ControlClient, game: int, *, clock: Clock = WALL_CLOCK
    ) -> DaemonLink:
        """A link to a game the daemon plays already, for a screen opened on it anew
        (``statki resume``): ``session`` is this side's, restored from the game's log and
        secrets; the frames the daemon has had since the log was read join it here, before
        the screen is told where the game stands (``statki_net.protocol.replay``)."""
        link = cls(session, client, game, clock=clock)
        link.proposed = True  # committed long ago
        link._known = len(session.transcript.frames)
        await client.request("subscribe", game=game, follow=True)  # its frames come at once
        try:
            async with asyncio.timeout(REPLY_TIMEOUT):
                while True:
                    message = await client.events.get()
                    if message is None:
                        raise ControlError(phrase(N_("the daemon closed the connection")))
                    if message.get("game") == game and message.get("event") == "session":
                        link._read(message)
                        # Restored from the log, the session holds its own program's stop as
                        # a lost connection; the daemon holds the connection, and tells of a
                        # loss as it comes (else the screen could never talk).
                        link.session.lost = None
                        return link
        except TimeoutError:  # a daemon older than the push on subscribe, or one stuck
            raise ControlError(phrase(N_("the daemon does not answer"))) from None

    # ------------------------------------------------------------ what the model reads

    @property
    def session(self) -> Session:
        return self._session

    @property
    def log_path(self) -> Path | None:
        """The daemon's log of the game, once it is open (the end screen shows it, and the
        analysis reads it)."""
        return self._log

    @property
    def timed(self) -> bool:
        return True

    @property
    def person(self) -> bool:
        return True

    @property
    def can_rematch(self) -> bool:
        """Once the game is over, with an opponent who is the one expected, and only once (a
        rematch nobody came to met nobody: no further rematch)."""
        if self.successor is not None or not self._closed_seen:
            return False
        return rematch_of(self._session) is not None

    def rematch(self) -> DaemonLink | None:
        """The next game's link: the host keeps its rules and hands the first shot over
        (``statki_net.protocol.rematch``); the daemon is asked for it by ``meet``."""
        if not self.can_rematch:
            return None
        successor = DaemonLink(next_session(self._session), self.client, None, clock=self.clock)
        successor.on_change, successor.on_trouble = self.on_change, self.on_trouble
        successor.is_rematch = True
        self.successor = successor
        self.rematch_asked.set()
        return successor

    async def meet(self, finished: DaemonLink) -> None:
        """Ask the daemon for the rematch of ``finished``'s game, which this link follows; a
        refusal ends this game with the daemon's one line, in the player's words."""
        try:
            reply = await self.client.request("rematch", game=finished.game, follow=True)
        except StatkiError as error:
            self._gone(Failed(ABSENT, error.in_words(words()), False))
        else:
            self.game = int(reply["game"])
        finally:
            self._numbered.set()

    def listen(self, listener: Callable[[Sequence[Told]], None]) -> None:
        self._listener = listener

    # ------------------------------------------------------------ the player's actions

    def propose(self, rules: Ruleset) -> None:
        self._session = self._unsettled().anew(rules=rules, first=self._session.proposed_first)

    def propose_limits(self, limits: Limits) -> None:
        old = self._unsettled()
        self._session = old.anew(rules=old.rules, first=old.proposed_first, limits=limits)

    def _unsettled(self) -> Session:
        if self._session.role is not Role.HOST or self.proposed:
            raise UsageError(phrase(N_("the rules are settled once the host's fleet is committed")))
        return self._session

    def begin(self, fleet: Fleet) -> None:
        """The host's proposal goes to the daemon; the guest accepts the host's rules."""
        session = self._session
        session.set_fleet(fleet)
        ships = fleet.to_lists()
        if session.role is Role.GUEST:
            self._send("accept", fleet=ships)
            return
        rules = session.rules
        name = preset_name(rules) if rules is not None else None
        if name is None:
            raise UsageError(phrase(N_("the daemon takes preset rules only")))
        self.proposed = True
        move_ms = session.proposed_limits.move_ms
        self._send("propose", rules=name, move_ms=move_ms, fleet=ships)

    def decline(self, reason: str) -> None:
        self._send("refuse", reason=reason)

    def shoot(self, squares: tuple[int, ...]) -> None:
        self._send("shoot", squares=list(squares))

    def resign(self) -> None:
        self._send("resign")

    def say(self, text: str) -> None:
        self._send("say", text=text)

    def leave(self) -> None:
        """The player leaves before the battle: the daemon withdraws the game, or ends it
        (the control request ``leave``), rather than play on a game nobody moves for; once."""
        if not self.leaving:
            self.leaving = True
            self._spawn(self._leave())

    async def _leave(self) -> None:
        """``leave``, and where the daemon refuses it for a game not over (the battle began
        meanwhile: a player leaves it by resigning, SPEC.md section 8), ``resign``."""
        await self._numbered.wait()
        if self.game is None:
            return
        try:
            await self.client.request("leave", game=self.game)
        except StatkiError as error:
            if self.closed is not None or self._session.closed:
                self.on_trouble(error.in_words(words()))
                self.on_change()
                return
            await self._request("resign")

    def _send(self, op: str, **fields: Any) -> None:
        """One request for the game, in order with the others; a refusal is the player's
        to read, in the daemon's words."""
        self._spawn(self._request(op, **fields))

    def _spawn(self, request: Coroutine[Any, Any, None]) -> None:
        task = asyncio.ensure_future(request)
        self._requests.add(task)
        task.add_done_callback(self._requests.discard)

    async def _request(self, op: str, **fields: Any) -> None:
        await self._numbered.wait()  # a rematch's first actions wait for its number
        if self.game is None:
            return  # the rematch was refused: nothing to act on
        try:
            await self.client.request(op, game=self.game, **fields)
        except StatkiError as error:
            self.on_trouble(error.in_words(words()))
            self.on_change()

    async def settled(self) -> None:
        """Every request sent is answered (a resignation went out before the screen closes)."""
        if self._requests:
            await asyncio.wait(set(self._requests))

    # ------------------------------------------------------------ what the daemon tells

    async def follow(self) -> None:
        """Tell the model the game as the daemon plays it, to its last notice."""
        try:
            await self._follow()
        finally:
            self.over.set()

    async def _follow(self) -> None:
        while self.closed is None:
            message = await self.client.events.get()
            if message is None:
                self._gone(_failed(Code.CLOSED, phrase(N_("the daemon went away"))))
                return
            if message.get("game") != self.game:
                continue
            try:
                told = self._read(message)
            except (StatkiError, ValueError, KeyError, TypeError) as error:
                said = phrase(N_("the daemon's events do not replay: {error}"), error=str(error))
                self._gone(_failed(Code.INTERNAL, said))
                return
            if told:
                self._tell(told)
            if self.closed is not None and self.is_rematch and not self._closed_seen:
                # The daemon's rematch that never became a game: who did not come, and why.
                why = self.closed.failure_in(words()) or ""
                self._gone(Failed(ABSENT, why, False))

    def _read(self, message: Message) -> list[Told]:
        if message["event"] == "door":  # a guest waits for the hello, before ``propose``
            return [GuestAtTheDoor(int(message["connections"]))]
        if message["event"] == "session":
            frames = [frame_from_bytes(data) for data in message["frames"]]
            had, self._known = min(self._known, len(frames)), 0
            frames = frames[had:]  # the first push after ``attach``: from the first frame
            events = [event_from_map(value) for value in message["events"]]
            known: list[Event] = [event for event in events if event is not None]
            if message.get("log"):
                self._log = Path(message["log"])
            self._session.follow(frames, known, self.clock.now())
            return list(known)
        shown = notice_from_map(message)
        if shown is None or not isinstance(shown.notice, FOLLOWED_NOTICES):
            return []
        if isinstance(shown.notice, Closed):
            self.closed = shown.notice
        return [shown.notice]

    def _tell(self, told: Sequence[Told]) -> None:
        self._closed_seen |= any(isinstance(event, GameClosed) for event in told)
        if self._listener is not None:
            self._listener(told)
        self.on_change()

    def _gone(self, failure: Failed) -> None:
        """The game ends here without its end (the daemon went away, a rematch nobody came
        to): one line says why."""
        self.closed = self.closed or Closed.without_game(failure.detail, failure.said)
        self.over.set()
        if not self._closed_seen:
            reason = failure.said or as_is(failure.detail)
            ending = self._session.ending or Ending(End.NO_GAME, reason=reason)
            self._tell([failure, GameClosed(ending, ())])


async def follow_games(link: DaemonLink) -> None:
    """Follow ``link``'s game, then each rematch the player asks for (``r`` at the end),
    until the caller cancels it (the player left) or a rematch never became a game."""
    current = link
    while True:
        await current.follow()
        await current.rematch_asked.wait()
        successor = current.successor
        assert successor is not None
        await successor.meet(current)
        if successor.game is None:
            return
        current = successor


def last_link(link: DaemonLink) -> DaemonLink:
    """The latest game's link: ``link`` or its last rematch."""
    while link.successor is not None:
        link = link.successor
    return link


def _failed(code: Code, said: Phrase) -> Failed:
    """This side's failure, its detail in English as logs keep it and ``said`` for the
    player's screen, in their words."""
    return Failed(code, str(said), False, said=said)
