"""Beyond greedy: choose the shot by what it leaves for the shot after it.

``density`` fires where a ship is likeliest now.  ``lookahead_strategy``
sets beside each of the few likeliest squares the best it could do next:
a square's value is the hits expected from it *and* from the best square
once its answer is known,

    V(s) = P(s) + P(s) * max_t P(t | s hit) + (1 - P(s)) * max_t P(t | s missed),

and it fires at the square of highest value.  ``P(s)`` is ``density``'s
estimate (exact where it counts every fleet); the conditional chances come
from one weighted sample of whole consistent fleets
(``density.sample_fleets``): among the fleets that hold ``s`` and those that
do not, the weight on each other square.  A sink tells more than a hit, so
the value slightly undersells squares that may sink a ship; it is the same
for every candidate that may.

It is a bench player (``statki bench ai --strategies lookahead``), measured
against ``density`` in the README; it becomes no one's default unless it
gains there.  Pure: the generator is passed in.
"""

from __future__ import annotations

from random import Random

from statki_net.ai.density import DEFAULT_SAMPLES, FleetSample, hit_probabilities, sample_fleets
from statki_net.ai.strategies import choose_best
from statki_net.game.battle import Sea, tells_cells
from statki_net.game.board import full_board, squares_of

CANDIDATES = 4
"""The likeliest squares weighed by look-ahead; the others are not considered."""
MARGIN = 0.1
"""How far below the likeliest a candidate's chance may lie and still be weighed."""
LOOKAHEAD_SAMPLES = 1500
"""Fleets drawn for the chances after each candidate's answer."""


def _square_weights(fleets: FleetSample, unknown: int, area: int) -> list[float]:
    """Per square, the weight of the fleets with a ship there (unknown squares only)."""
    weights = [0.0] * area
    for board, weight in fleets.fleets:
        board &= unknown
        while board:
            low = board & -board
            weights[low.bit_length() - 1] += weight
            board ^= low
    return weights


def _values(
    sea: Sea, chances: tuple[float, ...], candidates: list[int], fleets: FleetSample
) -> dict[int, float]:
    """Each candidate's expected hits from it and from the best shot after its answer."""
    area = sea.rules.size * sea.rules.size
    unknown = full_board(sea.rules.size) & ~sea.known
    everywhere = _square_weights(fleets, unknown, area)
    values: dict[int, float] = {}
    for square in candidates:
        holding = FleetSample(
            tuple(fleet for fleet in fleets.fleets if fleet[0] >> square & 1), 0.0
        )
        held = sum(weight for _, weight in holding.fleets)
        missed = fleets.total - held
        if_hit = _square_weights(holding, unknown, area)
        others = [t for t in squares_of(unknown) if t != square]
        best_if_hit = max((if_hit[t] for t in others), default=0.0) / held if held else 0.0
        best_if_missed = (
            max((everywhere[t] - if_hit[t] for t in others), default=0.0) / missed
            if missed > 0
            else 0.0
        )
        chance = chances[square]
        values[square] = chance + chance * best_if_hit + (1 - chance) * best_if_missed
    return values


def lookahead_strategy(sea: Sea, count: int, rng: Random) -> tuple[int, ...]:
    """Fire at the square that does best over this shot and the next (one shot a turn)."""
    chances = hit_probabilities(sea, rng, samples=DEFAULT_SAMPLES).squares
    unknown = list(squares_of(full_board(sea.rules.size) & ~sea.known))
    ranked = sorted(unknown, key=lambda s: (-chances[s], rng.random()))
    if count != 1 or not tells_cells(sea.rules) or len(ranked) < 2:
        return choose_best(sea, chances, count, rng)
    best = chances[ranked[0]]
    candidates = [s for s in ranked[:CANDIDATES] if chances[s] >= best - MARGIN]
    if len(candidates) < 2 or best >= 1.0:
        return (ranked[0],)
    fleets = sample_fleets(sea, rng, LOOKAHEAD_SAMPLES)
    if fleets.total <= 0:
        return (ranked[0],)
    values = _values(sea, chances, candidates, fleets)
    return (max(candidates, key=lambda s: values[s]),)
