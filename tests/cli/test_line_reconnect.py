"""The line front end when a lost connection is picked up again, over real loopback TCP.

The guest plays at the prompt, the host is the computer.  In the guest's turn a proxy
cuts both connections, then lets the next one through (a network that comes back): the
guest redials (``Redial``), the host takes the game back (``TakeBack``), and the prompt
asks for the turn again, saying the time left for it, as at the start of a turn.  The
game runs on a clock 8 times fast: a minute's move is 7.5 s of ours, far longer than a
resume takes on a loaded machine.
"""

from __future__ import annotations

import asyncio
import io
import random
import re
from pathlib import Path

import pytest
from netgames import CuttingProxy, sessions

from statki_net.ai.computer import ComputerPlayer
from statki_net.cli.lineplay import LineInput, LocalHandle, PromptPlayer
from statki_net.game.rules import ruleset_named
from statki_net.net import notices
from statki_net.net.admission import Admission, Admitted, Hosting
from statki_net.net.bot import attach_computer
from statki_net.net.clock import ScaledClock
from statki_net.net.connection import GameConnection
from statki_net.net.notices import Notice
from statki_net.net.resume import Redial, TakeBack
from statki_net.protocol.session import public_key_bytes
from statki_net.protocol.wire import Role

SPEED = 8
BACK = "reconnected: the game goes on"
PROMPT = "your shot (1), or resign: "


async def cut_in_the_guests_turn(logs: Path) -> str:
    """A game whose connection is cut as the guest's second turn begins; what it printed."""
    clock = ScaledClock(SPEED)
    host, guest = sessions(ruleset_named("alternate"), 9, first=Role.GUEST)
    admission: Admission[str] = Admission(clock=clock)
    admission.offer("game", "game", Hosting(lambda: host, None))
    first: asyncio.Queue[Admitted[str]] = asyncio.Queue()

    async def on_host(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        admitted = await admission.admit(reader, writer)
        if isinstance(admitted, Admitted):
            await first.put(admitted)

    server = await asyncio.start_server(on_host, "127.0.0.1", 0)
    proxy = CuttingProxy(server.sockets[0].getsockname()[1], None, heals=True)
    port = await proxy.open()
    out = io.StringIO()
    try:
        guest_conn = GameConnection(
            guest,
            *await asyncio.open_connection("127.0.0.1", port),
            log_dir=logs / "guest",
            clock=clock,
            expect_key=public_key_bytes(host.key),
            rejoin=Redial([("127.0.0.1", port)]),
        )
        typed = asyncio.StreamReader()
        typed.feed_data(b"y\n")
        front = PromptPlayer(LocalHandle(guest_conn), LineInput(typed), out)
        turns = 0

        def on_notice(notice: Notice) -> None:
            nonlocal turns
            if isinstance(notice, notices.Turn):
                turns += 1
                if turns == 1:
                    typed.feed_data(b"A1\n")
                else:
                    proxy.cut_now()  # the network fails as the guest aims its second shot
            if isinstance(notice, notices.Reconnected):
                resigning.append(asyncio.ensure_future(resign_once_asked()))

        async def resign_once_asked() -> None:
            # Typed once the question is asked again, however long a loaded machine takes.
            while PROMPT not in out.getvalue().partition(BACK)[2]:
                await asyncio.sleep(0.005)
            typed.feed_data(b"resign\n")
            typed.feed_eof()

        resigning: list[asyncio.Future[None]] = []
        guest_conn.listeners.append(on_notice)
        guest_game = asyncio.ensure_future(guest_conn.run())
        playing = asyncio.ensure_future(front.play())
        admitted = await asyncio.wait_for(first.get(), 20)
        host_conn = GameConnection(
            admitted.session,
            admitted.reader,
            admitted.writer,
            received=admitted.received,
            log_dir=logs / "host",
            clock=clock,
            rejoin=TakeBack(admission),
        )
        attach_computer(host_conn, ComputerPlayer("random", random.Random(1)))
        await asyncio.wait_for(asyncio.gather(host_conn.run(), guest_game, playing), 40)
    finally:
        await proxy.close()
        server.close()
    return out.getvalue()


@pytest.mark.timeout(60)
def test_the_turn_asked_again_after_a_resume_says_the_time_left(tmp_path: Path) -> None:
    (tmp_path / "host").mkdir()
    (tmp_path / "guest").mkdir()
    out = asyncio.run(cut_in_the_guests_turn(tmp_path))
    assert BACK in out, out
    after = out[out.index(BACK) :]
    told = re.match(
        rf"{BACK}[^\n]*\nYou have (\d+) s left for your move\.\n"
        rf"{re.escape(PROMPT)}",
        after,
    )
    assert told is not None, after
    assert 1 <= int(told.group(1)) <= 60, "what is left of the minute's move"
    assert "you resigned" in out
