"""The line front end's clock: the side to move is told its time when its turn begins (the
bell rung on a terminal, unless switched off), then warned at 30 s and 10 s left, at the
prompt, as the full screen warns; a real game over loopback on a hurried clock."""

from __future__ import annotations

import asyncio
import contextlib
import io
import random
import re

from netgames import connected, sessions

from statki_net.ai.computer import ComputerPlayer
from statki_net.cli.lineplay import LineInput, LocalHandle, PromptPlayer
from statki_net.game.errors import UsageError
from statki_net.game.fleet import Fleet
from statki_net.game.rules import ruleset_named
from statki_net.net import notices
from statki_net.net.boards import Shown
from statki_net.net.bot import attach_computer
from statki_net.net.clock import WALL_CLOCK, ScaledClock
from statki_net.protocol.endings import End, Result
from statki_net.protocol.wire import Role
from statki_net.store.language import speak

SPEED = 30
"""The clock runs this many times faster: a minute's move limit passes in two seconds."""


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def quiet_game(out: io.StringIO, first: Role, *, bell: bool = True) -> End:
    """The guest, at the prompt, agrees to the rules and then types nothing more; nobody
    plays the host but a computer that would shoot after the guest.  ``first`` moving
    first, the guest loses on time (GUEST) or waits out the host's move and wins (HOST)."""
    host, guest = sessions(ruleset_named("classic"), 51 if first is Role.GUEST else 52, first=first)

    async def game() -> End:
        async with connected(host, guest, clock=ScaledClock(SPEED), log_dirs=(None, None)) as (
            host_conn,
            guest_conn,
            _,
        ):
            if first is Role.GUEST:  # a host that moved first would not wait out its time
                attach_computer(host_conn, ComputerPlayer("random", random.Random(1)))
            reader = asyncio.StreamReader()
            reader.feed_data(b"t\n")
            front = PromptPlayer(LocalHandle(guest_conn), LineInput(reader), out, bell=bell)
            _, outcome, _ = await asyncio.gather(host_conn.run(), guest_conn.run(), front.play())
            return outcome.ending.end

    speak("pl")
    try:
        return asyncio.run(game())
    finally:
        speak("en")


def test_the_side_to_move_is_told_its_time_and_warned_twice() -> None:
    out = Terminal()
    end = quiet_game(out, Role.GUEST)
    printed = out.getvalue()
    assert end is End.TIME
    said = [
        printed.index("Na twój ruch zostało "),
        printed.index("s: pospiesz się."),
        printed.index("Zostało tylko"),
        printed.index("koniec bitwy"),
    ]
    assert said == sorted(said), printed
    told = re.search(r"Na twój ruch zostało (\d+) s\.", printed)
    assert told is not None and 50 <= int(told.group(1)) <= 60, "the limit is a minute"
    assert printed.count("pospiesz się") == 1 and printed.count("Zostało tylko") == 1
    assert printed.index("\a") < said[0], "the bell rings as the turn begins"
    prompt = "twój strzał (1) albo poddaj: "
    assert f"\n{prompt}\nNa twój ruch zostało" in printed, "a warning on a line of its own"


def test_no_bell_when_switched_off_nor_in_a_pipe() -> None:
    quiet = Terminal()
    quiet_game(quiet, Role.GUEST, bell=False)
    piped = io.StringIO()
    quiet_game(piped, Role.GUEST)
    assert "\a" not in quiet.getvalue() and "\a" not in piped.getvalue()
    assert "pospiesz się" in piped.getvalue()


def test_the_waiting_side_is_told_the_opponents_time_and_warned_twice() -> None:
    out = Terminal()
    end = quiet_game(out, Role.HOST)
    printed = out.getvalue()
    assert end is End.TIME
    said = [
        printed.index("zaczyna przeciwnik"),
        printed.index("Ala: na ruch zostało "),
        printed.index("Ala: na ruch zostało już tylko "),
        printed.index("s, potem wygrywasz na czas."),
        printed.index("koniec bitwy"),
    ]
    assert said == sorted(said), printed
    told = re.search(r"Ala: na ruch zostało (\d+) s\.", printed)
    assert told is not None and 50 <= int(told.group(1)) <= 60, "the limit is a minute"
    assert printed.count("już tylko") == 1 and printed.count("wygrywasz na czas.") == 1
    assert "\a" not in printed, "the bell is for this side's own turn"
    assert "Na twój ruch" not in printed, "this side never had a turn"


class ToldByDaemon:
    """A game followed by events alone, as through a daemon: the notices given, in order."""

    def __init__(self, told: list[notices.Notice]) -> None:
        self.told = [Shown(notice, "") for notice in told]

    async def next_notice(self) -> Shown | None:
        return self.told.pop(0) if self.told else None

    async def accept(self, fleet: Fleet) -> None: ...

    async def refuse(self, reason: str) -> None: ...

    async def shoot(self, squares: tuple[int, ...]) -> None: ...

    async def resign(self) -> None: ...

    async def say(self, text: str) -> None: ...


def test_through_a_daemon_the_waiting_side_counts_the_daemons_deadline_not_the_limit() -> None:
    """A daemon's events said only that a move was to be made, so the line prompt counted
    the whole move limit from when the event came: after a resume, or a move the daemon's
    session began a while before, it showed more time than the daemon would wait.  The
    events now carry the session's deadline, and the prompt counts it."""
    classic = ruleset_named("classic")
    due = WALL_CLOCK.now() + 23_500
    game = "ab" * 32

    async def followed() -> str:
        out = Terminal()
        reader = asyncio.StreamReader()
        reader.feed_eof()
        player = PromptPlayer(
            ToldByDaemon(
                [
                    notices.Started(Role.HOST, False, game, 10, notices.Due(False, due)),
                    notices.Over(Result.WON, End.TIME),
                ]
            ),
            LineInput(reader),
            out,
            move_ms=60_000,
            rules=classic,
            bell=False,
        )
        with contextlib.suppress(UsageError):  # no Closed: "the game ended without a word"
            await player.play()
        return out.getvalue()

    speak("en")
    printed = asyncio.run(followed())
    told = re.search(r"Opponent has (\d+) s left to move", printed)
    assert told is not None and 20 <= int(told.group(1)) <= 24, printed
