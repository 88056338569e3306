"""The computer at the helm over real loopback TCP: which rules it takes as a guest."""

from __future__ import annotations

import asyncio

from netgames import play_over_loopback, sessions

from statki_net.game.rules import CUSTOM_RULES_REFUSED, Ruleset, ruleset_named
from statki_net.net.clock import WALL_CLOCK
from statki_net.protocol.endings import End
from statki_net.protocol.wire import Refuse

CUSTOM = Ruleset(size=8, fleet=(3, 2, 2))
"""No preset, nor a combination of presets."""


def test_a_computer_guest_declines_custom_rules_unless_its_owner_admits_them() -> None:
    async def games() -> tuple[End, object, End]:
        host, guest = sessions(CUSTOM, 4)
        declined = await play_over_loopback(host, guest, clock=WALL_CLOCK)
        last = host.transcript.frames[-1].message
        host, guest = sessions(CUSTOM, 4)
        admitted = await play_over_loopback(host, guest, clock=WALL_CLOCK, custom_rules=True)
        assert declined.guest.ending.end is End.REFUSED
        return declined.host.ending.end, last, admitted.guest.ending.end

    declined, last, admitted = asyncio.run(games())
    assert declined is End.REFUSED
    assert isinstance(last, Refuse) and last.reason == CUSTOM_RULES_REFUSED
    assert admitted is End.SUNK


def test_a_computer_guest_takes_presets_combined_by_default() -> None:
    async def game() -> End:
        host, guest = sessions(ruleset_named("five-ships+salvo"), 5)
        played = await play_over_loopback(host, guest, clock=WALL_CLOCK)
        return played.guest.ending.end

    assert asyncio.run(game()) is End.SUNK
