"""A person at the network line prompt places the fleet before it is committed, as at
``play --plain``'s prompt: drawn at random, ``new`` draws another, ships typed on one line
are placed as typed, Enter plays the fleet shown.  A guest over real loopback TCP."""

from __future__ import annotations

import asyncio
import io
import random
from collections.abc import Callable
from functools import partial
from pathlib import Path

from netgames import connected, sessions

from statki_net.ai.computer import ComputerPlayer
from statki_net.cli.lineplay import PLACEMENT_PROMPT, LineInput, LocalHandle, PromptPlayer
from statki_net.game.board import square_name
from statki_net.game.fleet import Fleet
from statki_net.game.rules import ruleset_named
from statki_net.net.bot import attach_computer
from statki_net.net.clock import WALL_CLOCK
from statki_net.protocol.wire import Role
from statki_net.store.language import _, speak


async def until(test: Callable[[], bool], what: str) -> None:
    for _attempt in range(1000):
        if test():
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"never: {what}")


def typed(fleet: Fleet, size: int) -> str:
    """The fleet as a person types it on one line: ``B2-E2 G2-G4 ... J1``."""
    ships = []
    for ship in fleet.ships:
        ends = {square_name(min(ship), size), square_name(max(ship), size)}
        ships.append("-".join(sorted(ends, key=lambda name: (name[0], int(name[1:])))))
    return " ".join(ships)


def test_a_guest_places_its_fleet_at_the_polish_prompt(tmp_path: Path) -> None:
    rules = ruleset_named("classic")
    host, guest = sessions(rules, 61, first=Role.HOST)
    chosen = ComputerPlayer("random", random.Random(61)).fleet(rules)
    out = io.StringIO()

    async def game() -> Fleet | None:
        async with connected(host, guest, clock=WALL_CLOCK, log_dirs=(None, tmp_path)) as (
            host_conn,
            guest_conn,
            _conn,
        ):
            attach_computer(host_conn, ComputerPlayer("random", random.Random(1)))
            reader = asyncio.StreamReader()
            front = PromptPlayer(LocalHandle(guest_conn), LineInput(reader, interactive=True), out)
            prompt = _(PLACEMENT_PROMPT)

            async def typing() -> None:
                steps = ["t", "nowa", "A1 B2", typed(chosen, rules.size), ""]
                for step, line in enumerate(steps):
                    shown = out.getvalue().count(prompt)
                    reader.feed_data(f"{line}\n".encode())
                    if step + 1 < len(steps):
                        await until(
                            partial(lambda s: out.getvalue().count(prompt) > s, shown), line
                        )
                await until(lambda: guest_conn.session.fleet is not None, "the fleet committed")
                reader.feed_data(b"poddaj\n")
                reader.feed_eof()

            await asyncio.gather(host_conn.run(), guest_conn.run(), front.play(), typing())
            return guest_conn.session.fleet

    speak("pl")
    try:
        fleet = asyncio.run(game())
    finally:
        speak("en")
    printed = out.getvalue()
    assert "flota (Enter zaczyna, nowa, twoje statki, q)> " in printed
    assert "Ta flota nie pasuje" in printed, printed
    assert fleet is not None and fleet.board == chosen.board, "the fleet typed is the one played"
