"""Games judged from several logs: grouped by game id, forks judged by SPEC's rules."""

from __future__ import annotations

import time

from gamelogs import Played, claim, log_file_of, named, played, signed
from peers import log_bytes

from statki_net.protocol.endings import End, Standing
from statki_net.protocol.wire import Accept, Error, Role, Shot
from statki_net.referee.verify import judge_game, judge_logs


def both_logs(game: Played) -> tuple[bytes, bytes]:
    return log_bytes(game.pair.host), log_bytes(game.pair.guest, role="guest")


def test_two_copies_of_a_log_are_one_game() -> None:
    game = played(seed=71)
    host, _ = both_logs(game)
    [judgement] = judge_logs([named("a.statki", host), named("b.statki", host)])
    assert judgement.valid and judgement.end is End.SUNK and judgement.fork is None
    assert [log.name for log in judgement.logs] == ["a.statki", "b.statki"]
    assert judgement.to_json()["logs"][1] == {
        "name": "b.statki",
        "role": "host",
        "messages": len(game.frames),
        "evidence": 0,
    }


def test_both_sides_logs_of_a_game_agree() -> None:
    game = played(seed=72, resign_at=6)
    host, guest = both_logs(game)
    alone = judge_logs([named("host", host)])[0]
    [together] = judge_logs([named("host", host), named("guest", guest)])
    assert together.valid and together.fork is None
    assert (
        (together.end, together.winner)
        == (alone.end, alone.winner)
        == (
            End.RESIGNED,
            game.pair.host.transcript.winner,
        )
    )
    assert [log.role for log in together.logs] == ["host", "guest"]


def test_logs_of_different_games_are_judged_apart_in_the_order_given() -> None:
    one, two = played(seed=73), played(seed=74, resign_at=3)
    logs = [named("1", log_bytes(one.pair.host)), named("2", log_bytes(two.pair.host))]
    logs.append(named("1 again", log_bytes(one.pair.guest, role="guest")))
    judged = judge_logs(logs)
    assert [[log.name for log in j.logs] for j in judged] == [["1", "1 again"], ["2"]]
    assert [j.end for j in judged] == [End.SUNK, End.RESIGNED]


def lost_connection(game: Played, shooter: Role) -> tuple[bytes, bytes]:
    """The connection drops as ``shooter`` is to shoot: each side finishes alone.

    The shooter writes its shot, then waits for the answer and claims; the other
    side waits for the shot and claims.  Returns (host's log, guest's log).
    """
    cut = game.shooting(shooter)
    prefix = game.frames[:cut]
    shot = signed(game, prefix, shooter, Shot((0,)))
    shooters = [*prefix, shot, claim(game, [*prefix, shot], shooter)]
    waiters = [*prefix, claim(game, prefix, shooter.other)]
    logs = {shooter: shooters, shooter.other: waiters}
    return log_file_of(logs[Role.HOST]), log_file_of(logs[Role.GUEST], Role.GUEST)


def test_a_lost_connection_seen_from_each_side_is_a_win_on_time_each() -> None:
    game = played(seed=75)
    host, guest = lost_connection(game, Role.GUEST)
    for data, claimant in ((host, Role.HOST), (guest, Role.GUEST)):
        [alone] = judge_logs([named("log", data)])
        assert alone.valid and alone.end is End.TIME and alone.winner is claimant
        assert alone.culprits == {claimant.other} and alone.uncorroborated
        assert alone.to_json()["result"]["uncorroborated"] is True


def test_a_lost_connection_seen_from_both_sides_is_a_dispute() -> None:
    game = played(seed=75)
    host, guest = lost_connection(game, Role.GUEST)
    [judgement] = judge_logs([named("host.statki", host), named("guest.statki", guest)])
    assert judgement.standing is Standing.DISPUTED
    assert judgement.ending is None and judgement.winner is None and not judgement.culprits
    assert judgement.violations == []
    fork = judgement.fork
    assert fork is not None and fork.seq == game.shooting(Role.GUEST)
    assert fork.move == sum(isinstance(f.message, Shot) for f in game.frames[: fork.seq])
    held = {
        (b.sender, b.type, b.logs): (b.ending.end, b.ending.winner)
        for b in fork.branches
        if b.ending
    }
    assert held == {
        (Role.HOST, "timeout", (0,)): (End.TIME, Role.HOST),
        (Role.GUEST, "shot", (1,)): (End.TIME, Role.GUEST),
    }
    report = judgement.to_json()
    assert report["result"]["end"] is None and report["standing"] == "disputed"
    assert report["fork"]["branches"][0]["messages"] == fork.seq + 1


