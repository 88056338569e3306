"""A computer player that thinks long must not hold up other games on the same event loop."""

from __future__ import annotations

import asyncio
import random
import threading

from statki_net.ai.computer import ComputerPlayer
from statki_net.game.battle import Sea
from statki_net.game.rules import PRESETS
from statki_net.net.selfplay import play_one
from statki_net.protocol.endings import End, Result

OTHER_GAME_DONE = threading.Event()
BLOCKED = threading.Event()
"""Set when the other game could not finish while this bot thought."""


class WaitsForTheOtherGame(ComputerPlayer):
    """Its first volley 'thinks' until the other game has finished.

    Were its thinking done on the event loop, the other game could never
    finish and this one would never move: the test would time out.
    """

    def volley(self, view: Sea, count: int) -> tuple[int, ...]:
        if not OTHER_GAME_DONE.wait(timeout=60):
            BLOCKED.set()
        return super().volley(view, count)


async def _server() -> tuple[
    asyncio.Server, int, asyncio.Queue[tuple[asyncio.StreamReader, asyncio.StreamWriter]]
]:
    accepted: asyncio.Queue[tuple[asyncio.StreamReader, asyncio.StreamWriter]] = asyncio.Queue()

    async def on_connect(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await accepted.put((reader, writer))

    server = await asyncio.start_server(on_connect, "127.0.0.1", 0)
    return server, server.sockets[0].getsockname()[1], accepted


async def _both() -> None:
    rules = PRESETS["alternate"]
    slow_server, slow_port, slow_accepted = await _server()
    fast_server, fast_port, fast_accepted = await _server()
    try:
        slow = asyncio.create_task(
            play_one(
                rules, random.Random(1), slow_port, slow_accepted, make_player=WaitsForTheOtherGame
            )
        )
        fast_host, fast_guest = await play_one(rules, random.Random(2), fast_port, fast_accepted)
        assert Result.NONE not in (fast_host.result, fast_guest.result)
        assert not slow.done(), "the slow game is still thinking when the other has finished"
        OTHER_GAME_DONE.set()
        slow_host, slow_guest = await asyncio.wait_for(slow, timeout=120)
        assert {slow_host.result, slow_guest.result} == {Result.WON, Result.LOST}
        assert slow_host.ending.end is End.SUNK, "the thinking bot played its game to the end"
        assert not BLOCKED.is_set()
    finally:
        for server in (slow_server, fast_server):
            server.close()
            await server.wait_closed()


def test_a_thinking_bot_never_delays_other_games() -> None:
    OTHER_GAME_DONE.clear()
    BLOCKED.clear()
    asyncio.run(asyncio.wait_for(_both(), timeout=180))
