"""A game whose task is cancelled (SIGTERM, a front end closing) is recorded before its
``run`` returns: whoever cancelled it may close the history at once."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from netgames import sessions

from statki_net.game.rules import PRESETS
from statki_net.net.connection import GameConnection
from statki_net.protocol.session import public_key_bytes
from statki_net.store.history import History

pytestmark = pytest.mark.timeout(30)


def test_a_cancelled_game_is_in_the_history_with_its_end_when_run_returns(
    tmp_path: Path,
) -> None:
    asyncio.run(_cancelled(tmp_path))


async def _cancelled(tmp_path: Path) -> None:
    host, guest = sessions(PRESETS["classic"], seed=7)
    said: asyncio.Queue[tuple[asyncio.StreamReader, asyncio.StreamWriter]] = asyncio.Queue()

    async def on_host(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await said.put((reader, writer))

    server = await asyncio.start_server(on_host, "127.0.0.1", 0)
    history = History(tmp_path / "guest.sqlite3")
    try:
        guest_streams = await asyncio.open_connection(
            "127.0.0.1", server.sockets[0].getsockname()[1]
        )
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
        for _ in range(200):  # both hellos said: the guest's row is in the history
            if history.games():
                break
            await asyncio.sleep(0.01)
        [row] = history.games()
        assert row.ended is None, "the guest has yet to accept the host's rules"
        playing.cancel()
        await asyncio.sleep(0)  # into its wind-up: closing the stream
        playing.cancel()  # cancelled again, as a runner that cancels every task does
        [stopped] = await asyncio.gather(playing, return_exceptions=True)
        assert isinstance(stopped, asyncio.CancelledError), "the cancellation goes on, up"
        [row] = history.games()  # at once, as a front end closing its history would
        assert row.ended is not None and row.result == "none", row
        await asyncio.wait_for(hosting, 10)
    finally:
        history.close()
        server.close()
        await server.wait_closed()
