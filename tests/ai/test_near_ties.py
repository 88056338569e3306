"""Five-ships hunt: among the squares near the likeliest, per-ship's counts choose."""

from __future__ import annotations

import random

import pytest

from statki_net.ai.strategies import (
    NEAR_BEST,
    choose_best,
    density_strategy,
    hit_probabilities,
    near_ties_by_counts,
    per_ship_scores,
    target_hits,
)
from statki_net.game.battle import Answer, Outcome, Sea
from statki_net.game.rules import Ruleset, ruleset_named

FIVE_SHIPS = ruleset_named("five-ships")
CLASSIC = ruleset_named("classic")


def test_near_ties_go_first_in_the_counts_order_and_the_rest_keep_their_chances() -> None:
    chances = [0.30, 0.295, 0.31, 0.10, 0.0]
    counts = [5.0, 9.0, 1.0, 20.0, 30.0]
    scores = near_ties_by_counts(chances, counts)
    ranked = sorted(range(len(chances)), key=lambda s: -scores[s])
    assert ranked[:3] == [1, 0, 2]  # all three within NEAR_BEST of 0.31, by count
    assert scores[3] == 0.10  # far below the best: its own chance, whatever its count
    assert scores[4] == 0.0  # no ship fits there: never a near tie
    assert 0.31 - 0.295 < NEAR_BEST < 0.31 - 0.10


def test_the_five_ships_opening_is_one_of_the_four_centre_squares() -> None:
    # Per-ship counts the four centre squares highest (34 positions each) and
    # the whole-fleet chances of the centre 4x4 lie within the sample's noise
    # of one another: the counts, not the noise, choose among them.
    sea = Sea(FIVE_SHIPS)
    counts = per_ship_scores(sea)
    centre = {44, 45, 54, 55}
    assert {s for s, c in enumerate(counts) if c == max(counts)} == centre
    shots = [density_strategy(sea, 1, random.Random(seed))[0] for seed in range(24)]
    assert set(shots) <= centre


def _after(sea: Sea, *moves: tuple[int, Outcome]) -> Sea:
    for square, outcome in moves:
        sea = sea.apply((square,), Answer.single(outcome))
    return sea


@pytest.mark.parametrize(
    ("rules", "moves"),
    [
        (CLASSIC, ()),  # classic: no change at all
        (CLASSIC, ((44, Outcome.MISS), (45, Outcome.MISS))),
        (FIVE_SHIPS, ((44, Outcome.HIT),)),  # a hit open: aimed as before
    ],
)
def test_elsewhere_density_fires_by_its_chances_alone(
    rules: Ruleset, moves: tuple[tuple[int, Outcome], ...]
) -> None:
    sea = _after(Sea(rules), *moves)
    assert rules is CLASSIC or target_hits(sea)
    for seed in range(3):
        rng = random.Random(seed)
        chances = hit_probabilities(sea, rng).squares
        expected = choose_best(sea, chances, 1, rng)
        assert density_strategy(sea, 1, random.Random(seed)) == expected
