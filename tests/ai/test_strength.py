"""The computer's strengths: one table, mistakes a person makes, the option wherever it plays."""

from __future__ import annotations

import random
from pathlib import Path

from conftest import Cli

from statki_net.ai.computer import ComputerPlayer, chosen_player, placement_for
from statki_net.ai.strategies import PLACEMENTS, STRATEGIES, sink_fleet
from statki_net.ai.strength import (
    DEFAULT_STRENGTH,
    STRENGTHS,
    Strength,
    by_trial,
    forgettable,
    strength_player,
    with_mistakes,
)
from statki_net.game.battle import Answer, Outcome, Sea
from statki_net.game.board import parse_square, side_neighbours, squares_of
from statki_net.game.fleet import random_fleet
from statki_net.game.rules import ruleset_named
from statki_net.referee.verify import judge_log

CLASSIC = ruleset_named("classic")


def sunk_one_master() -> Sea:
    """Classic, after sinking a one-master on B2: its eight neighbours are marked empty."""
    return Sea(CLASSIC).apply((parse_square("B2"),), Answer.single(Outcome.SUNK))


def test_every_strength_names_a_strategy_and_a_placement() -> None:
    assert set(STRENGTHS) == set(Strength)
    for level in STRENGTHS.values():
        assert level.strategy in STRATEGIES and level.placement in PLACEMENTS
        assert 0 <= level.forgets <= 1 and 0 <= level.trial <= 1
    assert STRENGTHS[DEFAULT_STRENGTH].strategy != "random"
    assert STRENGTHS[Strength.HARD].forgets == STRENGTHS[Strength.HARD].trial == 0


def test_a_forgotten_square_is_one_a_careful_player_knows_is_empty() -> None:
    sea = sunk_one_master()
    assert forgettable(sea) & sea.marked == sea.marked and not forgettable(sea) & sea.shot
    shots = (parse_square("J10"), parse_square("E5"))
    forgot = with_mistakes(sea, shots, 1.0, random.Random(1))
    assert len(set(forgot)) == 2 and all(forgettable(sea) >> s & 1 for s in forgot)
    assert with_mistakes(sea, shots, 0.0, random.Random(1)) == shots
    assert with_mistakes(Sea(CLASSIC), shots, 1.0, random.Random(1)) == shots, "nothing to forget"


def test_finishing_by_trial_tries_only_the_squares_around_open_hits() -> None:
    hit = parse_square("E5")
    sea = Sea(CLASSIC).apply((hit,), Answer.single(Outcome.HIT))
    around = side_neighbours(CLASSIC.size)[hit]
    tried = {by_trial(sea, 1, random.Random(seed))[0] for seed in range(40)}
    assert tried == set(squares_of(around)), "every side, in no fixed order"
    assert by_trial(Sea(CLASSIC), 1, random.Random(1)) == (), "no hit: nothing to finish"


def shots_at(strength: Strength, seed: int) -> int:
    """Shots ``strength`` needs to sink fleet ``seed``, its generator seeded alike."""
    player, rng = strength_player(strength), random.Random(seed)
    fleet = random_fleet(CLASSIC, random.Random(seed))
    return sink_fleet(CLASSIC, fleet, lambda sea, due: player(sea, due, rng)).shots


def test_every_strength_sinks_every_fleet_repeatably_and_easy_is_weaker_than_medium() -> None:
    easy = [shots_at(Strength.EASY, seed) for seed in range(12)]
    medium = [shots_at(Strength.MEDIUM, seed) for seed in range(12)]
    assert easy == [shots_at(Strength.EASY, seed) for seed in range(12)]
    assert sum(easy) > sum(medium)


def test_the_options_choose_a_strength_unless_a_strategy_is_named() -> None:
    assert chosen_player(None, None) == DEFAULT_STRENGTH.value
    assert chosen_player("easy", None) == "easy"
    assert chosen_player("easy", "per-ship") == "per-ship"
    assert placement_for("hard") == "hard" and placement_for("hard", "random") == "random"
    assert placement_for("density") == "random" and placement_for("easy") == "random"
    player = ComputerPlayer("hard", random.Random(3))
    assert player.volley(sunk_one_master(), 1)[0] not in squares_of(sunk_one_master().known)


def test_play_at_a_strength_gives_a_valid_log(cli: Cli) -> None:
    every_square = "".join(f"{c}{r}\n" for r in range(1, 11) for c in "ABCDEFGHIJ")
    done = cli("play", "--plain", "--strength", "easy", "--seed", "2", stdin="\n" + every_square)
    assert done.returncode == 0, done.stderr
    log = Path(done.stderr.split("statki: log saved at")[-1].strip())
    assert judge_log(log.read_bytes()).valid
    refused = cli("play", "--plain", "--strength", "grandmaster")
    assert refused.returncode == 2 and "invalid choice" in refused.stderr
