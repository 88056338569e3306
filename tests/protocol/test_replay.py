"""``told_so_far``: a game restored from its log tells its player again what it told live."""

from __future__ import annotations

import random

import pytest
from peers import fire, log_of, make_pair, play

from statki_net.game.rules import ruleset_named
from statki_net.protocol.events import BattleOver, Failed, GameStarted, PeerHello, VolleyDone
from statki_net.protocol.logformat import frames_of, next_say, read_log
from statki_net.protocol.replay import told_so_far
from statki_net.protocol.session import Session
from statki_net.protocol.talk import TalkHeard, TalkSaid
from statki_net.protocol.wire import Role

TOLD = (PeerHello, GameStarted, VolleyDone, BattleOver, Failed, TalkHeard, TalkSaid)
"""What the screen is told of a game as it goes (the rest is for logs and the turn)."""


@pytest.mark.parametrize("role", list(Role))
def test_a_restored_game_tells_again_what_it_told_as_it_came(role: Role) -> None:
    """Both sides of a salvo game stopped after 9 volleys, with talk between the volleys:
    the same events, in the same order, from the log as live (talk stands where it was)."""
    pair = make_pair(ruleset_named("salvo"), 3)
    play(pair, 3, stop_after=4)
    pair.record(Role.HOST, pair.host.say("ahoj", pair.now))
    pair.pump()
    rng = random.Random(4)
    for _volley in range(5):
        fire(pair, next(s for s in (pair.host, pair.guest) if s.my_turn), rng)
        pair.pump()
    pair.record(Role.GUEST, pair.guest.say("no i co", pair.now))
    pair.pump()
    side = pair.session(role)
    live = [event for event in pair.events[role] if isinstance(event, TOLD)]
    contents = read_log(log_of(pair.events[role], role))
    assert side.secrets is not None
    restored = Session.restore(
        role,
        side.key,
        frames_of(contents),
        side.secrets,
        name=side.name,
        entropy=bytes,
        said=next_say(contents, role),
    )
    told = told_so_far(restored, contents)
    assert told == live
    assert sum(isinstance(event, VolleyDone) for event in told) >= 9
    assert [type(event) for event in told if isinstance(event, TalkHeard | TalkSaid)] == (
        [TalkSaid, TalkHeard] if role is Role.HOST else [TalkHeard, TalkSaid]
    )
