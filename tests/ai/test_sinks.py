"""Where ships may touch, a sink tells its square, its name and when it came.

The sunk ship holds the sinking shot and only hits made before it.  These
tests count every fleet on small boards (brute force, through the real
``Defence``) and check that the shooter's models agree with what the answers
allow, and that forgetting the order of the shots would change the count.
"""

from __future__ import annotations

import random
from dataclasses import replace

import listed_fleets
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from listed_fleets import Said, every_fleet

from statki_net.ai.strategies import choose_shots, hit_probabilities, target_hits
from statki_net.cli.bench import bench_player
from statki_net.game.battle import Answer, Defence, Sea
from statki_net.game.board import bit, bitboard_of, squares_of
from statki_net.game.fleet import Fleet, random_fleet
from statki_net.game.rules import PRESETS, Ruleset, Touching, Turns

NAMED = Ruleset(
    size=4,
    fleet=(3, 2, 2),
    names=("cruiser", "submarine", "destroyer"),
    touching=Touching.ANY,
    turns=Turns.ALTERNATE,
    name_sunk=True,
)
"""Touching ships, named sinks: small enough to list all 9,000-odd fleets."""
UNNAMED = replace(NAMED, names=(), name_sunk=False)
"""The same without names: a sink tells only its square."""


def consistent(rules: Ruleset, said: Said) -> list[Defence]:
    """The defences (fleet and shots) of every fleet that answers every volley as answered."""
    return listed_fleets.consistent(rules, every_fleet(rules), said)


def exact_odds(rules: Ruleset, said: Said) -> list[float]:
    defences = consistent(rules, said)
    held = [0] * (rules.size * rules.size)
    for defence in defences:
        for square in squares_of(defence.fleet.board):
            held[square] += 1
    return [h / len(defences) for h in held]


def live_hits(rules: Ruleset, said: Said) -> int:
    """Hits that belong to a ship still afloat in some consistent fleet."""
    live = 0
    for defence in consistent(rules, said):
        sunk = set(defence.sunk_ships())
        for index, ship in enumerate(defence.fleet.ships):
            if index not in sunk:
                live |= bitboard_of(ship) & defence.shot
    return live


def replay(rules: Ruleset, fleet: Fleet, shots: list[int]) -> tuple[Sea, Said]:
    defence, sea = Defence(rules, fleet), Sea(rules)
    said: list[tuple[tuple[int, ...], Answer]] = []
    for square in shots:
        answer, defence = defence.answer((square,))
        sea = sea.apply((square,), answer)
        said.append(((square,), answer))
    return sea, said


def forgetful(sea: Sea) -> Sea:
    """The view without the order of the shots: a sunk ship may lie on any hit."""
    return replace(sea, sunk_open=())


# The destroyer on A1-B1 sinks at B1; C1 is hit only afterwards (the
# submarine's).  Forgetting the order, the destroyer may lie on B1-C1 and
# A1 be the cruiser's or the submarine's.
DESTROYER_FIRST = Fleet(((8, 9, 10), (2, 3), (0, 1)))
SHOTS = [0, 1, 2]


@pytest.mark.parametrize("rules", [NAMED, UNNAMED], ids=["named", "unnamed"])
def test_the_sunk_ship_lies_on_hits_made_before_it(rules: Ruleset) -> None:
    sea, said = replay(rules, DESTROYER_FIRST, SHOTS)
    expected = exact_odds(rules, said)
    found = hit_probabilities(sea, random.Random(0), exact_limit=10**6)
    assert found.exact
    assert found.squares == pytest.approx(
        [0.0 if sea.known >> s & 1 else p for s, p in enumerate(expected)], abs=1e-9
    )
    # Without the order the count is wrong: the constraint is what makes it right.
    careless = hit_probabilities(forgetful(sea), random.Random(0), exact_limit=10**6)
    assert max(abs(a - b) for a, b in zip(careless.squares, found.squares, strict=True)) > 0.05


