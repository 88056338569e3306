"""Standings, tie-breaks and which games count, on small tournaments worked out by hand.

Each game is a summary as the referee keeps it (``GameSummary``); the
expected places and numbers are written out, worked by hand from the games
listed above each test (not computed by the code under test).
"""

from __future__ import annotations

import itertools
from dataclasses import replace

import pytest

from statki_net.game.words import SILENCE, as_is
from statki_net.protocol.endings import End, Standing
from statki_net.protocol.wire import Role
from statki_net.referee.ratings import Outcome, Rating, rate
from statki_net.referee.standings import Standings, standings
from statki_net.referee.tournament import Apart, GameSummary, Points, TournamentRules, sort_games

_clock = itertools.count(1)
WIN_ONLY = Points()
"""A win one point, every loss none: the tournament's default."""


def won(
    winner: str,
    loser: str,
    end: End = End.SUNK,
    shots: int = 50,
    *,
    rules: str | None = "classic",
    standing: Standing = Standing.VALID,
) -> GameSummary:
    """``winner`` (the host) beat ``loser``, needing ``shots``; the loser fired one fewer."""
    return GameSummary(
        game=f"{next(_clock):04d}",
        logs=("h", "g"),
        log_roles=("host", "guest"),
        keys={Role.HOST: f"key-{winner}", Role.GUEST: f"key-{loser}"},
        names={Role.HOST: winner, Role.GUEST: loser},
        started=next(_clock) * 1000,
        rules=rules,
        move_ms=120_000,
        first=Role.HOST,
        standing=standing,
        end=end,
        winner=Role.HOST,
        culprits=frozenset({Role.GUEST}) if end in (End.CHEATED, End.FORFEIT) else frozenset(),
        result=as_is(f"{winner} won"),
        reason=SILENCE,
        shots={Role.HOST: shots, Role.GUEST: shots - 1},
    )


def table(games: list[GameSummary], scheme: Points = WIN_ONLY, **rules: object) -> Standings:
    return standings(sort_games(games, TournamentRules(**rules)), scheme)  # type: ignore[arg-type]


def order(games: list[GameSummary], scheme: Points = WIN_ONLY) -> list[tuple[int, str]]:
    return [(line.place, line.name) for line in table(games, scheme).lines]


def test_head_to_head_comes_before_the_shots() -> None:
    # A>B (A: 90 shots), A>C (90), B>C (20), B>D (20), C>D, D>A (50).
    # Points: A 2, B 2, C 1, D 1.  Shots-to-win: A -90-90+50 = -130, B -20-20+90 = +50,
    # so the shots would put B first; but A beat B, and C beat D.
    games = [
        won("A", "B", shots=90),
        won("A", "C", shots=90),
        won("B", "C", shots=20),
        won("B", "D", shots=20),
        won("C", "D", shots=30),
        won("D", "A", shots=50),
    ]
    lines = {line.name: line for line in table(games).lines}
    assert order(games) == [(1, "A"), (2, "B"), (3, "C"), (4, "D")]
    assert (lines["A"].head_to_head, lines["B"].head_to_head) == (1, 0)
    assert (lines["A"].shots_to_win, lines["B"].shots_to_win) == (-130, 50)
    # Sonneborn-Berger: A beat B (2) and C (1); B beat C (1) and D (1); C beat D (1); D beat A (2).
    assert [lines[n].sonneborn_berger for n in "ABCD"] == [3, 2, 1, 2]


def test_wins_break_a_tie_of_points_when_a_played_loss_scores() -> None:
    # A league's points: a win 2, a played loss 1, a loss by forfeit 0.
    # A beat C and lost to D and E: 2 + 1 + 1 = 4 from one win.
    # B beat D and E and forfeited to C: 2 + 2 + 0 = 4 from two wins.  A and B never met.
    league = Points(win=2, loss=1, forfeit=0)
    games = [
        won("A", "C"),
        won("D", "A"),
        won("E", "A"),
        won("B", "D"),
        won("B", "E"),
        won("C", "B", End.FORFEIT),
    ]
    lines = {line.name: line for line in table(games, league).lines}
    assert (lines["A"].points, lines["B"].points) == (4, 4)
    assert (lines["A"].head_to_head, lines["B"].head_to_head) == (0, 0)
    assert order(games, league)[:2] == [(1, "B"), (2, "A")]
    assert lines["B"].lost_by[End.FORFEIT] == 1 and lines["C"].won_by[End.FORFEIT] == 1


def test_sonneborn_berger_then_shots_then_a_shared_place() -> None:
    # A>C (A: 30 shots), B>D (50), C>E (40), C>F (40).
    # Points: C 2, A 1, B 1, D 0, E 0, F 0.  A and B never met; A beat C (2 points), B beat
    # D (0): A above B.  D, E, F never met and won nothing; their opponents needed 50, 40
    # and 40 shots to sink them: D above E and F, who are equal in everything and share 5th.
    games = [
        won("A", "C", shots=30),
        won("B", "D", shots=50),
        won("C", "E", shots=40),
        won("C", "F", shots=40),
    ]
    assert order(games) == [(1, "C"), (2, "A"), (3, "B"), (4, "D"), (5, "E"), (5, "F")]
    lines = {line.name: line for line in table(games).lines}
    assert [lines[n].sonneborn_berger for n in "CAB"] == [0, 2, 0]
    assert [lines[n].shots_to_win for n in "CABDEF"] == [-80 + 30, -30, -50, 50, 40, 40]


