"""Every fleet of a small ruleset, listed, and those that answer a game's volleys as
they were answered: the brute force the computer players' counting is checked against."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from functools import cache

from statki_net.game.battle import Answer, Defence, Outcome
from statki_net.game.board import squares_of
from statki_net.game.fleet import Fleet, placements
from statki_net.game.rules import Ruleset

Said = Sequence[tuple[tuple[int, ...], Answer]]
"""Volleys in the order fired, each with its answer."""


@cache
def every_fleet(rules: Ruleset) -> tuple[Fleet, ...]:
    """Every legal fleet, ship ``i`` of length ``rules.fleet[i]`` (equal ships in every
    order).  Listed when first asked for, once in a run: not in every worker's collection."""
    options = [placements(rules, length) for length in rules.fleet]

    def extend(index: int, taken: int, ships: tuple[int, ...]) -> Iterator[Fleet]:
        if index == len(options):
            yield Fleet(tuple(tuple(squares_of(ship)) for ship in ships))
            return
        for ship, around in options[index]:
            if not ship & taken:
                yield from extend(index + 1, taken | around, (*ships, ship))

    return tuple(extend(0, 0, ()))


def consistent(rules: Ruleset, fleets: Sequence[Fleet], said: Said) -> list[Defence]:
    """The defences (fleet and shots) of every fleet that answers every volley as answered.

    A fleet with water where a shot hit, or a ship where a first shot missed, is passed
    over without the replay, which only the sinks need: most fleets fail that way, and
    the replay is most of the time."""
    ships, water = _told(said)
    found = []
    for fleet in fleets:
        if fleet.board & water or ships & ~fleet.board:
            continue
        defence = Defence(rules, fleet)
        for shots, answer in said:
            truth, defence = defence.answer(shots)
            if truth != answer:
                break
        else:
            found.append(defence)
    return found


def _told(said: Said) -> tuple[int, int]:
    """The squares the answers say hold a ship, and those they say are water: a shot at a
    square shot before is a miss whatever it holds, so only a first shot's miss counts."""
    ships = water = shot = 0
    for shots, answer in said:
        for square, outcome in zip(shots, answer.outcomes, strict=False):
            if outcome is not Outcome.MISS:
                ships |= 1 << square
            elif not shot >> square & 1:
                water |= 1 << square
            shot |= 1 << square
    return ships, water
