"""The model's ``Link`` over TCP: ``statki_net.connection.GameConnection``.

The model reads the session's events themselves (the connection's notices
are maps for other front ends), through ``GameConnection.event_listeners``.
``ConnectionLink`` adapts the connection to the model: events reach the
model on the next turn of the event loop, so the model may act (resign
when its turn comes) without re-entering the connection, and ``on_change``
redraws the screen.

The host commits to its fleet before the guest can accept, so a host's
front end awaits ``fleet_ready`` before it runs the connection.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from statki_net.connection import GameConnection
from statki_net.errors import UsageError
from statki_net.fleet import Fleet
from statki_net.rules import Ruleset
from statki_net.session import Event, Failed, GameClosed, Session
from statki_net.wire import Code, Role

from .keys import build_app
from .model import Model

CLOSE_GRACE = 30.0
"""Seconds a quitting player's client waits for the reveal and verdict to go out."""


ClientConnection = GameConnection
"""The connection the client drives: a plain ``GameConnection`` (its ``event_listeners``
hand the session's events to the model).  The name stays for callers written against it."""


class ConnectionLink:
    """A ``Link`` for the model over a ``ClientConnection``, attached once there is one.

    A host places its fleet before any guest connects, so the link exists
    first with the session alone; ``attach`` joins the connection to it.
    """

    def __init__(self, session: Session, on_change: Callable[[], None] = lambda: None) -> None:
        self._session = session
        self.conn: ClientConnection | None = None
        self.on_change = on_change
        self.fleet_ready = asyncio.Event()
        self._listener: Callable[[list[Event]], None] | None = None
        self.closed_seen = False

    def attach(self, conn: ClientConnection) -> None:
        self.conn = conn
        conn.event_listeners.append(self._deliver)

    def connection_ended(self) -> None:
        """Tell the model a game ended that it never heard end (a wrong host key, a crash).

        Some endings stop the connection without an event: the guest that finds
        the wrong key in the host's hello says nothing and hears nothing more.
        """
        if self.closed_seen:
            return
        session = self.session
        failure = session.failure or Failed(Code.CLOSED.value, "the connection ended", False)
        t = session.transcript
        self._to_model([failure, GameClosed(t.winner if t.end else None, t.end, ())])

    @property
    def session(self) -> Session:
        return self._session

    @property
    def log_path(self) -> Path | None:
        return self.conn.log.path if self.conn and self.conn.log else None

    def listen(self, listener: Callable[[list[Event]], None]) -> None:
        self._listener = listener

    def _deliver(self, events: list[Event]) -> None:
        if events:
            asyncio.get_running_loop().call_soon(self._to_model, events)

    def _to_model(self, events: list[Event]) -> None:
        self.closed_seen |= any(isinstance(event, GameClosed) for event in events)
        if self._listener is not None:
            self._listener(events)
        self.on_change()

    def _connection(self) -> ClientConnection:
        if self.conn is None:
            raise UsageError("not connected yet")
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
            raise UsageError("the rules are settled once the host's fleet is committed")
        self._session = Session(
            old.role,
            old.key,
            name=old.name,
            entropy=old.entropy,
            software=old.software,
            rules=rules,
            limits=old.proposed_limits,
            caps=old.caps,
            first=old.proposed_first,
        )

    def decline(self, reason: str) -> None:
        self._connection().refuse(reason)

    def shoot(self, squares: tuple[int, ...]) -> None:
        self._connection().shoot(squares)

    def resign(self) -> None:
        self._connection().resign()

    def rematch(self) -> None:
        """Over a network a rematch is a new invite; the protocol has no rematch message."""
        return None


async def play_over_connection(
    model: Model,
    link: ConnectionLink,
    connect: Callable[[Session], Awaitable[ClientConnection]],
    **app_options: Any,
) -> None:
    """Run the full-screen client and the game together until the player leaves.

    ``connect`` waits for the guest (host) or dials the host (guest) and
    returns the connection for the session it is given.  The host's game
    starts once its rules are chosen and its fleet committed (so the hello
    carries the rules chosen on screen); a player who quits mid-game resigns, and the reveal and
    verdict are given time to go out.
    """
    app = build_app(model, **app_options)
    link.on_change = app.invalidate

    async def game() -> None:
        if link.session.role is Role.HOST:
            await link.fleet_ready.wait()
        conn = await connect(link.session)
        link.attach(conn)
        app.invalidate()
        await conn.run()
        await asyncio.sleep(0)  # the last events reach the model first
        link.connection_ended()
        app.invalidate()

    task = asyncio.ensure_future(game())
    try:
        await app.run_async()
        started = link.conn is not None and link.session.transcript.frames
        if started and not task.done():
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.shield(task), CLOSE_GRACE)
    finally:
        if not task.done():
            task.cancel()
            with contextlib.suppress(BaseException):
                await task
        elif task.exception() is not None:
            raise task.exception()  # type: ignore[misc]
