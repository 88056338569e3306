"""Commands typed at the line prompt in the opponent's turn act at once (``mute``,
``wycisz``, ``resign``); only squares typed then are held back and said as not fired.
A person's terminal is what drops lines typed out of turn (``interactive``): so here."""

from __future__ import annotations

import asyncio
import io
import random
from collections.abc import Callable
from functools import partial
from pathlib import Path

from netgames import connected, sessions

from statki_net.ai.computer import ComputerPlayer
from statki_net.cli.lineplay import LineInput, LocalHandle, PromptPlayer
from statki_net.game.board import square_name
from statki_net.game.rules import ruleset_named
from statki_net.net import notices
from statki_net.net.clock import WALL_CLOCK
from statki_net.net.connection import GameConnection
from statki_net.net.notices import Notice
from statki_net.protocol.endings import End
from statki_net.protocol.wire import Role
from statki_net.store.language import speak


async def until(test: Callable[[], bool], what: str) -> None:
    for _attempt in range(1000):
        if test():
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"never: {what}")


def host_turns(conn: GameConnection) -> list[Notice]:
    turns: list[Notice] = []
    conn.listeners.append(lambda n: turns.append(n) if isinstance(n, notices.Turn) else None)
    return turns


def out_of_turn_game(tmp_path: Path, typed_then: list[tuple[str, str]]) -> tuple[End, str]:
    """A guest at the prompt types each line in the host's turn and waits for its text;
    the host, played here, fires at a new square once each line was carried out."""
    rules = ruleset_named("classic")
    host, guest = sessions(rules, 31, first=Role.HOST)
    fleet = ComputerPlayer("random", random.Random(31)).fleet(rules)
    out = io.StringIO()

    async def game() -> End:
        async with connected(host, guest, clock=WALL_CLOCK, log_dirs=(None, tmp_path)) as (
            host_conn,
            guest_conn,
            _,
        ):
            turns = host_turns(host_conn)
            water = [s for s in range(100) if fleet.ship_at(s) is None]
            assert host.fleet is not None
            their_water = [s for s in range(100) if host.fleet.ship_at(s) is None]
            reader = asyncio.StreamReader()
            lines = LineInput(reader, interactive=True)
            front = PromptPlayer(LocalHandle(guest_conn), lines, out, fleet=fleet)

            async def typing() -> None:
                reader.feed_data(b"y\n")
                for shot, (typed, then) in enumerate(typed_then):
                    await until(partial(lambda s: len(turns) > s, shot), f"host's turn {shot}")
                    reader.feed_data(f"{typed}\n".encode())
                    await until(partial(lambda t: t in out.getvalue(), then), f"{then!r}")
                    host_conn.shoot((water[-1 - shot],))  # a miss: the turn passes
                    if typed in ("resign", "poddaj"):
                        break
                    # Typed at the prompt, as a person does: not before it is shown.
                    await until(lambda: out.getvalue().endswith(": "), "the guest's prompt")
                    reader.feed_data(f"{square_name(their_water[shot], 10)}\n".encode())
                reader.feed_eof()

            _, outcome, _, _ = await asyncio.gather(
                host_conn.run(), guest_conn.run(), front.play(), typing()
            )
            return outcome.ending.end

    end = asyncio.run(game())
    return end, out.getvalue()


def test_mute_and_resign_in_the_opponents_turn_act_at_once(tmp_path: Path) -> None:
    end, printed = out_of_turn_game(
        tmp_path,
        [("A1\nmute", "talk is hidden"), ("unmute", "shown again"), ("resign", "resigning:")],
    )
    assert end is End.RESIGNED
    not_fired = [line for line in printed.splitlines() if "Not fired" in line]
    assert not_fired == ["! Not fired: A1, typed during the opponent's turn; type your shot now."]
    assert "you resigned" in printed


def test_the_polish_words_in_the_opponents_turn(tmp_path: Path) -> None:
    speak("pl")
    try:
        end, printed = out_of_turn_game(
            tmp_path,
            [("wycisz", "ukryty"), ("odcisz", "znów widoczny"), ("poddaj", "poddajesz się:")],
        )
    finally:
        speak("en")
    assert end is End.RESIGNED
    assert "Nie wystrzelono" not in printed, printed
