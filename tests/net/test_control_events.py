"""A front end following a daemon's game over the control socket, fed events it cannot read."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from statki_net.net import notices
from statki_net.net.control import ControlClient, RemoteHandle, pack
from statki_net.protocol.endings import End

BAD_EVENTS = [
    {"event": "lost", "game": 1, "detail": "gone", "said": {"text": "{x}", "facts": 5}},
    {"event": "lost", "game": 1, "detail": "gone", "said": {"text": "{x}", "facts": [["x", 1.5]]}},
    {"event": "turn", "game": 1, "shots": "many"},
    {"event": "closed", "game": 1, "result": "won-by-nobody", "end": "sunk"},
]


@pytest.mark.parametrize("bad", BAD_EVENTS)
def test_an_event_the_line_front_end_cannot_read_ends_its_game_in_one_line(
    tmp_path: Path, bad: dict[str, object]
) -> None:
    """A daemon (here a socket that says what it likes) pushes an event whose fields are
    not what SPEC.md says: the line front end's handle ends the game with one line saying
    so, as the full screen's link does, instead of a traceback.  About 10 ms each."""

    async def run() -> notices.Notice:
        async def daemon(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            writer.write(pack({"event": "turn", "game": 2, "shots": 1}))  # another game's
            writer.write(pack(bad))
            await writer.drain()
            await reader.read()  # until the front end leaves
            writer.close()

        path = tmp_path / "control"
        server = await asyncio.start_unix_server(daemon, str(path))
        async with server:
            reader, writer = await asyncio.open_unix_connection(str(path))
            client = ControlClient(reader, writer)
            handle = RemoteHandle(client, 1)
            async with asyncio.timeout(10):
                shown = await handle.next_notice()
                after = await handle.next_notice()
            await client.close()
        assert after is None, "nothing after the end"
        assert shown is not None
        return shown.notice

    notice = asyncio.run(run())
    assert isinstance(notice, notices.Closed)
    assert notice.end is End.NO_GAME
    assert notice.failure is not None and notice.failure.startswith("the daemon's events")
    assert "\n" not in notice.failure
