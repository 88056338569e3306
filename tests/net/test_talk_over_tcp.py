"""Talk over real loopback TCP: lines both ways during a game, kept in both logs, shown by
the referee, and the game played out exactly as the computer players play it."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path

from netgames import connected, sessions

from statki_net.ai.computer import ComputerPlayer
from statki_net.game.rules import ruleset_named
from statki_net.net import notices
from statki_net.net.bot import attach_computer
from statki_net.net.clock import WALL_CLOCK
from statki_net.net.connection import GameConnection
from statki_net.net.notices import Notice
from statki_net.protocol.endings import Standing
from statki_net.protocol.logformat import read_log
from statki_net.protocol.talk import TalkRefused
from statki_net.protocol.wire import Role
from statki_net.referee.verify import NamedLog, judge_log, judge_logs

LINES = {
    Role.HOST: ["Cześć, Olek!", "Trafiony? Zobaczymy.", "Dobra gra"],
    Role.GUEST: ["Hej Ala", "pudło, pudło...", "gg"],
}


def chatter(conn: GameConnection, role: Role, told: list[Notice]) -> None:
    """A player who says its lines: one when the battle starts, then one after each of its
    opponent's volleys, until it has said them all (scheduled, as a listener must)."""
    left = list(LINES[role])
    loop = asyncio.get_running_loop()

    def say() -> None:
        if left and not conn.session.closed:
            try:
                conn.say(left[0])
            except TalkRefused:
                return  # the game ended meanwhile: nobody to hear it
            left.pop(0)

    def on_notice(notice: Notice) -> None:
        told.append(notice)
        if isinstance(notice, notices.Started) or (
            isinstance(notice, notices.Volley) and not notice.mine
        ):
            loop.call_soon(say)

    conn.listeners.append(on_notice)


def test_a_game_over_tcp_with_talk_both_ways(tmp_path: Path) -> None:
    rules = ruleset_named("classic")
    host, guest = sessions(rules, seed=12, first=Role.HOST)
    dirs = (tmp_path / "host", tmp_path / "guest")
    told: dict[Role, list[Notice]] = {Role.HOST: [], Role.GUEST: []}

    async def game() -> None:
        async with connected(host, guest, clock=WALL_CLOCK, log_dirs=dirs) as (h, g, _):
            for role, conn in ((Role.HOST, h), (Role.GUEST, g)):
                chatter(conn, role, told[role])
                player = ComputerPlayer("random", random.Random(7 + (role is Role.GUEST)))
                attach_computer(conn, player)
            await asyncio.gather(h.run(), g.run())

    asyncio.run(game())
    for role in Role:
        heard = [n.text for n in told[role] if isinstance(n, notices.Talk) and not n.mine]
        said = [n.text for n in told[role] if isinstance(n, notices.Talk) and n.mine]
        assert said == LINES[role] and heard == LINES[role.other]
    logs = {role: next(d.glob("*.statki")).read_bytes() for role, d in zip(Role, dirs, strict=True)}
    for role, data in logs.items():
        judgement = judge_log(data, f"{role}.statki", every_signature=True)
        assert judgement.standing is Standing.VALID and not judgement.violations
        texts = {(line.sender, line.text) for line in judgement.talk}
        assert texts == {(r, text) for r in Role for text in LINES[r]}, "both ways, in each log"
        printed = "\n".join(judgement.lines())
        assert "talk: 6 lines" in printed and "Olek (guest), after message" in printed
    [both] = judge_logs([NamedLog(r.value, read_log(data)) for r, data in logs.items()])
    assert both.standing is Standing.VALID and len(both.talk) == 6, "each line once"
    assert both.ending == judge_log(logs[Role.HOST]).ending


def test_the_computer_never_talks_and_keeps_what_it_is_told(tmp_path: Path) -> None:
    rules = ruleset_named("classic")
    host, guest = sessions(rules, seed=13, first=Role.GUEST)
    dirs = (tmp_path / "host", tmp_path / "guest")
    told: dict[Role, list[Notice]] = {Role.HOST: [], Role.GUEST: []}

    async def game() -> None:
        async with connected(host, guest, clock=WALL_CLOCK, log_dirs=dirs) as (h, g, _):
            chatter(g, Role.GUEST, told[Role.GUEST])
            h.listeners.append(told[Role.HOST].append)
            for role, conn in ((Role.HOST, h), (Role.GUEST, g)):
                attach_computer(
                    conn, ComputerPlayer("random", random.Random(3 + (role is Role.HOST)))
                )
            await asyncio.gather(h.run(), g.run())

    asyncio.run(game())
    host_log = judge_log(next(dirs[0].glob("*.statki")).read_bytes())
    assert [(line.sender, line.text) for line in host_log.talk] == [
        (Role.GUEST, text) for text in LINES[Role.GUEST]
    ]
    assert host_log.valid
    assert not [n for n in told[Role.GUEST] if isinstance(n, notices.Talk) and not n.mine]
