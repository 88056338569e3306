"""The line front end as a guest, over real loopback TCP: what it shows of the host's rules.

A guest is shown how the rules depart from a preset and who shoots first
before it decides, and declines rules that are no preset unless told to
consider them (SPEC.md, section 7, "Bounds").
"""

from __future__ import annotations

import asyncio
import io
import random

from netgames import connected, sessions

from statki_net.ai.computer import ComputerPlayer
from statki_net.cli.lineplay import LineInput, LocalHandle, PromptPlayer
from statki_net.game.rules import CUSTOM_RULES_REFUSED, Ruleset, ruleset_named
from statki_net.net.bot import attach_computer
from statki_net.net.clock import WALL_CLOCK
from statki_net.protocol.endings import End
from statki_net.protocol.session import NO_REASON, Session
from statki_net.protocol.wire import Refuse, Role

CUSTOM = Ruleset(size=8, fleet=(3, 2, 2))


async def guest_at_the_prompt(
    host: Session, guest: Session, typed: str, *, custom_rules: bool = False
) -> tuple[str, End, str]:
    """The guest's printout, how the game ended, and the reason the host was given."""
    async with connected(host, guest, clock=WALL_CLOCK) as (host_conn, guest_conn, _):
        attach_computer(host_conn, ComputerPlayer("random", random.Random(1)))
        reader = asyncio.StreamReader()
        reader.feed_data(typed.encode())
        reader.feed_eof()
        out = io.StringIO()
        front = PromptPlayer(
            LocalHandle(guest_conn),
            LineInput(reader),
            out,
            rng=random.Random(2),
            custom_rules=custom_rules,
        )
        _, outcome, _ = await asyncio.gather(host_conn.run(), guest_conn.run(), front.play())
    last = host.transcript.frames[-1].message
    reason = last.reason if isinstance(last, Refuse) else ""
    return out.getvalue(), outcome.ending.end, reason


def test_custom_rules_are_shown_and_declined_without_a_question() -> None:
    host, guest = sessions(CUSTOM, 6)
    out, end, reason = asyncio.run(guest_at_the_prompt(host, guest, "y\n"))
    assert "rules: custom rules (fleet 3,2,2" in out
    assert "these rules are no preset; they depart from classic in:" in out
    assert "  board: 8x8 (classic: 10x10)" in out
    assert "  fleet: 3,2,2 (classic: 4,3,3,2,2,2,1,1,1,1)" in out
    assert "who shoots first: a coin toss decides" in out
    assert "play by these rules?" not in out
    assert "--custom-rules" in out
    assert end is End.REFUSED and reason == CUSTOM_RULES_REFUSED


def test_with_custom_rules_admitted_the_guest_is_asked() -> None:
    host, guest = sessions(CUSTOM, 6)
    out, end, reason = asyncio.run(guest_at_the_prompt(host, guest, "n\n", custom_rules=True))
    assert "board: 8x8 (classic: 10x10)" in out and "play by these rules? [y/n]" in out
    assert end is End.REFUSED and reason == NO_REASON == ""


def test_a_combination_needs_no_words_and_an_agreed_start_is_said() -> None:
    host, guest = sessions(ruleset_named("five-ships+salvo"), 7)
    host = host.anew(rules=host.rules, first=Role.GUEST)
    host.set_fleet(
        ComputerPlayer("random", random.Random(3)).fleet(ruleset_named("five-ships+salvo"))
    )
    out, end, _ = asyncio.run(guest_at_the_prompt(host, guest, "n\n"))
    assert "rules: five-ships+salvo (fleet 5,4,3,3,2" in out
    assert "no preset" not in out
    assert "who shoots first: you shoot first (agreed, no coin toss)" in out
    assert end is End.REFUSED