def test_a_claim_beside_a_move_the_claimant_then_answered_is_equivocation() -> None:
    game = played(seed=76)
    cut = game.shooting(Role.GUEST)
    prefix = game.frames[:cut]
    forged = log_file_of([*prefix, claim(game, prefix, Role.HOST)])
    honest = log_bytes(game.pair.guest, role="guest")
    [judgement] = judge_logs([named("host", forged), named("guest", honest)])
    assert judgement.standing is Standing.INVALID
    assert (judgement.end, judgement.winner, judgement.culprits) == (
        End.CHEATED,
        Role.GUEST,
        frozenset({Role.HOST}),
    )
    [violation] = judgement.violations
    assert violation.kind == "equivocation" and violation.culprit is Role.HOST
    assert violation.violation_class == "cheating"


def test_two_messages_signed_for_one_place_is_equivocation() -> None:
    game = played(seed=77)
    cut = game.shooting(Role.GUEST)
    prefix = game.frames[:cut]
    one = signed(game, prefix, Role.GUEST, Shot((0,)))
    other = signed(game, prefix, Role.GUEST, Shot((1,)))
    [judgement] = judge_logs(
        [named("a", log_file_of([*prefix, one])), named("b", log_file_of([*prefix, other]))]
    )
    assert (judgement.end, judgement.winner) == (End.CHEATED, Role.HOST)
    [violation] = judgement.violations
    assert violation.kind == "equivocation" and violation.culprit is Role.GUEST
    assert "two different messages for message" in str(violation.detail)


def test_a_fork_before_the_accept_is_no_game() -> None:
    game = played(seed=78)
    hellos = game.frames[:2]
    # The host claims in decision while the guest's accept is on its way; the
    # guest then waits for the host's commit and claims in its turn.
    host = [*hellos, claim(game, hellos, Role.HOST)]
    accept = signed(game, hellos, Role.GUEST, Accept())
    guest = [*hellos, accept, claim(game, [*hellos, accept], Role.GUEST)]
    judgement = judge_game([named("h", log_file_of(host)), named("g", log_file_of(guest))])
    assert judgement.valid and judgement.end is End.NO_GAME and not judgement.culprits
    assert judgement.fork is not None and judgement.fork.seq == 2


def test_one_ending_stands_against_a_branch_without_one() -> None:
    game = played(seed=79)
    cut = game.shooting(Role.GUEST)
    prefix = game.frames[:cut]
    shot = signed(game, prefix, Role.GUEST, Shot((0,)))
    # The guest's log stops after its shot (it crashed); the host claimed.
    judgement = judge_game(
        [
            named("h", log_file_of([*prefix, claim(game, prefix, Role.HOST)])),
            named("g", log_file_of([*prefix, shot], Role.GUEST)),
        ]
    )
    assert judgement.valid and (judgement.end, judgement.winner) == (End.TIME, Role.HOST)
    assert judgement.fork is not None


def test_a_log_that_stops_after_the_accept_is_unfinished_and_blames_nobody() -> None:
    game = played(seed=80)
    cut = game.shooting(Role.HOST)
    judgement = judge_game([named("h", log_file_of(game.frames[:cut]))])
    assert judgement.standing is Standing.UNFINISHED and judgement.ending is None
    assert judgement.violations == [] and not judgement.culprits
    assert judgement.to_json()["result"]["culprits"] == []


def test_a_flood_of_forged_forks_is_judged_quickly_as_equivocation() -> None:
    """A side that signs a different message at every place forks the tree everywhere;
    the referee names it without judging each of its forgeries in full."""
    game = played(seed=82)
    frames = game.frames
    forged = [
        signed(game, frames[:place], Role.HOST, Error("closed", f"forgery {place}"))
        for place in range(3, len(frames))
    ]
    started = time.perf_counter()
    judgement = judge_game([named("host", log_file_of(frames, evidence=forged))])
    assert time.perf_counter() - started < 10
    assert (judgement.end, judgement.winner, judgement.culprits) == (
        End.CHEATED,
        Role.GUEST,
        frozenset({Role.HOST}),
    )
    equivocations = [v for v in judgement.violations if v.kind == "equivocation"]
    # Beside the last message (the guest's), the host's error is only a crossed one.
    assert len(equivocations) == len(forged) - (frames[-1].header.sender is Role.GUEST)
    assert {v.culprit for v in equivocations} == {Role.HOST}
