"""The model's ``Link`` over TCP: ``statki_net.net.connection.GameConnection``.

The model reads the session's events themselves (the connection's notices
are for front ends that keep no state of their own), through
``GameConnection.event_listeners``.
``ConnectionLink`` adapts the connection to the model: events reach the
model on the next turn of the event loop, so the model may act (resign
when its turn comes) without re-entering the connection, and ``on_change``
redraws the screen.

The host commits to its fleet before the guest can accept, so a host's
front end awaits ``fleet_ready`` before it runs the connection.

A rematch is a new game on a new connection with the same opponent: the
protocol has no rematch message.  ``ConnectionLink.rematch`` makes the next
game's link (the host proposing that the side that did not shoot first now
does) and a ``Reunion`` given by the command line meets the opponent again:
the host listens again on its invite's port, the guest dials the same host.
``run_games`` plays one game after another for as long as the player asks.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any, Protocol

from statki_net.game.errors import StatkiError, UsageError
from statki_net.game.fleet import Fleet
from statki_net.game.rules import Ruleset
from statki_net.game.words import N_, as_is, phrase
from statki_net.net.connection import GameConnection
from statki_net.net.notices import Closed, Lost, Notice, Reconnected, Reconnecting
from statki_net.protocol.endings import End, Ending
from statki_net.protocol.errors import Code
from statki_net.protocol.events import Event, Failed, GameClosed
from statki_net.protocol.rematch import Rematch, next_session, rematch_of
from statki_net.protocol.session import Session
from statki_net.protocol.wire import Limits, Role
from statki_net.store.language import _, words

from .keys import build_app
from .kinds import GuestAtTheDoor, Told
from .model import ABSENT, Model, Stage

CLOSE_GRACE = 30.0
"""Seconds a quitting player's client waits for the reveal and verdict to go out."""


ClientConnection = GameConnection
"""The connection the client drives: a plain ``GameConnection`` (its ``event_listeners``
hand the session's events to the model).  The name stays for callers written against it."""

Connect = Callable[[Session], Awaitable[ClientConnection]]


class Reunion(Protocol):
    """How this side meets the same opponent again, for a rematch.

    Both waits are bounded; when the opponent does not come, ``connect``
    raises a ``StatkiError`` whose text is the one line the player reads.
    """

    async def reopen(self) -> None:
        """Make the meeting possible at once: the host listens again; the guest need not."""

    async def connect(
        self, session: Session, who: str, terms: Rematch | None = None
    ) -> ClientConnection:
        """The connection to opponent ``who`` for the next game's ``session``: with the
        rematch's ``terms`` (``rematch_of``) the last game's opponent only, not whoever
        else holds the invite or, for a game open to anyone, comes first, admitted by the
        rematch's secret."""

    def hear_the_door(self, watcher: Callable[[int], None]) -> None:
        """Tell ``watcher`` how many connections wait for this side's hello (a host's guest
        come back before its rules are said); a guest has no door, and never tells."""