def test_only_a_win_by_sinking_counts_in_the_shots() -> None:
    games = [won("A", "B", End.RESIGNED, shots=10), won("B", "C", End.SUNK, shots=60)]
    lines = {line.name: line for line in table(games).lines}
    assert [lines[n].shots_to_win for n in "ABC"] == [0, -60, 60]
    assert lines["A"].won_by[End.RESIGNED] == 1 and lines["B"].lost_by[End.RESIGNED] == 1


def test_a_game_both_sides_cheated_in_is_a_loss_for_each_and_unrated() -> None:
    both = replace(won("A", "B", End.CHEATED), winner=None, culprits=frozenset(Role))
    standing = table([both, won("A", "C")])
    lines = {line.name: line for line in standing.lines}
    assert (lines["A"].losses, lines["B"].losses, lines["A"].wins) == (1, 1, 1)
    assert lines["B"].lost_by[End.CHEATED] == 1
    assert (lines["A"].rated_games, lines["B"].rated_games) == (1, 0)


def test_the_crosstable_holds_each_meeting_in_order() -> None:
    games = [won("A", "B"), won("B", "A"), won("A", "B")]
    cross = table(games, games_per_pair=3).crosstable
    assert cross["key-A"]["key-B"] == (1, 0, 1)
    assert cross["key-B"]["key-A"] == (0, 1, 0)


def test_ratings_are_one_period_a_game_in_the_order_played() -> None:
    games = [won("A", "B"), won("B", "C"), won("C", "A")]
    lines = {line.key: line for line in table(games).lines}
    expected = {f"key-{n}": Rating() for n in "ABC"}
    for winner, loser in (("A", "B"), ("B", "C"), ("C", "A")):
        w, lo = expected[f"key-{winner}"], expected[f"key-{loser}"]
        expected[f"key-{winner}"] = rate(w, [Outcome(lo, 1.0)])
        expected[f"key-{loser}"] = rate(lo, [Outcome(w, 0.0)])
    assert {key: line.rating for key, line in lines.items()} == expected
    # Beaten last by C, A ends below C though they are level on points.
    assert lines["key-C"].rating.rating > lines["key-A"].rating.rating


SETTING_APART = [
    (won("A", "B", rules="salvo"), {"preset": "classic"}, Apart.RULES),
    (won("A", "B", rules="custom rules"), {}, Apart.RULES),
    (replace(won("A", "B"), move_ms=60_000), {"min_move_ms": 90_000}, Apart.MOVE_LIMIT),
    (won("A", "B"), {"roster": {"A": "key-A"}}, Apart.STRANGER),
    (replace(won("A", "B"), started=5), {"since": 10}, Apart.DATES),
    (replace(won("A", "B"), started=10), {"until": 10}, Apart.DATES),
    (replace(won("A", "B"), standing=Standing.DISPUTED, end=None, winner=None), {}, Apart.DISPUTED),
    (
        replace(won("A", "B"), standing=Standing.UNFINISHED, end=None, winner=None),
        {},
        Apart.UNFINISHED,
    ),
    (replace(won("A", "B"), end=End.NO_GAME, winner=None), {}, Apart.NO_RESULT),
    (replace(won("A", "B"), standing=Standing.INVALID), {}, Apart.TAMPERED),
]


@pytest.mark.parametrize(("game", "rules", "why"), SETTING_APART)
def test_a_game_outside_the_rules_is_set_apart_with_its_reason(
    game: GameSummary, rules: dict[str, object], why: Apart
) -> None:
    result = sort_games([game], TournamentRules(**rules))  # type: ignore[arg-type]
    assert tuple(result.scored) == ()
    [apart] = result.apart
    assert apart.why is why and apart.detail


def test_a_cheat_still_scores_for_its_victim() -> None:
    cheat = won("A", "B", End.CHEATED, standing=Standing.INVALID)
    assert tuple(sort_games([cheat], TournamentRules()).scored) == (cheat,)


def test_meetings_beyond_the_allowance_are_set_apart_the_later_ones() -> None:
    first, second, third = won("A", "B"), won("B", "A"), won("A", "B")
    result = sort_games([third, first, second], TournamentRules(games_per_pair=2))
    assert tuple(result.scored) == (first, second)
    assert [(a.game, a.why) for a in result.apart] == [(third, Apart.REPLAYED)]


def test_the_roster_names_the_players() -> None:
    result = sort_games([won("A", "B")], TournamentRules(roster={"Ala": "key-A", "Bo": "key-B"}))
    assert result.players == {"key-A": "Ala", "key-B": "Bo"}


def test_two_keys_under_one_name_are_told_apart_by_their_digits() -> None:
    one = won("Ala", "Bo")
    other = replace(won("Cy", "Ala"), keys={Role.HOST: "key-Cy", Role.GUEST: "other-Ala"})
    names = sort_games([one, other], TournamentRules()).players
    assert names == {
        "key-Ala": "Ala key-A",
        "key-Bo": "Bo",
        "key-Cy": "Cy",
        "other-Ala": "Ala other",
    }
