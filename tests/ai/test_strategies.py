"""The computer players: legal, complete games everywhere; density against brute force."""

from __future__ import annotations

import random
from collections.abc import Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from listed_fleets import consistent, every_fleet

from statki_net.ai.strategies import (
    PLACEMENTS,
    STRATEGIES,
    Chooser,
    GameResult,
    Strategy,
    afloat_lengths,
    choose_shots,
    hard_fleet,
    hit_probabilities,
    place_fleet,
    sink_fleet,
)
from statki_net.game.battle import Answer, Defence, Sea
from statki_net.game.board import squares_of
from statki_net.game.fleet import Fleet, fleet_problems, random_fleet
from statki_net.game.rules import PRESETS, Report, Ruleset, Touching, Turns

SMALL_RULES = [
    Ruleset(size=5, fleet=(3, 2, 1)),
    Ruleset(size=5, fleet=(3, 2, 2, 1), touching=Touching.CORNERS),
    Ruleset(size=6, fleet=(3, 2, 2, 1, 1), turns=Turns.ALTERNATE),
    Ruleset(size=6, fleet=(3, 2, 1, 1), turns=Turns.SALVO),
    Ruleset(size=6, fleet=(3, 2, 1, 1), turns=Turns.SALVO, report=Report.COUNT),
    Ruleset(
        size=5,
        fleet=(3, 2, 2),
        names=("cruiser", "submarine", "destroyer"),
        touching=Touching.ANY,
        turns=Turns.ALTERNATE,
        name_sunk=True,
    ),
]
"""Small boards where every fleet can be listed: one for each kind of rule."""


def careful(sea_rules: Ruleset, strategy: str, rng: random.Random) -> Chooser:
    """The strategy, checking each volley: distinct, on the board, never a known square."""
    return checked(sea_rules, lambda sea, due, rng: choose_shots(strategy, sea, due, rng), rng)


def checked(sea_rules: Ruleset, strategy: Strategy, rng: random.Random) -> Chooser:
    """``strategy`` (a registered one or a bench player), checking each volley as ``careful``."""

    def choose(sea: Sea, due: int) -> tuple[int, ...]:
        shots = strategy(sea, due, rng)
        area = sea_rules.size * sea_rules.size
        assert len(shots) == due
        assert all(0 <= s < area for s in shots)
        unknown = [s for s in range(area) if not sea.known >> s & 1]
        if len(unknown) >= due:
            assert len(set(shots)) == due, "a salvo fires at distinct squares"
            assert not any(sea.known >> s & 1 for s in shots), "fired at a known square"
        return shots

    return choose


def play_checked(rules: Ruleset, fleet: Fleet, strategy: str, seed: int) -> GameResult:
    return sink_fleet(rules, fleet, careful(rules, strategy, random.Random(seed)))


@pytest.mark.parametrize("preset", sorted(PRESETS))
@pytest.mark.parametrize("strategy", sorted(STRATEGIES))
def test_every_strategy_sinks_every_preset(preset: str, strategy: str) -> None:
    rules = PRESETS[preset]
    fleet = random_fleet(rules, random.Random(preset))
    result = play_checked(rules, fleet, strategy, seed=1)
    assert result.shots <= 100
    assert result.misses == result.shots - rules.ship_cells


@settings(max_examples=30, deadline=None)
@given(
    rules=st.sampled_from(SMALL_RULES),
    strategy=st.sampled_from(sorted(STRATEGIES)),
    seed=st.integers(0, 2**32),
)
def test_small_boards_every_rule(rules: Ruleset, strategy: str, seed: int) -> None:
    fleet = random_fleet(rules, random.Random(seed))
    result = play_checked(rules, fleet, strategy, seed)
    assert result.shots <= rules.size * rules.size + len(rules.fleet)


# ---------------------------------------------------------------- brute force


def brute_force(
    rules: Ruleset, fleets: Sequence[Fleet], volleys: list[tuple[tuple[int, ...], Answer]]
) -> list[float]:
    """Per square, the share of fleets answering every volley as answered that hold a ship."""
    area = rules.size * rules.size
    held = [0] * area
    found = consistent(rules, fleets, volleys)
    for defence in found:
        for square in squares_of(defence.fleet.board):
            held[square] += 1
    return [h / len(found) for h in held]


def position(
    rules: Ruleset, seed: int, volleys: int
) -> tuple[Sea, list[tuple[tuple[int, ...], Answer]]]:
    """A game some random volleys in: the shooter's sea and what was said."""
    rng = random.Random(seed)
    defence = Defence(rules, random_fleet(rules, rng))
    sea = Sea(rules)
    said = []
    for _ in range(volleys):
        if sea.afloat == 0:
            break
        shots = choose_shots("random", sea, 1, rng)
        answer, defence = defence.answer(shots)
        sea = sea.apply(shots, answer)
        said.append((shots, answer))
    return sea, said


