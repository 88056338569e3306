"""The line front end as a guest against a computer host, over real loopback TCP: how it
asks before a shot that cannot hit, and how it tells a resignation."""

from __future__ import annotations

import asyncio

from netgames import sessions
from test_line_rules import guest_at_the_prompt

from statki_net.cli.lineplay import LineInput
from statki_net.game.rules import ruleset_named
from statki_net.protocol.endings import End
from statki_net.protocol.wire import Role

CLASSIC = ruleset_named("classic")


def test_a_square_fired_at_before_is_fired_only_when_typed_again() -> None:
    host, guest = sessions(CLASSIC, 7, first=Role.GUEST)
    typed = "y\nA1\nA1\nA1\nresign\n"
    out, end, _ = asyncio.run(guest_at_the_prompt(host, guest, typed))
    warning = "! You have fired at A1 before, and a shot there again counts as a miss"
    assert out.count(warning) == 1, out
    assert out.count("you fired A1: ") == 2, "fired once, then again once typed twice"
    assert end is End.RESIGNED


def test_a_resignation_says_who_resigned() -> None:
    host, guest = sessions(CLASSIC, 8, first=Role.GUEST)
    out, end, _ = asyncio.run(guest_at_the_prompt(host, guest, "y\nresign\n"))
    assert end is End.RESIGNED
    assert "you lost: you resigned" in out
    assert "(resigned)" not in out


def test_lines_typed_out_of_turn_at_a_terminal_are_dropped_but_a_half_typed_one_stays() -> None:
    async def typed() -> tuple[list[str], str | None, list[str]]:
        reader = asyncio.StreamReader()
        lines = LineInput(reader, interactive=True)
        reader.feed_data(b"A1\nB2\nC")
        dropped = await lines.discard_typed()
        reader.feed_data(b"3\n")
        reader.feed_eof()
        after = await lines.next_line()
        lines.take()
        return dropped, after, await LineInput(reader).discard_typed()

    dropped, after, scripted = asyncio.run(typed())
    assert dropped == ["A1", "B2"]
    assert after == "C3"
    assert scripted == [], "a script's lines are all meant: none is dropped"


def test_a_question_cut_short_does_not_fire_what_was_typed_after_it() -> None:
    async def typed() -> list[str]:
        reader = asyncio.StreamReader()
        lines = LineInput(reader, interactive=True)
        waiting = lines.next_line()  # a question the opponent's move cut short
        await asyncio.sleep(0)
        reader.feed_data(b"D4\n")
        await waiting
        return await lines.discard_typed()

    assert asyncio.run(typed()) == ["D4"]


def test_a_square_beside_a_sunk_ship_is_fired_only_when_typed_again() -> None:
    from statki_net.game.board import row_col, square_name

    host, guest = sessions(CLASSIC, 9, first=Role.GUEST)
    assert host.fleet is not None
    (one,) = next(ship for ship in host.fleet.ships if len(ship) == 1)
    row, column = row_col(one, 10)
    beside = square_name((row + (1 if row < 9 else -1)) * 10 + column, 10)
    typed = f"y\n{square_name(one, 10)}\n{beside}\n{beside}\nresign\n"
    out, end, _ = asyncio.run(guest_at_the_prompt(host, guest, typed))
    assert f"you fired {square_name(one, 10)}: sunk" in out
    assert out.count(f"! {beside}: no ship can be there, beside a ship already sunk") == 1, out
    assert out.count(f"you fired {beside}: ") == 1, "fired once it was typed again"
    assert end is End.RESIGNED
