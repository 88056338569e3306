"""Beyond greedy by playing on: choose the shot by how the rest of the game goes after it.

``density`` fires where a ship is likeliest now.  ``rollout_strategy``
takes, in the hunt (no hit may belong to a ship afloat) and in the endgame
(few ships afloat), the few likeliest squares by ``density``'s chances, and
for each one plays the rest of the game out against the same ``FLEETS``
whole fleets drawn from those consistent with the view
(``density.sample_fleet_ships``, drawn again in proportion to their weights,
so they stand for the uniform distribution over consistent fleets).  It
fires at the square whose games ended soonest on average, if they beat
the likeliest square's games by ``GATE`` standard errors on the same
fleets; otherwise at the likeliest square.  Every candidate meets the same fleets (common random
numbers), so the differences between candidates are not the noise of
different draws.  Elsewhere it fires as ``density`` does.

The games are played out by a cheap base policy on bitboards, which is
told each sunk ship's squares (the sampled fleet knows them; this only
makes the base player a little better than the real view allows, the same
for every candidate):

- with a hit open, the unknown square that extends a line of two open hits,
  else one beside an open hit;
- otherwise the square the most positions of the ships afloat cover
  (``per-ship`` counting, in bit-sliced counters);
- ties to the square likeliest before the first shot
  (``strategies.opening_odds``), so the base player draws nothing.

The work a move is bounded: ``CANDIDATES`` times ``FLEETS`` games, each at most
the board's squares long.  A bench player (``statki bench ai --strategies
rollout``), measured in the README ("Rollouts"); no one's default unless it
gains there.  Pure: the generator is passed in.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from random import Random

from statki_net.ai.density import (
    DEFAULT_SAMPLES,
    hit_probabilities,
    sample_fleet_ships,
    target_hits,
)
from statki_net.ai.strategies import choose_best, opening_odds
from statki_net.game.battle import Sea, tells_cells
from statki_net.game.board import full_board, squares_of
from statki_net.game.fleet import placements
from statki_net.game.rules import Ruleset, Touching

CANDIDATES = 4
"""The likeliest squares played out; the others are not considered."""
MARGIN = 0.15
"""How far below the likeliest a candidate's chance may lie and still be played out."""
FLEETS = 16
"""Fleets each candidate is played out against (the same ones for every candidate)."""
POOL = 64
"""Weighted fleets drawn, from which the ``FLEETS`` are drawn again by weight."""
ENDGAME = 2
"""Ships afloat at or below which hits open no longer stop the rollouts."""
GATE = 2.0
"""Standard errors by which a square's games must beat the likeliest square's to be fired.

The games of two first shots differ by 5-9 shots a fleet even on the same
fleets (the base player's game forks at once), against true differences of
tenths of a shot, so on a few fleets the smallest mean is mostly noise.
Measured on 300 five-ships fleets: 0, 1 and 2 all within a standard error
of ``density``; under classic (100 fleets) 2 lost least (README, "Rollouts")."""


@dataclass(frozen=True)
class _Board:
    """What the base policy needs of the board, computed once per ruleset."""

    size: int
    full: int
    order: tuple[int, ...]
    """Every square, likeliest to hold a ship before the first shot first."""
    not_first_column: int
    not_last_column: int
    lines: dict[int, tuple[tuple[int, tuple[int, ...]], ...]]
    """Per length: for each way a ship lies, the squares it may begin on and its shifts."""
    halos: dict[int, int]
    """Per ship position: the squares a sink marks (nothing where ships may touch)."""
    marks: bool


@cache
def _board(rules: Ruleset) -> _Board:
    size = rules.size
    full = full_board(size)
    odds = opening_odds(rules)
    order = tuple(sorted(range(size * size), key=lambda s: (-odds[s], s)))
    first = sum(1 << (r * size) for r in range(size))
    last = first << (size - 1)
    lines: dict[int, tuple[tuple[int, tuple[int, ...]], ...]] = {}
    halos: dict[int, int] = {}
    for length in set(rules.fleet):
        by_step: dict[int, int] = {}
        for ship, halo in placements(rules, length):
            start = (ship & -ship).bit_length() - 1
            step = 1 if length == 1 or ship >> (start + 1) & 1 else size
            by_step[step] = by_step.get(step, 0) | 1 << start
            halos[ship] = halo & ~ship
        lines[length] = tuple(
            (starts, tuple(step * k for k in range(1, length)))
            for step, starts in sorted(by_step.items())
        )
    return _Board(
        size,
        full,
        order,
        full & ~first,
        full & ~last,
        lines,
        halos,
        rules.touching is not Touching.ANY,
    )


def _first_in(board: _Board, squares: int) -> int:
    for square in board.order:
        if squares >> square & 1:
            return square
    return -1


def _add(counter: list[int], squares: int) -> None:
    """Add one to the bit-sliced count of every square of ``squares``."""
    for level, bits in enumerate(counter):
        counter[level] = bits ^ squares
        squares &= bits
        if not squares:
            return
    counter.append(squares)


def _most_counted(counter: list[int], among: int) -> int:
    """The squares of ``among`` with the highest bit-sliced count."""
    for bits in reversed(counter):
        if among & bits:
            among &= bits
    return among


