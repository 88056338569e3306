"""The two-shot hunter: its values against brute force where counting is exact, whole games."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_strategies import checked

from statki_net.ai.strategies import per_ship_strategy, sink_fleet
from statki_net.ai.two_shot import two_shot_strategy, two_shot_values
from statki_net.game.battle import Defence, Sea
from statki_net.game.board import full_board, squares_of
from statki_net.game.fleet import Fleet, fleet_problems, placements, random_fleet
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


def _brute_force_value(rules: Ruleset, sea: Sea, square: int) -> float:
    """With one ship, counting its positions is exact: the value straight from its definition."""
    free = full_board(rules.size) & ~sea.known
    ships = [ship for ship, _ in placements(rules, rules.fleet[0]) if not ship & ~free]
    holding = [ship for ship in ships if ship >> square & 1]
    missing = [ship for ship in ships if not ship >> square & 1]
    others = [t for t in squares_of(free) if t != square]

    def best(among: list[int]) -> float:
        if not among:
            return 0.0
        return max(sum(ship >> t & 1 for ship in among) for t in others) / len(among)

    chance = len(holding) / len(ships)
    return chance + chance * best(holding) + (1 - chance) * best(missing)


@pytest.mark.parametrize("misses", [(), (0,), (6, 12, 18)])
def test_values_are_the_exact_two_shot_values_where_one_ship_is_left(
    misses: tuple[int, ...],
) -> None:
    rules = Ruleset(size=5, fleet=(3,))
    sea = _after(rules, Fleet(((4, 9, 14),)), misses)
    free = list(squares_of(full_board(rules.size) & ~sea.known))
    values = two_shot_values(sea, free)
    for square in free:
        assert values[square] == pytest.approx(_brute_force_value(rules, sea, square))


def test_it_aims_as_per_ship_while_a_hit_is_open() -> None:
    rules = PRESETS["five-ships"]
    fleet = random_fleet(rules, random.Random(2))
    sea = _after(rules, fleet, (fleet.ships[0][0],))
    assert two_shot_strategy(sea, 1, random.Random(5)) == per_ship_strategy(
        sea, 1, random.Random(5)
    )


def _sinks_firing_only_at_unknown_squares(rules: Ruleset, seed: int) -> None:
    rng = random.Random(seed)
    fleet = random_fleet(rules, rng)
    assert not fleet_problems(rules, fleet)
    result = sink_fleet(rules, fleet, checked(rules, two_shot_strategy, rng))
    assert sum(rules.fleet) <= result.shots <= rules.size * rules.size


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(SMALL), st.integers(0, 2**32))
def test_it_sinks_every_small_fleet_firing_only_at_unknown_squares(
    rules: Ruleset, seed: int
) -> None:
    _sinks_firing_only_at_unknown_squares(rules, seed)


@pytest.mark.parametrize("preset", ["classic", "five-ships", "salvo"])
def test_it_sinks_whole_fleets_under_the_presets(preset: str) -> None:
    _sinks_firing_only_at_unknown_squares(PRESETS[preset], 11)
