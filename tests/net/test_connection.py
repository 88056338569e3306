"""The connection driver over real loopback TCP: one timer from the deadline, cancellation."""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from statki_net.game.fleet import random_fleet
from statki_net.game.rules import ruleset_named
from statki_net.net.clock import ScaledClock
from statki_net.net.connection import GameConnection
from statki_net.protocol.endings import End, Result
from statki_net.protocol.errors import Code
from statki_net.protocol.events import Event, GameClosed
from statki_net.protocol.logformat import read_log
from statki_net.protocol.session import Session
from statki_net.protocol.wire import Limits, Role

Streams = tuple[asyncio.StreamReader, asyncio.StreamWriter]


def host_session(move_ms: int) -> Session:
    rules = ruleset_named("classic")
    rng = random.Random(7)
    return Session(
        Role.HOST,
        Ed25519PrivateKey.from_private_bytes(rng.randbytes(32)),
        name="Ala",
        entropy=rng.randbytes,
        rules=rules,
        limits=Limits(move_ms=move_ms, reveal_ms=30_000),
        fleet=random_fleet(rules, rng),
    )


async def with_raw_guest(
    guest: Callable[[Streams], Awaitable[None]], host: Callable[[Streams], Awaitable[None]]
) -> None:
    """A host connection in this process against a raw socket playing the guest."""
    accepted: asyncio.Queue[Streams] = asyncio.Queue()

    async def on_connect(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await accepted.put((reader, writer))

    server = await asyncio.start_server(on_connect, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        streams = await asyncio.open_connection("127.0.0.1", port)
        await asyncio.gather(guest(streams), host(await accepted.get()))
    finally:
        server.close()
        await server.wait_closed()


def test_a_silent_guest_is_given_up_on_by_one_timer_not_a_polling_task(tmp_path: Path) -> None:
    async def silent(streams: Streams) -> None:
        reader, writer = streams
        await reader.read()  # says nothing; the host hangs up on it
        writer.close()

    async def host(streams: Streams) -> None:
        # A minute of the game's time is 0.3 s of ours: the limit is SPEC's, only faster.
        clock = ScaledClock(200)
        conn = GameConnection(host_session(move_ms=60_000), *streams, log_dir=tmp_path, clock=clock)
        before = asyncio.all_tasks()
        started, began = time.monotonic(), clock.now()
        game = asyncio.ensure_future(conn.run())
        await asyncio.sleep(0.1)
        assert asyncio.all_tasks() - before == {game}, "the game's own task, and no other"
        outcome = await game
        assert 0.3 <= time.monotonic() - started < 10
        assert clock.now() - began >= 60_000
        assert outcome.failure is not None and outcome.failure.code is Code.TIMEOUT
        # The host's error (timeout) ends the transcript before any game began.
        assert outcome.ending.end is End.NO_GAME and outcome.result is Result.NONE

    asyncio.run(with_raw_guest(silent, host))


def test_a_cancelled_game_is_cancelled_even_while_it_winds_up(tmp_path: Path) -> None:
    """A cancellation that arrives as the game closes ends the task; the record is finished."""

    async def leaves(streams: Streams) -> None:
        reader, writer = streams
        await reader.read(1)  # the host's hello has begun: go
        writer.close()

    async def host(streams: Streams) -> None:
        conn = GameConnection(host_session(move_ms=60_000), *streams, log_dir=tmp_path)
        game = asyncio.ensure_future(conn.run())
        loop = asyncio.get_running_loop()

        def cancel_when_it_closes(events: list[Event]) -> None:
            # The peer's leaving in the hellos closes the session (no game); the cancel
            # lands as the game winds up.
            if any(isinstance(event, GameClosed) for event in events):
                loop.call_soon(game.cancel)

        conn.event_listeners.append(cancel_when_it_closes)
        with pytest.raises(asyncio.CancelledError):
            await game
        assert game.cancelled()
        outcome = await asyncio.wait_for(conn.wait(), 10)
        verdict = outcome.verdict
        assert verdict is not None and verdict.ending is not None, "judged all the same"
        assert verdict.ending.end is End.NO_GAME, "lost in the hellos: no game"
        assert outcome.log_path is not None
        notes = [n.text for n in read_log(outcome.log_path.read_bytes()).notes]
        assert any("closed the connection" in n or "connection lost" in n for n in notes), notes

    asyncio.run(with_raw_guest(leaves, host))
