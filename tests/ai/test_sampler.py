"""The sampler's bitboard tables: the same positions as ``placements``, and fair draws."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from statki_net.ai.density import _cover_odds, _covers, _lines, read_view
from statki_net.ai.strategies import hit_probabilities
from statki_net.game.battle import Defence, Sea
from statki_net.game.board import full_board, squares_of
from statki_net.game.fleet import Fleet, placements
from statki_net.game.rules import PRESETS, Ruleset, Touching, Turns

RULES = [
    PRESETS["classic"],
    PRESETS["corners"],
    PRESETS["five-ships"],
    Ruleset(size=5, fleet=(3, 1)),
]


@settings(max_examples=60, deadline=None)
@given(rules=st.sampled_from(RULES), seed=st.integers(0, 2**32), density=st.floats(0.3, 1.0))
def test_lines_fit_exactly_the_positions_on_free_squares(
    rules: Ruleset, seed: int, density: float
) -> None:
    rng = random.Random(seed)
    free = sum(1 << s for s in range(rules.size**2) if rng.random() < density)
    for length in set(rules.fleet):
        expected = {(ship, halo) for ship, halo in placements(rules, length) if not ship & ~free}
        found = {
            (line.ships[first], line.halos[first])
            for line in _lines(rules, length)
            for first in squares_of(line.fitting(free))
        }
        assert found == expected
        assert sum(len(line.first_squares) for line in _lines(rules, length)) == len(
            placements(rules, length)
        )


TOUCHING = Ruleset(
    size=5,
    fleet=(3, 2, 2),
    names=("cruiser", "submarine", "destroyer"),
    touching=Touching.ANY,
    turns=Turns.ALTERNATE,
    name_sunk=True,
)


@pytest.mark.parametrize(
    "rules", [TOUCHING, Ruleset(size=6, fleet=(3, 2, 1, 1))], ids=["touching", "apart"]
)
def test_sampled_probabilities_are_close_to_exact_where_ships_may_touch_or_not(
    rules: Ruleset,
) -> None:
    fleet = Fleet(((0, 1, 2), (7, 12), (13, 14))) if rules is TOUCHING else None
    sea = Sea(rules)
    if fleet is not None:
        # A hit, a sink beside it, and misses: covers, clues and free squares all play a part.
        defence = Defence(rules, fleet)
        for square in (12, 7, 24, 20, 4):
            answer, defence = defence.answer((square,))
            sea = sea.apply((square,), answer)
    exact = hit_probabilities(sea, random.Random(0), exact_limit=10**9)
    sampled = hit_probabilities(sea, random.Random(1), samples=20_000, exact_limit=0)
    assert exact.exact and not sampled.exact
    assert sampled.fleets == pytest.approx(exact.fleets, rel=0.05)
    for square in squares_of(full_board(rules.size) & ~sea.known):
        assert sampled.squares[square] == pytest.approx(exact.squares[square], abs=0.03)


def test_cover_odds_follow_the_pilot_and_keep_every_cover_drawable() -> None:
    odds = _cover_odds([3.0, 1.0, 0.0, 0.0])
    assert odds is not None and sum(odds) == pytest.approx(1.0)
    assert odds[0] == pytest.approx(0.8 * 0.75 + 0.05) and odds[2] == pytest.approx(0.05)
    assert _cover_odds([5.0]) is None, "one cover: the samples stay as they were"
    assert _cover_odds([0.0, 0.0]) is None


def test_hits_far_apart_many_covers_sampled_close_to_exact() -> None:
    # Two lone hits in opposite corners: every pair of ships through them is a cover.
    fleet = Fleet(((0, 1, 2), (23, 24), (10, 15)))
    sea, defence = Sea(TOUCHING), Defence(TOUCHING, fleet)
    for square in (0, 24, 12):
        answer, defence = defence.answer((square,))
        sea = sea.apply((square,), answer)
    assert len(_covers(read_view(sea))) > 10
    exact = hit_probabilities(sea, random.Random(0), exact_limit=10**9)
    sampled = hit_probabilities(sea, random.Random(1), samples=20_000, exact_limit=0)
    assert exact.exact and not sampled.exact
    assert sampled.fleets == pytest.approx(exact.fleets, rel=0.05)
    for square in squares_of(full_board(TOUCHING.size) & ~sea.known):
        assert sampled.squares[square] == pytest.approx(exact.squares[square], abs=0.03)
