"""Where a ship may still stand: never less than any consistent fleet, and beside hits
only as part of them where ships may not touch (the client's hints shade the rest)."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from listed_fleets import consistent, every_fleet

from statki_net.ai.density import ship_room, target_hits
from statki_net.game.battle import Answer, Defence, Outcome, Sea
from statki_net.game.board import all_neighbours, full_board, parse_square, spread, squares_of
from statki_net.game.fleet import random_fleet
from statki_net.game.rules import PRESETS, Ruleset, Touching, Turns

SMALL = {
    touching: Ruleset(size=5, fleet=(3, 2, 1), touching=touching, turns=Turns.ALTERNATE)
    for touching in Touching
}
"""One small ruleset per touching rule: a few thousand fleets each, all listed."""


def afloat_squares_of_every_fleet(rules: Ruleset, said: list[tuple[int, Answer]]) -> int:
    """Unshot squares that hold a ship in some fleet answering every shot as answered."""
    held = 0
    for defence in consistent(rules, every_fleet(rules), [((s,), answer) for s, answer in said]):
        held |= defence.fleet.board & ~defence.shot
    return held


@settings(max_examples=60, deadline=None)
@given(
    touching=st.sampled_from(list(Touching)),
    seed=st.integers(0, 2**32),
    shots=st.integers(1, 14),
)
def test_ship_room_keeps_every_square_a_consistent_fleet_uses(
    touching: Touching, seed: int, shots: int
) -> None:
    rules = SMALL[touching]
    rng = random.Random(seed)
    fleet = random_fleet(rules, rng)
    order = list(range(rules.size**2))
    rng.shuffle(order)
    # Ship squares first, more often than not, so hits and lines of hits come up.
    order.sort(key=lambda s: not (fleet.board >> s & 1 and rng.random() < 0.6))
    sea, defence, said = Sea(rules), Defence(rules, fleet), []
    for square in order[:shots]:
        answer, defence = defence.answer((square,))
        sea = sea.apply((square,), answer)
        said.append((square, answer))
    room = ship_room(sea)
    free = full_board(rules.size) & ~sea.known
    assert room & ~free == 0
    held = afloat_squares_of_every_fleet(rules, said)
    assert held & free & ~room == 0, "a square some fleet uses was ruled out"
    if touching is Touching.NONE:
        # A square touching a hit (side or corner) holds a ship only as part of that hit's
        # line; a square off the line, at a corner of a hit, can hold none.
        targets = target_hits(sea)
        for hit in squares_of(targets):
            row, column = divmod(hit, rules.size)
            for square in squares_of(spread(1 << hit, all_neighbours(rules.size)) & free):
                if square // rules.size != row and square % rules.size != column:
                    assert not room >> square & 1


def _hit(sea: Sea, *names: str) -> Sea:
    for name in names:
        sea = sea.apply((parse_square(name),), Answer.single(Outcome.HIT))
    return sea


def test_a_line_of_hits_rules_out_its_sides_and_corners_under_classic() -> None:
    # The tester's sea: B1, C1, D1 hit and not sunk.  Nothing of row 2 from A to E can
    # hold a ship, and on row 1 only A1 and E1 (the line's ends) still may.
    sea = _hit(Sea(PRESETS["classic"]), "B1", "C1", "D1")
    room = ship_room(sea)
    for name in ("A2", "B2", "C2", "D2", "E2"):
        assert not room >> parse_square(name) & 1, name
    for name in ("A1", "E1", "F2", "A3"):
        assert room >> parse_square(name) & 1, name


@pytest.mark.parametrize("preset", ["corners", "five-ships"])
def test_sides_of_a_line_of_hits_are_ruled_out_where_corners_may_touch(preset: str) -> None:
    rules = PRESETS[preset]
    sea = _hit(Sea(rules), "B1", "C1", "D1")
    room = ship_room(sea)
    beside = all(not room >> parse_square(name) & 1 for name in ("B2", "C2", "D2"))
    # Corners may touch, so A2 and E2 may hold a ship; where any ship may touch, so may B2.
    assert beside is (rules.touching is Touching.CORNERS)
    assert room >> parse_square("A2") & 1 and room >> parse_square("E2") & 1
