"""The line front end's last words come from the referee's judgement of its own log.

A host that hides a sink (it answers "hit" for the last square of a ship, a
lie only the reveal shows) and then sinks the guest's fleet wins the battle,
and loses the game at the reveal.  The guest's prompt must not have said
"you lost (sunk)": it says how the battle stood, then that it won (issue 10,
"Honest results read as failures"; SPEC.md, section 16).
"""

from __future__ import annotations

import asyncio
import io
import random
from pathlib import Path

from netgames import connected, sessions

from statki_net.ai.computer import ComputerPlayer
from statki_net.cli.lineplay import LineInput, LocalHandle, PromptPlayer
from statki_net.game.battle import Answer, Outcome
from statki_net.game.board import parse_square
from statki_net.game.fleet import read_fleet_text
from statki_net.game.rules import ruleset_named
from statki_net.net.bot import attach_computer
from statki_net.net.clock import WALL_CLOCK
from statki_net.protocol.behaviour import Behaviour
from statki_net.protocol.endings import End
from statki_net.protocol.session import Session

FLEET = "B2-E2\nG2-G4\nA5-A7\nC5-D5\nF6-F7\nH9-I9\nJ1\nJ4\nD9\nA10\n"
"""The host's fleet: J1 is a one-mast ship."""


class HidesTheSinkAtJ1(Behaviour):
    """Answers "hit" when J1 sinks: the opening shows a ship there, so only the reveal,
    replaying every answer against the revealed fleet, finds the lie."""

    def answer(self, session: Session, squares: tuple[int, ...], answer: Answer) -> Answer:
        if squares == (parse_square("J1", 10),) and answer.outcomes == (Outcome.SUNK,):
            return Answer.single(Outcome.HIT)
        return answer


def test_a_game_won_at_the_reveal_is_never_told_as_lost(tmp_path: Path) -> None:
    async def game() -> tuple[str, End]:
        rules = ruleset_named("classic")
        honest, guest = sessions(rules, 12)
        fleet, problems = read_fleet_text(rules, FLEET)
        assert not problems
        host = Session(
            honest.role,
            honest.key,
            name="Ala",
            entropy=random.Random(4).randbytes,
            rules=rules,
            limits=honest.proposed_limits,
            fleet=fleet,
            behaviour=HidesTheSinkAtJ1(),
        )
        logs = (tmp_path / "host", tmp_path / "guest")
        async with connected(host, guest, clock=WALL_CLOCK, log_dirs=logs) as (
            host_conn,
            guest_conn,
            _,
        ):
            attach_computer(host_conn, ComputerPlayer("random", random.Random(1)))
            typed = asyncio.StreamReader()
            typed.feed_data(b"y\n" + b"J1\n" * 300)  # J1 and nothing else: the host wins the battle
            typed.feed_eof()
            out = io.StringIO()
            front = PromptPlayer(LocalHandle(guest_conn), LineInput(typed), out)
            _, outcome, _ = await asyncio.wait_for(
                asyncio.gather(host_conn.run(), guest_conn.run(), front.play()), 30
            )
        return out.getvalue(), outcome.ending.end

    out, end = asyncio.run(game())
    assert "you fired J1: hit" in out, "the lie, told on the move"
    assert "the battle is over: your last ship sank; the fleets are revealed and checked" in out
    assert "you lost" not in out
    assert "you won (cheated)" in out and end is End.CHEATED
    assert "verdict: invalid" in out, "the referee's line: the log shows cheating"
