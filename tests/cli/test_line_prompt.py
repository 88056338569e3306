"""The line front end as a guest against a computer host, over real loopback TCP: how it
asks before a shot that cannot hit, and how it tells a resignation."""

from __future__ import annotations

import asyncio

from netgames import sessions
from test_line_rules import guest_at_the_prompt

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
