"""A connection cut at any message, over real loopback TCP: each side finishes alone.

Issue 10, point 3, over the network: whatever the moment the connection is
lost, the side whose turn it is makes its move into its own log, each side
waits out the other's limit and signs its time claim, and neither log ever
names its own writer as the one to blame (SPEC.md, section 12).  A proxy
between the two connections (``netgames.CuttingProxy``) cuts both after a
given number of frames; the game runs on a clock 30 times fast, so the
minute-long limits of SPEC pass in 2 s with nothing lowered.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from netgames import Played, play_over_loopback, sessions

from statki_net.game.rules import ruleset_named
from statki_net.net import notices
from statki_net.net.clock import ScaledClock
from statki_net.protocol.endings import Standing
from statki_net.protocol.logformat import read_log
from statki_net.protocol.transcript import Transcript
from statki_net.protocol.wire import Role, TimeClaim, Verdict
from statki_net.referee.verify import Judgement, NamedLog, judge_logs, replay_log

SPEED = 30.0
"""The game's clock against real time: a minute's limit is 2 s, far above a message's delay
even on a loaded machine (at 100 times, 0.6 s, a busy moment lost games on time before their
cut: "the cut came at message 199", seen at load 8-15)."""
SEED = 21
RULES = "classic"
FIRST = Role.GUEST
"""Agreed, not tossed: the coin hashes the clock's ``at``, and the cut points need one game."""


def play(cut_after: int | None, home: Path) -> Played:
    host, guest = sessions(ruleset_named(RULES), SEED, first=FIRST)
    logs = (home / "host", home / "guest")
    return asyncio.run(
        play_over_loopback(
            host, guest, clock=ScaledClock(SPEED), log_dirs=logs, cut_after=cut_after, seed=SEED
        )
    )


def own_log(home: Path, role: Role) -> Transcript:
    transcript, _ = replay_log(read_log(log_path(home, role).read_bytes()))
    return transcript


def log_path(home: Path, role: Role) -> Path:
    [log] = list((home / role.value).iterdir())
    return log


def both_logs(home: Path) -> list[Judgement]:
    """The referee's judgements from both sides' logs together: one game, or two when one
    log stops before the game id existed."""
    logs = [NamedLog(r.value, read_log(log_path(home, r).read_bytes())) for r in Role]
    return judge_logs(logs)


@pytest.fixture(scope="module")
def whole_game(tmp_path_factory: pytest.TempPathFactory) -> int:
    """How many messages the same game has when nothing cuts it."""
    played = play(None, tmp_path_factory.mktemp("whole"))
    assert played.host.ending.end == played.guest.ending.end
    return played.proxy.forwarded


def cut_points(total: int) -> list[int]:
    """Every message of the opening and the coin toss, a sample of the battle, the whole end."""
    middle = [total // 4, total // 2, total // 2 + 1, 3 * total // 4]
    return sorted({*range(10), *middle, *range(total - 6, total)})


def check_each_side_finished_alone(played: Played, home: Path, cut: int) -> bool:
    """The checks of one cut game; whether its pair of logs was a dispute."""
    for role in Role:
        transcript = own_log(home, role)
        ending = transcript.ending
        assert ending is None or role not in ending.culprits, (cut, role, ending)
        if len(transcript.frames) < 2:  # lost in the hellos: no game, nothing to finish
            assert ending is None
            continue
        assert transcript.complete, (cut, role, transcript.phase)
        last = transcript.frames[-1]
        assert last.header.sender is role, (cut, role, "the log ends with its own word")
        assert isinstance(last.message, TimeClaim | Verdict), (cut, role, last.message)
        if isinstance(last.message, Verdict):  # it said the game's last word itself
            assert len(transcript.frames) == cut + 1
        told = played.notices[role]
        assert any(isinstance(notice, notices.Lost) for notice in told) or (
            isinstance(last.message, Verdict)
        ), (cut, role, told)
        assert played.outcome(role).log_path is not None
    return check_the_pair_is_a_dispute_not_a_win(home, cut)


def check_the_pair_is_a_dispute_not_a_win(home: Path, cut: int) -> bool:
    """Two claims after a lost connection that never healed: a dispute, no winner
    (SPEC.md, section 16).  No judgement of honest logs is ever invalid."""
    judgements = both_logs(home)
    assert all(j.standing is not Standing.INVALID for j in judgements), cut
    endings = [own_log(home, role).ending for role in Role]
    winners = {ending.winner for ending in endings if ending is not None}
    if winners == set(Role):  # each side's log: its own win on time (a fork after the accept)
        [judgement] = judgements
        assert judgement.standing is Standing.DISPUTED and judgement.winner is None, (
            cut,
            judgement.headline(),
        )
        return True
    return False


def test_the_whole_game_is_long_enough_to_cut_everywhere(whole_game: int) -> None:
    assert whole_game > 30


@pytest.mark.parametrize("part", range(4))
def test_a_cut_at_any_message_leaves_each_side_a_log_that_does_not_blame_it(
    whole_game: int, part: int, tmp_path: Path
) -> None:
    """Cut points dealt out to four tests, each playing its share of games at once."""
    mine = cut_points(whole_game)[part::4]

    async def all_at_once() -> list[Played]:
        host_guest = [sessions(ruleset_named(RULES), SEED, first=FIRST) for _ in mine]
        clock = ScaledClock(SPEED)
        return list(
            await asyncio.gather(
                *(
                    play_over_loopback(
                        host,
                        guest,
                        clock=clock,
                        log_dirs=(tmp_path / str(cut) / "host", tmp_path / str(cut) / "guest"),
                        cut_after=cut,
                        seed=SEED,
                    )
                    for cut, (host, guest) in zip(mine, host_guest, strict=True)
                )
            )
        )

    disputes = 0
    for cut, played in zip(mine, asyncio.run(all_at_once()), strict=True):
        assert played.proxy.forwarded == min(cut, whole_game), "the cut came where it was asked"
        disputes += check_each_side_finished_alone(played, tmp_path / str(cut), cut)
    assert disputes > 0, "some cut fell in the battle, where each side wins by its own log"
