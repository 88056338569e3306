"""Beyond greedy, cheaply: in the hunt, choose the shot by the two shots it starts.

Greedy counting (``per-ship``) fires where the most positions of the
remaining ships meet.  ``two_shot_strategy`` weighs, while no hit is open
(the hunt, where greedy play is known to be weakest), each of the few
likeliest squares by the hits expected from it *and* from the best square
once its answer is known,

    V(s) = P(s) + P(s) * max_t P(t | s hit) + (1 - P(s)) * max_t P(t | s missed),

all in per-ship counting's own model, so that nothing is sampled and a
move costs a few per-ship counts (milliseconds): cheap enough to be
measured on thousands of fleets, which the sampled look-ahead
(``ai.lookahead``) was not.  With no hit open a position fits exactly
where all its squares are unknown, so the counts after either answer are
the counts now with or without the positions through ``s``:

- ``P(s)``: ``s``'s positions, scaled so the chances add up to the ship
  squares left (as ``per-ship`` ranks, the same order);
- after a hit, ``P(t | s hit)``: the share of the positions through ``s``
  of ships longer than one square (a one-square ship would be sunk) that
  also cover ``t``;
- after a miss, ``P(t | s missed)``: the counts without the positions
  through ``s``, scaled again.

While a hit is open it fires as ``per-ship`` does.  A bench player
(``statki bench ai --strategies two-shot``), measured in the README.
Pure: the generator is passed in, only to break ties.
"""

from __future__ import annotations

from collections import Counter
from random import Random

from statki_net.ai.density import afloat_lengths, per_ship_scores, target_hits
from statki_net.ai.strategies import choose_best
from statki_net.game.battle import Sea, tells_cells
from statki_net.game.board import full_board, popcount, squares_of
from statki_net.game.fleet import placements

CANDIDATES = 6
"""The likeliest squares weighed; the others are not considered."""
MARGIN = 0.15
"""How far below the likeliest a candidate's chance may lie and still be weighed."""


def _fitting(sea: Sea, free: int) -> list[tuple[int, float, int]]:
    """Every position of a remaining ship on unknown squares only: (squares, count, length)."""
    fitting = []
    for length, many in Counter(afloat_lengths(sea)).items():
        for ship, _halo in placements(sea.rules, length):
            if not ship & ~free:
                fitting.append((ship, float(many), length))
    return fitting


def _best_share(weights: dict[int, float], total: float) -> float:
    return max(weights.values(), default=0.0) / total if total > 0 else 0.0


def two_shot_values(sea: Sea, candidates: list[int]) -> dict[int, float]:
    """Each candidate's expected hits from it and from the best shot after its answer.

    Only for a view with no open hit (``target_hits(sea) == 0``).
    """
    free = full_board(sea.rules.size) & ~sea.known
    fitting = _fitting(sea, free)
    scores = per_ship_scores(sea)
    total = sum(scores[s] for s in squares_of(free))
    left = sea.rules.ship_cells - popcount(sea.hit)
    values: dict[int, float] = {}
    for square in candidates:
        mask = 1 << square
        through: dict[int, float] = {}
        longer: dict[int, float] = {}
        through_weight = longer_weight = 0.0
        for ship, many, length in fitting:
            if not ship & mask:
                continue
            through_weight += many
            if length > 1:
                longer_weight += many
            for other in squares_of(ship & ~mask):
                through[other] = through.get(other, 0.0) + many
                if length > 1:
                    longer[other] = longer.get(other, 0.0) + many
        chance = min(1.0, scores[square] * left / total) if total > 0 else 0.0
        if_hit = _best_share(longer, longer_weight)
        # A miss takes away every position through the square; what stays is rescaled.
        rest_total = total - scores[square] - sum(through.values())
        rest = {t: scores[t] - through.get(t, 0.0) for t in squares_of(free & ~mask)}
        if_missed = min(1.0, left * _best_share(rest, rest_total))
        values[square] = chance + chance * if_hit + (1 - chance) * if_missed
    return values


def two_shot_strategy(sea: Sea, count: int, rng: Random) -> tuple[int, ...]:
    """In the hunt, fire where this shot and the next do best; else as ``per-ship``."""
    scores = per_ship_scores(sea)
    if count != 1 or not tells_cells(sea.rules) or target_hits(sea):
        return choose_best(sea, scores, count, rng)
    free = full_board(sea.rules.size) & ~sea.known
    total = sum(scores[s] for s in squares_of(free))
    ranked = sorted(squares_of(free), key=lambda s: (-scores[s], rng.random()))
    if total <= 0 or len(ranked) < 2:
        return choose_best(sea, scores, count, rng)
    left = sea.rules.ship_cells - popcount(sea.hit)
    best = scores[ranked[0]] * left / total
    candidates = [s for s in ranked[:CANDIDATES] if scores[s] * left / total >= best - MARGIN]
    if len(candidates) < 2:
        return (ranked[0],)
    values = two_shot_values(sea, candidates)
    # ``max`` keeps the first of equal values: the likeliest, ties already broken by ``rng``.
    return (max(candidates, key=lambda s: values[s]),)
