"""The line front end when the connection is lost mid-game, over real loopback TCP.

It says what happens in words (SPEC.md, section 12): the move is still the
player's and goes into the log, then how long this side waits, then that
the game is its on time; and the game ends in the referee's words.  The
game runs on a clock 30 times fast, so the minute's wait takes 2 s: fast
enough for the suite, slow enough that a loaded machine's moves before the
cut stay within the move limit.
"""

from __future__ import annotations

import asyncio
import io
import random
import re

from netgames import connected, sessions

from statki_net.ai.computer import ComputerPlayer
from statki_net.cli.lineplay import LineInput, LocalHandle, PromptPlayer
from statki_net.game.rules import ruleset_named
from statki_net.net import notices
from statki_net.net.bot import attach_computer
from statki_net.net.clock import ScaledClock
from statki_net.net.notices import Notice
from statki_net.protocol.endings import End

ASKED_AGAIN = re.compile(
    r"connection lost: your move: it goes into your log\n"
    r"You have (\d+) s left for your move\.\nyour shot \(1\), or resign: "
)
"""The question the loss cut short, asked again with the time left, as a turn begins."""


def test_a_lost_connection_is_said_plainly_and_the_game_is_won_on_time() -> None:
    async def game() -> tuple[str, End, End]:
        host, guest = sessions(ruleset_named("alternate"), 9)
        clock = ScaledClock(30)
        async with connected(host, guest, clock=clock) as (host_conn, guest_conn, _):
            attach_computer(host_conn, ComputerPlayer("random", random.Random(1)))
            typed = asyncio.StreamReader()
            typed.feed_data(b"y\n")
            out = io.StringIO()
            front = PromptPlayer(LocalHandle(guest_conn), LineInput(typed), out)
            loop = asyncio.get_running_loop()
            turns = 0

            def on_notice(notice: Notice) -> None:
                nonlocal turns
                if isinstance(notice, notices.Turn):
                    turns += 1
                    if turns == 1:
                        typed.feed_data(b"A1\n")
                    else:  # the host's machine is gone while the guest aims its second shot
                        assert host_conn.writer is not None
                        loop.call_soon(host_conn.writer.transport.abort)
                if isinstance(notice, notices.Lost) and notice.wait_ms is None:
                    firing.append(loop.create_task(fire_into_the_log()))

            async def fire_into_the_log() -> None:
                # Typed once the question is asked again, however long a loaded machine takes.
                while not ASKED_AGAIN.search(out.getvalue()):
                    await asyncio.sleep(0.005)
                typed.feed_data(b"B2\n")
                typed.feed_eof()

            firing: list[asyncio.Task[None]] = []

            guest_conn.listeners.append(on_notice)
            host_outcome, guest_outcome, _ = await asyncio.wait_for(
                asyncio.gather(host_conn.run(), guest_conn.run(), front.play()), 30
            )
        return out.getvalue(), host_outcome.ending.end, guest_outcome.ending.end

    out, host_end, guest_end = asyncio.run(game())
    asked = ASKED_AGAIN.search(out)
    assert asked, "the question the loss cut short is asked again, with the time left"
    assert 1 <= int(asked.group(1)) <= 60, out
    waiting = re.search(
        r"connection lost: your shot is recorded in your log;"
        r" waiting (\d+) s for the opponent, then the game is yours on time",
        out,
    )
    assert waiting, out
    # What is left of the minute once the shot is recorded: a loaded machine takes a little.
    assert 45 <= int(waiting.group(1)) <= 60
    assert "you fired B2" not in out, "no answer came: nothing was fired at anyone"
    assert "you won (time)" in out
    assert guest_end is End.TIME and host_end is End.TIME  # each side's own log: a dispute
