"""The rollout player: its base player's counts against per-ship counting, whole games."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_strategies import checked

from statki_net.ai.rollout import (
    _board,
    _clearly_better,
    _densest,
    _play_out,
    rollout_shots,
    rollout_strategy,
)
from statki_net.ai.strategies import density_strategy, per_ship_scores, sink_fleet
from statki_net.game.battle import Defence, Sea
from statki_net.game.board import bitboard_of, full_board, squares_of
from statki_net.game.fleet import Fleet, random_fleet
from statki_net.game.rules import PRESETS, Ruleset, Touching, Turns

SMALL = (
    Ruleset(size=5, fleet=(3, 2, 1)),
    Ruleset(
        size=5,
        fleet=(3, 2, 2),
        names=("cruiser", "submarine", "destroyer"),
        touching=Touching.ANY,
        turns=Turns.ALTERNATE,
        name_sunk=True,
    ),
)


def _after(rules: Ruleset, fleet: Fleet, shots: tuple[int, ...]) -> Sea:
    sea, defence = Sea(rules), Defence(rules, fleet)
    for square in shots:
        answer, defence = defence.answer((square,))
        sea = sea.apply((square,), answer)
    return sea


def _ships(fleet: Fleet) -> tuple[int, ...]:
    return tuple(bitboard_of(ship) for ship in fleet.ships)


@settings(max_examples=60, deadline=None)
@given(st.sampled_from([*SMALL, PRESETS["five-ships"]]), st.integers(0, 2**32), st.integers(0, 30))
def test_the_base_player_hunts_where_per_ship_counting_is_highest(
    rules: Ruleset, seed: int, misses: int
) -> None:
    rng = random.Random(seed)
    fleet = random_fleet(rules, rng)
    water = [s for s in range(rules.size**2) if not fleet.board >> s & 1]
    sea = _after(rules, fleet, tuple(rng.sample(water, min(misses, len(water) - 1))))
    free = full_board(rules.size) & ~sea.known
    scores = per_ship_scores(sea)
    top = max(scores[s] for s in squares_of(free))
    expected = sum(1 << s for s in squares_of(free) if scores[s] == top)
    assert _densest(_board(rules), free, _ships(fleet)) == expected


@pytest.mark.parametrize("rules", SMALL, ids=["classic-like", "touching"])
def test_playing_out_counts_the_shots_to_sink_the_fleet(rules: Ruleset) -> None:
    fleet = random_fleet(rules, random.Random(3))
    board, ships = _board(rules), _ships(fleet)
    area = rules.size**2
    for first in range(area):
        shots = _play_out(board, ships, 0, 0, first, area)
        assert sum(rules.fleet) <= shots <= area
    # One square left of the one ship afloat: firing it ends the game, firing elsewhere does not.
    *hit, last = fleet.ships[0]
    sea = _after(rules, fleet, tuple(s for ship in fleet.ships[1:] for s in ship) + tuple(hit))
    water = next(s for s in range(area) if not sea.known >> s & 1 and s != last)
    played = rollout_shots(sea, [last, water], [ships])
    assert played[last] == [1]
    assert played[water][0] > 1


def test_the_play_out_stops_at_its_limit() -> None:
    rules = SMALL[0]
    fleet = random_fleet(rules, random.Random(4))
    assert _play_out(_board(rules), _ships(fleet), 0, 0, 0, 3) == 3


@settings(max_examples=25, deadline=None)
@given(st.sampled_from(SMALL), st.integers(0, 2**32))
def test_it_sinks_every_small_fleet_firing_only_at_unknown_squares(
    rules: Ruleset, seed: int
) -> None:
    rng = random.Random(seed)
    fleet = random_fleet(rules, rng)
    result = sink_fleet(rules, fleet, checked(rules, rollout_strategy, rng))
    assert sum(rules.fleet) <= result.shots <= rules.size**2


def test_it_is_repeatable_from_the_generator_and_greedy_while_aiming() -> None:
    rules = PRESETS["five-ships"]
    fleet = random_fleet(rules, random.Random(2))
    opening = _after(rules, fleet, (0, 11, 22))
    assert rollout_strategy(opening, 1, random.Random(7)) == rollout_strategy(
        opening, 1, random.Random(7)
    )
    aiming = _after(rules, fleet, (fleet.ships[0][0],))
    assert rollout_strategy(aiming, 1, random.Random(5)) == density_strategy(
        aiming, 1, random.Random(5)
    )


def test_a_square_is_fired_over_the_likeliest_only_when_its_games_clearly_beat_it() -> None:
    greedy = [40, 50, 44, 38] * 4
    assert _clearly_better([g - 2 for g in greedy], greedy)
    # One shot better on average, but by noise of several shots a fleet: not clearly.
    noisy = [g + d for g, d in zip(greedy, [-9, 7, -6, 4] * 4, strict=True)]
    assert sum(noisy) < sum(greedy)
    assert not _clearly_better(noisy, greedy)