class ConnectionLink:
    """A ``Link`` for the model over a ``ClientConnection``, attached once there is one.

    A host places its fleet before any guest connects, so the link exists
    first with the session alone; ``attach`` joins the connection to it.
    """

    def __init__(
        self,
        session: Session,
        on_change: Callable[[], None] = lambda: None,
        reunion: Reunion | None = None,
    ) -> None:
        self._session = session
        self.conn: ClientConnection | None = None
        self.on_change = on_change
        self.reunion = reunion
        """How to meet the opponent again; None: no rematch over this link."""
        self.fleet_ready = asyncio.Event()
        self.over = asyncio.Event()
        """Set once this game's connection has finished (or never came)."""
        self.rematch_asked = asyncio.Event()
        self.successor: ConnectionLink | None = None
        """The rematch's link, once the player asked for it."""
        self._listener: Callable[[Sequence[Told]], None] | None = None
        self.closed_seen = False

    def attach(self, conn: ClientConnection) -> None:
        if conn is self.conn:  # attached when made (a game picked up), then by run_games
            return
        # The host's game is a session made anew for the guest it admitted (its own hello).
        self._session = conn.session
        self.conn = conn
        conn.event_listeners.append(self._deliver)
        conn.listeners.append(self._notice)

    def _notice(self, notice: Notice) -> None:
        """Of the connection's notices the model needs ``Lost`` and ``Closed`` (the referee's
        words on the log); the session's events tell it the rest."""
        if isinstance(notice, Lost | Reconnecting | Reconnected | Closed):
            asyncio.get_running_loop().call_soon(self._to_model, [notice])

    def guests_at_the_door(self, connections: int) -> None:
        """Told by the host's admission: ``connections`` wait for its hello (its guest)."""
        if self.conn is None:
            asyncio.get_running_loop().call_soon(self._to_model, [GuestAtTheDoor(connections)])

    def connection_ended(self, failure: Failed | None = None) -> None:
        """Tell the model a game ended that it never heard end (a wrong host key, a crash).

        Some endings stop the connection without an event: the guest that finds
        the wrong key in the host's hello says nothing and hears nothing more;
        an opponent who never came back for a rematch (``failure`` says so).
        """
        self.over.set()
        if self.closed_seen:
            return
        session = self.session
        failure = failure or session.failure
        failure = failure or Failed(Code.CLOSED, "the connection ended", False)
        # A link that ended before the session could say how the game ended: no game.
        ending = session.ending or Ending(End.NO_GAME, reason=as_is(failure.detail))
        self._to_model([failure, GameClosed(ending, ())])

    @property
    def session(self) -> Session:
        return self._session

    @property
    def timed(self) -> bool:
        return True

    @property
    def person(self) -> bool:
        return True

    @property
    def log_path(self) -> Path | None:
        return self.conn.log_path if self.conn else None

    def listen(self, listener: Callable[[Sequence[Told]], None]) -> None:
        self._listener = listener

    def _deliver(self, events: list[Event]) -> None:
        if events:
            asyncio.get_running_loop().call_soon(self._to_model, events)

    def _to_model(self, events: Sequence[Told]) -> None:
        self.closed_seen |= any(isinstance(event, GameClosed) for event in events)
        if self._listener is not None:
            self._listener(events)
        self.on_change()

    def _connection(self) -> ClientConnection:
        if self.conn is None:
            raise UsageError(phrase(N_("not connected yet")))
        return self.conn

    def begin(self, fleet: Fleet) -> None:
        if self.session.role is Role.HOST:
            self.session.set_fleet(fleet)
            self.fleet_ready.set()
        else:
            self._connection().accept(fleet)

    def propose(self, rules: Ruleset) -> None:
        """The host proposes ``rules`` instead, before its hello: a new session carries them.

        The connection starts only once the fleet is committed, so until then
        nothing has been said and the session is simply made again.
        """
        old = self._session
        if old.role is not Role.HOST or self.fleet_ready.is_set() or self.conn is not None:
            raise UsageError(phrase(N_("the rules are settled once the host's fleet is committed")))
        self._session = old.anew(rules=rules, first=old.proposed_first)

    def propose_limits(self, limits: Limits) -> None:
        """The host proposes other time limits, before its hello: a new session carries them."""
        old = self._session
        if old.role is not Role.HOST or self.fleet_ready.is_set() or self.conn is not None:
            raise UsageError(
                phrase(N_("the time limits are settled once the host's fleet is committed"))
            )
        self._session = old.anew(rules=old.rules, first=old.proposed_first, limits=limits)

    def decline(self, reason: str) -> None:
        self._connection().refuse(reason)

    def shoot(self, squares: tuple[int, ...]) -> None:
        self._connection().shoot(squares)

    def resign(self) -> None:
        self._connection().resign()

    def leave(self) -> None:
        """A game under way stops at once (``GameConnection.leave``); without a connection
        yet (no guest came) there is nothing to stop."""
        if self.conn is not None and not self.session.closed:
            try:
                self.conn.leave()
            except UsageError:
                # The battle began meanwhile: a player leaves it by resigning (SPEC.md
                # section 8), sent now or, in the opponent's turn, as this side's next word.
                with contextlib.suppress(UsageError):
                    self.conn.resign()

    def say(self, text: str) -> None:
        self._connection().say(text)

    @property
    def can_rematch(self) -> bool:
        """A rematch needs a way to meet again and an opponent who is the one expected."""
        if self.reunion is None or self.successor is not None:
            return False
        return rematch_of(self.session) is not None

    def rematch(self) -> ConnectionLink | None:
        """The next game's link: the host keeps its rules and hands the first shot over
        (``statki_net.protocol.rematch``)."""
        if not self.can_rematch:
            return None
        self.successor = ConnectionLink(next_session(self.session), self.on_change, self.reunion)
        self.rematch_asked.set()
        return self.successor