EXACT_RULES = [
    Ruleset(size=5, fleet=(3, 2, 1)),
    Ruleset(size=5, fleet=(3, 2, 2, 1), touching=Touching.CORNERS),
    Ruleset(size=6, fleet=(4, 2, 1), turns=Turns.ALTERNATE),
]


@pytest.mark.parametrize("rules", EXACT_RULES, ids=lambda r: f"{r.size}x{r.size}-{r.touching}")
def test_exact_probabilities_match_brute_force(rules: Ruleset) -> None:
    fleets = every_fleet(rules)
    for seed in range(3):
        for volleys in (4, 10):
            sea, said = position(rules, seed, volleys)
            if sea.afloat == 0:
                continue
            expected = brute_force(rules, fleets, said)
            found = hit_probabilities(sea, random.Random(0))
            if not found.exact:
                continue
            unknown = [s for s in range(rules.size**2) if not sea.known >> s & 1]
            for square in unknown:
                assert found.squares[square] == pytest.approx(expected[square], abs=1e-9)


def test_exact_counts_the_whole_opening_on_a_small_board() -> None:
    rules = EXACT_RULES[1]
    found = hit_probabilities(Sea(rules), random.Random(0), exact_limit=10**6)
    assert found.exact
    # Brute force lists the two two-mast ships both ways round.
    assert found.fleets * 2 == len(every_fleet(rules))


SAMPLED_TOLERANCE = 0.03
"""How far a sampled probability may stray from the exact one with 20,000 fleets sampled."""


@pytest.mark.parametrize("rules", EXACT_RULES[1:], ids=lambda r: f"{r.size}x{r.size}")
def test_sampled_probabilities_are_close_to_exact(rules: Ruleset) -> None:
    for seed, volleys in ((0, 0), (1, 4), (2, 8)):
        sea, _ = position(rules, seed, volleys)
        exact = hit_probabilities(sea, random.Random(0), exact_limit=10**9)
        sampled = hit_probabilities(sea, random.Random(seed), samples=20_000, exact_limit=0)
        assert exact.exact and not sampled.exact
        assert sampled.fleets == pytest.approx(exact.fleets, rel=0.05)
        for square in range(rules.size**2):
            assert sampled.squares[square] == pytest.approx(
                exact.squares[square], abs=SAMPLED_TOLERANCE
            )


def test_probabilities_sum_to_the_ship_squares_left() -> None:
    rules = PRESETS["classic"]
    sea, _ = position(rules, 3, 20)
    found = hit_probabilities(sea, random.Random(0), samples=500)
    left = rules.ship_cells - bin(sea.hit).count("1")
    assert sum(found.squares) == pytest.approx(left, rel=1e-6)


def test_density_is_repeatable_from_the_generator() -> None:
    sea, _ = position(PRESETS["classic"], 4, 10)
    first = choose_shots("density", sea, 1, random.Random(7))
    assert choose_shots("density", sea, 1, random.Random(7)) == first


def test_salvo_picks_distinct_best_squares() -> None:
    rules = PRESETS["salvo"]
    sea, _ = position(rules, 2, 0)
    shots = choose_shots("density", sea, 10, random.Random(1))
    assert len(set(shots)) == 10


def test_afloat_lengths_follow_the_sinks() -> None:
    rules = PRESETS["five-ships"]
    fleet = Fleet(((0, 1, 2, 3, 4), (10, 11, 12, 13), (20, 21, 22), (30, 31, 32), (40, 41)))
    defence = Defence(rules, fleet)
    sea = Sea(rules)
    for square in (40, 41):
        answer, defence = defence.answer((square,))
        sea = sea.apply((square,), answer)
    assert sea.sunk_names == ("destroyer",)
    assert afloat_lengths(sea) == (5, 4, 3, 3)
    classic = PRESETS["classic"]
    assert afloat_lengths(Sea(classic)) == classic.fleet


# ---------------------------------------------------------------- placement


@settings(max_examples=15, deadline=None)
@given(preset=st.sampled_from(sorted(PRESETS)), seed=st.integers(0, 2**32))
def test_hard_placements_are_legal(preset: str, seed: int) -> None:
    rules = PRESETS[preset]
    fleet = hard_fleet(rules, random.Random(seed), candidates=8)
    assert fleet_problems(rules, fleet) == []


@pytest.mark.parametrize("rules", SMALL_RULES, ids=str)
@pytest.mark.parametrize("placement", sorted(PLACEMENTS))
def test_every_placement_is_legal_on_small_boards(rules: Ruleset, placement: str) -> None:
    assert fleet_problems(rules, place_fleet(rules, placement, random.Random(3))) == []
