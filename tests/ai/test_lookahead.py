"""The look-ahead player and the fleet sample it weighs: against exact counts on small boards."""

from __future__ import annotations

import random

import pytest
from test_strategies import checked

from statki_net.ai.density import hit_probabilities, sample_fleets
from statki_net.ai.lookahead import lookahead_strategy
from statki_net.ai.strategies import sink_fleet
from statki_net.game.battle import Defence, Sea
from statki_net.game.board import full_board, squares_of
from statki_net.game.fleet import Fleet, fleet_problems, random_fleet
from statki_net.game.rules import PRESETS, Ruleset, Touching, Turns

TOUCHING = Ruleset(
    size=5,
    fleet=(3, 2, 2),
    names=("cruiser", "submarine", "destroyer"),
    touching=Touching.ANY,
    turns=Turns.ALTERNATE,
    name_sunk=True,
)
APART = Ruleset(size=6, fleet=(3, 2, 1, 1))


def _after(rules: Ruleset, fleet: Fleet, shots: tuple[int, ...]) -> Sea:
    sea, defence = Sea(rules), Defence(rules, fleet)
    for square in shots:
        answer, defence = defence.answer((square,))
        sea = sea.apply((square,), answer)
    return sea


@pytest.mark.parametrize("rules", [TOUCHING, APART], ids=["touching", "apart"])
def test_the_sample_is_of_consistent_fleets_weighted_to_the_exact_chances(rules: Ruleset) -> None:
    fleet = random_fleet(rules, random.Random(3))
    shots = (*fleet.ships[0][:1], 12, 20, 4)
    sea = _after(rules, fleet, tuple(dict.fromkeys(shots)))
    sample = sample_fleets(sea, random.Random(1), 20_000)
    exact = hit_probabilities(sea, random.Random(0), exact_limit=10**9)
    assert exact.exact and sample.total == pytest.approx(exact.fleets, rel=0.05)
    for board, _ in sample.fleets:
        assert board & sea.hit == sea.hit, "every hit is a ship's square"
        assert not board & (sea.shot & ~sea.hit), "no ship on a miss"
        assert board.bit_count() == sum(rules.fleet)
    for square in squares_of(full_board(rules.size) & ~sea.known):
        share = sum(w for board, w in sample.fleets if board >> square & 1) / sample.total
        assert share == pytest.approx(exact.squares[square], abs=0.03)


def test_the_sample_is_empty_where_answers_are_only_counted() -> None:
    assert sample_fleets(Sea(PRESETS["salvo-count"]), random.Random(0), 100).total == 0


@pytest.mark.parametrize("preset", ["classic", "five-ships"])
def test_lookahead_sinks_whole_fleets_firing_only_at_unknown_squares(preset: str) -> None:
    rules = PRESETS[preset]
    rng = random.Random(7)
    fleet = random_fleet(rules, rng)
    assert not fleet_problems(rules, fleet)
    result = sink_fleet(rules, fleet, checked(rules, lookahead_strategy, rng))
    assert sum(rules.fleet) <= result.shots < rules.size * rules.size


def test_lookahead_fires_a_certain_hit_first() -> None:
    # A 2-ship lies on B1-C1 or B1-B2 once A1 has missed and B1 hit: a certain square beats any.
    rules = Ruleset(size=4, fleet=(2,))
    fleet = Fleet(((1, 2),))
    sea = _after(rules, fleet, (0, 1, 5))
    assert lookahead_strategy(sea, 1, random.Random(0)) == (2,)