async def run_games(model: Model, link: ConnectionLink, connect: Connect) -> None:
    """Play ``link``'s game, then each rematch the player asks for (``r`` at the end).

    ``connect`` meets the opponent for the first game, the link's ``Reunion``
    every later one.  After a game it waits for the player's rematch until
    the caller cancels it (the player left).  It returns when an opponent
    does not come back for a rematch: the model shows the reason, one line.
    """
    if link.reunion is not None:
        # A rematch's guest may come before the host's rules are said, as the first game's
        # may: whichever game's link is the latest hears of it, as the first's screen did.
        link.reunion.hear_the_door(lambda waiting: last_link(link).guests_at_the_door(waiting))
    current, meet, again = link, connect, False
    while True:
        if current.session.role is Role.HOST:
            await current.fleet_ready.wait()
        try:
            conn = await meet(current.session)
        except StatkiError as error:
            if not again:
                raise
            current.connection_ended(
                Failed(ABSENT, error.in_words(words()), False)
            )  # one line on screen
            return
        current.attach(conn)
        current.on_change()
        await conn.run()
        await asyncio.sleep(0)  # the last events reach the model first
        current.connection_ended()
        current.on_change()
        await current.rematch_asked.wait()
        reunion, successor = current.reunion, current.successor
        assert reunion is not None and successor is not None
        terms = rematch_of(current.session)
        current, meet, again = successor, _meeting(reunion, model.opponent_label(), terms), True
        try:
            await reunion.reopen()
        except StatkiError as error:
            current.connection_ended(Failed(ABSENT, error.in_words(words()), False))
            return
        if current.session.role is Role.HOST and model.stage is Stage.PLACING:
            who = model.opponent_label()
            model.say(
                _(
                    "Waiting for {who} to accept the rematch; place your fleet, Enter commits it"
                ).format(who=who)
            )
            current.on_change()


def _meeting(reunion: Reunion, who: str, terms: Rematch | None) -> Connect:
    return lambda session: reunion.connect(session, who, terms)


def last_link(link: ConnectionLink) -> ConnectionLink:
    """The latest game's link: ``link`` or its last rematch."""
    while link.successor is not None:
        link = link.successor
    return link


async def play_over_connection(
    model: Model,
    link: ConnectionLink,
    connect: Connect,
    **app_options: Any,
) -> None:
    """Run the full-screen client and the games together until the player leaves.

    ``connect`` waits for the guest (host) or dials the host (guest) and
    returns the connection for the session it is given.  The host's game
    starts once its rules are chosen and its fleet committed (so the hello
    carries the rules chosen on screen); a player who quits mid-game resigns, and the reveal and
    verdict are given time to go out.  Rematches follow as ``run_games`` says.
    """
    app = build_app(model, **app_options)
    link.on_change = app.invalidate
    task = asyncio.ensure_future(run_games(model, link, connect))
    try:
        await app.run_async()
        current = last_link(link)
        started = current.conn is not None and current.session.transcript.frames
        if started and not current.over.is_set() and not task.done():
            over = asyncio.ensure_future(current.over.wait())
            await asyncio.wait(
                {task, over}, timeout=CLOSE_GRACE, return_when=asyncio.FIRST_COMPLETED
            )
            over.cancel()
    finally:
        if not task.done():
            task.cancel()
            # gather, not a suppressed await: a cancellation of this task must go on.
            await asyncio.gather(task, return_exceptions=True)
        elif task.exception() is not None:
            raise task.exception()  # type: ignore[misc]