@pytest.mark.parametrize("rules", [NAMED, UNNAMED], ids=["named", "unnamed"])
def test_hits_of_the_sunk_ship_are_no_targets(rules: Ruleset) -> None:
    sea, said = replay(rules, DESTROYER_FIRST, SHOTS)
    assert target_hits(sea) == live_hits(rules, said) == bit(2)
    assert target_hits(forgetful(sea)) & bit(0)
    # per-ship aims only through the live hit C1: C2 has two positions (C1-C2,
    # C1-C3), D1 and C3 one each.  Taking A1 for a target would tie A2 with C2.
    shots = {choose_shots("per-ship", sea, 1, random.Random(seed))[0] for seed in range(8)}
    assert shots == {6}


@settings(max_examples=40, deadline=None)
@given(
    rules=st.sampled_from([NAMED, UNNAMED]),
    seed=st.integers(0, 2**32),
    volleys=st.integers(3, 12),
)
def test_exact_probabilities_and_targets_match_brute_force(
    rules: Ruleset, seed: int, volleys: int
) -> None:
    rng = random.Random(seed)
    fleet = random_fleet(rules, rng)
    board = list(range(rules.size * rules.size))
    rng.shuffle(board)
    # Fire at ship squares first, more often than not, so sinks and touching hits come up.
    ships = [s for s in board if fleet.board >> s & 1]
    water = [s for s in board if not fleet.board >> s & 1]
    order = []
    while ships or water:
        source = ships if ships and (not water or rng.random() < 0.7) else water
        order.append(source.pop())
    sea, said = replay(rules, fleet, order[:volleys])
    if sea.afloat == 0:
        return
    expected = exact_odds(rules, said)
    found = hit_probabilities(sea, random.Random(0), exact_limit=10**6)
    assert found.exact
    for square in squares_of(~sea.known & ((1 << rules.size**2) - 1)):
        assert found.squares[square] == pytest.approx(expected[square], abs=1e-9)
    # Targets may include a hit no fleet leaves afloat, never miss one that some fleet does.
    live = live_hits(rules, said)
    assert live & ~target_hits(sea) == 0


def test_per_ship_fires_along_the_hits_it_lines_up_with() -> None:
    # Five-ships: D4 hit, then its other sides missed, then C4 hit.  The two
    # hits are one ship lying along row 4 or two ships crossing it; counting
    # positions by the hits they explain once each fired across, below C4 (C5),
    # where many short ships fit.  Lined up, the pair is finished along its row.
    rules = PRESETS["five-ships"]
    fleet = Fleet(((59, 69, 79, 89, 99), (30, 31, 32, 33), (28, 38, 48), (61, 62, 63), (80, 90)))
    sea, defence = Sea(rules), Defence(rules, fleet)
    for square in (44, 55, 33, 34, 43, 23, 32):
        answer, defence = defence.answer((square,))
        sea = sea.apply((square,), answer)
    assert target_hits(sea) == bit(32) | bit(33)
    shots = {choose_shots("per-ship", sea, 1, random.Random(seed))[0] for seed in range(4)}
    assert shots == {31}


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32), volleys=st.integers(3, 10))
def test_players_fire_only_where_some_fleet_the_sinks_allow_has_a_ship(
    seed: int, volleys: int
) -> None:
    # Named sinks, as under five-ships: the whole-fleet players and per-ship
    # counting never fire at a square every consistent fleet leaves empty.
    # (Unnamed, per-ship and hunt may: their targets are the hits some
    # layout of the sunk ships leaves open, covered by the ships afloat or not.)
    rng = random.Random(seed)
    fleet = random_fleet(NAMED, rng)
    order = list(range(NAMED.size**2))
    rng.shuffle(order)
    order.sort(key=lambda s: not (fleet.board >> s & 1 and rng.random() < 0.7))
    sea, said = replay(NAMED, fleet, order[:volleys])
    if sea.afloat == 0:
        return
    odds = exact_odds(NAMED, said)
    for name in ("per-ship", "density", "lookahead", "two-shot", "rollout"):
        (square,) = bench_player(name)(sea, 1, random.Random(seed))
        assert odds[square] > 0, name
