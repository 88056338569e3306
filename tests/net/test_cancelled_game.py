"""A game whose task is cancelled (SIGTERM, a front end closing) is recorded before its
``run`` returns: whoever cancelled it may close the history at once."""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from netgames import sessions

from statki_net.game.rules import PRESETS
from statki_net.net.connection import GameConnection, Outcome
from statki_net.protocol.session import public_key_bytes
from statki_net.store.history import History

pytestmark = pytest.mark.timeout(30)

Streams = tuple[asyncio.StreamReader, asyncio.StreamWriter]


@contextlib.asynccontextmanager
async def a_game_begun(
    tmp_path: Path, history: History
) -> AsyncIterator[tuple[asyncio.Task[Outcome], asyncio.Task[Outcome], GameConnection]]:
    """The host's and the guest's games running over loopback, both hellos said (the
    guest's row is in ``history``), the guest yet to accept the rules."""
    host, guest = sessions(PRESETS["classic"], seed=7)
    said: asyncio.Queue[Streams] = asyncio.Queue()

    async def on_host(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await said.put((reader, writer))

    server = await asyncio.start_server(on_host, "127.0.0.1", 0)
    try:
        port = server.sockets[0].getsockname()[1]
        guest_streams = await asyncio.open_connection("127.0.0.1", port)
        host_conn = GameConnection(host, *(await said.get()), log_dir=tmp_path / "host")
        guest_conn = GameConnection(
            guest,
            *guest_streams,
            log_dir=tmp_path / "guest",
            history=history,
            expect_key=public_key_bytes(host.key),
        )
        hosting = asyncio.ensure_future(host_conn.run())
        playing = asyncio.ensure_future(guest_conn.run())
        for _ in range(200):
            if history.games():
                break
            await asyncio.sleep(0.01)
        [row] = history.games()
        assert row.ended is None, "the guest has yet to accept the host's rules"
        yield hosting, playing, guest_conn
        await asyncio.wait_for(hosting, 10)
    finally:
        server.close()
        await server.wait_closed()


def test_a_cancelled_game_is_in_the_history_with_its_end_when_run_returns(
    tmp_path: Path,
) -> None:
    async def cancelled() -> None:
        with History(tmp_path / "guest.sqlite3") as history:
            async with a_game_begun(tmp_path, history) as (_, playing, _conn):
                playing.cancel()
                await asyncio.sleep(0)  # into its wind-up: closing the stream
                playing.cancel()  # cancelled again, as a runner that cancels every task does
                [stopped] = await asyncio.gather(playing, return_exceptions=True)
                assert isinstance(stopped, asyncio.CancelledError), "the cancellation goes on"
                [row] = history.games()  # at once, as a front end closing its history would
                assert row.ended is not None and row.result == "none", row

    asyncio.run(cancelled())


def test_a_fault_in_recording_the_end_leaves_no_waiter_waiting(tmp_path: Path) -> None:
    """A review: the outcome was set before the end was recorded, so a recording that
    raised (a history closed too soon: statki's own bug, raised as one) left every
    ``wait`` waiting, the idempotence guard refusing a second try."""

    async def faulty() -> None:
        history = History(tmp_path / "guest.sqlite3")
        async with a_game_begun(tmp_path, history) as (_, playing, conn):
            waiting = asyncio.ensure_future(conn.wait())
            history.close()  # too soon: the end cannot be recorded
            playing.cancel()
            [raised] = await asyncio.gather(playing, return_exceptions=True)
            assert isinstance(raised, sqlite3.ProgrammingError), raised
            outcome = await asyncio.wait_for(waiting, 5)
            assert outcome.ending is not None

    asyncio.run(faulty())