def _densest(board: _Board, free: int, afloat: Sequence[int]) -> int:
    """The free squares the most positions of the ships afloat cover (per-ship counting)."""
    counter: list[int] = []
    for ship in afloat:
        for starts, shifts in board.lines[ship.bit_count()]:
            fit = starts & free
            for shift in shifts:
                fit &= free >> shift
            if fit:
                _add(counter, fit)
                for shift in shifts:
                    _add(counter, fit << shift)
    return _most_counted(counter, free) if counter else free


def _base_shot(board: _Board, known: int, open_hits: int, afloat: Sequence[int]) -> int:
    """The base policy's next square: finish what is hit, else where most ships fit."""
    unknown = board.full & ~known
    if open_hits:
        n = board.size
        east = (open_hits & board.not_last_column) << 1
        west = (open_hits & board.not_first_column) >> 1
        south = (open_hits << n) & board.full
        north = open_hits >> n
        in_line = (
            ((east & open_hits & board.not_last_column) << 1)
            | ((west & open_hits & board.not_first_column) >> 1)
            | ((south & open_hits) << n)
            | ((north & open_hits) >> n)
        ) & unknown
        if in_line:
            return _first_in(board, in_line)
        beside = (east | west | south | north) & unknown
        if beside:
            return _first_in(board, beside)
    return _first_in(board, _densest(board, unknown, afloat))


def _play_out(
    board: _Board, ships: tuple[int, ...], known: int, hits: int, first: int, limit: int
) -> int:
    """Shots to sink every ship of ``ships`` from the view (``known``, ``hits``), firing ``first``.

    The view's hits are taken as they lie in this fleet: a ship wholly hit is
    sunk, the other hits are open.  At most ``limit`` shots are counted.
    """
    afloat = [ship for ship in ships if ship & ~hits]
    sunk = 0
    for ship in ships:
        if not ship & ~hits:
            sunk |= ship
    open_hits = hits & ~sunk
    shots = 0
    square = first
    while afloat and shots < limit:
        shots += 1
        mask = 1 << square
        known |= mask
        for ship in afloat:
            if ship & mask:
                hits |= mask
                if ship & ~hits:
                    open_hits |= mask
                else:
                    afloat.remove(ship)
                    open_hits &= ~ship
                    if board.marks:
                        known |= board.halos[ship]
                break
        if afloat:
            square = _base_shot(board, known, open_hits, afloat)
    return shots


def rollout_shots(
    sea: Sea, candidates: Sequence[int], fleets: Sequence[tuple[int, ...]]
) -> dict[int, list[int]]:
    """Per candidate, the shots each of ``fleets`` took to sink, firing the candidate first."""
    board = _board(sea.rules)
    limit = sea.rules.size * sea.rules.size
    return {
        square: [_play_out(board, ships, sea.known, sea.hit, square, limit) for ships in fleets]
        for square in candidates
    }


def _drawn_fleets(sea: Sea, rng: Random) -> list[tuple[int, ...]]:
    """``FLEETS`` fleets standing for the uniform consistent ones: drawn again by weight."""
    pool = sample_fleet_ships(sea, rng, POOL)
    if not pool:
        return []
    return rng.choices([ships for ships, _ in pool], [weight for _, weight in pool], k=FLEETS)


def _clearly_better(shots: list[int], greedy: list[int]) -> bool:
    """Whether ``shots`` beat ``greedy``'s on the same fleets by ``GATE`` standard errors."""
    differences = [a - b for a, b in zip(shots, greedy, strict=True)]
    mean = sum(differences) / len(differences)
    spread = sum((d - mean) ** 2 for d in differences) / max(1, len(differences) - 1)
    return mean + GATE * math.sqrt(spread / len(differences)) < 0


def rollout_strategy(sea: Sea, count: int, rng: Random) -> tuple[int, ...]:
    """In the hunt and the endgame, fire where the games played on end soonest; else greedy."""
    chances = hit_probabilities(sea, rng, samples=DEFAULT_SAMPLES).squares
    if count != 1 or not tells_cells(sea.rules):
        return choose_best(sea, chances, count, rng)
    if sea.afloat > ENDGAME and target_hits(sea):
        return choose_best(sea, chances, count, rng)
    unknown = full_board(sea.rules.size) & ~sea.known
    ranked = sorted(squares_of(unknown), key=lambda s: (-chances[s], rng.random()))
    if len(ranked) < 2 or chances[ranked[0]] >= 1.0:
        return choose_best(sea, chances, count, rng)
    best = chances[ranked[0]]
    candidates = [s for s in ranked[:CANDIDATES] if chances[s] >= best - MARGIN]
    if len(candidates) < 2:
        return (ranked[0],)
    fleets = _drawn_fleets(sea, rng)
    if not fleets:
        return (ranked[0],)
    shots = rollout_shots(sea, candidates, fleets)
    # ``min`` keeps the first of equal sums: the likeliest, ties already broken by ``rng``.
    pick = min(candidates, key=lambda s: sum(shots[s]))
    if pick != ranked[0] and not _clearly_better(shots[pick], shots[ranked[0]]):
        return (ranked[0],)
    return (pick,)
